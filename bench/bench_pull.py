"""``mcp-codegen pull`` against the server's own start-up plus one ``tools/list``.

For each server, in interleaved rounds:

* **reference**: a raw newline-JSON client (this process) spawns the server, sends
  ``initialize``, ``notifications/initialized`` and ``tools/list``, and stops the clock at the
  ``tools/list`` answer (the server is then closed: stdin closed, terminate, kill after 5 s);
* **pull**: ``python -m codegen pull --stdio CMD -o FILE --force`` in a fresh process, wall
  time from spawn to exit (our interpreter start-up, the server's start-up, the handshake,
  every list, the spec written);
* **pull --check**: the same with the check build (the whole pipeline on the new spec).

Servers: the npm everything server (``.tools/npm``, run with ``node``) and the 50-tool
synthetic server, twice: ``bench/pull_server.py`` (standard library only: its start-up is
the interpreter's) and ``bench/pull_server_sdk.py`` (the same tools on the official ``mcp``
SDK's low-level ``Server``).  Medians of ``--rounds`` (default 5) are printed
with the ratio pull / reference (target: at most 2x).

Usage::

    python bench/bench_pull.py [--rounds 5] [--no-check-row]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVERYTHING = REPO / ".tools" / "npm" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


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
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def reference(cmd: list[str]) -> float:
    """Seconds from spawn to the ``tools/list`` answer, with a raw client."""
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
        return elapsed
    finally:
        _stop(proc)


def pull(cmd: list[str], out: Path, check: bool) -> float:
    """Wall seconds of one ``mcp-codegen pull`` process."""
    import shlex

    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    args = [sys.executable, "-m", "codegen", "pull", "--stdio", shlex.join(cmd), "-o", str(out), "--force"]
    start = time.perf_counter()
    proc = subprocess.run([*args, *(["--check"] if check else [])], capture_output=True, text=True, env=env, timeout=300)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"pull failed ({proc.returncode}):\n{proc.stderr}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-check-row", action="store_true", help="leave out the pull --check row")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-pull-") as tmp:
        os.environ["MCP_CODEGEN_CACHE_DIR"] = str(Path(tmp) / "cache")
        rows = []
        for name, cmd in servers().items():
            ref: list[float] = []
            fast: list[float] = []
            checked: list[float] = []
            out = Path(tmp) / "spec.yaml"
            reference(cmd)  # warm the OS caches (node modules, .pyc files)
            pull(cmd, out, False)
            for _ in range(args.rounds):
                ref.append(reference(cmd))
                fast.append(pull(cmd, out, False))
                if not args.no_check_row:
                    checked.append(pull(cmd, out, True))
            r = statistics.median(ref)
            rows.append((name, "server start-up + one tools/list (raw client)", r, None))
            rows.append((name, "mcp-codegen pull", statistics.median(fast), statistics.median(fast) / r))
            if checked:
                rows.append((name, "mcp-codegen pull --check", statistics.median(checked), statistics.median(checked) / r))
        print(f"\nmedians of {args.rounds} rounds, wall seconds\n")
        print("| server | run | wall s | ratio |")
        print("|---|---|---|---|")
        for name, run, sec, ratio in rows:
            print(f"| {name} | {run} | {sec:.3f} | {'' if ratio is None else f'{ratio:.2f}x'} |")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
