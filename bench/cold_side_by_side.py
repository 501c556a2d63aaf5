"""Cold builds of several checkouts (and DCG alone) side by side, alternated.

Each round runs, for every checkout, ``python -m codegen build SPECS -o OUT -q`` in a fresh
process with ``PYTHONPATH`` set to that checkout and an empty ``MCP_CODEGEN_CACHE_DIR``
(``dcg`` instead runs ``dcg_reference.py`` on the same specs), and prints wall and CPU seconds
(user + system of the process tree, ``os.wait4``) with the load average, then the medians.
A checkout is a folder holding ``codegen/`` and ``templates/`` (e.g. ``git archive REV codegen
templates | tar -x -C DIR``); ``DIR,NAME=VALUE,...`` runs it with those environment
variables too (e.g. ``DIR,MCP_CODEGEN_JOBS=1``).  The builds run with ``python -P``: without it,
``-m`` puts the working directory first on ``sys.path``, and a run from the repository's root
would build with the root's ``codegen/`` whatever the checkout (every measurement of this
script before 2026-12-02 18:30 UTC that was run from the root compared the root's code with
itself).  Each checkout's ``codegen`` is checked to come from its folder before the rounds.

Usage::

    .venv/bin/python bench/cold_side_by_side.py SPECS ROUNDS CHECKOUT[,NAME=VALUE...]|dcg ...
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _path(folder: str) -> str:
    """A checkout's import path: its generator, and its runtime where it has its own (``runtime/``)."""
    return os.pathsep.join([folder, os.path.join(folder, "runtime")])


def main() -> None:
    specs, rounds, trees = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    results: dict[str, list[tuple[float, float]]] = {t: [] for t in trees}
    for tree in trees:
        folder = tree.split(",")[0]
        if folder != "dcg":
            where = subprocess.run([sys.executable, "-P", "-c", "import codegen; print(codegen.__file__)"],
                                   env={**os.environ, "PYTHONPATH": _path(folder)}, capture_output=True, text=True,
                                   check=True).stdout.strip()
            if not Path(where).resolve().is_relative_to(Path(folder).resolve()):
                sys.exit(f"{folder}: its codegen is imported from {where}, not from the checkout")
    for r in range(rounds):
        for tree in trees:
            scratch = tempfile.mkdtemp()
            folder, *extra = tree.split(",")
            env = {**os.environ, "MCP_CODEGEN_CACHE_DIR": f"{scratch}/cache", "PYTHONPATH": _path(folder)}
            env.pop("MCP_CODEGEN_NO_CACHE", None)
            env.update(item.split("=", 1) for item in extra)
            if tree == "dcg":
                cmd = [sys.executable, str(HERE / "dcg_reference.py"), specs, f"{scratch}/out"]
            else:
                cmd = [sys.executable, "-P", "-m", "codegen", "build", specs, "-o", f"{scratch}/out", "-q"]
            started = time.monotonic()
            pid = os.posix_spawn(cmd[0], cmd, env)
            _, _, usage = os.wait4(pid, 0)
            wall, cpu = time.monotonic() - started, usage.ru_utime + usage.ru_stime
            results[tree].append((wall, cpu))
            print(f"round {r} {tree}: wall {wall:.2f} cpu {cpu:.2f} load {os.getloadavg()[0]:.1f}", flush=True)
            shutil.rmtree(scratch, ignore_errors=True)
    for tree, runs in results.items():
        walls, cpus = sorted(w for w, _ in runs), sorted(c for _, c in runs)
        print(f"{tree}: median wall {walls[len(walls) // 2]:.2f} cpu {cpus[len(cpus) // 2]:.2f}")


if __name__ == "__main__":
    main()
