"""docs/tutorial.md, executed: its ``sh`` blocks run in order in one bash session, in a fresh
folder outside the repository with a fresh venv, the way a new user runs them.  Then the
results are checked: the Inspector CLI saw and called the tools, the host entry starts the
server from ``/``, the typed client printed what the tutorial says.

``npx -y @modelcontextprotocol/inspector`` runs the pinned Inspector installed by
scripts/inspector (nothing is downloaded while the test runs)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.doc_runner import blocks, script

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "docs" / "tutorial.md"

PRELUDE = """\
set -euo pipefail
npx() {  # only the pinned Inspector is installed here; like npx in a non-interactive shell, ask for -y
  if [ "${1:-}" != "-y" ] && [ "${1:-}" != "--yes" ]; then
    echo "npx: would ask to install ${1:-} (no terminal to answer): use npx -y" >&2; return 1
  fi
  shift
  if [ "${1:-}" = "@modelcontextprotocol/inspector" ]; then shift; mcp-inspector "$@"; return; fi
  echo "npx: $1 is not installed for this test" >&2; return 1
}
"""


def test_tutorial_blocks_are_there_and_all_run() -> None:
    doc = blocks(TUTORIAL.read_text("utf-8"))
    code = [b for b in doc if b.lang in ("sh", "bash", "python") or b.file]
    assert code and all(b.runs for b in code)  # nothing is left out
    sh = [b.text for b in code if b.lang == "sh"]
    assert len(sh) == 8 and "mcp-codegen init todo" in sh[1] and "--method tools/list" in sh[4]
    assert "python -m pytest -q tests" in sh[7]


def test_tutorial_runs_as_written(tmp_path: Path) -> None:
    inspector_bin = subprocess.run([str(REPO / "scripts" / "inspector")], capture_output=True, text=True,
                                   timeout=900, check=True).stdout.strip()
    bash = script(blocks(TUTORIAL.read_text("utf-8")), prelude=PRELUDE)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([inspector_bin, str(Path(sys.executable).resolve().parent), env.get("PATH", "")])
    env["MCP_CODEGEN_SRC"] = str(REPO)
    proc = subprocess.run(["bash", "-c", bash], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    out = proc.stdout
    assert re.search(r"^mcp-codegen \d+\.\d+\.\d+$", out, flags=re.M), out[:500]
    assert "todo_impl:TodoService: 2 of 2 tools implemented" in proc.stderr  # validate --impl and --check
    # the Inspector listed and called the tools
    tools = json.loads((tmp_path / "tools.json").read_text())["tools"]
    assert [t["name"] for t in tools] == ["add_todo", "list_todos"]
    added = json.loads((tmp_path / "added.json").read_text())
    assert added["structuredContent"] == {"id": 1, "count": 1} and not added.get("isError")
    # the host entry starts the server from any folder
    entry = json.loads((tmp_path / "claude_desktop_config.json").read_text())["mcpServers"]["todo"]
    assert Path(entry["command"]).is_absolute() and str(tmp_path) in entry["command"]  # the tutorial's venv
    check = ("from todo import TodoSyncClient\nimport json, sys\nentry = json.loads(sys.argv[1])\n"
             "with TodoSyncClient.stdio(entry['command'], entry['args'], env=entry['env'], cwd='/') as c:\n"
             "    print(c.add_todo(title='from the host').count)\n")
    host = subprocess.run([str(tmp_path / ".venv" / "bin" / "python"), "-c", check, json.dumps(entry)], cwd="/",
                          env={k: v for k, v in env.items() if k != "MCP_CODEGEN_SRC"}, capture_output=True, text=True,
                          timeout=120)
    assert host.returncode == 0 and host.stdout.strip() == "1", host.stderr
    # the typed client printed what the tutorial says
    assert "1 milk normal\n2 call mom high\ncount 2\n" in out
    # the first test init wrote and the tutorial's own two passed, through the package's pytest plugin
    assert (tmp_path / "tests" / "test_todo.py").is_file()
    assert re.search(r"^3 passed", out, flags=re.M), out[-2000:]
