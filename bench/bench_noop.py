"""No-op rebuild and watch edit only, side by side with a reference checkout, alternating rounds.

``bench_generator.py`` measures everything (DCG, cold, warm, edits) once per size; this script
measures only what an up-to-date ``mcp-codegen build SPECS -o OUT -q`` costs, a fresh process
each time, for this checkout and (``--ref``) another checkout of the generator, alternating
which goes first every round so both see the same machine load.  It prints, per size, the
median wall and CPU seconds (user + system, ``os.wait4``), the lowest and highest wall, the
ratio against the reference, and the load average before and after; then the ``--watch`` edit
(``watch_edit.py``: one tool edited in a spec of ``--per-spec`` tools, median of its rounds)
for the sizes in ``--watch-sizes``.

Usage::

    git -C /path/to/main archive HEAD | tar -x -C /tmp/ref     # the reference checkout
    .venv/bin/python bench/bench_noop.py --ref /tmp/ref [--sizes 10,100,1000] [--one-spec 1000] \\
        [--rounds 7] [--watch-sizes 10] [--workdir DIR] [--pyc] [--full-cli-row]

The first round of each size builds the output (cold, minutes for 1000 tools); ``--workdir``
keeps the spec sets, outputs and caches between runs (each checkout has its own cache and
output folder there), so a second run measures at once.  Without ``--workdir`` everything is
under a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import Run, run_measured, table
from make_specs import write_spec_set

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


#: ``--pyc``: let Python cache bytecode (``__pycache__``), as a default install does, even when
#: the environment sets ``PYTHONDONTWRITEBYTECODE`` (then every run compiles the generator's
#: own modules: both sides pay it, ours 13 small modules, the reference's whole command line).
WRITE_BYTECODE = False
#: ``--full-cli-row``: this checkout with its fast path off (the typer command line decides).
FULL_CLI = "this, fast path off"


def _env(checkout: Path, cache: Path, side: str = "") -> dict[str, str]:
    env = {**os.environ, "MCP_CODEGEN_CACHE_DIR": str(cache), "PYTHONPATH": os.pathsep.join([str(checkout), str(checkout / "runtime")])}
    env.pop("MCP_CODEGEN_NO_CACHE", None)
    env.pop("MCP_CODEGEN_FAST_PATH", None)
    if side == FULL_CLI:
        env["MCP_CODEGEN_FAST_PATH"] = "0"
    if WRITE_BYTECODE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _build(checkout: Path, specs: Path, out: Path, cache: Path, side: str = "") -> Run:
    """``python -m codegen build SPECS -o OUT -q`` of ``checkout``, run in the spec set's folder."""
    cmd = [sys.executable, "-m", "codegen", "build", str(specs), "-o", str(out), "-q"]
    return run_measured(cmd, env=_env(checkout, cache, side), cwd=specs.parent)


def _dirs(side: str) -> str:
    return "this" if side == FULL_CLI else side


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def noop_rows(work: Path, sides: dict[str, Path], tools: int, per_spec: int, rounds: int,
              one_spec: bool = False) -> list[list[object]]:
    tag = f"{tools}x{per_spec}"
    specs = work / f"specs{tag}"
    if not specs.is_dir():
        write_spec_set(specs, tools, per_spec)
    for side, checkout in sides.items():  # up to date first (cold the first time)
        _build(checkout, specs, work / f"out-{_dirs(side)}-{tag}", work / f"cache-{_dirs(side)}", side)
    before = _load()
    runs: dict[str, list[Run]] = {side: [] for side in sides}
    order = list(sides)
    for k in range(rounds):
        for side in order if k % 2 == 0 else order[::-1]:
            runs[side].append(_build(sides[side], specs, work / f"out-{_dirs(side)}-{tag}", work / f"cache-{_dirs(side)}",
                                     side))
    load = f"{before} -> {_load()}"
    label = f"{tools} (one spec)" if one_spec else f"{tools} ({per_spec}/spec)"
    medians = {side: (statistics.median(r.wall for r in rs), statistics.median(r.cpu for r in rs))
               for side, rs in runs.items()}
    rows = []
    for side, rs in runs.items():
        wall, cpu = medians[side]
        note = ""
        if side != "ref" and "ref" in medians:
            ref_wall, ref_cpu = medians["ref"]
            note = f"ref/this: wall {ref_wall / wall:.2f}x, cpu {ref_cpu / cpu:.2f}x"
        rows.append([label, f"no-op rebuild, {side} (median of {rounds})", f"{wall:.3f}",
                     f"{min(r.wall for r in rs):.3f}-{max(r.wall for r in rs):.3f}", f"{cpu:.3f}", load, note])
    return rows


