"""Shared helpers of the benchmarks: run a process and measure it, print tables.

:func:`run_measured` starts a command and waits for it with ``os.wait4``, which gives its
CPU time (children included) and the peak RSS of its largest process.  While it runs, a
thread samples the summed RSS of its whole process tree every 20 ms (``/proc``), which
counts worker processes together.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Run:
    wall: float  # seconds
    cpu: float  # user + system seconds, children included
    peak_rss_mb: float  # largest single process
    peak_tree_mb: float  # sampled sum over the process tree
    stdout: str


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            tree.setdefault(ppid, []).append(int(entry))
    return tree


def tree_rss_mb(pid: int) -> float:
    """Summed RSS of ``pid`` and its descendants, in MiB (0 when gone)."""
    tree = _children()
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            pass
        todo += tree.get(p, [])
    return total / 2**20


def run_measured(cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
    """Run ``cmd`` to completion (it must succeed) and measure it."""
    out_path = Path(f"/tmp/.bench-{os.getpid()}-{time.monotonic_ns()}.out")
    with open(out_path, "w+b") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        peak = [0.0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.02):
                peak[0] = max(peak[0], tree_rss_mb(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    out_path.unlink(missing_ok=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{text[-3000:]}")
    rss = usage.ru_maxrss / 1024
    return Run(wall, usage.ru_utime + usage.ru_stime, rss, max(peak[0], rss), text)


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured markdown table."""
    cells = [[str(c) for c in headers], *[[str(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)
