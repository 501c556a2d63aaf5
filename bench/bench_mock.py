"""A mocked tool call against a generated server's call, in process, side by side in one run.

Both servers are the weather package of ``generated_examples/``: the generated server with a
trivial ``async`` handler (it returns a constant output) and :func:`mock_server` of the same base class
(it draws the output from the schema, checks it, and keeps it for the same arguments).  Each
round sends ``--calls`` ``tools/call`` requests through ``connect_in_process`` to each server in
turn; the table shows calls/s (median of the rounds) and the mock's cost as a ratio of the
generated server's.  ``--varied`` gives every call new arguments, so no mocked output is reused
(the cost of drawing a value each time).

``--stdio`` measures server processes instead: what ``mcp-codegen mock specs/weather.yaml`` serves
(:data:`MOCK_STDIO`) against ``python -m weather --impl bench_mock:Trivial``, both over stdio (2026-07-28 era), each
started once and warmed up; the figure is each server's CPU per call (``/proc/PID/task/*/schedstat``)
over interleaved rounds in a rotated order, and the ratio is taken within each round.

Run:

    .venv/bin/python bench/bench_mock.py [--calls 2000] [--rounds 5] [--varied] [--stdio]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generated_examples"))

from _measure import StdioProcess, cpu_ns
from mcp_codegen_runtime.server.gencode import ServerSettings
from mcp_codegen_runtime.server.mock import mock_server
from weather.server import WeatherServerBase

ROOT = Path(__file__).resolve().parents[1]


class Trivial(WeatherServerBase):
    async def get_weather(self, args: Any, ctx: Any) -> Any:  # async, as the mock's (a plain def runs in a thread)
        return {"temperature": 21.5, "conditions": "sunny", "unit": "celsius"}


async def _rate(server: Any, calls: int, varied: bool) -> float:
    async with server.connect_in_process() as peer:
        await peer.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        await peer.receive()
        start = time.perf_counter()
        for n in range(1, calls + 1):
            location = f"city {n}" if varied else "Paris"
            await peer.send({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                             "params": {"name": "get_weather", "arguments": {"location": location}}})
            answer = await peer.receive()
            assert "structuredContent" in answer["result"], answer
        return calls / (time.perf_counter() - start)


META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}


class Peer(StdioProcess):
    """A server process over stdio: one ``get_weather`` call, its reply checked."""

    def __init__(self, cmd: list[str]) -> None:
        super().__init__(cmd, {**{k: v for k, v in os.environ.items() if not k.startswith("MCP_CODEGEN_")},
                               "PYTHONPATH": os.pathsep.join([str(ROOT / "generated_examples"), str(ROOT / "bench")])},
                         ROOT, quiet=True)
        self.n = 0

    def call(self, location: str) -> None:
        self.n += 1
        reply = self.exchange(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": "tools/call", "params": {
            "name": "get_weather", "arguments": {"location": location}, "_meta": META}}).encode() + b"\n")
        assert "structuredContent" in json.loads(reply)["result"], reply


#: What ``mcp-codegen mock specs/weather.yaml`` serves (``mock_server`` of the generated base, ``run_stdio``),
#: with the rate limit lifted as ``--rate-limit 0`` lifts the generated server's (the CLI keeps the default).
MOCK_STDIO = """
from _measure import StdioProcess, cpu_ns
from mcp_codegen_runtime.server.gencode import ServerSettings
from mcp_codegen_runtime.server.mock import mock_server
from mcp_codegen_runtime.server.stdio.transport import run_stdio
from weather.server import WeatherServerBase
run_stdio(mock_server(WeatherServerBase, settings=ServerSettings(rate_limit_per_second=1e12, rate_limit_burst=10**12)))
"""


def stdio(calls: int, rounds: int, varied: bool) -> None:
    """Server CPU per call over stdio: the ``mcp-codegen mock`` process against the generated server."""
    peers = {"generated (trivial handler)": Peer([sys.executable, "-m", "weather", "--stdio", "--rate-limit", "0",
                                                  "--impl", "bench_mock:Trivial"]),
             "mock": Peer([sys.executable, "-c", MOCK_STDIO])}
    cpu: dict[str, list[float]] = {name: [] for name in peers}
    count = 0
    try:
        for peer in peers.values():
            for _ in range(200):
                peer.call("Paris")
        names = list(peers)
        for r in range(rounds):
            for name in names[r % 2:] + names[:r % 2]:
                peer, before = peers[name], cpu_ns(peers[name].pid)
                for _ in range(calls):
                    count += 1
                    peer.call(f"city {count}" if varied else "Paris")
                cpu[name].append((cpu_ns(peer.pid) - before) / calls / 1000)
    finally:
        for peer in peers.values():
            peer.stop()
    ratios = [m / g for m, g in zip(cpu["mock"], cpu["generated (trivial handler)"], strict=True)]
    print(f"{'server (stdio)':30} {'CPU us/call':>12}   get_weather, {calls} calls x {rounds} rounds"
          f"{', new arguments every call' if varied else ''}")
    for name, values in cpu.items():
        print(f"{name:30} {statistics.median(values):12.0f}")
    print(f"mock call cost / generated call cost: {statistics.median(ratios):.2f} "
          f"(rounds {min(ratios):.2f}..{max(ratios):.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--varied", action="store_true", help="new arguments for every call")
    parser.add_argument("--stdio", action="store_true", help="the mock and generated server processes over stdio")
    args = parser.parse_args()
    if args.stdio:
        stdio(args.calls, args.rounds, args.varied)
        return
    unlimited = ServerSettings(rate_limit_per_second=1e12, rate_limit_burst=10**12)  # as --rate-limit 0
    generated, mocked = Trivial(settings=unlimited), mock_server(WeatherServerBase, settings=unlimited)
    asyncio.run(_rate(generated, 200, args.varied))  # warm-up
    asyncio.run(_rate(mocked, 200, args.varied))
    rates: dict[str, list[float]] = {"generated (trivial handler)": [], "mock": []}
    ratios = []
    for _ in range(args.rounds):
        ours = asyncio.run(_rate(generated, args.calls, args.varied))
        mock = asyncio.run(_rate(mocked, args.calls, args.varied))
        rates["generated (trivial handler)"].append(ours)
        rates["mock"].append(mock)
        ratios.append(ours / mock)  # > 1: a mocked call costs more
    print(f"{'server':30} {'calls/s':>10}   get_weather, {args.calls} calls x {args.rounds} rounds"
          f"{', new arguments every call' if args.varied else ''}")
    for name, values in rates.items():
        print(f"{name:30} {statistics.median(values):10.0f}")
    print(f"mock call cost / generated call cost: {statistics.median(ratios):.2f} "
          f"(rounds {min(ratios):.2f}..{max(ratios):.2f})")


if __name__ == "__main__":
    main()
