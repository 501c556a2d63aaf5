"""mcp-codegen build --watch: incremental rebuilds after spec edits, failed builds, clean stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from codegen.commands.watch import BuildEvent, Watcher, scan

SPEC = """\
mcp-codegen: 1
server: {{name: {name}, version: 1.0.0}}
$defs:
  Unit: {{$ref: "shared/units.yaml#/$defs/Unit"}}
tools:
  - name: echo
    description: {description}
    inputSchema:
      type: object
      properties:
        text: {{type: string}}
        unit: {{$ref: "#/$defs/Unit"}}
      required: [text]
"""
PLAIN = SPEC.replace('$defs:\n  Unit: {{$ref: "shared/units.yaml#/$defs/Unit"}}\n', "").replace("        unit: {{$ref: \"#/$defs/Unit\"}}\n", "")


def write_specs(root: Path) -> Path:
    specs = root / "specs"
    (specs / "shared").mkdir(parents=True)
    (specs / "shared" / "units.yaml").write_text("$defs:\n  Unit: {type: string, enum: [a, b]}\n")
    (specs / "alpha.yaml").write_text(SPEC.format(name="alpha", description="Alpha one."))
    (specs / "beta.yaml").write_text(PLAIN.format(name="beta", description="Beta one."))
    return specs


def wait_for(check: Callable[[], bool], timeout: float = 30.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_watcher_rebuilds_only_affected_specs(tmp_path: Path) -> None:
    specs = write_specs(tmp_path)
    out = tmp_path / "out"
    events: list[BuildEvent] = []
    w = Watcher([specs], out, events.append)
    first = w.initial_build()
    assert first.report is not None and sorted(first.specs) == ["specs/alpha.yaml", "specs/beta.yaml"]
    assert w.poll() == []  # nothing changed

    (specs / "beta.yaml").write_text(PLAIN.format(name="beta", description="Beta two."))
    [event] = w.poll()
    assert event.specs == ["specs/beta.yaml"]
    assert event.report is not None and "beta/tools.py" in event.report.updated

    (specs / "shared" / "units.yaml").write_text("$defs:\n  Unit: {type: string, enum: [a, b, c]}\n")
    assert [e.specs for e in w.poll()] == [["specs/alpha.yaml"]]  # beta does not read the shared file

    (specs / "alpha.yaml").write_text("mcp-codegen: 1\nserver: {name: alpha}\n")  # invalid
    (specs / "beta.yaml").write_text(PLAIN.format(name="beta", description="Beta three."))
    before = (out / "alpha" / "tools.py").read_text()
    alpha, beta = w.poll()
    assert alpha.report is None and not alpha.result.ok
    assert (out / "alpha" / "tools.py").read_text() == before  # previous output kept
    assert beta.report is not None and "Beta three." in (out / "beta" / "tools.py").read_text()  # not held back

    (specs / "gamma.yaml").write_text(PLAIN.format(name="gamma", description="New."))
    got = {e.specs[0]: e for e in w.poll()}
    assert sorted(got) == ["specs/alpha.yaml", "specs/gamma.yaml"]  # alpha retried: it failed last time
    assert (out / "gamma" / "tools.py").exists() and got["specs/alpha.yaml"].report is None

    (specs / "gamma.yaml").unlink()
    (specs / "alpha.yaml").write_text(SPEC.format(name="alpha", description="Alpha fixed."))
    got_events = w.poll()
    assert got_events[0].removed == [str((specs / "gamma.yaml").resolve())] and (out / "gamma" / "tools.py").exists()
    assert got_events[1].specs == ["specs/alpha.yaml"] and got_events[1].report is not None
    assert w.poll() == []


def test_failed_initial_build_is_retried(tmp_path: Path) -> None:
    specs = write_specs(tmp_path)
    (specs / "alpha.yaml").write_text("mcp-codegen: 1\nserver: {name: alpha}\n")
    w = Watcher([specs], tmp_path / "out", lambda e: None)
    assert w.initial_build().report is None  # all or nothing: beta is not written either
    (specs / "alpha.yaml").write_text(SPEC.format(name="alpha", description="Fixed."))
    assert sorted(e.specs[0] for e in w.poll() if e.report is not None) == ["specs/alpha.yaml", "specs/beta.yaml"]


def test_scan_sees_edits_and_new_files(tmp_path: Path) -> None:
    specs = write_specs(tmp_path)
    a = scan([specs])
    assert len(a) == 3
    (specs / "notes.txt").write_text("ignored")
    assert scan([specs]) == a
    (specs / "beta.yaml").write_text(PLAIN.format(name="beta", description="Longer description."))
    assert scan([specs]) != a


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_cli_watch_subprocess_rebuilds_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    specs = write_specs(tmp_path)
    out = tmp_path / "out"
    log = tmp_path / "watch.log"
    with log.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "codegen", "build", str(specs), "-o", str(out), "--watch", "--interval", "0.1"],
                                stdout=sink, stderr=subprocess.STDOUT, cwd=tmp_path, env={**os.environ, "COLUMNS": "200"})
    try:
        assert wait_for(lambda: "built specs/alpha.yaml, specs/beta.yaml" in log.read_text()), log.read_text()
        tools = out / "beta" / "tools.py"
        alpha_stamp = (out / "alpha" / "tools.py").stat().st_mtime_ns
        (specs / "beta.yaml").write_text(PLAIN.format(name="beta", description="Edited while watching."))
        assert wait_for(lambda: "Edited while watching." in tools.read_text()), log.read_text()
        assert wait_for(lambda: "rebuilt specs/beta.yaml" in log.read_text()), log.read_text()
        assert (out / "alpha" / "tools.py").stat().st_mtime_ns == alpha_stamp  # incremental
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    text = log.read_text()
    assert "stopped watching" in text and "Traceback" not in text
    assert not list(out.rglob("*.mcp-codegen-tmp"))
