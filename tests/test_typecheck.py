"""Generated code is clean under ``mypy --strict``: the committed examples (with their
hand-written implementations) and every golden case built afresh."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from codegen import build

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "tests" / "golden" / "cases"


def mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def test_generated_examples_pass_mypy_strict() -> None:
    proc = mypy(".", cwd=REPO / "generated_examples")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_golden_builds_pass_mypy_strict(tmp_path: Path) -> None:
    result, report = build(sorted(CASES.glob("*/spec.yaml")), tmp_path)
    assert report is not None, [d.render() for d in result.diagnostics]
    packages = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    assert len(packages) == len(list(CASES.iterdir()))
    proc = mypy(*packages, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
