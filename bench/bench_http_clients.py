"""HTTP client libraries side by side: the CPU one POST costs the client, not the whole MCP call.

Why the generated client's transport has its own keep-alive pool (``client/http/pool.py``, on
h11) instead of httpx's: this script sends the same ``tools/call`` POST to one generated server
(``bench/specs/bench.yaml``, ``--http`` on 127.0.0.1, stopped by PID) through

* ``httpx.AsyncClient`` (httpx 0.28 / httpcore 1.x: what the transport used before),
* ``httpx2.AsyncClient`` (the fork the official ``mcp`` SDK uses; skipped when not installed),
* ``PooledHttp`` (the transport's pool),

each with 100 connections allowed, sequentially and at concurrency 100, in rotating order for
``--rounds`` rounds, and prints the median requests/s and client CPU (``getrusage``) per request.

Usage::

    .venv/bin/python bench/bench_http_clients.py [--rounds 3] [--calls 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _measure import table  # noqa: E402  (a script: after its sys.path line)
from bench_runtime import Server, free_port, generate  # noqa: E402

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}
BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META}}).encode()
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "add"}


def clients() -> dict[str, Callable[[], Any]]:
    import httpx
    from mcp_codegen_runtime.client.http.pool import PooledHttp

    out: dict[str, Callable[[], Any]] = {
        "httpx": lambda: httpx.AsyncClient(limits=httpx.Limits(max_connections=100, max_keepalive_connections=100)),
        "PooledHttp (h11)": lambda: PooledHttp(timeout=30.0, read_timeout=None, max_connections=100),
    }
    if importlib.util.find_spec("httpx2") is not None:
        import httpx2

        out["httpx2"] = lambda: httpx2.AsyncClient(limits=httpx2.Limits(max_connections=100, max_keepalive_connections=100))
    return out


async def measure(make: Callable[[], Any], url: str, calls: int, tasks: int) -> tuple[float, float]:
    """(requests/s, client CPU microseconds per request)."""
    client = make()

    async def one() -> None:
        resp = await client.post(url, content=BODY, headers=HEADERS)
        assert resp.status_code == 200, resp.status_code

    async def worker(count: int) -> None:
        for _ in range(count):
            await one()

    try:
        for _ in range(20):
            await one()
        before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        await asyncio.gather(*(worker(calls // tasks) for _ in range(tasks)))
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF)
    finally:
        await client.aclose()
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return calls / wall, cpu / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description="client CPU per POST: httpx, httpx2, the transport's pool")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=1000, help="requests per measurement (x3 at concurrency 100)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-hc-") as tmp:
        gen = generate(Path(tmp))
        sys.path[:0] = [str(gen)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(gen), str(HERE)])}
        port = free_port()
        server = Server([sys.executable, "-m", "benchsrv", "--http", "--host", "127.0.0.1", "--port", str(port)],
                        port, env, gen)
        rows = []
        try:
            makers = clients()
            for tasks in (1, 100):
                calls = args.calls * (3 if tasks > 1 else 1)
                got: dict[str, list[tuple[float, float]]] = {name: [] for name in makers}
                names = list(makers)
                for r in range(args.rounds):
                    for name in names[r % len(names):] + names[:r % len(names)]:
                        got[name].append(asyncio.run(measure(makers[name], server.url, calls, tasks)))
                for name, runs in got.items():
                    rate = statistics.median(x[0] for x in runs)
                    cpu = statistics.median(x[1] for x in runs)
                    rows.append([f"concurrency {tasks}", name, f"{rate:,.0f}", f"{cpu:,.0f}"])
                    print(table(["load", "client", "requests/s", "client CPU us/request"], rows[-1:]), flush=True)
        finally:
            server.stop()
        print("\n## client CPU per POST (medians of the rounds)")
        print(table(["load", "client", "requests/s", "client CPU us/request"], rows))


if __name__ == "__main__":
    main()
