"""Server memory per connection: idle legacy sessions, their GET streams, 2026 listen streams.

The benchmark server is generated from ``bench/specs/bench.yaml`` into a temporary folder, as
``bench_runtime.py`` does; the reference is the official ``mcp`` SDK's server
(``sdk_server.py``, the same tools).  Each server runs as ``--http`` on 127.0.0.1 in its own
process, a fresh one per scenario, and this script reads its RSS (``VmRSS`` of
``/proc/PID/status``) after a short warm-up and again once N connections are open and idle:

* ``sessions``: N legacy sessions (2025-11-25 ``initialize`` + ``notifications/initialized``),
  nothing else open;
* ``get``: N legacy sessions, each with its GET SSE stream open (N open connections);
* ``listen``: N 2026-07-28 ``subscriptions/listen`` streams open (N open connections), each
  read up to its acknowledgement.

Sessions are set up over a pool of ``--setup-connections`` keep-alive connections (one
``httpx.AsyncClient``); the long-lived streams are raw asyncio connections, read until their
first bytes, then left open.  Each row gives the RSS growth in MB and per connection in KB.
Past 980 connections the generated server gets higher ``--max-sessions`` and
``--max-listen-streams`` (default 1,000 each); the SDK caps listen streams at 1,024.

``--trace`` runs the generated server under ``tracemalloc`` instead (``--serve-traced``, this
script as the server process: it runs ``python -m benchsrv`` in process) and prints, per
scenario, the allocations that grew between the two RSS reads, grouped by source line, and
the total per connection.  The RSS figures of a traced run are not comparable (tracemalloc
keeps a trace of every block).

Usage::

    .venv/bin/python bench/bench_memory.py [--n 1000] [--only sessions,get,listen] [--stack ours,sdk]
    .venv/bin/python bench/bench_memory.py --trace [--n 1000] [--top 25]

Every server process is started by this script and stopped by its PID (terminate, then kill).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import runpy
import signal
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

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
SCENARIOS = ("sessions", "get", "listen")
WARMUP = 20  # sessions/streams opened and closed before the baseline (lazy imports, caches)


def vm_rss_mb(pid: int) -> float:
    """``VmRSS`` of ``pid`` in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def settle(pid: int, seconds: float = 1.0) -> float:
    """RSS once the server had ``seconds`` to finish what it was doing (median of 3 reads)."""
    time.sleep(seconds)
    reads = []
    for _ in range(3):
        reads.append(vm_rss_mb(pid))
        time.sleep(0.1)
    return sorted(reads)[1]


def raise_fd_limit(n: int) -> None:
    """Enough descriptors for this client and the servers it starts (they inherit the limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = n * 2 + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        if new < want:
            print(f"warning: fd limit {new} < {want}; lower --n", file=sys.stderr)


# -- the client side ------------------------------------------------------------------------------

def _init_body(i: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {},
                       "clientInfo": {"name": f"mem-{i}", "version": "1.0"}}}


async def open_session(client: Any, url: str, i: int) -> str:
    """A legacy session, initialized; its id."""
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    r = await client.post(url, json=_init_body(i), headers=headers)
    r.raise_for_status()
    sid = r.headers["mcp-session-id"]
    headers |= {"mcp-session-id": sid, "mcp-protocol-version": LEGACY}
    r = await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    assert r.status_code == 202, (r.status_code, r.text)
    return sid


async def delete_session(client: Any, url: str, sid: str) -> None:
    await client.delete(url, headers={"mcp-session-id": sid, "mcp-protocol-version": LEGACY})


class RawStream:
    """One long-lived HTTP/1.1 request on its own connection, read up to its first bytes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"",
                   expect: bytes = b"") -> RawStream:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head = [f"{method} {path} HTTP/1.1", f"host: 127.0.0.1:{port}", *(f"{k}: {v}" for k, v in headers.items())]
        if body:
            head.append(f"content-length: {len(body)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()
        status = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        if not status.startswith(b"HTTP/1.1 200"):
            rest = await asyncio.wait_for(reader.read(2000), 5)
            writer.close()
            raise RuntimeError(f"{method} {path}: {(status + rest)[:600]!r}")
        if expect:  # read until the acknowledgement (or another marker) arrived
            seen = b""
            while expect not in seen:
                chunk = await asyncio.wait_for(reader.read(4096), 30)
                if not chunk:
                    raise RuntimeError("stream ended early")
                seen += chunk
        return cls(reader, writer)

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except OSError:
            pass


async def open_get(port: int, sid: str) -> RawStream:
    return await RawStream.open(port, "GET", "/mcp", {
        "accept": "text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": LEGACY})


async def open_listen(port: int, i: int) -> RawStream:
    body = json.dumps({"jsonrpc": "2.0", "id": i, "method": "subscriptions/listen", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                  "io.modelcontextprotocol/clientCapabilities": {}},
        "notifications": {"toolsListChanged": True}}}).encode()
    return await RawStream.open(port, "POST", "/mcp", {
        "accept": "application/json, text/event-stream", "content-type": "application/json",
        "mcp-protocol-version": MODERN, "mcp-method": "subscriptions/listen"}, body,
        expect=b"notifications/subscriptions/acknowledged")


