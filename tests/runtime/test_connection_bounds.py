"""Bounds on what idle connections hold (issue 19): 2026 listen streams and legacy sessions.

* ``ServerSettings.max_listen_streams`` (``--max-listen-streams``): one ``subscriptions/listen``
  past the cap is refused with -32603 before any acknowledgement; a closed stream frees its
  place.  In process, and over HTTP against a real server process.
* ``HttpSettings.max_sessions`` (``--max-sessions``): at the cap a new ``initialize`` evicts the
  longest-idle session (its id then answers 404), and is refused with 503 + ``Retry-After``
  while every session is busy (here: each has its GET stream open).

The HTTP tests run ``ops_support.OpsServer`` under uvicorn on 127.0.0.1 (stopped by PID); the
long-lived streams are raw asyncio connections.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable

import httpx
from http_support import ServerProcess, modern_headers, modern_request
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.wire import protocol as p
from ops_support import start_ops
from support_server import DemoServer, modern, req

LEGACY = p.V2025_11_25


# -- in process ----------------------------------------------------------------------------------

def test_listen_streams_past_the_cap_are_refused_in_process() -> None:
    srv = DemoServer(settings=ServerSettings(max_listen_streams=2))

    async def main() -> None:
        async with srv.connect_in_process() as peer:
            listen = modern({"notifications": {"toolsListChanged": True}})
            for rid in ("L1", "L2"):
                await peer.send(req(rid, "subscriptions/listen", listen))
                assert (await peer.receive())["method"] == "notifications/subscriptions/acknowledged"
            await peer.send(req("L3", "subscriptions/listen", listen))
            refused = await asyncio.wait_for(peer.receive(), 5)
            assert refused["id"] == "L3" and refused["error"]["code"] == p.INTERNAL_ERROR, refused
            assert "Too many subscriptions/listen streams" in refused["error"]["message"]
            # ending one stream frees its place
            await peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "L1"}})
            await _until(lambda: _listeners(srv) == 1)
            await peer.send(req("L4", "subscriptions/listen", listen))
            ack = await asyncio.wait_for(peer.receive(), 5)
            assert ack["method"] == "notifications/subscriptions/acknowledged", ack
            assert ack["params"]["_meta"][p.META_SUBSCRIPTION_ID] == "L4"
            # the open streams still get what they asked for
            srv.disable_tool("slow")
            notes = [await asyncio.wait_for(peer.receive(), 5) for _ in range(2)]
            assert sorted(n["params"]["_meta"][p.META_SUBSCRIPTION_ID] for n in notes) == ["L2", "L4"]

    asyncio.run(main())


def _listeners(srv: DemoServer) -> int:
    return len(srv._listeners)


async def _until(check: Callable[[], bool], limit: float = 10.0) -> None:
    """Wait until ``check()`` holds (a condition to reach, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.02)


# -- over HTTP -----------------------------------------------------------------------------------

