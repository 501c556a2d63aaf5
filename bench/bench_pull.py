"""``mcp-codegen pull`` against the server's own start-up plus one ``tools/list``.

For each server, in interleaved rounds:

* **reference**: a raw newline-JSON client (this process) spawns the server, sends
  ``initialize``, ``notifications/initialized`` and ``tools/list``, and stops the clock at the
  ``tools/list`` answer (the server is then closed: stdin closed, terminate, kill after 5 s);
* **pull**: ``python -m codegen pull --stdio CMD -o FILE --force`` in a fresh process, wall
  time from spawn to exit (our interpreter start-up, the server's start-up, the handshake,
  every list, the spec written).  Its bytecode is cached (``PYTHONPYCACHEPREFIX`` in the
  temporary folder, written by a warm-up run) as for an installed package, even where the
  environment sets ``PYTHONDONTWRITEBYTECODE`` (``--no-bytecode-cache`` keeps that setting);
* **pull --check**: the same with the check build (the whole pipeline on the new spec);
* **baseline pull** (``--baseline DIR``, e.g. ``/work/main``): the same ``pull`` from another
  checkout's code (``PYTHONPATH=DIR``, this interpreter), in the same rounds.

Besides wall time, the CPU time (user + sys) of each run's process tree is given (the
server's included: ``RUSAGE_CHILDREN`` of the reaped processes), which a loaded machine
disturbs much less.

Servers: the npm everything server (``.tools/npm``, run with ``node``) and the 50-tool
synthetic server, twice: ``bench/pull_server.py`` (standard library only: its start-up is
the interpreter's) and ``bench/pull_server_sdk.py`` (the same tools on the official ``mcp``
SDK's low-level ``Server``).  Medians of ``--rounds`` (default 5) are printed
with the ratio pull / reference (target: at most 2x).

Usage::

    python bench/bench_pull.py [--rounds 5] [--no-check-row] [--baseline /work/main]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _measure import stop

REPO = Path(__file__).resolve().parents[1]
EVERYTHING = REPO / ".tools" / "npm" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


#: Where the pull processes keep their bytecode (``--no-bytecode-cache``: "", none kept).
BYTECODE = ""


def servers() -> dict[str, list[str]]:
    """Command lines by name (the npm server only when it is installed)."""
    out = {"synthetic 50 tools, stdlib": [sys.executable, str(REPO / "bench" / "pull_server.py"), "--tools", "50"],
           "synthetic 50 tools, mcp SDK": [sys.executable, str(REPO / "bench" / "pull_server_sdk.py"), "--tools", "50"]}
    node = shutil.which("node")
    if node and EVERYTHING.is_file():
        out["npm everything (13 tools)"] = [node, str(EVERYTHING), "stdio"]
    return out


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.stdin:
        proc.stdin.close()
    stop(proc)


def _cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def reference(cmd: list[str]) -> tuple[float, float, float]:
    """Seconds from spawn to the ``tools/list`` answer, with a raw client (wall; CPU of the
    server, counted once it is stopped)."""
    cpu = _cpu()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin and proc.stdout
    try:
        def send(msg: dict[str, object]) -> None:
            assert proc.stdin
            proc.stdin.write(json.dumps(msg).encode() + b"\n")
            proc.stdin.flush()

        def answer(want: int) -> dict[str, object]:
            assert proc.stdout
            while True:
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError("server closed stdout")
                msg = json.loads(line)
                if msg.get("id") == want:
                    return msg

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "0"}}})
        answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = answer(2)["result"]["tools"]  # type: ignore[index]
        elapsed = time.perf_counter() - start
        assert tools
    finally:
        _stop(proc)
    return elapsed, _cpu() - cpu, elapsed


def pull(cmd: list[str], out: Path, check: bool, repo: Path = REPO) -> tuple[float, float, float]:
    """Wall and CPU seconds of one ``mcp-codegen pull`` process (the code of ``repo``), and
    when the spec was on disk (seconds after the spawn; the rest is the server's own exit,
    which ``pull`` waits for, and the check build)."""
    import shlex

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), str(repo / "runtime"), os.environ.get("PYTHONPATH", "")])}
    if BYTECODE:  # as an installed package runs: compiled once (the warm-up run), then cached
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = BYTECODE
    args = [sys.executable, "-m", "codegen", "pull", "--stdio", shlex.join(cmd), "-o", str(out), "--force"]
    cpu = _cpu()
    start, epoch = time.perf_counter(), time.time()
    proc = subprocess.run([*args, *(["--check"] if check else [])], capture_output=True, text=True, env=env,
                          timeout=300, cwd=repo)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"pull failed ({proc.returncode}):\n{proc.stderr}")
    return elapsed, _cpu() - cpu, out.stat().st_mtime - epoch


Run = tuple[float, float, float]


def _row(name: str, run: str, runs: list[Run], ref: tuple[float, float] | None) -> tuple[str, ...]:
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    if ref is None:
        return (name, run, f"{wall:.3f}", "", "", f"{cpu:.3f}")
    lo = min(r[0] for r in runs) / ref[0]
    hi = max(r[0] for r in runs) / ref[0]
    written = statistics.median(r[2] for r in runs)
    return (name, run, f"{wall:.3f}", f"{wall / ref[0]:.2f}x ({lo:.2f}-{hi:.2f})", f"{written:.3f}", f"{cpu:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-check-row", action="store_true", help="leave out the pull --check row")
    ap.add_argument("--baseline", type=Path, help="another checkout (e.g. /work/main): its pull in the same rounds")
    ap.add_argument("--only", help="run only the servers whose name contains this")
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="keep the environment's bytecode setting for the pull processes (PYTHONDONTWRITEBYTECODE=1: "
                         "every run compiles mcp-codegen from source, about 0.2 s)")
    args = ap.parse_args()
    global BYTECODE
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-pull-") as tmp:
        os.environ["MCP_CODEGEN_CACHE_DIR"] = str(Path(tmp) / "cache")
        BYTECODE = "" if args.no_bytecode_cache else str(Path(tmp) / "pycache")
        rows = []
        for name, cmd in servers().items():
            if args.only and args.only not in name:
                continue
            ref: list[Run] = []
            fast: list[Run] = []
            base: list[Run] = []
            checked: list[Run] = []
            out = Path(tmp) / "spec.yaml"
            reference(cmd)  # warm the OS caches (node modules, .pyc files)
            pull(cmd, out, False)
            if args.baseline:
                pull(cmd, out, False, args.baseline)
            for _ in range(args.rounds):
                ref.append(reference(cmd))
                fast.append(pull(cmd, out, False))
                if args.baseline:
                    base.append(pull(cmd, out, False, args.baseline))
                if not args.no_check_row:
                    checked.append(pull(cmd, out, True))
            r = (statistics.median(x[0] for x in ref), statistics.median(x[1] for x in ref))
            rows.append(_row(name, "server start-up + one tools/list (raw client)", ref, None))
            rows.append(_row(name, "mcp-codegen pull", fast, r))
            if base:
                rows.append(_row(name, f"mcp-codegen pull of {args.baseline}", base, r))
            if checked:
                rows.append(_row(name, "mcp-codegen pull --check", checked, r))
        print(f"\nmedians of {args.rounds} rounds; ratio: median wall / reference median wall (lowest-highest round)\n")
        print("| server | run | wall s | ratio | spec on disk at s | CPU s (process tree) |")
        print("|---|---|---|---|---|---|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