def watch_rows(work: Path, sides: dict[str, Path], tools: int, per_spec: int, rounds: int) -> list[list[object]]:
    rows = []
    for side, checkout in sides.items():
        if side == FULL_CLI:
            continue  # the watch loop runs in one process: no command line to skip
        specs = work / f"watch-{side}-specs{tools}x{per_spec}"
        shutil.rmtree(specs, ignore_errors=True)
        write_spec_set(specs, tools, per_spec)
        out = work / f"watch-{side}-out{tools}x{per_spec}"
        cache = work / f"cache-watch-{side}"
        for folder in (out, cache):  # a warm cache would answer the edits (the same bytes every run)
            shutil.rmtree(folder, ignore_errors=True)
        before = _load()
        run = run_measured([sys.executable, str(HERE / "watch_edit.py"), str(specs), str(out), "--rounds", str(rounds)],
                           env=_env(checkout, cache), cwd=work)
        times = json.loads(run.stdout.strip().splitlines()[-1])
        walls, cpus = [float(x) for x in times["edits"]], [float(x) for x in times["cpu"]]
        rows.append([f"{tools} ({per_spec}/spec)", f"watch: one tool edited, {side} (median of {rounds})",
                     f"{statistics.median(walls):.3f}", f"{min(walls):.3f}-{max(walls):.3f}",
                     f"{statistics.median(cpus):.3f}", f"{before} -> {_load()}", ""])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", type=Path, help="a reference checkout of the generator (its folder holds codegen/)")
    parser.add_argument("--sizes", default="10,100,1000", help="comma-separated tool counts, --per-spec tools a file")
    parser.add_argument("--per-spec", type=int, default=10)
    parser.add_argument("--one-spec", type=int, default=1000, help="also N tools in one spec file (0: skip)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--watch-sizes", default="10", help="sizes (from --sizes) with a watch row ('' for none)")
    parser.add_argument("--watch-rounds", type=int, default=5)
    parser.add_argument("--workdir", type=Path, help="keep spec sets, outputs and caches here between runs")
    parser.add_argument("--pyc", action="store_true", help="cache bytecode even if PYTHONDONTWRITEBYTECODE is set")
    parser.add_argument("--full-cli-row", action="store_true",
                        help="also this checkout with MCP_CODEGEN_FAST_PATH=0 (what the fast path alone buys)")
    args = parser.parse_args()
    global WRITE_BYTECODE
    WRITE_BYTECODE = args.pyc
    bytecode = "written" if args.pyc or not os.environ.get("PYTHONDONTWRITEBYTECODE") else "not written (PYTHONDONTWRITEBYTECODE)"
    sides = {"this": REPO}
    if args.full_cli_row:
        sides[FULL_CLI] = REPO
    if args.ref is not None:
        sides["ref"] = args.ref.resolve()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    layouts = [(n, args.per_spec, False) for n in sizes] + ([(args.one_spec, args.one_spec, True)] if args.one_spec else [])
    watched = {int(s) for s in args.watch_sizes.split(",") if s}
    print(f"# no-op rebuild: {platform.python_version()}, {os.cpu_count()} CPUs, load {_load()}, bytecode {bytecode}; "
          f"sides: {', '.join(f'{k}={v}' for k, v in sides.items())}", flush=True)
    headers = ["tools", "run", "wall s", "wall lowest-highest", "cpu s", "load average (before -> after)", "ratio"]
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-noop-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        rows: list[list[object]] = []
        for tools, per_spec, one_spec in layouts:
            more = noop_rows(work, sides, tools, per_spec, args.rounds, one_spec)
            if tools in watched and not one_spec:
                more += watch_rows(work, sides, tools, per_spec, args.watch_rounds)
            print(table(headers, more), flush=True)
            rows += more
        print("\n## all sizes")
        print(table(headers, rows))


if __name__ == "__main__":
    main()
