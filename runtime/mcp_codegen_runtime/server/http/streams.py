"""The messages of one HTTP response stream, buffered between their producer and writer.

A request's handler (run by :func:`~server.http.answer.answer` in the request's task) appends
what it sends (notifications, server->client requests through a :class:`StreamConnection`) to
an :class:`EventStream` (made when first needed: :class:`StreamSlot`), and the answer appends
its response; the response writer (:func:`~server.http.responses.pump`, in a task beside it
once the handler waits) follows it.  Appending never blocks, so a slow or
vanished client never holds up the handler or anyone else.  Events are numbered from 1;
the last ``HttpSettings.max_events_per_stream`` are kept, for a legacy client resuming
with ``Last-Event-ID``.

:func:`close_sse_stream` lets a legacy tool handler close its request's stream so that
the client polls (SEP-1699).
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ...wire import jsonrpc
from ..connection import NO_HEADERS, Connection, Outgoing

if TYPE_CHECKING:
    from .request import Request


class EventStream:
    """Messages for one response stream; writers follow it, it never blocks producers.

    Args:
        number: the stream's number within its session (0: the session's GET stream);
            the first part of its SSE event ids.
        limit: how many events to keep.
        standalone: True for a legacy session's GET stream (unsolicited messages).
    """

    def __init__(self, number: int, limit: int, *, standalone: bool = False) -> None:
        self.number = number
        self.standalone = standalone
        self.events: deque[tuple[int, Outgoing]] = deque(maxlen=limit)
        self.seq = 0
        self.done = False
        #: The last event is the response: the stream is complete.
        self.final = False
        #: Legacy: this request is answered with JSON (no SSE stream to close or resume).
        self.json_only = False
        #: Incremented by :func:`close_sse_stream`; writers end when it changes.
        self.closes = 0
        #: Standalone stream: a GET response is writing it now.
        self.attached = False
        #: Standalone stream: last seq written to some GET response.
        self.cursor = 0
        self.finished_at: float | None = None
        #: Bytes of the events as written (the SSE writer counts them; see :meth:`weight`).
        self.written_bytes = 0
        self._changed = asyncio.Event()

    def append(self, message: Outgoing, *, final: bool = False) -> None:
        """Add a message (ignored once the stream is done); ``final`` marks the response."""
        if self.done:
            return
        self.seq += 1
        self.events.append((self.seq, message))
        if final:
            self.final = True
            self.finish()
        self._changed.set()

    def finish(self) -> None:
        """No more messages will come."""
        if not self.done:
            self.done = True
            self.finished_at = time.monotonic()
        self._changed.set()

    def request_close(self) -> None:
        """End the SSE responses writing this stream now (the stream itself goes on)."""
        self.closes += 1
        self._changed.set()

    def weight(self) -> int:
        """Bytes this stream's kept events hold, as written, or estimated when nothing
        wrote them (a client that never read its stream)."""
        if self.written_bytes:
            return self.written_bytes
        return sum(len(jsonrpc.encode(m)) for _, m in self.events) if self.events else 0

    def after(self, seq: int) -> list[tuple[int, Outgoing]]:
        """The kept events numbered above ``seq``, oldest first."""
        return [(n, m) for n, m in self.events if n > seq]

    async def wait(self, timeout: float | None) -> bool:
        """Wait for news (call right after checking there is none); False on timeout."""
        self._changed.clear()
        if timeout is None:
            await self._changed.wait()
            return True
        try:
            async with asyncio.timeout(timeout):
                await self._changed.wait()
        except TimeoutError:
            return False
        return True

    def poke(self) -> None:
        """Wake the writers (e.g. the client disconnected)."""
        self._changed.set()


#: The stream of the legacy request being handled (set in that request's task).
CURRENT_STREAM: contextvars.ContextVar[EventStream | None] = contextvars.ContextVar("mcp_http_stream", default=None)


def close_sse_stream() -> bool:
    """Close the SSE stream of the legacy request being handled (SEP-1699 polling).

    Call it from a tool handler: the client reconnects after the ``retry`` interval with
    GET + ``Last-Event-ID`` and receives what the handler sends next, including the
    result.

    Returns:
        False when there is no such stream (stdio, 2026, JSON responses), else True.
    """
    stream = CURRENT_STREAM.get()
    if stream is None or stream.json_only:
        return False
    stream.request_close()
    return True


#: (connection, principal, request headers) of the HTTP request being handled on a legacy
#: session's connection (set by ``server.http.legacy`` for that request and the task it starts).
REQUEST_PRINCIPAL: contextvars.ContextVar[tuple[Connection, Any, Mapping[str, str]] | None] = contextvars.ContextVar(
    "mcp_http_principal", default=None)


def request_headers(req: Request) -> Mapping[str, str]:
    """A read-only view of ``req``'s headers (lower-case names, repeated ones joined), for
    ``ctx.request_headers``; joined on first use (most handlers never look)."""
    return _RequestHeaders(req)


class _RequestHeaders(Mapping[str, str]):
    __slots__ = ("_req", "_joined")

    def __init__(self, req: Request) -> None:
        self._req = req
        self._joined: Mapping[str, str] | None = None

    def _view(self) -> Mapping[str, str]:
        if self._joined is None:
            req = self._req
            self._joined = MappingProxyType({name: value for name in req.headers if (value := req.get(name)) is not None})
        return self._joined

    def __getitem__(self, name: str) -> str:
        return self._view()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._view())

    def __len__(self) -> int:
        return len(self._view())

    def __repr__(self) -> str:
        return repr(dict(self._view()))


class StreamConnection(Connection):
    """A connection whose outgoing messages go to event streams (none once it is closed).

    ``principal`` and ``request_headers`` are the ones given, except while a request of this
    connection set :data:`REQUEST_PRINCIPAL`: then that request's own.  A legacy session
    outlives the tokens of its caller: after a refresh or a step-up the same caller (equal
    principal) holds other scopes and another expiry, and ``ctx.principal`` and
    ``ServerBase.authorize`` must see those of the token the request came with.

    Args:
        route: the stream for a message, given the id of the request it relates to
            (None for unsolicited messages).
        principal: the authenticated identity (or None).
        client_key: the rate-limit key.
        headers: the HTTP request's headers (:func:`request_headers`).
    """

    def __init__(self, route: Callable[[jsonrpc.RequestId | None], EventStream], principal: Any, client_key: str,
                 headers: Mapping[str, str] = NO_HEADERS) -> None:
        super().__init__(principal=principal, client_key=client_key, request_headers=headers)
        self.route = route

    @property
    def principal(self) -> Any:
        current = REQUEST_PRINCIPAL.get()
        return current[1] if current is not None and current[0] is self else self._principal

    @principal.setter
    def principal(self, value: Any) -> None:
        self._principal = value

    @property
    def request_headers(self) -> Mapping[str, str]:
        current = REQUEST_PRINCIPAL.get()
        return current[2] if current is not None and current[0] is self else self._headers

    @request_headers.setter
    def request_headers(self, value: Mapping[str, str]) -> None:
        self._headers = value

    async def deliver(self, message: Outgoing, related_to: jsonrpc.RequestId | None) -> None:
        if not self.closed:
            self.route(related_to).append(message)


class StreamSlot:
    """Where one request's stream is: given (a legacy request's numbered stream), or made when
    first needed (a stateless 2026 request: when its handler sends something before its
    response, or waits; most calls never need one, and their response is written as JSON).

    Args:
        limit: how many events a stream made here keeps.
        stream: the stream, when it exists already.
    """

    __slots__ = ("limit", "stream")

    def __init__(self, limit: int, stream: EventStream | None = None) -> None:
        self.limit = limit
        self.stream = stream

    def route(self, related_to: jsonrpc.RequestId | None = None) -> EventStream:
        """The stream (made now if it does not exist yet); a :class:`StreamConnection`'s route."""
        stream = self.stream
        if stream is None:
            stream = self.stream = EventStream(0, self.limit)
        return stream
