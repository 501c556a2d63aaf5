"""A mocked tool call against a generated server's call, in process, side by side in one run.

Both servers are the weather package of ``generated_examples/``: the generated server with a
trivial ``async`` handler (it returns a constant output) and :func:`mock_server` of the same base class
(it draws the output from the schema, checks it, and keeps it for the same arguments).  Each
round sends ``--calls`` ``tools/call`` requests through ``connect_in_process`` to each server in
turn; the table shows calls/s (median of the rounds) and the mock's cost as a ratio of the
generated server's.  ``--varied`` gives every call new arguments, so no mocked output is reused
(the cost of drawing a value each time).

Run:

    .venv/bin/python bench/bench_mock.py [--calls 2000] [--rounds 5] [--varied]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generated_examples"))

from mcp_codegen_runtime.server.gencode import ServerSettings
from mcp_codegen_runtime.server.mock import mock_server
from weather.server import WeatherServerBase


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--varied", action="store_true", help="new arguments for every call")
    args = parser.parse_args()
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
