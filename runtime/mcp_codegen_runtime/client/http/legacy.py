"""The legacy (2025) session of :class:`~client.http.transport.HttpTransport`: its id, renewal, GET streams.

* The ``Mcp-Session-Id`` of the ``initialize`` answer goes with every later request.
* **Renewal** (:meth:`LegacySession.renew`).  A request that carried the session id and got
  404 (the session expired, or a load balancer sent the request to a replica that never saw
  it) was not processed, so the transport starts a new session and sends the request once
  more.  Renewing repeats the client's own ``initialize`` (same capabilities and
  ``clientInfo``) asking for the version the connection agreed, which the server must grant
  again (another version fails the request: the client's models are those of the agreed
  one); then ``notifications/initialized``; then the GET stream is re-opened if the
  transport listens.  The client core hears of it through
  :attr:`~client.transports.ClientTransport.on_session_renewed` (it takes the new
  capabilities and treats the tool list as changed: the new session may be on a replica
  with other tools).  Concurrent requests that lost the same session share one renewal.
  A request causes at most one renewal: a second 404 fails it with a
  :class:`~wire.errors.InvalidRequestError` saying the session was lost again (usually a
  load balancer without sticky routing in front of several replicas, see the project's
  ``docs/legacy-load-balancing.md``).
* Notifications and responses (to server requests) that get 404 are dropped with a warning,
  neither resent nor a reason to renew: each belongs to the lost session (a cancellation of
  its request, the answer to its elicitation, its ``initialized``); the next request renews.
* A response stream resumed with GET + ``Last-Event-ID`` (SEP-1699) that gets 404 fails its
  request: the request may have run, so it is not sent again.
* The GET stream for unsolicited messages (``tools/list_changed``, resource updates), with
  ``listen=True`` or once a subscription asks for it, reconnecting with ``Last-Event-ID``;
  a 404 there renews the session once per failure streak.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ...wire import jsonrpc
from ...wire import protocol as p
from ...wire.errors import ParseError
from ...wire.sse import SseError, SseParser
from ..transports import parse_incoming

if TYPE_CHECKING:
    import httpx  # type: ignore[import-not-found, unused-ignore]  # optional: the http extra

    from ..transports import JsonMessage

logger = logging.getLogger("mcp_codegen.client.http")

#: The hint in errors about a session lost twice in a row.
LB_HINT = (
    "a load balancer sends this session's requests to replicas that do not have it; "
    "route them by Mcp-Session-Id (see mcp-codegen docs/legacy-load-balancing.md)"
)


class SessionRenewalError(Exception):
    """A new session could not be started (the text says why)."""


class LegacyTransport(Protocol):
    """What the session needs of its transport (:class:`~client.http.transport.HttpTransport`): public
    calls only, so the transport can change its internals without the session noticing."""

    url: str
    era: str | None
    protocol_version: str | None
    max_message_bytes: int
    max_reconnects: int
    default_retry_ms: int
    on_session_renewed: Callable[[dict[str, Any]], Awaitable[None] | None] | None

    @property
    def closing(self) -> bool:
        """The transport is closing: start nothing new."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coro`` as one of the transport's background tasks."""
        ...

    def base_headers(self, *, legacy: bool, method: str = "POST") -> dict[str, str]:
        """Accept, auth (a DPoP proof for ``method``) and (``legacy``) the session headers."""
        ...

    def open_stream(self, method: str, headers: Mapping[str, str], content: bytes = b"") -> Any:
        """An ``async with`` request to the endpoint, yielding the streamed response."""
        ...

    async def read_body(self, resp: httpx.Response) -> bytes:
        """The whole body, within the message size limit."""
        ...

    async def post_message(self, message: JsonMessage) -> None:
        """POST a notification or a response (expects 202)."""
        ...

    async def deliver(self, message: JsonMessage) -> None:
        """Hand a received message to the client."""
        ...

    async def fail(self, rid: Any, code: int, text: str, data: Any = None) -> None:
        """Deliver an error response to the request ``rid``."""
        ...

    async def deliver_http_error(self, resp: httpx.Response, rid: Any, body: bytes | None = None, *,
                                 again: bool = False, sent: bool = False) -> None:
        """Deliver an HTTP error as the response to ``rid``."""
        ...

    async def consume_sse(self, resp: httpx.Response, rid: Any) -> tuple[bool, str | None, int | None]:
        """Deliver an SSE stream; (got the response?, last event id, retry ms)."""
        ...