class RawStream:
    """One long-lived HTTP/1.1 request on its own connection: status line and first bytes read."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, status: int, head: bytes) -> None:
        self.reader, self.writer, self.status, self.head = reader, writer, status, head

    @classmethod
    async def open(cls, port: int, method: str, headers: dict[str, str], body: bytes = b"",
                   until: bytes = b"") -> RawStream:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        lines = [f"{method} /mcp HTTP/1.1", f"host: 127.0.0.1:{port}", *(f"{k}: {v}" for k, v in headers.items())]
        if body:
            lines.append(f"content-length: {len(body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        seen = b""
        while until and until not in seen:
            chunk = await asyncio.wait_for(reader.read(4096), 10)
            assert chunk, f"stream ended before {until!r}: {head + seen!r}"
            seen += chunk
        return cls(reader, writer, int(head.split()[1]), head + seen)

    async def body(self) -> bytes:
        """The rest of a response that ends (here: a short JSON one)."""
        length = next(int(line.split(b":")[1]) for line in self.head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
        return await asyncio.wait_for(self.reader.readexactly(length), 10)

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


def _listen_body(rid: int) -> bytes:
    return json.dumps(modern_request(rid, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})).encode()


async def _listen(port: int, rid: int, *, acked: bool = True) -> RawStream:
    return await RawStream.open(port, "POST", modern_headers("subscriptions/listen"), _listen_body(rid),
                                until=b"notifications/subscriptions/acknowledged" if acked else b"")


def _serve(flags: list[str], test: Callable[[ServerProcess], Awaitable[None]]) -> None:
    server = start_ops(*flags)
    try:
        asyncio.run(test(server))
    finally:
        server.stop()


def test_listen_streams_past_the_cap_are_refused_over_http() -> None:
    async def t(server: ServerProcess) -> None:
        open_streams = [await _listen(server.port, rid) for rid in (1, 2)]
        third = await _listen(server.port, 3, acked=False)
        assert third.status == 200, third.head  # a JSON-RPC error, answered as JSON (no stream)
        assert b"application/json" in third.head.lower()
        answer = json.loads(await third.body())
        assert answer["id"] == 3 and answer["error"]["code"] == p.INTERNAL_ERROR, answer
        assert b"acknowledged" not in third.head
        await third.close()
        # a client going away frees its place (the server sees the disconnect)
        await open_streams.pop(0).close()
        deadline = time.monotonic() + 10
        while True:
            again = await _listen(server.port, 4, acked=False)
            if b"acknowledged" in again.head or b"text/event-stream" in again.head.lower():
                break
            await again.close()
            assert time.monotonic() < deadline, "the closed listen stream never freed its place"
            await asyncio.sleep(0.05)
        if b"acknowledged" not in again.head:
            await asyncio.wait_for(again.reader.readuntil(b"acknowledged"), 10)
        # full again: refused again
        refused = await _listen(server.port, 5, acked=False)
        assert json.loads(await refused.body())["error"]["code"] == p.INTERNAL_ERROR
        for s in (refused, again, *open_streams):
            await s.close()

    _serve(["--max-listen-streams", "2"], t)


async def _session(client: httpx.AsyncClient, url: str) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    r = await client.post(url, json=body, headers={"accept": "application/json, text/event-stream"})
    if r.status_code == 200:
        sid = r.headers["mcp-session-id"]
        done = await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                                 headers=_session_headers(sid))
        assert done.status_code == 202, done.text
    return r


def _session_headers(sid: str) -> dict[str, str]:
    return {"accept": "application/json, text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": LEGACY}


async def _ping(client: httpx.AsyncClient, url: str, sid: str) -> int:
    r = await client.post(url, json={"jsonrpc": "2.0", "id": 9, "method": "ping"}, headers=_session_headers(sid))
    return r.status_code


def test_idle_sessions_past_the_cap_evict_the_longest_idle() -> None:
    async def t(server: ServerProcess) -> None:
        async with httpx.AsyncClient(timeout=10) as client:
            sids = [(await _session(client, server.url)).headers["mcp-session-id"] for _ in range(3)]
            assert await _ping(client, server.url, sids[0]) == 200  # sids[1] is now the longest idle
            fourth = await _session(client, server.url)
            assert fourth.status_code == 200, fourth.text
            assert await _ping(client, server.url, sids[1]) == 404
            for sid in (sids[0], sids[2], fourth.headers["mcp-session-id"]):
                assert await _ping(client, server.url, sid) == 200

    _serve(["--max-sessions", "3"], t)


def test_busy_sessions_at_the_cap_refuse_a_new_one() -> None:
    async def t(server: ServerProcess) -> None:
        async with httpx.AsyncClient(timeout=10) as client:
            sids = [(await _session(client, server.url)).headers["mcp-session-id"] for _ in range(2)]
            gets = [await RawStream.open(server.port, "GET", _session_headers(sid)) for sid in sids]
            assert [g.status for g in gets] == [200, 200]
            refused = await _session(client, server.url)
            assert refused.status_code == 503, refused.text
            assert refused.headers["retry-after"] == "5"
            # one GET stream closes: that session is idle again, and makes room
            await gets.pop(0).close()
            deadline = time.monotonic() + 10
            while (third := await _session(client, server.url)).status_code == 503:
                assert time.monotonic() < deadline, "the closed GET stream never made its session idle"
                await asyncio.sleep(0.05)
            assert third.status_code == 200, third.text
            assert await _ping(client, server.url, sids[0]) == 404
            assert await _ping(client, server.url, sids[1]) == 200
            await gets[0].close()

    _serve(["--max-sessions", "2"], t)


def test_a_session_listening_on_its_get_stream_does_not_expire() -> None:
    """``--session-timeout``: an idle session expires (found at the next initialize), one
    whose GET stream is open does not; once the stream ends, its idle time starts."""
    async def t(server: ServerProcess) -> None:
        async with httpx.AsyncClient(timeout=10) as client:
            listening, idle = [(await _session(client, server.url)).headers["mcp-session-id"] for _ in range(2)]
            get = await RawStream.open(server.port, "GET", _session_headers(listening))
            assert get.status == 200, get.head
            await asyncio.sleep(1.0)  # both past the 0.4 s timeout
            assert (await _session(client, server.url)).status_code == 200  # prunes
            assert await _ping(client, server.url, idle) == 404
            assert await _ping(client, server.url, listening) == 200
            await get.close()
            deadline = time.monotonic() + 10
            while await _ping(client, server.url, listening) == 200:  # each ping is a use: stop pinging
                assert time.monotonic() < deadline, "the session outlived its closed GET stream"
                await asyncio.sleep(1.0)
                assert (await _session(client, server.url)).status_code == 200

    _serve(["--session-timeout", "0.4"], t)


def test_a_list_change_reaches_every_legacy_session_as_one_message() -> None:
    """Every initialized legacy connection gets the change; they share one message object
    (a session's stream keeps up to 1,000 events: one copy per session cost ~270 B each)."""
    srv = DemoServer()

    async def main() -> None:
        peers = [srv.connect_in_process(copy=False) for _ in range(3)]
        for k, peer in enumerate(peers):
            await peer.send(req(k, "initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                                  "clientInfo": {"name": "t", "version": "1"}}))
            assert "result" in await peer.receive()
            await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        srv.disable_tool("slow")
        notes = [await asyncio.wait_for(peer.receive(), 5) for peer in peers]
        assert all(n == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"} for n in notes), notes
        assert notes[0] is notes[1] is notes[2]
        for peer in peers:
            await peer.aclose()

    asyncio.run(main())
