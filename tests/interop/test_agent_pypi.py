"""A real PyPI server (``mcp-server-time``, built on the official SDK, installed in its own venv
by scripts/pypi-servers) pulled with ``--layout agent`` next to an npm one: its tools called
through the per-tool modules from a script, answers checked against facts (Tokyo is UTC+9, no
daylight saving), the script and tree clean under ``mypy --strict``."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from pull_support import cli, npm_servers, pypi_server

SCRIPT = '''
from servers.clock import convert_time, get_current_time
from servers.everything import echo

now = get_current_time(timezone="UTC")  # the server's output schema made a typed model
print(now.timezone, now.is_dst)
converted = convert_time(source_timezone="UTC", time="12:30", target_timezone="Asia/Tokyo")
print(converted.source.datetime[11:16], converted.target.datetime[11:16], converted.target.timezone,
      converted.time_difference)
print(echo(message="next to the clock").text())
'''


def test_a_pypi_server_and_an_npm_server_in_one_agent_tree(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    clock = shlex.join([str(pypi_server("mcp-server-time")), "--local-timezone", "UTC"])
    for run in (("--stdio", clock, "--name", "clock"), ("--stdio", shlex.join(npm_servers()["everything"]))):
        proc = cli("pull", *run, "--layout", "agent", "-o", str(tree), "--timeout", "60", timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    entries = json.loads((tree / "servers" / "mcp.json").read_text("utf-8"))["mcpServers"]
    assert sorted(entries) == ["clock", "everything"]
    (tree / "agent_script.py").write_text(SCRIPT, "utf-8")
    proc = subprocess.run([sys.executable, "agent_script.py"], cwd=tree, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["UTC False", "12:30 21:30 Asia/Tokyo +9.0h", "Echo: next to the clock"]
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "servers", "agent_script.py"],
                          cwd=tree, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
