"""Formatting in worker processes (codegen/output/fmtpool.py) gives the bytes of formatting in one.

The runs of the generated example modules are spread over this process and forked workers
(the size threshold lowered so that small modules are spread too), and the result is
compared with black on the whole file; the garbage collector is unfrozen afterwards.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.driver.pipeline import lower_one
from codegen.output import fmtpool, fmtunits
from codegen.output.format import format_python
from codegen.render.package import environment, render_package

ROOT = Path(__file__).resolve().parents[2]


def _check_parallel_formatting(jobs: int) -> None:
    """The check itself, run in a fresh interpreter by the test below."""
    fmtpool.MIN_PARALLEL_CHARS = 0
    os.environ[fmtpool.JOBS_ENV] = str(jobs)
    assert fmtpool.available_jobs(100) == jobs  # the workers really run (no other thread, fork available)
    low = lower_one(ROOT / "specs" / "everything.yaml", "everything.yaml")
    assert low.ir is not None and low.models is not None
    modules = [f for f in render_package(low.ir, low.models, environment()) if f.path.endswith(".py") and not f.verbatim]
    spread = 0
    for f in modules:
        fmtunits._MEMO.clear()
        runs = fmtunits.split(f.content)
        spread += bool(runs) and sum(len(r.units) for r in runs) > 1
        assert fmtunits.format_units(f.content, format_python, fmtpool.runs_in_parallel(format_python)) == \
            format_python(f.content), f.path
        assert gc.get_freeze_count() == 0
    assert spread


@pytest.mark.parametrize("jobs", [2, 3])
def test_parallel_formatting_gives_blacks_bytes(jobs: int) -> None:
    # A fresh interpreter: fork is refused while another thread runs, and the servers other tests
    # of this worker built in process keep idle handler threads (a fork would copy their locks).
    code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); " \
           f"import test_fmtpool; test_fmtpool._check_parallel_formatting({jobs}); print('checked')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip().endswith("checked"), done.stderr[-3000:]


@pytest.mark.parametrize(("value", "jobs"), [(None, 0), ("3", 3), ("0", 0), ("-2", 0), ("abc", 1), ("2.5", 1)])
def test_the_jobs_knob_reads_a_typo_as_no_workers(value: str | None, jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.options import JOBS_ENV, requested_jobs

    if value is None:
        monkeypatch.delenv(JOBS_ENV, raising=False)
    else:
        monkeypatch.setenv(JOBS_ENV, value)
    assert requested_jobs() == jobs
