"""Throughput of ``python -m weather --http --workers N`` for N = 1, 2, 4, side by side.

The three servers are started at once (each on its own port, all workers of one server behind
that one port) and measured in interleaved rounds, so the machine's load drifts over all of
them alike. The load comes from client processes with a fixed number of concurrent
keep-alive connections each, one call at a time per connection: a hand-written HTTP/1.1 client
(pre-encoded request, ``Content-Length`` parsing) by default, or httpx's ``AsyncClient``
(``--httpx``), which spends more CPU per call than a worker does and so hides the scaling on
a small machine. Clients run on the same machine and compete with the servers for its cores. The script prints calls/s, p50 and p99 latency, and
the ratio to one process.

    .venv/bin/python bench/bench_scale.py [--seconds 5] [--rounds 3] [--clients 1] [--tasks 8] [--httpx]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EXAMPLES = REPO / "generated_examples"
sys.path[:0] = [str(HERE), str(REPO / "tests" / "support")]
from _measure import table  # noqa: E402  (a script: after its sys.path lines)
from common_support import free_port, stop_pid, wait_port  # noqa: E402

BODY = {
    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
    "params": {"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"},
               "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                         "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}},
}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_weather"}


def _request_bytes(host: str, port: int) -> bytes:
    body = json.dumps(BODY).encode()
    head = ["POST /mcp HTTP/1.1", f"host: {host}:{port}", *(f"{k}: {v}" for k, v in HEADERS.items()),
            f"content-length: {len(body)}"]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def _raw_caller(host: str, port: int, end: float, latencies: list[float]) -> None:
    """Keep-alive HTTP/1.1 calls on one connection, written and parsed by hand (cheap)."""
    request = _request_bytes(host, port)
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < end:
            start = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            match = re.search(rb"(?i)content-length: *(\d+)", head)
            if not head.startswith(b"HTTP/1.1 200") or match is None:
                raise RuntimeError(head.decode("latin-1"))
            await reader.readexactly(int(match.group(1)))
            latencies.append(time.perf_counter() - start)
    finally:
        writer.close()


def _client(url: str, tasks: int, seconds: float, use_httpx: bool, out: Any) -> None:
    """One client process: ``tasks`` concurrent keep-alive callers for ``seconds``; sends the latencies."""

    async def main() -> list[float]:
        latencies: list[float] = []
        if not use_httpx:
            host, port = url.split("//")[1].split("/")[0].split(":")
            await asyncio.gather(*(_raw_caller(host, int(port), time.perf_counter() + 0.5, []) for _ in range(tasks)))  # warm-up
            end = time.perf_counter() + seconds
            await asyncio.gather(*(_raw_caller(host, int(port), end, latencies) for _ in range(tasks)))
            return latencies
        import httpx

        limits = httpx.Limits(max_connections=tasks, max_keepalive_connections=tasks)
        async with httpx.AsyncClient(timeout=30, limits=limits) as client:
            for _ in range(20):
                (await client.post(url, json=BODY, headers=HEADERS)).raise_for_status()
            end = time.perf_counter() + seconds

            async def caller() -> None:
                while time.perf_counter() < end:
                    start = time.perf_counter()
                    response = await client.post(url, json=BODY, headers=HEADERS)
                    response.raise_for_status()
                    latencies.append(time.perf_counter() - start)

            await asyncio.gather(*(caller() for _ in range(tasks)))
            return latencies

    out.send(asyncio.run(main()))
    out.close()


def measure(url: str, clients: int, tasks: int, seconds: float, use_httpx: bool) -> tuple[float, list[float]]:
    context = multiprocessing.get_context("spawn")
    pipes, procs = [], []
    for _ in range(clients):
        reader, writer = context.Pipe(duplex=False)
        proc = context.Process(target=_client, args=(url, tasks, seconds, use_httpx, writer))
        proc.start()
        pipes.append(reader)
        procs.append(proc)
    results = [reader.recv() for reader in pipes]
    for proc in procs:
        proc.join(30)
    latencies = [lat for r in results for lat in r]
    return len(latencies) / seconds, latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--tasks", type=int, default=8, help="concurrent calls (and connections) per client process")
    parser.add_argument("--httpx", action="store_true",
                        help="httpx.AsyncClient instead of the hand-written HTTP/1.1 client (costs more CPU than a worker)")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(EXAMPLES), str(REPO)])}
    servers: dict[int, tuple[Any, str]] = {}
    try:
        for n in counts:
            port = free_port()
            proc = subprocess.Popen([sys.executable, "-m", "weather", "--http", "--port", str(port), "--workers", str(n)],
                                    cwd=EXAMPLES, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_port(port, proc=proc)
            servers[n] = (proc, f"http://127.0.0.1:{port}/mcp")
        time.sleep(2)  # every worker up
        rates: dict[int, list[float]] = {n: [] for n in counts}
        lats: dict[int, list[float]] = {n: [] for n in counts}
        for round_ in range(args.rounds):
            for n in counts:
                rate, latencies = measure(servers[n][1], args.clients, args.tasks, args.seconds, args.httpx)
                rates[n].append(rate)
                lats[n] += latencies
                print(f"round {round_ + 1}: {n} worker(s): {rate:,.0f} calls/s", file=sys.stderr)
    finally:
        for proc, _ in servers.values():
            stop_pid(proc)
    base = statistics.median(rates[counts[0]])
    rows = []
    for n in counts:
        rate = statistics.median(rates[n])
        ordered = sorted(lats[n])
        p50 = ordered[len(ordered) // 2] * 1000
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        rows.append([str(n), f"{rate:,.0f}", f"{p50:.1f}", f"{p99:.1f}", f"{rate / base:.2f}x"])
    client = "httpx.AsyncClient" if args.httpx else "hand-written HTTP/1.1"
    print(f"{os.cpu_count()} CPUs; {args.clients} {client} client process(es) x {args.tasks} concurrent keep-alive calls; "
          f"median of {args.rounds} rounds of {args.seconds:g} s")
    print(table(["workers", "calls/s", "p50 ms", "p99 ms", "vs 1 process"], rows))


if __name__ == "__main__":
    main()
