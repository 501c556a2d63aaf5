"""Formatting runs of units (:mod:`codegen.output.fmtunits`) in forked worker processes.

A spec whose files hold thousands of units (one server with hundreds of tools) is one
package, so :mod:`codegen.driver.batch` cannot spread it over processes; its runs can be.  Big runs
are cut into as many parts as there are workers (CPUs), the parts are formatted by this
process and a fork-based ``ProcessPoolExecutor`` of one worker fewer, and put back together
in order, so the output is the same bytes.  The inherited objects are frozen out of the
garbage collector (``gc.freeze``) while the workers run, so that their collections do not
touch, and copy, the parent's pages.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable

from ..options import JOBS_ENV as JOBS_ENV
from ..options import may_fork, requested_jobs
from .fmtunits import Black, Run, format_run

#: Below this many characters of new text, one process formats everything (forking costs more).
MIN_PARALLEL_CHARS = 200_000


def available_jobs(work: int) -> int:
    """Worker processes for ``work`` independent items (``$MCP_CODEGEN_JOBS``, default: CPUs).

    1 where fork is unavailable or unsafe: on Windows, in a worker process, or while
    another thread runs.
    """
    wanted = requested_jobs() or (os.cpu_count() or 1)
    if not may_fork():
        return 1
    return max(1, min(wanted, work))


def _format(job: tuple[Run, Black]) -> list[str]:
    run, black = job
    return format_run(run, black)


def runs_in_parallel(black: Black) -> Callable[[list[Run]], list[list[str]]]:
    """A ``many`` for :func:`codegen.output.fmtunits.format_units`: big runs in worker processes."""

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

        mine = parts[::jobs]  # this process formats every jobs-th part; jobs - 1 workers the others
        theirs = [part for k, part in enumerate(parts) if k % jobs]
        results: dict[int, list[str]] = {}
        gc.freeze()  # a worker's collections skip the objects it inherits: fewer copy-on-write copies
        try:
            with ProcessPoolExecutor(jobs - 1, mp_context=multiprocessing.get_context("fork")) as pool:
                pending = pool.map(_format, [(p, black) for _, p in theirs])
                results.update((id(p), format_run(p, black)) for _, p in mine)
                results.update((id(p), texts) for (_, p), texts in zip(theirs, pending, strict=True))
        finally:
            gc.unfreeze()
        out: list[list[str]] = [[] for _ in runs]
        for n, p in parts:
            out[n] += results[id(p)]
        return out

    return many
