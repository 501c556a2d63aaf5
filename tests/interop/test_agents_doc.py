"""docs/agents.md, executed: its blocks run in order in one bash session from an empty folder
(``npx -y @modelcontextprotocol/server-everything`` and ``server-filesystem`` run the pinned npm
servers installed by scripts/npm-servers; nothing is downloaded), then the outputs are checked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pull_support import npm_servers

from tests.support.doc_runner import blocks, script

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "agents.md"


def _npx(folder: Path) -> Path:
    """An ``npx`` on PATH that runs the two installed servers (and nothing else)."""
    servers = npm_servers()
    everything, filesystem = servers["everything"][1], servers["filesystem"][1]
    folder.mkdir()
    npx = folder / "npx"
    npx.write_text(f"""#!/usr/bin/env bash
[ "${{1:-}}" = "-y" ] || {{ echo "npx: use -y" >&2; exit 1; }}
shift
case "$1" in
  @modelcontextprotocol/server-everything) shift; exec node {everything} "$@" ;;
  @modelcontextprotocol/server-filesystem) shift; exec node {filesystem} "$@" ;;
esac
echo "npx: $1 is not installed for this test" >&2; exit 1
""", "utf-8")
    npx.chmod(0o755)
    return folder


def test_the_doc_blocks_all_run() -> None:
    doc = blocks(DOC.read_text("utf-8"))
    code = [b for b in doc if b.lang in ("sh", "bash", "python") or b.file]
    # the two blocks of the Connections section left out say which test runs the same thing
    left_out = [b.not_run for b in code if not b.runs]
    assert len(code) >= 10 and len(left_out) == 2
    assert all(reason and "tests/runtime/test_agent_connections.py" in reason for reason in left_out)


def test_the_walkthrough_runs_as_written(tmp_path: Path) -> None:
    bash = script(blocks(DOC.read_text("utf-8")))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "MCP_CODEGEN_SERVERS")}
    env["PATH"] = os.pathsep.join([str(_npx(tmp_path / "bin")), str(Path(sys.executable).parent), env.get("PATH", "")])
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(["bash", "-c", bash], cwd=work, env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    out = proc.stdout
    assert "- everything (13 tools): " in out
    assert "['servers.everything.echo: Echoes back the input string']" in out
    assert "['servers.everything.get_sum']" in out
    assert "from servers.everything import get_sum\n\ndef get_sum(*, a: float, b: float) -> ToolResult:\n" in out
    assert "Echo: hello from an agent\nThe sum of 2 and 3 is 5.\n" in out
    assert "Success: no issues found" in out
    assert "- files (14 tools): " in out
    assert "('everything', 'files')" in out
    assert "a note\n" in out
    assert "name: mcp-servers\n" in out
    assert "is up to date" in out and "0 breaking, 0 breaking for generated code, 0 safe -> OK" in out