class LegacySession:
    """The session state of one HTTP transport (see the module docstring).

    Args:
        transport: the transport it belongs to.
    """

    def __init__(self, transport: LegacyTransport) -> None:
        self.transport = transport
        #: The session id (from the ``initialize`` answer), None before and without one.
        self.id: str | None = None
        #: The ``params`` of the client's ``initialize`` (what a renewal repeats).
        self.init_params: dict[str, Any] | None = None
        #: How many times a lost session was replaced.
        self.renewals = 0
        self._lock: asyncio.Lock | None = None
        self._ids = itertools.count(1)
        self._listener: asyncio.Task[None] | None = None
        #: A GET stream is wanted (``listen=True``, or asked for by a subscription).
        self.listening = False
        #: Set once the server answered a GET stream (or refused it).
        self.ready = asyncio.Event()

    # -- renewal --------------------------------------------------------------------------------
    async def renew(self, stale: str) -> None:
        """Replace the session ``stale`` unless that was done already.

        The work runs in a task of its own, so a request cancelled meanwhile does not leave a
        session half made (say, without ``notifications/initialized``).

        Raises:
            SessionRenewalError: ``initialize`` failed or agreed on another version.
        """
        task = self.transport.spawn(self._renew(stale))
        task.add_done_callback(lambda done: done.cancelled() or done.exception())  # retrieved if nobody waits
        await asyncio.shield(task)

    async def _renew(self, stale: str) -> None:
        if self._lock is None:
            self._lock = asyncio.Lock()
        t = self.transport
        async with self._lock:
            if self.id != stale:
                return  # another request renewed it meanwhile
            if t.closing:
                raise SessionRenewalError("the transport is closing")
            if self.init_params is None or t.protocol_version is None:
                raise SessionRenewalError("no initialize to repeat")
            logger.info("legacy session %s is unknown to the server (HTTP 404): initializing again", stale)
            params = {**self.init_params, "protocolVersion": t.protocol_version}
            message = {"jsonrpc": p.JSONRPC, "id": f"mcp-codegen-renew-{next(self._ids)}",
                       "method": "initialize", "params": params}
            result, sid = await self._initialize(message)
            agreed = result.get("protocolVersion")
            if agreed != t.protocol_version:
                raise SessionRenewalError(
                    f"the server answered initialize with protocol version {agreed!r}, "
                    f"not {t.protocol_version!r} as agreed when the connection started"
                )
            self.id = sid
            self.renewals += 1
            await t.post_message({"jsonrpc": p.JSONRPC, "method": "notifications/initialized"})
            self.start_listening(renewed=True)
        hook = t.on_session_renewed
        if hook is not None:
            out = hook(result)
            if inspect.isawaitable(out):
                await out

    async def _initialize(self, message: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """POST ``initialize`` without a session id; its result and the new session id."""
        import httpx  # type: ignore[import-not-found, unused-ignore]  # optional: the http extra

        t = self.transport
        headers = t.base_headers(legacy=False)
        try:
            async with t.open_stream("POST", headers, jsonrpc.encode(message)) as resp:
                sid = resp.headers.get("mcp-session-id")
                body = await t.read_body(resp)
                status, ctype = resp.status_code, resp.headers.get("content-type", "")
        except (httpx.HTTPError, SseError, OSError) as exc:
            raise SessionRenewalError(f"initialize failed: {exc!r}") from None
        if status >= 400:
            raise SessionRenewalError(f"initialize failed: HTTP {status}: {body[:200].decode('utf-8', 'replace')}")
        answer = self._find(body, message["id"], sse=ctype.split(";")[0].strip().lower() == "text/event-stream")
        result = answer.get("result") if answer is not None else None
        if not isinstance(result, dict):
            error = answer.get("error") if answer is not None else None
            raise SessionRenewalError(f"initialize failed: {error!r}" if error else "initialize got no result")
        return result, sid.strip() if sid else None

    def _find(self, body: bytes, rid: str, *, sse: bool) -> dict[str, Any] | None:
        """The response ``rid`` in a JSON or SSE body."""
        candidates: list[Any] = []
        if sse:
            parser = SseParser(self.transport.max_message_bytes)
            candidates = [parse_incoming(e.data) for e in parser.feed(body + b"\n\n") if e.data.strip()]
        else:
            with contextlib.suppress(ParseError):
                candidates = [jsonrpc.decode(body)] if body else []
        for item in candidates:
            if isinstance(item, dict) and item.get("id") == rid and "method" not in item:
                return item
        return None

    # -- GET streams ----------------------------------------------------------------------------
    def start_listening(self, *, renewed: bool = False) -> None:
        """(Re)open the GET stream for unsolicited messages, when the transport listens.

        ``renewed``: the session is new; a 404 before the stream opens ends listening
        instead of renewing again (no renewal loop)."""
        t = self.transport
        if not self.listening or self.id is None or t.closing:
            return
        old = self._listener
        if old is not None and not old.done() and old is not asyncio.current_task():
            old.cancel()  # it belongs to the old session
        self._listener = t.spawn(self._listen_loop(renewed))

    async def resume(self, rid: Any, last_id: str | None, retry: int | None) -> None:
        """GET + ``Last-Event-ID`` until the response arrives (SEP-1699)."""
        import httpx  # type: ignore[import-not-found, unused-ignore]  # optional: the http extra

        t = self.transport
        if last_id is None or self.id is None or t.era == "modern":
            await t.fail(rid, p.INTERNAL_ERROR, "the HTTP stream ended before the response", {"requestSent": True})
            return
        attempts = 0
        while attempts < t.max_reconnects:
            attempts += 1
            await asyncio.sleep((retry if retry is not None else t.default_retry_ms) / 1000.0)
            headers = t.base_headers(legacy=True, method="GET")
            headers["accept"] = "text/event-stream"
            headers["last-event-id"] = last_id
            try:
                async with t.open_stream("GET", headers) as resp:
                    if resp.status_code >= 400:
                        await t.deliver_http_error(resp, rid, sent=True)  # 404: the session is gone; it may have run
                        return
                    got, new_id, new_retry = await t.consume_sse(resp, rid)
            except httpx.HTTPError as exc:
                logger.debug("SSE resumption failed: %r", exc)
                continue
            if got:
                return
            if new_id is not None and new_id != last_id:
                attempts = 0  # progress: keep going
                last_id = new_id
            retry = new_retry if new_retry is not None else retry
        await t.fail(rid, p.INTERNAL_ERROR, "the HTTP stream ended before the response (resumption failed)",
                     {"requestSent": True})

    async def _listen_loop(self, renewed: bool) -> None:
        """The GET stream for unsolicited server messages, reconnecting with Last-Event-ID."""
        import httpx  # type: ignore[import-not-found, unused-ignore]  # optional: the http extra

        t = self.transport
        last_id: str | None = None
        retry: int | None = None
        failures = 0
        while not t.closing and failures < t.max_reconnects:
            sid = self.id
            headers = t.base_headers(legacy=True, method="GET")
            headers["accept"] = "text/event-stream"
            if last_id is not None:
                headers["last-event-id"] = last_id
            try:
                async with t.open_stream("GET", headers) as resp:
                    if resp.status_code == 404 and sid is not None and not renewed:
                        await self.renew(sid)  # re-opens the stream from a new task: this one ends
                        return
                    self.ready.set()
                    if resp.status_code >= 400:
                        log = logger.warning if resp.status_code == 404 else logger.debug
                        log("no GET stream: HTTP %d", resp.status_code)
                        return
                    parser = SseParser(t.max_message_bytes)
                    failures, renewed = 0, False
                    async for chunk in resp.aiter_bytes():
                        for event in parser.feed(chunk):
                            if event.data.strip():
                                message = parse_incoming(event.data)
                                if message is not None:
                                    await t.deliver(message)
                    last_id = parser.last_event_id or last_id
                    retry = parser.retry_ms or retry
            except SessionRenewalError as exc:
                logger.warning("GET stream: could not start a new session: %s", exc)
                self.ready.set()
                return
            except (httpx.HTTPError, SseError, OSError) as exc:
                logger.debug("GET stream broke: %r", exc)
                failures += 1
            await asyncio.sleep((retry if retry is not None else t.default_retry_ms) / 1000.0)


_PROTOCOL_ERRORS = (p.HEADER_MISMATCH, p.MISSING_CAPABILITY, p.UNSUPPORTED_VERSION)


def session_lost(body: bytes) -> bool:
    """A 404 to a request with a session id means the session is unknown, unless its body is
    an error of the 2026 era (-32601 and the header/version errors)."""
    answer: Any = None
    with contextlib.suppress(ParseError):
        answer = jsonrpc.decode(body) if body else None
    error = answer.get("error") if isinstance(answer, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code not in (*_PROTOCOL_ERRORS, p.METHOD_NOT_FOUND)
