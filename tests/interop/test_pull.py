"""``mcp-codegen pull`` against live servers: two real npm servers and our own weather server.

Each: pull (CLI) -> build (API, into tmp) -> import the generated package -> typed calls over
stdio through the generated client.  The npm servers are installed (cached, pinned) by
``scripts/npm-servers`` into ``.tools/npm``.
"""

from __future__ import annotations

import importlib
import inspect
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from common_support import free_port, stop_pid, wait_port
from common_support import run_async as run
from pull_support import EXAMPLES, REPO, cli, imported, npm_servers

from codegen import build


@pytest.fixture(scope="module")
def servers() -> dict[str, list[str]]:
    return npm_servers()


def pull_and_build(tmp: Path, argv: list[str], name: str, *extra: str, cwd: Path = REPO) -> tuple[Path, dict[str, Any], str]:
    """Pull with the CLI, build with the API; (output root, spec data, pull stderr)."""
    spec = tmp / "specs" / f"{name}.yaml"
    proc = cli("pull", "--stdio", shlex.join(argv), "-o", str(spec), "--name", name, *extra, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {spec}" in proc.stdout
    out = tmp / "out"
    result, report = build([spec], out)
    assert report is not None, "\n".join(d.render() for d in result.diagnostics)
    return out, yaml.safe_load(spec.read_text("utf-8")), proc.stderr


def test_everything_server(tmp_path: Path, servers: dict[str, list[str]]) -> None:
    out, spec, _ = pull_and_build(tmp_path, servers["everything"], "npm_everything")
    # --name picks the Python names; serverInfo.name stays as the server reports it
    assert spec["server"]["name"] == "mcp-servers/everything" and spec["server"]["package"] == "npm_everything"
    assert spec["server"]["title"] == "Everything Reference Server" and spec["server"]["instructions"]
    names = [t["name"] for t in spec["tools"]]
    assert names == sorted(names) and {"echo", "get-sum", "get-structured-content"} <= set(names)

    with imported(out, "npm_everything") as mods:
        client_cls = mods["client"].NpmEverythingClient
        sig = inspect.signature(client_cls.get_sum)
        assert list(sig.parameters) == ["self", "a", "b"] and sig.parameters["a"].annotation == "float"

        async def main() -> None:
            async with client_cls.stdio(servers["everything"][0], servers["everything"][1:], stderr="capture") as c:
                echoed = await c.echo(message="hello pull")
                assert echoed.text() == "Echo: hello pull"
                total = await c.get_sum(a=2, b=3.5)
                assert "5.5" in total.text()
                weather = await c.get_structured_content(location="Chicago")
                assert isinstance(weather, mods["models"].GetStructuredContentOutput)
                assert isinstance(weather.temperature, float) and isinstance(weather.conditions, str)
                report = await c.check_compat()  # the pulled spec is the server's wire truth
                assert report.compatible and not report.changed and not report.added, report
                # resources, templates and prompts were pulled too: typed methods for each
                [doc] = await c.read_architecture_md()
                assert doc.uri == "demo://resource/static/document/architecture.md" and doc.text
                [dynamic] = await c.read_dynamic_text_resource(resourceId="3")
                assert dynamic.uri == "demo://resource/dynamic/text/3"
                simple = await c.prompt_simple_prompt()
                assert simple.messages and simple.messages[0].role == "user"
                with_args = await c.prompt_args_prompt(city="Paris")
                assert "Paris" in with_args.messages[0].content.text

        assert [r["name"] for r in spec["resources"]][:1] == ["architecture.md"]
        assert {t["name"] for t in spec["resourceTemplates"]} >= {"Dynamic Text Resource"}
        assert {p["name"] for p in spec["prompts"]} >= {"simple-prompt", "args-prompt"}
        run(main())
    # descriptions and vendor keys kept verbatim: diff against the live server finds nothing
    spec_file = tmp_path / "specs" / "npm_everything.yaml"
    proc = cli("diff", str(spec_file), "stdio:" + shlex.join(servers["everything"]), "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["changes"] == [], proc.stdout


def test_2024_11_05_server(tmp_path: Path, servers: dict[str, list[str]]) -> None:
    """A server that answers ``initialize`` with 2024-11-05 only (the official SDK 1.0.1)."""
    argv = servers["everything-2024"]
    out, spec, _ = pull_and_build(tmp_path, argv, "npm_everything_2024")
    assert {"echo", "add"} <= {t["name"] for t in spec["tools"]}
    with imported(out, "npm_everything_2024") as mods:

        async def main() -> None:
            async with mods["client"].NpmEverything2024Client.stdio(argv[0], argv[1:], stderr="capture") as c:
                assert (c.era, c.protocol_version) == ("legacy", "2024-11-05")
                assert (await c.echo(message="old friend")).text() == "Echo: old friend"
                assert "The sum of 2 and 3 is 5." in (await c.add(a=2, b=3)).text()
                errors = importlib.import_module("npm_everything_2024.errors")
                with pytest.raises(errors.InvalidArgumentsError, match="Invalid arguments for tool add"):
                    await c.add(a=2, b="3")  # refused before sending: no coercion
                report = await c.check_compat()
                assert report.compatible and not report.changed, report

        run(main())


def test_filesystem_server(tmp_path: Path, servers: dict[str, list[str]]) -> None:
    root = (tmp_path / "root").resolve()
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("first line\nsecond line\n", encoding="utf-8")
    argv = [*servers["filesystem"], str(root)]
    out, spec, _ = pull_and_build(tmp_path, argv, "npm_filesystem")
    assert {"list_directory", "read_text_file", "write_file"} <= {t["name"] for t in spec["tools"]}

    with imported(out, "npm_filesystem") as mods:
        models = mods["models"]

        async def main() -> None:
            async with mods["client"].NpmFilesystemClient.stdio(argv[0], argv[1:], stderr="capture") as c:
                listing = await c.list_directory(path=str(root))
                assert isinstance(listing, models.ListDirectoryOutput)
                assert sorted(listing.content.splitlines()) == ["[DIR] sub", "[FILE] a.txt"]
                text = await c.read_text_file(path=str(root / "a.txt"), head=1)
                assert isinstance(text, models.ReadTextFileOutput) and text.content == "first line"
                await c.write_file(path=str(root / "sub" / "b.txt"), content="written by a typed client")
                assert (root / "sub" / "b.txt").read_text("utf-8") == "written by a typed client"
                allowed = await c.list_allowed_directories()
                assert str(root) in allowed.content

        run(main())


def _tool_table(out: Path, package: str) -> tuple[dict[str, tuple[str, dict[str, Any]]], Any]:
    with imported(out, package) as mods:
        tools = {t.name: (t.fingerprint, dict(t.wire)) for t in mods["tools"].TOOLS}
        return tools, mods["tools"].SERVER_INFO


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_weather_round_trip(tmp_path: Path, era: str) -> None:
    """Pulling our own generated server gives a spec equivalent to specs/weather.yaml."""
    argv = [sys.executable, "-m", "weather", "--stdio"]
    out, spec, stderr = pull_and_build(tmp_path, argv, "pulled_weather", "--era", era, cwd=EXAMPLES)
    assert "warning" not in stderr  # nothing loosened: our own output is clean
    assert list(spec["$defs"]) == ["Unit"]  # shared again, as in the original spec

    source = yaml.safe_load((REPO / "specs" / "weather.yaml").read_text("utf-8"))
    source["server"]["package"] = "original_weather"  # `weather` itself is imported by other tests
    (tmp_path / "original.yaml").write_text(yaml.safe_dump(source), encoding="utf-8")
    shutil.copytree(REPO / "specs" / "ui", tmp_path / "ui")  # the MCP Apps view the spec reads
    assert build([tmp_path / "original.yaml"], tmp_path / "original")[1] is not None
    pulled_tools, pulled_info = _tool_table(out, "pulled_weather")
    original_tools, original_info = _tool_table(tmp_path / "original", "original_weather")
    assert pulled_tools == original_tools  # same wire Tool objects, same fingerprints
    for key in ("version", "title", "description", "instructions"):
        assert getattr(pulled_info, key) == getattr(original_info, key)


def test_pull_cli_contract(tmp_path: Path) -> None:
    """Never overwrite without --force; '-' prints; exactly one transport; a dead server is E070."""
    server = shlex.join([sys.executable, "-m", "weather", "--stdio"])
    target = tmp_path / "weather.yaml"
    target.write_text("hand-written\n", encoding="utf-8")
    refused = cli("pull", "--stdio", server, "-o", str(target), cwd=EXAMPLES)
    assert refused.returncode == 1 and "E071" in refused.stderr
    assert target.read_text("utf-8") == "hand-written\n"

    forced = cli("pull", "--stdio", server, "-o", str(target), "--force", "--no-check", cwd=EXAMPLES)
    assert forced.returncode == 0, forced.stderr
    assert yaml.safe_load(target.read_text("utf-8"))["server"]["name"] == "weather"
    # the package name pull chose, and the client to import from it (issue 44)
    assert "for the package weather (`from weather import WeatherClient`)" in forced.stdout, forced.stdout

    printed = cli("pull", "--stdio", server, "-o", "-", "--no-check", cwd=EXAMPLES)
    assert printed.returncode == 0 and printed.stdout == target.read_text("utf-8")

    assert cli("pull", "-o", "-").returncode == 2
    assert cli("pull", "--stdio", server, "--http", "http://127.0.0.1:1/mcp", "-o", "-").returncode == 2
    dead = cli("pull", "--stdio", shlex.join([sys.executable, "-c", "import sys; sys.stderr.write('boom')"]),
               "-o", str(tmp_path / "dead.yaml"), "--timeout", "5")
    assert dead.returncode == 1 and "E070" in dead.stderr and "boom" in dead.stderr
    assert not (tmp_path / "dead.yaml").exists()


def test_pull_over_http_matches_stdio(tmp_path: Path) -> None:
    """--http (paged tools/list: one tool per page) gives the same spec as --stdio."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "weather", "--http", "--port", str(port), "--page-size", "1"],
                              cwd=EXAMPLES, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_port(port, 20, server)
        for era in ("auto", "legacy"):
            over_http = cli("pull", "--http", f"http://127.0.0.1:{port}/mcp", "-o", "-", "--no-check", "--era", era)
            assert over_http.returncode == 0, over_http.stderr
            over_stdio = cli("pull", "--stdio", shlex.join([sys.executable, "-m", "weather", "--stdio"]), "-o", "-",
                             "--no-check", "--era", era, cwd=EXAMPLES)
            assert over_stdio.returncode == 0, over_stdio.stderr
            assert over_http.stdout == over_stdio.stdout and over_http.stdout.count("- name: ") == 2
    finally:
        stop_pid(server, 10)


@pytest.mark.parametrize("mode", ["dual-era", "legacy-only"])
def test_official_python_sdk_server(tmp_path: Path, mode: str) -> None:
    """A server written with the official ``mcp`` SDK (titles everywhere, anyOf-null, wrapped results)."""
    argv = [sys.executable, str(REPO / "tests" / "support" / "sdk_weather_server.py")] + (["--legacy-only"] if mode == "legacy-only" else [])
    out, spec, _ = pull_and_build(tmp_path, argv, "sdk_weather")
    assert spec["$defs"] == {"Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"}}
    with imported(out, "sdk_weather") as mods:

        async def main() -> None:
            async with mods["client"].SdkWeatherClient.stdio(argv[0], argv[1:], stderr="capture") as c:
                out = await c.get_weather(location="Paris", unit=mods["models"].Unit.celsius)
                assert (out.temperature, out.conditions) == (18.0, "sunny")
                counted = await c.count(n=3)
                assert counted.result == [1, 2, 3]
                report = await c.check_compat()
                assert report.compatible and not report.changed, report

        run(main())


def test_pulled_packages_pass_mypy_strict(tmp_path: Path, servers: dict[str, list[str]]) -> None:
    """Real tools/list dumps (three npm servers, 2024 to 2026) build, import and type-check as pulled."""
    root = tmp_path / "root"
    root.mkdir()
    sources = {"pulled_everything": servers["everything"], "pulled_filesystem": [*servers["filesystem"], str(root)],
               "pulled_everything_2024": servers["everything-2024"]}
    specs = []
    for name, argv in sources.items():
        spec = tmp_path / "specs" / f"{name}.yaml"
        proc = cli("pull", "--stdio", shlex.join(argv), "-o", str(spec), "--name", name)
        assert proc.returncode == 0, proc.stderr
        specs.append(spec)
    out = tmp_path / "out"
    result, report = build(specs, out)
    assert report is not None, "\n".join(d.render() for d in result.diagnostics)
    code = f"import importlib\nfor p in {sorted(sources)!r}:\n    for m in ('models', 'client', 'tools'):\n        importlib.import_module(p + '.' + m)\n"
    proc = subprocess.run([sys.executable, "-W", "error", "-c", code], cwd=out, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr  # imports without a warning (pydantic's protected names, ...)
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", *sources], cwd=out,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
