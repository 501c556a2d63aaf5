"""docs/testing.md, executed: its blocks run in order in one bash session in a fresh folder (the
files it shows written, its ``python`` blocks run), with this checkout's mcp-codegen; then what it
says is checked: the typed client in process printed the greetings, and pytest passed init's first
test, the fixture tests and the property test through ``pytest_plugins``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.doc_runner import blocks, script

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "testing.md"


def test_the_blocks_are_there_and_all_run() -> None:
    doc = blocks(DOC.read_text("utf-8"))
    code = [b for b in doc if b.lang in ("sh", "bash", "python") or b.file]
    assert code and [b.not_run for b in code if not b.runs] == [
        "an excerpt of an async test (the helpers above wrap it)"]
    assert [b.file for b in code if b.file] == ["specs/greeter.yaml", "src/greeter_impl.py", "conftest.py",
                                                "tests/test_greet.py", "tests/test_shouting.py", "tests/test_greet_properties.py",
                                                "loop.py"]
    assert "## Mock servers, record and replay" in DOC.read_text("utf-8")  # the mock branch's section


def test_the_document_runs_as_written(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    proc = subprocess.run(["bash", "-c", script(blocks(DOC.read_text("utf-8")))], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    out = proc.stdout
    assert "from greeter.testing import connect_sync" in out  # init's first test, shown
    assert "Hello, Ada! Hello, Ada!\nHello, Grace!\n" in out
    assert re.search(r"^6 passed", out, flags=re.M), out[-3000:]
    # the mock loop: a made-up answer, then the real one recorded and the same one replayed offline
    mocked = (tmp_path / "mocked.txt").read_text("utf-8").strip()
    assert mocked and "Hello, Ada!" not in mocked
    assert out.count("Hello, Ada! Hello, Ada!\n") >= 3  # the fixtures' test output, the recording, the replay
    cassette = (tmp_path / "greeter.cassette").read_text("utf-8").splitlines()
    assert json.loads(cassette[0])["cassette"] == 1 and any('"tools/call"' in line for line in cassette)
