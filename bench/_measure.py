"""Shared helpers of the benchmarks: run a process and measure it, print tables.

:func:`cpu_ns` reads a running process's CPU time (every thread); :func:`stop` and :func:`finish`
end a process the benchmark started, by its PID.

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


def cpu_ns(pid: int) -> int:
    """CPU time of process ``pid`` so far, every thread (``/proc/PID/task/*/schedstat``), nanoseconds."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a process the benchmark started, by its PID: terminate, then kill after 5 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def finish(proc: subprocess.Popen[bytes]) -> None:
    """End a stdio process: close its stdin (its cue to exit), wait 5 s, then :func:`stop` it."""
    if proc.stdin:
        proc.stdin.close()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        stop(proc)


class StdioProcess:
    """A process spoken to over its stdin/stdout pipes: one line out, one line back."""

    def __init__(self, cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None,
                 quiet: bool = False) -> None:
        self.proc = subprocess.Popen(list(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd,
                                     stderr=subprocess.DEVNULL if quiet else None, bufsize=0)
        self.pid = self.proc.pid
        self._buf = b""

    def exchange(self, line: bytes) -> bytes:
        """Write ``line`` (newline included) and read the next line back (without its newline)."""
        os.write(self.proc.stdin.fileno(), line)  # type: ignore[union-attr]
        while b"\n" not in self._buf:
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)  # type: ignore[union-attr]
            if not chunk:
                raise RuntimeError(f"{self.proc.args}: closed stdout")
            self._buf += chunk
        reply, self._buf = self._buf.split(b"\n", 1)
        return reply

    def stop(self) -> None:
        finish(self.proc)


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
