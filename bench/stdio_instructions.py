"""Instructions per small stdio request (``add``) of the generated server, under cachegrind,
for one or more checkouts side by side (load-independent, unlike CPU time).

Each checkout's own generator builds ``bench/specs`` and its server runs under ``valgrind
--tool=cachegrind``, driven by the raw client of ``bench_stdio.py`` (sequential calls, every
reply checked) for ``--small`` and then ``--large`` calls; the difference of the two totals
divided by the difference of the counts is the cost of one request, start-up and shutdown
subtracted.

    .venv/bin/python bench/stdio_instructions.py /work/base-x /work/wt-x [--small 200 --large 2200]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_stdio import Peer, checker  # noqa: E402


def build(root: Path, out: Path) -> None:
    py = root / ".venv" / "bin" / "python"
    subprocess.run([str(py), "-m", "codegen", "build", str(root / "bench" / "specs"), "-o", str(out), "-q"],
                   check=True, cwd=root, env={**os.environ, "MCP_CODEGEN_NO_CACHE": "1"})
    (out / "bench_impl.py").write_text((root / "bench" / "bench_impl.py").read_text())


def instructions(root: Path, gen: Path, era: str, calls: int, accel: str, tmp: Path) -> int:
    py = root / ".venv" / "bin" / "python"
    out = tmp / f"cg-{root.name}-{era}-{calls}-{accel}.out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_CODEGEN_")}
    env["PYTHONPATH"] = str(gen)
    if accel == "off":
        env["MCP_CODEGEN_ACCELERATOR"] = "off"
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
           str(py), "-m", "benchsrv", "--stdio"]
    peer = Peer("generated", cmd, env, gen, era)
    call, check = peer.request("add", {"a": 1.5, "b": 2.5}), checker("add")
    for _ in range(calls):
        check(call())
    peer.stop()
    match = re.search(r"^summary: (\d+)", out.read_text(), re.M)
    assert match is not None, out
    return int(match.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("roots", nargs="+", type=Path)
    ap.add_argument("--small", type=int, default=200)
    ap.add_argument("--large", type=int, default=2200)
    ap.add_argument("--eras", default="2025,2026")
    ap.add_argument("--accel", default="on", help="on, off or on,off (MCP_CODEGEN_ACCELERATOR)")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcp-cg-stdio-") as name:
        tmp = Path(name)
        gens = {}
        for i, root in enumerate(opts.roots):
            gens[root] = tmp / f"gen{i}"
            build(root.resolve(), gens[root])
        jobs = [(root, era, accel, n) for era in opts.eras.split(",") for accel in opts.accel.split(",")
                for root in opts.roots for n in (opts.small, opts.large)]
        with ThreadPoolExecutor(max_workers=2) as pool:
            counts = dict(zip(jobs, pool.map(lambda j: instructions(j[0].resolve(), gens[j[0]], j[1], j[3], j[2], tmp),
                                             jobs), strict=True))
    print("| era | accelerator | checkout | instructions per request |")
    print("|---|---|---|---|")
    for era in opts.eras.split(","):
        for accel in opts.accel.split(","):
            first = None
            for root in opts.roots:
                per = (counts[(root, era, accel, opts.large)] - counts[(root, era, accel, opts.small)]) \
                    / (opts.large - opts.small)
                first = per if first is None else first
                rel = "" if per == first else f" ({(per - first) / first * 100:+.1f}%)"
                print(f"| {era} | {accel} | {root} | {per:,.0f}{rel} |")


if __name__ == "__main__":
    main()