async def gather_bounded(coros: list[Any], width: int) -> list[Any]:
    """Run the coroutines at most ``width`` at a time (bounded load), results in order."""
    gate = asyncio.Semaphore(width)

    async def one(c: Any) -> Any:
        async with gate:
            return await c

    return await asyncio.gather(*(one(c) for c in coros))


async def scenario(kind: str, server: Server, n: int, width: int,
                   mark: Callable[[], None] | None = None) -> tuple[float, float, float]:
    """(baseline MB, loaded MB, seconds to open) for ``kind`` against a fresh ``server``;
    ``mark()`` runs right after each of the two RSS reads."""
    import httpx

    pid, port, url = server.proc.pid, server.port, server.url
    # idle pooled connections expire before uvicorn's 5 s keep-alive timeout closes them under us
    limits = httpx.Limits(max_connections=width, max_keepalive_connections=width, keepalive_expiry=2.0)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        # warm-up: the same kind of connection, opened then closed
        if kind == "listen":
            warm = await gather_bounded([open_listen(port, i) for i in range(WARMUP)], width)
            for s in warm:
                await s.close()
        else:
            sids = await gather_bounded([open_session(client, url, i) for i in range(WARMUP)], width)
            if kind == "get":
                for s in await gather_bounded([open_get(port, sid) for sid in sids], width):
                    await s.close()
            for sid in sids:
                await delete_session(client, url, sid)
        base = await asyncio.to_thread(settle, pid)
        if mark:
            await asyncio.to_thread(mark)
        start = time.perf_counter()
        streams: list[RawStream] = []
        if kind == "listen":
            streams = await gather_bounded([open_listen(port, 1000 + i) for i in range(n)], width)
        else:
            sids = await gather_bounded([open_session(client, url, WARMUP + i) for i in range(n)], width)
            if kind == "get":
                streams = await gather_bounded([open_get(port, sid) for sid in sids], width)
        took = time.perf_counter() - start
        loaded = await asyncio.to_thread(settle, pid)
        if mark:
            await asyncio.to_thread(mark)
        for s in streams:
            await s.close()
    return base, loaded, took


# -- tracemalloc: the server process, and its report -----------------------------------------------

