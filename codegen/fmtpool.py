"""Formatting runs of units (:mod:`codegen.fmtunits`) in forked worker processes.

A spec whose files hold thousands of units (one server with hundreds of tools) is one
package, so :mod:`codegen.batch` cannot spread it over processes; its runs can be.  Big runs
are cut into as many parts as there are workers, the parts are formatted in a fork-based
``ProcessPoolExecutor`` and put back together in order, so the output is the same bytes.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable

from .fmtunits import Black, Run, format_run

JOBS_ENV = "MCP_CODEGEN_JOBS"
#: Below this many characters of new text, one process formats everything (forking costs more).
MIN_PARALLEL_CHARS = 200_000


def available_jobs(work: int) -> int:
    """Worker processes for ``work`` independent items (``$MCP_CODEGEN_JOBS``, default: CPUs).

    1 where fork is unavailable or unsafe: on Windows, in a worker process, or while
    another thread runs.
    """
    try:
        wanted = int(os.environ.get(JOBS_ENV, "0")) or (os.cpu_count() or 1)
    except ValueError:
        wanted = 1
    if sys.platform == "win32" or threading.active_count() > 1 or multiprocessing.parent_process() is not None:
        return 1
    return max(1, min(wanted, work))


def _format(job: tuple[Run, Black]) -> list[str]:
    run, black = job
    return format_run(run, black)


def runs_in_parallel(black: Black) -> Callable[[list[Run]], list[list[str]]]:
    """A ``many`` for :func:`codegen.fmtunits.format_units`: big runs in worker processes."""

    def many(runs: list[Run]) -> list[list[str]]:
        size = sum(len(u) for r in runs for u in r.units)
        jobs = available_jobs(sum(len(r.units) for r in runs)) if size >= MIN_PARALLEL_CHARS else 1
        if jobs == 1:
            return [format_run(r, black) for r in runs]
        parts: list[tuple[int, Run]] = []
        for n, run in enumerate(runs):
            step = max(1, -(-len(run.units) // jobs))
            parts += [(n, run.part(a, min(a + step, len(run.units)))) for a in range(0, len(run.units), step)]
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(_format, [(p, black) for _, p in parts]))
        out: list[list[str]] = [[] for _ in runs]
        for (n, _), texts in zip(parts, results, strict=True):
            out[n] += texts
        return out

    return many
