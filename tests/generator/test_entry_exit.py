"""The entry point freezes the heap at exit (``codegen/commands/cli/entry.py``): the interpreter's
teardown then skips a full collection over everything a command imported.  The probe's own
exit handler is registered before ``main`` runs, so it runs after the entry point's and sees
what teardown will see; the command's output and files are complete by then."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = ("import atexit, gc, json, sys\n"
         "atexit.register(lambda: print(json.dumps({'frozen': gc.get_freeze_count()}), flush=True))\n"
         "from codegen.commands.cli.entry import main\nsys.argv[0] = 'mcp-codegen'\n"
         "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n")


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=cwd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return proc


def _frozen(proc: subprocess.CompletedProcess[str]) -> int:
    return int(json.loads(proc.stdout.strip().splitlines()[-1])["frozen"])


def test_a_plain_pull_exits_frozen_with_its_spec_written(tmp_path: Path) -> None:
    server = [sys.executable, str(REPO / "bench" / "pull_server.py"), "--tools", "3"]
    out = tmp_path / "s.yaml"
    proc = _run(["pull", "--stdio", shlex.join(server), "-o", str(out)], REPO)
    assert f"wrote {out} (3 tool(s))" in proc.stdout
    assert out.read_text().count("- name: ") == 3
    assert _frozen(proc) > 10_000  # the whole heap, not a handful of objects


@pytest.mark.parametrize("argv", [["--version"], ["schema"]])
def test_the_full_command_line_exits_frozen(argv: list[str], tmp_path: Path) -> None:
    proc = _run(argv, tmp_path)
    assert _frozen(proc) > 10_000


def test_an_up_to_date_build_exits_frozen(tmp_path: Path) -> None:
    spec = tmp_path / "specs" / "calc.yaml"
    spec.parent.mkdir()
    spec.write_text("mcp-codegen: 1\nserver:\n  name: calc\n  version: 1.0.0\ntools:\n  - name: add\n    inputSchema:\n"
                    "      type: object\n      properties:\n        a: {type: integer}\n")
    _run(["build", "specs", "-o", "out", "-q"], tmp_path)
    again = _run(["build", "specs", "-o", "out"], tmp_path)  # the quick path: nothing to do
    assert "0 created, 0 updated, 0 deleted" in again.stdout, again.stdout
    assert _frozen(again) > 0
