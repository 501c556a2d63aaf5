"""Generator speed: ``mcp-codegen build`` against datamodel-code-generator alone.

For each size (10, 100, 1000 tools; ``make_specs.py`` spec sets of 10 tools per spec file)
this measures, every command a fresh process:

* **reference**: DCG alone turning the same schemas into models, with its default
  formatting (black + isort), see ``dcg_reference.py``;
* **cold build**: ``mcp-codegen build`` into an empty folder with an empty cache;
* **fresh output, warm cache**: the same into another empty folder, with the cache the cold
  build filled (a new checkout or CI job that restores the cache folder);
* **no-op rebuild**: the same command again, nothing changed (median of 5);
* **one tool changed**: one tool's schema and description edited, then rebuild (median
  of 3, a different tool each time);
* **watch, one tool edited**: the ``--watch`` loop (``watch_edit.py``): one process keeps
  watching, a tool is edited and the rebuild timed (median of 5).  The process's own
  startup and initial build are not in that figure, as in a real ``--watch`` session.

Besides the sizes (spec files of ``--per-spec`` tools), ``--one-spec N`` (default 1000, 0 to
skip) runs the reference, cold, warm and no-op rows for N tools in a single spec file: one
server, one package, the layout where no spec-level parallelism applies (``--one-spec-edits``
adds the edit rows; every edit regenerates the whole spec, so they take as long as the cold
build each).  The ratio column gives wall time and, since wall time moves with the machine's
load, CPU time against the reference.

It prints wall time, CPU time (user + system, worker processes included), peak RSS (the
largest process, and the sampled sum over the process tree), lines of code written, and the
ratios against the reference and against the cold build.

Usage::

    .venv/bin/python bench/bench_generator.py [--quick] [--sizes 10,100,1000] [--per-spec 10] [--one-spec 1000]

``--quick`` runs only the 10- and 100-tool sets (and no single-spec set).  Everything happens under a temporary folder
and nothing else is touched (the cache goes there too, through ``MCP_CODEGEN_CACHE_DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import Run, run_measured, table
from make_specs import write_spec_set
from watch_edit import edit_tool

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _lines(folder: Path) -> int:
    """Lines of generated Python, the verbatim runtime copy excluded."""
    return sum(p.read_text("utf-8").count("\n") for p in folder.rglob("*.py") if "_runtime" not in p.parts)


def _build(specs: Path, out: Path, cache: Path) -> Run:
    """``mcp-codegen build`` of this checkout (``python -m codegen``, this repo first on the path)."""
    env = {**os.environ, "MCP_CODEGEN_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    env.pop("MCP_CODEGEN_NO_CACHE", None)
    return run_measured([sys.executable, "-m", "codegen", "build", str(specs), "-o", str(out), "-q"], env=env)


def _watch(specs: Path, out: Path, cache: Path) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each ``--watch`` rebuild after a one-tool edit (``watch_edit.py``)."""
    env = {**os.environ, "MCP_CODEGEN_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    env.pop("MCP_CODEGEN_NO_CACHE", None)
    run = run_measured([sys.executable, str(HERE / "watch_edit.py"), str(specs), str(out)], env=env)
    times = json.loads(run.stdout.strip().splitlines()[-1])
    return [float(x) for x in times["edits"]], [float(x) for x in times["cpu"]]


def bench_size(root: Path, tools: int, per_spec: int, edits_too: bool = True) -> list[list[object]]:
    tag = f"{tools}x{per_spec}"
    specs = root / f"specs{tag}"
    write_spec_set(specs, tools, per_spec)
    ref_out = root / f"dcg{tag}"
    ref = run_measured([sys.executable, str(HERE / "dcg_reference.py"), str(specs), str(ref_out)])
    ref_lines = int(ref.stdout.strip().splitlines()[-1])

    cache = root / f"cache{tag}"
    out = root / f"out{tag}"
    cold = _build(specs, out, cache)
    our_lines = _lines(out)
    warm = _build(specs, root / f"out{tag}-fresh", cache)
    noops = [_build(specs, out, cache) for _ in range(5)]
    noop = min(noops, key=lambda r: abs(r.wall - statistics.median(x.wall for x in noops)))
    label = f"{tools} ({per_spec}/spec)"

    def row(label_: str, run: Run, lines: int | str, note: str) -> list[object]:
        return [label, label_, f"{run.wall:.2f}", f"{run.cpu:.2f}", f"{run.peak_rss_mb:.0f} / {run.peak_tree_mb:.0f}", lines, note]

    def against(run: Run) -> str:
        return f"{run.wall / ref.wall:.2f}x reference (cpu {run.cpu / ref.cpu:.2f}x)"

    rows = [
        row("reference: DCG alone (+black, isort)", ref, ref_lines, ""),
        row("cold build (empty cache)", cold, our_lines, against(cold)),
        row("fresh output, warm cache", warm, our_lines, against(warm)),
        row("no-op rebuild (median of 5)", noop, "-", f"{noop.wall:.3f} s"),
    ]
    if not edits_too:
        return rows
    edits = []
    for k in range(3):
        edit_tool(specs, k)
        edits.append(_build(specs, out, cache))
    edit = min(edits, key=lambda r: abs(r.wall - statistics.median(x.wall for x in edits)))
    walls, cpus = _watch(specs, root / f"out{tag}-watch", root / f"cache{tag}-watch")
    watch, watch_cpu = statistics.median(walls), statistics.median(cpus)
    return [*rows, row("one tool changed (median of 3)", edit, "-", f"{100 * edit.wall / cold.wall:.1f}% of cold"),
            [label, "watch: one tool edited (median of 5)", f"{watch:.2f}", f"{watch_cpu:.2f}", "-", "-", f"{watch:.3f} s"]]


def main() -> None:
    parser = argparse.ArgumentParser(description="mcp-codegen build vs datamodel-code-generator alone")
    parser.add_argument("--quick", action="store_true", help="only the 10- and 100-tool sets")
    parser.add_argument("--sizes", default="10,100,1000", help="comma-separated tool counts")
    parser.add_argument("--per-spec", type=int, default=10, help="tools per spec file")
    parser.add_argument("--one-spec", type=int, default=1000, help="also N tools in one spec file (0: skip)")
    parser.add_argument("--one-spec-edits", action="store_true",
                        help="the edit and watch rows for the single spec too (each edit regenerates all of it)")
    args = parser.parse_args()
    sizes = [10, 100] if args.quick else [int(s) for s in args.sizes.split(",")]
    print(f"# generator benchmark: {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"{args.per_spec} tools per spec file", flush=True)
    rows: list[list[object]] = []
    layouts = [(n, args.per_spec, True) for n in sizes]
    if args.one_spec and not args.quick:
        layouts.append((args.one_spec, args.one_spec, args.one_spec_edits))
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-bench-") as tmp:
        for n, per_spec, edits_too in layouts:
            more = bench_size(Path(tmp), n, per_spec, edits_too)
            rows += more
            print(table(["tools", "run", "wall s", "cpu s", "peak RSS MB (largest / tree)", "lines", "ratio"], more),
                  flush=True)
            print(flush=True)
    print("## all sizes")
    print(table(["tools", "run", "wall s", "cpu s", "peak RSS MB (largest / tree)", "lines", "ratio"], rows))


if __name__ == "__main__":
    main()
