"""``pull --layout agent`` against real npm servers: three servers pulled one after another into
one tree, their tools called through the per-tool modules from a script (answers compared with
what the servers say), the script and the tree clean under ``mypy --strict``, and mcp.json
holding environment variable names only."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from pull_support import cli, npm_servers

SECRET = "s3cret-value-never-written"


@pytest.fixture(scope="module")
def pulled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    servers = npm_servers()
    tree = tmp_path_factory.mktemp("agent") / "tree"
    files = tmp_path_factory.mktemp("allowed")
    (files / "hello.txt").write_text("hello from a file\n", "utf-8")
    runs = [
        ("--stdio", shlex.join(servers["everything"]), "--env", f"EVERYTHING_TOKEN={SECRET}"),
        ("--stdio", shlex.join([*servers["filesystem"], str(files)]), "--name", "files"),
        ("--stdio", shlex.join(servers["everything-2024"]), "--name", "legacy", "--skill", "server"),
    ]
    for run in runs:
        proc = cli("pull", *run, "--layout", "agent", "-o", str(tree), "--timeout", "60", timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return tree, files


def test_three_pulls_make_one_tree(pulled: tuple[Path, Path]) -> None:
    tree, _ = pulled
    readme = (tree / "servers" / "README.md").read_text("utf-8")
    listed = [line.split(" ", 2)[1] for line in readme.splitlines() if line.startswith("- ")]
    assert listed == ["everything", "files", "legacy"]
    assert sorted(p.name for p in (tree / "specs").iterdir()) == ["everything.yaml", "files.yaml", "legacy.yaml"]
    assert (tree / "servers" / "everything" / "echo.py").is_file()
    assert (tree / "servers" / "files" / "read_text_file.py").is_file()
    assert (tree / "skills" / "legacy" / "SKILL.md").is_file()


def test_mcp_json_names_the_variables_and_holds_no_value(pulled: tuple[Path, Path]) -> None:
    tree, files = pulled
    config = json.loads((tree / "servers" / "mcp.json").read_text("utf-8"))
    entries = config["mcpServers"]
    assert sorted(entries) == ["everything", "files", "legacy"]
    assert entries["everything"]["env"] == {"EVERYTHING_TOKEN": "${EVERYTHING_TOKEN}"}
    assert entries["files"]["args"][-1] == str(files)
    assert entries["files"]["command"] == npm_servers()["filesystem"][0]
    for path in tree.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text("utf-8", errors="replace"), path


SCRIPT = '''
import asyncio

import servers
from servers.everything import echo, echo_async, get_sum
from servers.files import list_allowed_directories, read_text_file
from servers.legacy import add

hits: list[str] = servers.search_tools("echo", detail="name")
print(hits)
print(echo(message="hello agent").text())
print(get_sum(a=2, b=40).text())
print(asyncio.run(echo_async(message="awaited")).text())
print(add(a=3, b=4).text())
print(read_text_file(path=FILE).content)
print(list_allowed_directories().content)
'''


def test_a_script_calls_the_tools_through_the_modules(pulled: tuple[Path, Path]) -> None:
    tree, files = pulled
    script = tree / "agent_script.py"
    script.write_text(SCRIPT.replace("FILE", repr(str(files / "hello.txt"))), "utf-8")
    env = {**os.environ, "EVERYTHING_TOKEN": "t"}
    proc = subprocess.run([sys.executable, "agent_script.py"], cwd=tree, capture_output=True, text=True, timeout=600,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "['servers.everything.echo', 'servers.legacy.echo']"
    assert lines[1] == "Echo: hello agent"  # what the everything server answers
    assert lines[2] == "The sum of 2 and 40 is 42."
    assert lines[3] == "Echo: awaited"
    assert lines[4] == "The sum of 3 and 4 is 7."
    assert lines[5:9] == ["hello from a file", "", "Allowed directories:", str(files)]  # the file ends with a newline
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "servers", "agent_script.py"],
                          cwd=tree, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_pulling_the_same_server_again_needs_force(pulled: tuple[Path, Path]) -> None:
    tree, _ = pulled
    proc = cli("pull", "--stdio", shlex.join(npm_servers()["everything-2024"]), "--name", "legacy", "--layout", "agent",
               "-o", str(tree), timeout=600)
    assert proc.returncode == 1 and "E071" in proc.stderr
    assert "legacy" in json.loads((tree / "servers" / "mcp.json").read_text("utf-8"))["mcpServers"]


def test_diff_of_a_pulled_server_folder_against_the_live_server(pulled: tuple[Path, Path]) -> None:
    tree, _ = pulled
    proc = cli("diff", str(tree / "servers" / "everything"), "stdio:" + shlex.join(npm_servers()["everything"]),
               timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 breaking, 0 breaking for generated code, 0 safe -> OK" in proc.stdout


def test_the_pulled_spec_records_the_layout_so_check_covers_the_tree(pulled: tuple[Path, Path]) -> None:
    tree, _ = pulled
    assert "\n  layout: agent\n" in (tree / "specs" / "files.yaml").read_text("utf-8")
    module = tree / "servers" / "files" / "read_text_file.py"
    before = module.read_text("utf-8")
    proc = cli("check", str(tree / "specs" / "files.yaml"), "-o", str(tree), timeout=600)  # no --layout given
    assert proc.returncode == 0, proc.stdout + proc.stderr
    try:
        module.write_text(before + "# edited\n", "utf-8")
        proc = cli("check", str(tree / "specs" / "files.yaml"), "-o", str(tree), timeout=600)
        assert proc.returncode == 1 and "read_text_file.py" in proc.stdout + proc.stderr
    finally:
        module.write_text(before, "utf-8")