def serve_traced(out: Path, argv: list[str], depth: int = 12) -> None:
    """Run ``python -m benchsrv ARGV`` here; the first SIGUSR1 starts tracemalloc and takes a
    snapshot, the second takes another and writes the growth between them to ``out`` (a
    pickle).  Only blocks allocated after the first mark are traced, so the diff is what the
    connections opened in between allocated and still hold."""
    import gc
    import pickle
    import tracemalloc

    snaps: list[tracemalloc.Snapshot] = []

    def snap(signum: int, frame: Any) -> None:
        gc.collect()
        if not tracemalloc.is_tracing():  # from the first mark on: imports under tracing take minutes
            tracemalloc.start(depth)
        snaps.append(tracemalloc.take_snapshot().filter_traces([
            tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen importlib._bootstrap*>")]))
        if len(snaps) == 2:
            by_line = snaps[1].compare_to(snaps[0], "lineno")
            by_trace = snaps[1].compare_to(snaps[0], "traceback")
            rows = [(str(d.traceback[0]), d.size_diff, d.count_diff) for d in by_line]
            stacks = [([str(f) for f in reversed(d.traceback)], d.size_diff, d.count_diff)  # innermost first
                      for d in by_trace[:40]]
            tmp = out.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps((rows, stacks)))
            tmp.rename(out)
            snaps.clear()

    signal.signal(signal.SIGUSR1, snap)
    sys.argv = ["benchsrv", *argv]
    runpy.run_module("benchsrv", run_name="__main__", alter_sys=True)


def _short(where: str) -> str:
    """``…/benchsrv/_runtime/server/http/legacy.py:90`` -> ``_runtime/server/http/legacy.py:90``."""
    for marker in ("/benchsrv/", "/site-packages/", "/lib/python3"):
        if marker in where:
            return where.split(marker, 1)[1]
    return where


def _group(where: str) -> str:
    """The package a source line belongs to (the first column of the summary)."""
    for marker, name in (("/_runtime/", "generated runtime"), ("/uvicorn/", "uvicorn"), ("/h11/", "h11"),
                         ("/asyncio/", "asyncio"), ("/json/", "json (parsed messages kept)")):
        if marker in where:
            return name
    return "other"


def traced(kind: str, gen: Path, env: dict[str, str], n: int, width: int, top: int) -> None:
    import pickle

    port = free_port()
    out = gen.parent / f"trace-{kind}.pickle"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--serve-traced", str(out), "--",
           "--http", "--host", "127.0.0.1", "--port", str(port)]
    server = Server(cmd, port, env, gen)
    try:
        base, loaded, _ = asyncio.run(scenario(kind, server, n, width, mark=lambda: _signal(server)))
        deadline = time.monotonic() + 120
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        server.stop()
    rows, stacks = pickle.loads(out.read_bytes())
    total = sum(size for _, size, _ in rows)
    print(f"\n## {kind}: Python allocations that grew with {n:,} connections (tracemalloc, by line)")
    print(f"total {total / 2**20:+.2f} MB = {total / n / 1024:.1f} KB each "
          f"(RSS under tracing: {base:.1f} -> {loaded:.1f} MB)")
    groups: dict[str, int] = {}
    for where, size, _ in rows:
        groups[_group(where)] = groups.get(_group(where), 0) + size
    print(table(["allocated in", "KB each"], [[g, f"{size / n / 1024:.2f}"]
                                              for g, size in sorted(groups.items(), key=lambda kv: -kv[1])]))
    print()
    print(table(["where", "KB each", "blocks each"],
                [[_short(w), f"{size / n / 1024:.2f}", f"{count / n:.1f}"] for w, size, count in rows[:top]]))
    print("\nlargest call stacks (innermost first, runtime frames only):")
    for frames, size, count in stacks[:12]:
        ours = [_short(f) for f in frames[1:] if "/benchsrv/" in f]
        print(f"  {size / n / 1024:6.2f} KB {count / n:5.1f} blocks  {_short(frames[0])}  <-  {' <- '.join(ours[:3])}")


def _signal(server: Server) -> None:
    os.kill(server.proc.pid, signal.SIGUSR1)
    time.sleep(1.0)  # the snapshot is taken in the server's main thread, between bytecodes


def main() -> None:
    parser = argparse.ArgumentParser(description="server RSS per idle session / stream, generated vs the MCP SDK")
    parser.add_argument("--n", type=int, default=1000, help="sessions or streams per scenario (default 1000)")
    parser.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated: sessions,get,listen")
    parser.add_argument("--stack", default="ours,sdk", help="comma-separated: ours,sdk")
    parser.add_argument("--setup-connections", type=int, default=20,
                        help="connections (and concurrent opens) used to set things up (default 20)")
    parser.add_argument("--trace", action="store_true", help="attribute the growth (generated server, tracemalloc)")
    parser.add_argument("--top", type=int, default=25, help="--trace: source lines to show (default 25)")
    parser.add_argument("--serve-traced", metavar="OUT", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("server_args", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_traced:
        serve_traced(args.serve_traced, args.server_args)
        return
    kinds = [k for k in SCENARIOS if k in args.only.split(",")]
    stacks = [s for s in ("ours", "sdk") if s in args.stack.split(",")]
    raise_fd_limit(args.n)
    import httpx  # noqa: F401  (fail early when missing)
    import mcp  # noqa: F401

    print(f"# memory per connection: Python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"{args.n} per scenario", flush=True)
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-mem-") as tmp:
        gen = generate(Path(tmp))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(gen), str(HERE)])}
        if args.trace:
            for kind in kinds:
                traced(kind, gen, env, args.n, args.setup_connections, args.top)
            return
        what = {"sessions": "idle legacy sessions", "get": "legacy sessions + open GET stream",
                "listen": "2026 subscriptions/listen streams"}
        for kind in kinds:
            for stack in stacks:
                port = free_port()
                if stack == "ours":
                    cmd = [sys.executable, "-m", "benchsrv", "--http", "--host", "127.0.0.1", "--port", str(port)]
                    if args.n + WARMUP > 1000:  # past the default caps (--max-sessions, --max-listen-streams)
                        cmd += ["--max-sessions", str(args.n + WARMUP), "--max-listen-streams", str(args.n + WARMUP)]
                    server = Server(cmd, port, env, gen)
                else:
                    server = Server([sys.executable, str(HERE / "sdk_server.py"), "--http", "--port", str(port)],
                                    port, env, HERE)
                try:
                    base, loaded, took = asyncio.run(scenario(kind, server, args.n, args.setup_connections))
                except Exception:
                    server.stop()
                    print(f"{stack} server, {kind}: stderr tail:\n{server.proc.stderr.read().decode()[-3000:]}",  # type: ignore[union-attr]
                          file=sys.stderr)
                    raise
                finally:
                    server.stop()
                grow = loaded - base
                rows.append([what[kind], "generated" if stack == "ours" else "mcp SDK (reference)", f"{args.n:,}",
                             f"{base:.1f}", f"{loaded:.1f}", f"{grow:+.1f}", f"{grow * 1024 / args.n:.1f}",
                             f"{took:.1f}"])
                print(table(["connections", "server", "n", "RSS before MB", "RSS after MB", "growth MB",
                             "KB each", "open s"], rows[-1:]), flush=True)
    print("\n## server RSS, idle connections")
    print(table(["connections", "server", "n", "RSS before MB", "RSS after MB", "growth MB", "KB each", "open s"],
                rows))


if __name__ == "__main__":
    main()
