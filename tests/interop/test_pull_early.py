"""``pull --stdio`` starts its server at CLI entry, before the heavy imports, and the stdio
transport adopts that process (``codegen/commands/pull/spawn.py``, ``pull/adopt.py``).

Real processes throughout: a small stdlib server that appends its PID to a file each time it
starts (so a second spawn would show), the CLI run as ``python -m codegen`` (the entry point
that starts early) and through ``codegen.commands.cli.main.main`` (which does not).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from pull_support import REPO

from codegen.commands.pull import spawn as pull_spawn

#: A stdio server of two tools; every start appends "PID\n" to the file named by argv[1].
SERVER = r"""
import json, os, sys
with open(sys.argv[1], "a") as log:
    log.write(f"{os.getpid()}\n")
if len(sys.argv) > 2 and sys.argv[2] == "fail":
    sys.stderr.write("cannot open the database: no such file\n")
    sys.exit(3)
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
             "serverInfo": {"name": "early", "version": "1.0"}}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "echo", "description": "Echo.", "inputSchema": {"type": "object",
                        "properties": {"text": {"type": "string"}}, "required": ["text"]}},
                       {"name": "env", "description": os.environ.get("EARLY_NOTE", "none"),
                        "inputSchema": {"type": "object"}}]}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"""

#: The CLI through ``cli.main`` (no early start), reporting whether a server was started early.
PLAIN = ("import sys\nfrom codegen.commands.pull import spawn as pull_spawn\nfrom codegen.commands.cli.main import main\n"
         "sys.argv[0] = 'mcp-codegen'\nmain()\n")


def _server(tmp: Path) -> tuple[Path, Path]:
    script = tmp / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    return script, tmp / "starts.txt"


def _starts(log: Path) -> list[int]:
    return [int(x) for x in log.read_text("utf-8").split()] if log.exists() else []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_plan_reads_only_plain_pull_stdio_command_lines(tmp_path: Path) -> None:
    out = str(tmp_path / "s.yaml")
    plan = pull_spawn.plan(["pull", "--stdio", "node srv.js 'a b'", "-o", out, "--env", " K =v=1", "--cwd=sub/",
                            "--timeout", "5", "--era", "legacy"])
    assert plan == pull_spawn.Plan(("node", "srv.js", "a b"), "sub", (("K", "v=1"),))
    assert pull_spawn.plan(["pull", "--stdio=node srv.js", f"--output={out}", "--force", "--check"]) is not None
    for argv in (["build", "--stdio", "x", "-o", out],                     # not pull
                 ["pull", "--stdio", "x", "-o", out, "--help"],             # typer answers
                 ["pull", "--stdio", "x", "--http", "http://h", "-o", out],  # a usage error
                 ["pull", "--stdio", "x", f"-o{out}"],                      # glued short option
                 ["pull", "--stdio", "x", "-o", out, "--layout", "agent"],  # another layout
                 ["pull", "--stdio", "x", "-o", out, "--env", "novalue"],    # refused by the CLI
                 ["pull", "--stdio", "'unbalanced", "-o", out],
                 ["pull", "--stdio", "", "-o", out],
                 ["pull", "--stdio", "x", "-o", out, "extra"],
                 ["pull", "--stdio", "x", "-o"]):
        assert pull_spawn.plan(argv) is None, argv
    Path(out).write_text("kept", encoding="utf-8")
    assert pull_spawn.plan(["pull", "--stdio", "x", "-o", out]) is None  # E071 before connecting
    assert pull_spawn.plan(["pull", "--stdio", "x", "-o", out, "--force"]) is not None


def test_the_server_starts_before_the_heavy_imports_and_is_adopted(tmp_path: Path) -> None:
    script, log = _server(tmp_path)
    argv = ["pull", "--stdio", shlex.join([sys.executable, str(script), str(log)]), "--env", "EARLY_NOTE=from env",
            "-o", str(tmp_path / "early.yaml")]
    probe = ("import json, sys\nfrom codegen.commands.pull import spawn as pull_spawn\n"
             "pull_spawn.start_early(sys.argv[1:])\n"
             "print(json.dumps({'started': pull_spawn._early is not None,\n"
             "                  'heavy': [m for m in ('typer', 'pydantic', 'mcp_codegen_runtime.client') if m in sys.modules]}))\n"
             "pull_spawn.discard()\n")
    seen = subprocess.run([sys.executable, "-c", probe, *argv], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert seen.returncode == 0, seen.stderr
    assert json.loads(seen.stdout) == {"started": True, "heavy": []}
    log.unlink()

    early = subprocess.run([sys.executable, "-m", "codegen", *argv], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert early.returncode == 0, early.stderr
    assert len(_starts(log)) == 1  # adopted, not started a second time
    argv[argv.index("-o") + 1] = str(tmp_path / "plain.yaml")
    plain = subprocess.run([sys.executable, "-c", PLAIN, *argv], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert len(_starts(log)) == 2
    text = (tmp_path / "early.yaml").read_bytes()
    assert text == (tmp_path / "plain.yaml").read_bytes()
    assert b"from env" in text  # the --env pair reached the early server
    assert not any(_alive(pid) for pid in _starts(log))


def test_an_early_server_that_fails_is_reported_with_its_stderr(tmp_path: Path) -> None:
    script, log = _server(tmp_path)
    argv = ["pull", "--stdio", shlex.join([sys.executable, str(script), str(log), "fail"]), "-o", str(tmp_path / "x.yaml")]
    proc = subprocess.run([sys.executable, "-m", "codegen", *argv], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "E070" in proc.stderr and "cannot open the database" in proc.stderr, proc.stderr
    assert len(_starts(log)) == 1
    assert not (tmp_path / "x.yaml").exists()


def test_an_early_server_is_stopped_when_not_adopted(tmp_path: Path) -> None:
    script, log = _server(tmp_path)
    command = [sys.executable, str(script), str(log)]
    pull_spawn.start_early(["pull", "--stdio", shlex.join(command), "-o", str(tmp_path / "a.yaml")])
    try:
        deadline = time.monotonic() + 30
        while not _starts(log) and time.monotonic() < deadline:
            time.sleep(0.02)
        (pid,) = _starts(log)
        assert pull_spawn.adopt(command, None, {"OTHER": "1"}) is None  # another environment: not this process
        assert not _alive(pid)
        assert pull_spawn.adopt(command, None, {}) is None  # nothing left to adopt
    finally:
        pull_spawn.discard()

    # and a CLI that exits before adopting it (here: a usage error typer reports) stops it too
    usage = ["pull", "--stdio", shlex.join(command), "-o", str(tmp_path / "b.yaml"), "--era", "sideways"]
    assert pull_spawn.plan(usage) is not None
    proc = subprocess.run([sys.executable, "-m", "codegen", *usage], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    pids = _starts(log)
    assert len(pids) == 2 and not _alive(pids[1])
    assert os.getpid() not in pids
