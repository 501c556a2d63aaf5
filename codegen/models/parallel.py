"""Two calls at once, one in a forked child (:func:`beside`), when the machine has a CPU to spare.

A cold build of one big spec runs datamodel-code-generator on the whole model document,
serially: :mod:`codegen.driver.batch` cannot spread one spec over processes.
:mod:`codegen.models.units` cuts DCG's output into units, and a document of half the units
cuts into the same unit texts (what its tests check), so the two halves can run at once:
one here, one in a forked child that sends its memo entries back through a pipe.

Only where it pays and cannot hurt: fork available and safe (not on Windows, not in a worker
process, no other thread), and a CPU idle by the load average (``os.getloadavg`` against
``os.cpu_count``), so that on a loaded machine the build does not get slower for the
processes it would compete with; ``$MCP_CODEGEN_JOBS`` decides instead when set (``1``:
never, ``2`` or more: always).  If the child fails in any way, its call runs here: the
result never depends on the child.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import TypeVar

from ..options import JOBS_ENV as JOBS_ENV
from ..options import may_fork, requested_jobs

T = TypeVar("T")
U = TypeVar("U")


def spare_cpu() -> bool:
    """Whether a forked child may run beside this process now (see the module docstring)."""
    if not may_fork():
        return False
    wanted = requested_jobs()
    if wanted:
        return wanted > 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        return False
    return (os.cpu_count() or 1) - load >= 0.5  # this process counts about 1 in the load


def beside(here: Callable[[], T], there: Callable[[], U]) -> tuple[T, U]:
    """``(here(), there())``, ``there`` run in a forked child while ``here`` runs in this process.

    ``there``'s result comes back pickled; when the fork, the child or the pickle fails,
    ``there()`` runs here after ``here()``.
    """
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return here(), there()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return here(), there()
    if pid == 0:  # the child: never returns into the caller's code
        code = 1
        try:
            os.close(read_end)
            data = pickle.dumps(there(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    try:
        mine = here()
    finally:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        try:
            return mine, pickle.loads(data)  # our own child's bytes
        except Exception:  # a truncated pickle: run it here
            pass
    return mine, there()
