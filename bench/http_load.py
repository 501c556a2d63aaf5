"""A keep-alive, closed-loop HTTP load generator for ``bench_http_floor.py`` (its own process).

``c`` connections each send one pre-encoded POST, wait for the whole answer, check it and send
the next one (closed loop: the offered load is what the server sustains).  Every answer is
checked: status 200, a JSON body (or one SSE ``data:`` line) whose ``id`` is the request's and
whose ``result.structuredContent`` is the expected value; the first bad answer ends the run
with exit status 1.  Bounded: a warm-up, then ``--seconds`` of measured time, and a deadline
after which a server that stopped answering fails the run.

The server's CPU is read from ``/proc/PID/stat`` (every PID given and their descendants, so
worker processes count) at the start and the end of the measured window.  The result is one
JSON line on stdout: requests/s, p50/p99 latency (ms), server CPU microseconds per request.

Usage: ``python bench/http_load.py --port P --request FILE --expect JSON --conns C
[--seconds S] [--warmup S] [--server-pid PID ...]``; ``FILE`` holds the whole raw request
(request line, headers with ``Content-Length``, body).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

TICKS = os.sysconf("SC_CLK_TCK")
_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*([0-9]+)", re.IGNORECASE)


def tree_cpu(pids: list[int]) -> float:
    """User + system CPU seconds of ``pids`` and their descendants (children counted when they exit)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0.0, list(pids)
    while todo:
        pid = todo.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICKS
        todo += children.get(pid, [])
    return total


class BadAnswer(Exception):
    pass


class Client(asyncio.Protocol):
    """One keep-alive connection, one request in flight."""

    def __init__(self, request: bytes, check: Any, done: asyncio.Future[None], stats: Stats) -> None:
        self.request = request
        self.check = check
        self.done = done
        self.stats = stats
        self.buf = bytearray()
        self.sent = 0.0
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports are not asyncio.Transport subclasses
        self.send()

    def send(self) -> None:
        assert self.transport is not None
        self.sent = time.perf_counter()
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        body = self.answer()
        if body is None:
            return
        took = time.perf_counter() - self.sent
        try:
            self.check(body)
        except Exception as exc:
            self.fail(BadAnswer(f"bad answer: {exc!r}: {bytes(body[:300])!r}"))
            return
        self.stats.record(took)
        if self.stats.stop:
            assert self.transport is not None
            self.transport.close()
            return
        self.send()

    def answer(self) -> bytes | None:
        """The body of a complete answer at the start of the buffer (removed from it), or None."""
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(self.buf[:end + 2]).lower()
        if not head.startswith(b"http/1.1 200"):
            self.fail(BadAnswer(f"status: {bytes(self.buf[:end])[:300]!r}"))
            return None
        start = end + 4
        found = _LENGTH.search(head)  # the head ends with CRLF: the number is whole
        if found is not None:
            length = int(found.group(1))
            if len(self.buf) < start + length:
                return None
            body = bytes(self.buf[start:start + length])
            del self.buf[:start + length]
            return body
        if b"transfer-encoding: chunked" not in head:
            self.fail(BadAnswer(f"neither content-length nor chunked: {head[:300]!r}"))
            return None
        out, pos = bytearray(), start
        while True:
            eol = self.buf.find(b"\r\n", pos)
            if eol < 0:
                return None
            size = int(bytes(self.buf[pos:eol]).split(b";")[0], 16)
            if len(self.buf) < eol + 2 + size + 2:
                return None
            out += self.buf[eol + 2:eol + 2 + size]
            pos = eol + 2 + size + 2
            if size == 0:
                del self.buf[:pos]
                return bytes(out)

    def fail(self, exc: Exception) -> None:
        if not self.done.done():
            self.done.set_exception(exc)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.stats.stop:
            self.fail(BadAnswer(f"connection lost: {exc!r}"))


class Stats:
    def __init__(self) -> None:
        self.stop = False
        self.measuring = False
        self.lat: list[float] = []

    def record(self, took: float) -> None:
        if self.measuring:
            self.lat.append(took)


def checker(expect: Any, rid: Any) -> Any:
    def check(body: bytes) -> None:
        if body[:1] != b"{":  # an SSE answer: the last data line
            lines = [line for line in body.split(b"\n") if line.startswith(b"data:")]
            body = lines[-1][5:]
        msg = json.loads(body)
        assert msg.get("id") == rid, f"id {msg.get('id')!r}"
        result = msg["result"]
        assert not result.get("isError"), "isError"
        assert result["structuredContent"] == expect, result.get("structuredContent")

    return check


async def run(opts: argparse.Namespace) -> dict[str, Any]:
    head, _, body = Path(opts.request).read_bytes().partition(b"\r\n\r\n")
    assert body.count(b'"id":1,') == 1, "the request's body must hold \"id\":1 once"
    expect = json.loads(opts.expect)
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    stats = Stats()
    transports = []
    for k in range(1, opts.conns + 1):
        # connection k sends id k: no two requests in flight share an id (a legacy session refuses that)
        mine = body.replace(b'"id":1,', b'"id":%d,' % k)
        request = _LENGTH.sub(b"\r\nContent-Length: %d" % len(mine), head, count=1) + b"\r\n\r\n" + mine
        check = checker(expect, 1 if opts.fixed_answer else k)
        transport, _ = await loop.create_connection(lambda r=request, c=check: Client(r, c, done, stats), "127.0.0.1",  # type: ignore[misc]
                                                    opts.port)
        transports.append(transport)

    async def window(seconds: float) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(done), seconds)
        except TimeoutError:
            return

    await window(opts.warmup)
    cpu0 = tree_cpu(opts.server_pid)
    stats.measuring = True
    t0 = time.perf_counter()
    await window(opts.seconds)
    stats.measuring = False
    wall = time.perf_counter() - t0
    cpu = tree_cpu(opts.server_pid) - cpu0
    stats.stop = True
    if done.done():
        done.result()  # raises the bad answer
    for transport in transports:
        transport.close()
    lat = sorted(stats.lat)
    n = len(lat)
    if n < opts.conns:
        raise BadAnswer(f"only {n} answers in {wall:.1f} s")
    return {"rps": n / wall, "p50": lat[n // 2] * 1000, "p99": lat[min(n - 1, int(n * 0.99))] * 1000,
            "cpu_us": 1e6 * cpu / n, "n": n, "server_cpu_share": cpu / wall}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--request", required=True, help="file holding the raw HTTP request")
    ap.add_argument("--expect", required=True, help="JSON of the expected result.structuredContent")
    ap.add_argument("--conns", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--server-pid", type=int, action="append", default=[])
    ap.add_argument("--fixed-answer", action="store_true", help="the server answers id 1 whatever the request's (the floor)")
    opts = ap.parse_args()
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    try:
        result = runner(asyncio.wait_for(run(opts), opts.warmup + opts.seconds + 30))
    except (BadAnswer, TimeoutError, OSError) as exc:
        print(f"http_load: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print(json.dumps(result))


if __name__ == "__main__":
    main()
