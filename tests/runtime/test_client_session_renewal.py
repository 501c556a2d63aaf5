"""The HTTP client transport replaces a lost legacy session (HTTP 404) once per request.

Against :class:`DemoHttpServer` under uvicorn (127.0.0.1, a thread) behind :class:`SessionLoser`,
ASGI middleware that makes the real server answer 404 by replacing chosen session ids with an
unknown one (what a replica without the session does).  Checked: the call is sent again after
one renewal (same capabilities and clientInfo, ``notifications/initialized``, the tool list
treated as changed); a second 404 is a clear error and never a loop; requests that lost the
same session share one renewal; a notification that gets 404 is dropped, not resent; the
renewal must keep the agreed version; the GET stream is re-opened on the new session, and a
GET that keeps getting 404 ends listening after one renewal.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from common_support import run_async
from http_support import DemoHttpServer, serve_app
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.client.http.transport import HttpTransport
from mcp_codegen_runtime.server.http import HttpApp
from mcp_codegen_runtime.wire.errors import InvalidRequestError

UNKNOWN = "unknown.session"


class SessionLoser:
    """ASGI middleware: requests carrying a lost session id reach the app with an unknown one.

    ``forgotten``: session ids treated as lost; ``lose_all``: every session id;
    ``lose_gets``: the next N GETs; ``downgrade``: ``initialize`` asks for 2025-03-26;
    ``hold``: ``initialize`` waits until that event is set (``arrived`` lists the JSON-RPC
    methods as they come).  ``log`` keeps ``(method, JSON-RPC method or None, session id
    sent, status)``.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.forgotten: set[str] = set()
        self.lose_all = False
        self.lose_gets = 0
        self.downgrade = False
        self.hold: threading.Event | None = None
        self.arrived: list[str | None] = []
        self.log: list[tuple[str, str | None, str | None, int]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope["headers"]]
        sid = next((v.decode() for k, v in headers if k.lower() == b"mcp-session-id"), None)
        lose = sid is not None and (self.lose_all or sid in self.forgotten)
        if sid is not None and scope["method"] == "GET" and self.lose_gets > 0:
            self.lose_gets -= 1
            lose = True
        if lose:
            headers = [(k, UNKNOWN.encode() if k.lower() == b"mcp-session-id" else v) for k, v in headers]
        body = b""
        if scope["method"] == "POST":
            more = True
            while more:
                message = await receive()
                body += message.get("body", b"")
                more = message.get("more_body", False)
        decoded = json.loads(body) if body else None
        method = decoded.get("method") if isinstance(decoded, dict) else None
        self.arrived.append(method)
        if self.hold is not None and method == "initialize":
            await asyncio.to_thread(self.hold.wait, 10)
        if self.downgrade and method == "initialize":
            decoded["params"]["protocolVersion"] = "2025-03-26"
            body = json.dumps(decoded).encode()
            headers = [(k, str(len(body)).encode() if k.lower() == b"content-length" else v) for k, v in headers]
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def record(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.log.append((scope["method"], method, sid, message["status"]))
            await send(message)

        await self.app({**scope, "headers": headers}, replay, record)

    def initializes(self) -> int:
        return sum(1 for _, m, _, _ in self.log if m == "initialize")


@pytest.fixture(scope="module")
def demo() -> Iterator[tuple[str, SessionLoser, DemoHttpServer]]:
    server = DemoHttpServer()
    loser = SessionLoser(HttpApp(server, sse_retry_ms=100))
    with serve_app(loser) as url:
        yield url, loser, server


@pytest.fixture
def loser(demo: tuple[str, SessionLoser, DemoHttpServer]) -> Iterator[SessionLoser]:
    yield demo[1]
    demo[1].forgotten.clear()
    demo[1].lose_all = demo[1].downgrade = False
    demo[1].lose_gets = 0
    demo[1].hold = None


def _transport(client: ClientBase) -> HttpTransport:
    assert isinstance(client.transport, HttpTransport)
    return client.transport


async def _until(condition: Any, what: str) -> None:
    for _ in range(500):  # up to 10 s
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{what} did not happen")


def test_lost_session_is_renewed_once_and_the_call_sent_again(
    demo: tuple[str, SessionLoser, DemoHttpServer], loser: SessionLoser
) -> None:
    url = demo[0]
    changed: list[int] = []

    async def main() -> None:
        async with ClientBase.http(url, protocol_version="2025-06-18", audit=None, listen=False,
                                   on_tools_changed=lambda: changed.append(1), roots=[]) as client:
            transport = _transport(client)
            await client.list_tools()
            old = transport.session_id
            assert old is not None
            before = loser.initializes()
            loser.forgotten.add(old)
            assert (await client.call_tool("whoami", {})).text() == "None"
            new = transport.session_id
            assert new is not None and new != old
            assert transport.legacy.renewals == 1 and loser.initializes() == before + 1
            renewal = [e for e in loser.log if e[1] == "initialize"][-1]
            assert renewal[2] is None  # initialize again without the lost id
            assert ("POST", "notifications/initialized", new, 202) in loser.log
            calls = [e for e in loser.log if e[1] == "tools/call"]
            assert [(e[2], e[3]) for e in calls[-2:]] == [(old, 404), (new, 200)]
            assert changed == [1]  # the tool list may differ on the new session
            assert "tools" in client.server_capabilities and client.protocol_version == "2025-06-18"
            listed = sum(1 for e in loser.log if e[1] == "tools/list")
            await client.list_tools()  # the cache was emptied
            assert sum(1 for e in loser.log if e[1] == "tools/list") == listed + 1

    run_async(main())


def test_second_404_is_a_clear_error_not_a_loop(demo: tuple[str, SessionLoser, DemoHttpServer], loser: SessionLoser) -> None:
    url = demo[0]

    async def main() -> None:
        async with ClientBase.http(url, era="legacy", audit=None) as client:
            await client.call_tool("whoami", {})
            loser.lose_all = True
            for _ in range(2):  # each failing call: exactly one renewal
                before = loser.initializes()
                with pytest.raises(InvalidRequestError) as info:
                    await client.call_tool("whoami", {})
                assert loser.initializes() == before + 1
                assert "lost the session again" in info.value.message
                assert "legacy-load-balancing.md" in info.value.message
                assert info.value.data == {"httpStatus": 404, "sessionLost": True}
            loser.lose_all = False
            assert (await client.call_tool("whoami", {})).text() == "None"  # the renewed session works
            assert _transport(client).legacy.renewals == 2

    run_async(main())


def test_requests_that_lost_the_same_session_share_one_renewal(
    demo: tuple[str, SessionLoser, DemoHttpServer], loser: SessionLoser
) -> None:
    url = demo[0]

    async def main() -> None:
        async with ClientBase.http(url, era="legacy", audit=None) as client:
            await client.list_tools()
            before = loser.initializes()
            loser.forgotten.add(_transport(client).session_id or "")
            results = await asyncio.gather(*(client.call_tool("route", {"region": f"r{i}"}) for i in range(5)))
            assert [r.text() for r in results] == [f"r{i}|None|None" for i in range(5)]
            assert loser.initializes() == before + 1 and _transport(client).legacy.renewals == 1

    run_async(main())


def test_a_request_cancelled_during_the_renewal_leaves_a_whole_session(
    demo: tuple[str, SessionLoser, DemoHttpServer], loser: SessionLoser
) -> None:
    url = demo[0]

    async def main() -> None:
        async with ClientBase.http(url, era="legacy", audit=None) as client:
            transport = _transport(client)
            await client.list_tools()
            old = transport.session_id
            loser.forgotten.add(old or "")
            loser.hold = threading.Event()
            start = len(loser.arrived)
            call = asyncio.ensure_future(client.call_tool("whoami", {}))
            await _until(lambda: "initialize" in loser.arrived[start:], "the renewal's initialize")
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            loser.hold.set()
            await _until(lambda: transport.session_id != old, "the new session")
            new = transport.session_id
            await _until(lambda: ("POST", "notifications/initialized", new, 202) in loser.log, "initialized")
            assert (await client.call_tool("whoami", {})).text() == "None"
            assert transport.legacy.renewals == 1

    run_async(main())


def test_notification_404_is_dropped_and_the_next_request_renews(
    demo: tuple[str, SessionLoser, DemoHttpServer], loser: SessionLoser, caplog: pytest.LogCaptureFixture
) -> None:
    url = demo[0]

    async def main() -> None:
        async with ClientBase.http(url, era="legacy", audit=None) as client:
            transport = _transport(client)
            await client.list_tools()
            sid = transport.session_id
            assert sid is not None
            loser.forgotten.add(sid)
            before = loser.initializes()
            with caplog.at_level(logging.WARNING, "mcp_codegen.client.http"):
                await transport.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
            assert "dropped a notifications/roots/list_changed" in caplog.text
            sent = [e for e in loser.log if e[1] == "notifications/roots/list_changed"]
            assert sent == [("POST", "notifications/roots/list_changed", sid, 404)]  # once, not resent
            assert loser.initializes() == before and transport.session_id == sid  # no renewal for it
            assert (await client.call_tool("whoami", {})).text() == "None"
            assert loser.initializes() == before + 1 and transport.session_id != sid

    run_async(main())


def test_renewal_must_keep_the_agreed_version(demo: tuple[str, SessionLoser, DemoHttpServer], loser: SessionLoser) -> None:
    url = demo[0]

    async def main() -> None:
        async with ClientBase.http(url, protocol_version="2025-06-18", audit=None) as client:
            await client.list_tools()
            loser.forgotten.add(_transport(client).session_id or "")
            loser.downgrade = True
            with pytest.raises(InvalidRequestError) as info:
                await client.call_tool("whoami", {})
            assert "protocol version '2025-03-26'" in info.value.message
            assert "not '2025-06-18'" in info.value.message

    run_async(main())


def test_get_stream_is_reopened_on_the_new_session(demo: tuple[str, SessionLoser, DemoHttpServer], loser: SessionLoser) -> None:
    url, _, server = demo
    changed: list[int] = []

    async def main() -> None:
        loser.lose_gets = 1  # the first GET stream finds the session unknown: renew, open it again
        async with ClientBase.http(url, era="legacy", audit=None, on_tools_changed=lambda: changed.append(1)) as client:
            transport = _transport(client)
            await _until(lambda: transport.legacy.renewals == 1, "the renewal")
            sid = transport.session_id
            await _until(lambda: ("GET", None, sid, 200) in loser.log, "the GET stream on the new session")
            assert changed == [1]  # the renewal
            await asyncio.to_thread(server.disable_tool, "poll")
            try:
                await _until(lambda: len(changed) == 2, "tools/list_changed on the new GET stream")
            finally:
                await asyncio.to_thread(server.enable_tool, "poll")

    run_async(main())


def test_get_stream_that_keeps_getting_404_stops_after_one_renewal(
    demo: tuple[str, SessionLoser, DemoHttpServer], loser: SessionLoser
) -> None:
    url = demo[0]

    async def main() -> None:
        loser.lose_gets = 100
        async with ClientBase.http(url, era="legacy", audit=None, listen=True) as client:
            transport = _transport(client)
            await _until(lambda: sum(1 for e in loser.log[start:] if e[0] == "GET") == 2, "two GETs")
            await asyncio.sleep(0.5)  # room for a third GET or renewal, if the loop did not stop
            gets = [e for e in loser.log[start:] if e[0] == "GET"]
            assert [e[3] for e in gets] == [404, 404]
            assert transport.legacy.renewals == 1 and loser.initializes() - before == 2
            assert (await client.call_tool("whoami", {})).text() == "None"  # requests still work

    start = len(loser.log)
    before = loser.initializes()
    run_async(main())


def test_subscriptions_follow_the_new_session() -> None:
    """Open legacy subscriptions are subscribed again on the new session and told that their
    URIs and lists may have changed; later updates reach them on the new GET stream."""
    from everything_impl import EverythingService

    server = EverythingService()
    loser = SessionLoser(server.asgi_app())
    watched = "test://watched-resource"
    with serve_app(loser) as url:

        async def main() -> None:
            async with ClientBase.http(url, era="legacy", audit=None) as client:
                transport = _transport(client)
                async with client.subscribe(watched, prompts=True) as changes:
                    old = transport.session_id
                    loser.forgotten.add(old or "")
                    await client.list_prompts()
                    new = transport.session_id
                    assert new != old and transport.legacy.renewals == 1
                    assert ("POST", "resources/subscribe", new, 200) in loser.log
                    got = {(c.kind, c.uri) for c in [await asyncio.wait_for(changes.__anext__(), 10) for _ in range(2)]}
                    assert got == {("prompts", None), ("updated", watched)}
                    await _until(lambda: ("GET", None, new, 200) in loser.log, "the GET stream on the new session")
                    await asyncio.to_thread(server.resource_updated, watched)
                    change = await asyncio.wait_for(changes.__anext__(), 10)
                    assert (change.kind, change.uri) == ("updated", watched)

        run_async(main())
