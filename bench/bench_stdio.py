"""stdio servers measured with one raw newline-JSON client: the generated server (pure
Python path, and with the ``fast`` extra), the official ``mcp`` SDK, FastMCP, and the raw
echo floor, side by side in one run.

The client is a blocking loop in this process: it writes one pre-encoded request line,
reads one line back and checks it, so the figures are the servers' (plus the pipes), not a
client stack's.  Every server is started once, warmed up, then measured in interleaved
rounds (ours, the SDK, FastMCP, ... in turn, ``--rounds`` times); the table shows the median
calls/s and, beside each ratio, its lowest and highest value over the rounds (each round's
ratio is taken within that round).

Eras: ``2025`` sends ``initialize`` (2025-11-25) and ``notifications/initialized`` once,
then plain ``tools/call``; ``2026`` sends every ``tools/call`` with the 2026-07-28 ``_meta``
(protocol version, client capabilities, client info) and no handshake.

Run (after ``scripts/bench-env`` for FastMCP):

    .venv/bin/python bench/bench_stdio.py [--calls 2000] [--rounds 5] [--only add,ingest] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _measure import cpu_ns, finish

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BENCH_PY = ROOT / ".venv-bench" / "bin" / "python"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {},
               "io.modelcontextprotocol/clientInfo": {"name": "raw-bench", "version": "1.0"}}


def payload() -> dict[str, Any]:
    """The 20 kB ``ingest`` arguments (the same as ``bench_runtime.py``'s)."""
    return {"orders": [
        {"id": f"o{i}", "customer": {"name": f"Customer {i}", "email": f"c{i}@example.com",
                                     "address": {"street": f"{i} Main St", "city": "Paris", "country": "FR"}},
         "lines": [{"sku": f"ABC-{1000 + j}", "quantity": j + 1, "unit_price": 9.5 + j} for j in range(5)],
         "priority": "high" if i % 3 == 0 else "normal", "tags": ["bench", f"t{i % 7}"]}
        for i in range(50)]}


class Peer:
    """One server process driven over its stdin/stdout pipes."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], cwd: Path, era: str) -> None:
        self.name = name
        self.era = era
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd,
                                     bufsize=0)
        self.out = self.proc.stdout.fileno()  # type: ignore[union-attr]
        self.inp = self.proc.stdin.fileno()  # type: ignore[union-attr]
        self.buf = b""
        self.next_id = 0
        if era == "2025" and name != "raw echo":
            init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "raw-bench", "version": "1.0"}}}
            reply = json.loads(self.roundtrip(json.dumps(init).encode() + b"\n"))
            assert "result" in reply, reply
            os.write(self.inp, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def line(self) -> bytes:
        while True:
            end = self.buf.find(b"\n")
            if end >= 0:
                line, self.buf = self.buf[:end], self.buf[end + 1:]
                return line
            chunk = os.read(self.out, 1 << 20)
            if not chunk:
                raise RuntimeError(f"{self.name}: server closed stdout")
            self.buf += chunk

    def roundtrip(self, data: bytes) -> bytes:
        os.write(self.inp, data)
        while True:
            line = self.line()
            if b'"id"' in line and b'"method"' not in line[:40]:
                return line

    def request(self, tool: str, arguments: dict[str, Any]) -> Callable[[], bytes]:
        """A function sending one ``tools/call`` (ids counting up) and returning the reply line."""
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if self.era == "2026":
            params["_meta"] = MODERN_META
        head = b'{"jsonrpc":"2.0","method":"tools/call","params":' + json.dumps(params).encode() + b',"id":'

        def call() -> bytes:
            self.next_id += 1
            return self.roundtrip(head + str(self.next_id).encode() + b"}\n")

        return call

    def cpu_ns(self) -> int:
        """CPU time of the server process so far (every thread)."""
        return cpu_ns(self.proc.pid)

    def stop(self) -> None:
        finish(self.proc)


def checker(tool: str) -> Callable[[bytes], None]:
    def check(line: bytes) -> None:
        reply = json.loads(line)
        result = reply["result"]
        assert not result.get("isError"), result
        got = result["structuredContent"]
        if tool == "add":
            assert got["sum"] == 4.0, got
        else:
            assert got["orders"] == 50, got

    return check


def timed(peer: Peer, call: Callable[[], bytes], check: Callable[[bytes], None], n: int) -> tuple[float, float]:
    """(calls/s, server CPU microseconds per call) of ``n`` sequential calls (every reply
    checked, outside the clock: the check is the same for every server)."""
    spent = 0.0
    cpu0 = peer.cpu_ns()
    for _ in range(n):
        t0 = time.perf_counter()
        line = call()
        spent += time.perf_counter() - t0
        check(line)
    return n / spent, (peer.cpu_ns() - cpu0) / n / 1000


def generate(tmp: Path) -> Path:
    gen = tmp / "gen"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "codegen", "build", str(HERE / "specs"), "-o", str(gen), "-q"],
                   check=True, env=env, cwd=ROOT)
    (gen / "bench_impl.py").write_text((HERE / "bench_impl.py").read_text())
    return gen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=2000, help="calls per server per round (ingest: a tenth)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="add,ingest")
    ap.add_argument("--eras", default="2025,2026")
    ap.add_argument("--baseline", default=None,
                    help="also run the generated server on this checkout's runtime (e.g. git archive of main): before / after")
    opts = ap.parse_args()
    from importlib.util import find_spec

    fast = find_spec("jsonschema_rs") is not None and find_spec("orjson") is not None
    with tempfile.TemporaryDirectory(prefix="mcp-bench-stdio-") as tmp:
        gen = generate(Path(tmp))
        base = {k: v for k, v in os.environ.items() if not k.startswith("MCP_CODEGEN_")}
        env = {**base, "PYTHONPATH": os.pathsep.join([str(gen), str(HERE)])}
        servers: list[tuple[str, list[str], dict[str, str], Path]] = []
        if fast:
            servers.append(("generated, fast extra", [sys.executable, "-m", "benchsrv", "--stdio"], env, gen))
        servers.append(("generated, pure Python", [sys.executable, "-m", "benchsrv", "--stdio"],
                        {**env, "MCP_CODEGEN_ACCELERATOR": "off"}, gen))
        if opts.baseline:  # the same package on another checkout's runtime, for a before / after
            ref = {**env, "PYTHONPATH": os.pathsep.join([str(Path(opts.baseline).resolve() / "runtime"), env["PYTHONPATH"]])}
            if fast:
                servers.append(("baseline, fast extra", [sys.executable, "-m", "benchsrv", "--stdio"], ref, gen))
            servers.append(("baseline, pure Python", [sys.executable, "-m", "benchsrv", "--stdio"],
                            {**ref, "MCP_CODEGEN_ACCELERATOR": "off"}, gen))
        servers.append(("mcp SDK (reference)", [sys.executable, str(HERE / "sdk_server.py"), "--stdio"], env, HERE))
        if BENCH_PY.exists():
            servers.append(("FastMCP", [str(BENCH_PY), str(HERE / "fastmcp_server.py")], base, HERE))
        else:
            print(f"(no FastMCP row: {BENCH_PY} missing; run scripts/bench-env)", file=sys.stderr)
        rows: list[list[str]] = []
        for tool in opts.only.split(","):
            args = {"a": 1.5, "b": 2.5} if tool == "add" else payload()
            n = opts.calls if tool == "add" else max(opts.calls // 10, 20)
            check = checker(tool)
            for era in opts.eras.split(","):
                peers = [Peer(name, cmd, e, cwd, era) for name, cmd, e, cwd in servers]
                if tool == "add":
                    peers.insert(0, Peer("raw echo", [sys.executable, str(HERE / "echo_server.py")], base, HERE, era))
                try:
                    calls = {p.name: p.request(tool, args) for p in peers}
                    for p in peers:
                        timed(p, calls[p.name], check, max(n // 4, 50))  # warm-up
                    rates: dict[str, list[float]] = {p.name: [] for p in peers}
                    cpus: dict[str, list[float]] = {p.name: [] for p in peers}
                    for _ in range(opts.rounds):
                        for p in peers:
                            rate, cpu = timed(p, calls[p.name], check, n)
                            rates[p.name].append(rate)
                            cpus[p.name].append(cpu)
                finally:
                    for p in peers:
                        p.stop()
                sdk = rates["mcp SDK (reference)"]
                for name, got in rates.items():
                    vs_sdk = [a / b for a, b in zip(got, sdk, strict=True)]
                    cell = ""
                    if name != "mcp SDK (reference)":
                        cell = (f"{statistics.median(vs_sdk):.2f}x SDK "
                                f"({min(vs_sdk):.2f}-{max(vs_sdk):.2f})")
                    if "raw echo" in rates and name != "raw echo":
                        floor = [a / b for a, b in zip(rates["raw echo"], got, strict=True)]
                        cell += f"; {statistics.median(floor):.2f}x slower than raw ({min(floor):.2f}-{max(floor):.2f})"
                    if name.startswith(("generated", "baseline")) and "FastMCP" in rates:
                        vs_fm = [a / b for a, b in zip(got, rates["FastMCP"], strict=True)]
                        cell += f"; {statistics.median(vs_fm):.2f}x FastMCP"
                    cpu = statistics.median(cpus[name])
                    sdk_cpu = statistics.median(cpus["mcp SDK (reference)"])
                    cpu_cell = f"{cpu:,.0f}" + (f" ({sdk_cpu / cpu:.2f}x less)" if name != "mcp SDK (reference)" else "")
                    rows.append([tool, era, name, f"{statistics.median(got):,.0f}", cell, cpu_cell])
        head = ["tool", "era", "server", "calls/s (median)", "ratio (median, lowest-highest round)",
                "server CPU us/call (vs SDK)"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
