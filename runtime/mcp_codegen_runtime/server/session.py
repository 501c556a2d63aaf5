"""Message-stream connections of the server: driving one for a transport or for an in-process peer.

:class:`ServerSession` feeds decoded messages to ``ServedServer.handle``: requests (and
batches) each run in their own task, so a handler awaiting a client answer never blocks
the reading of that answer; ``initialize``, notifications and responses are handled in
order, inline.  Responses leave through ``Connection.deliver``.  Stream transports
(stdio, the in-process peer, a future WebSocket...) all use it.

:class:`InProcessPeer` is the client end of an in-memory connection, for tests and for
the generated client's in-process transport::

    peer = server.connect_in_process()          # or: async with server.connect_in_process() as peer
    await peer.send(message)                    # one JSON-RPC message or batch (plain JSON data)
    incoming = await peer.receive()             # next server->client message (dict or list)
    await peer.aclose()                         # then receive() raises TransportClosedError

Messages are copied through JSON in both directions (by orjson where that is the same copy:
:mod:`server.jsoncopy`), so the peers share no objects and anything not JSON-serializable
fails as it would on a real wire.  With
``connect_in_process(copy=False)`` (embedding, where the JSON round trip is the cost to
save) messages are handed over as they are: neither side may change a message after
sending it or one it received, and data JSON cannot carry is not caught.  The peer's
``connection`` attribute is the server-side :class:`~server.connection.Connection`.
"""

from __future__ import annotations

import asyncio
import logging
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..wire import jsonrpc
from ..wire.errors import TransportClosedError
from .connection import Connection, Outgoing
from .jsoncopy import json_copy, json_copy_measured

if TYPE_CHECKING:
    from .interface import ServedServer

logger = logging.getLogger("mcp_codegen.server")


class ServerSession:
    """Runs ``server.handle`` for the messages of one connection (see module docstring)."""

    def __init__(self, server: ServedServer, conn: Connection) -> None:
        self.server = server
        self.conn = conn
        self._tasks: set[asyncio.Task[None]] = set()

    async def feed(self, message: Any, text: bytes | None = None) -> None:
        """Process one decoded incoming message (returns before long requests finish);
        ``text``: the JSON text it was decoded from, if known (``jsonrpc.decode_measured``)."""
        if not self.start(message, text):
            await self._answer(message, text)

    def start(self, message: Any, text: bytes | None = None) -> bool:
        """Start ``message``'s own task if it gets one (a request other than ``initialize``,
        or a batch; dropped once the connection is closed); False: it must be handled in
        order, inline (:meth:`feed` does that)."""
        if self.conn.closed:
            return True
        if not isinstance(message, list) and (jsonrpc.kind(message) != "request" or message.get("method") == "initialize"):
            return False
        own: list[asyncio.Task[None]] = []
        task = asyncio.get_running_loop().create_task(self._answer(message, text, own))
        own.append(task)  # before the task's first step: it runs at the loop's next pass
        self._tasks.add(task)
        return True

    async def _answer(self, message: Any, text: bytes | None = None,
                      own: list[asyncio.Task[None]] | None = None) -> None:
        """Handle ``message`` (``text``: the line it was read from, when known) and deliver its
        response.  In its own task (``own[0]``, from :meth:`start`) it leaves ``_tasks`` as it
        ends (no done callback: one event-loop pass fewer per request; a task cancelled before
        it ran is left to :meth:`aclose`, the only one that cancels tasks it did not start)."""
        try:
            response = await self.server.handle(message, self.conn, text)
            if response is None:
                return
            related = response.get("id") if isinstance(response, dict) else None
            try:
                await self.conn.deliver(response, related if jsonrpc.is_valid_id(related) else None)
            except (OSError, TransportClosedError):
                logger.debug("could not deliver a response: connection closed")
        finally:
            if own is not None:
                self._tasks.discard(own[0])

    async def aclose(self, grace: float = 0.0) -> None:
        """Close: fail pending client requests, give in-flight requests ``grace`` seconds."""
        self.conn.fail_pending()
        pending = set(self._tasks)
        if pending and grace > 0:
            await asyncio.wait(pending, timeout=grace)
        self.conn.close()
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


class _Closed:
    pass


_CLOSED = _Closed()


class InProcessPeer:
    """Client end of an in-memory connection to a server (see module docstring)."""

    def __init__(self, server: ServedServer, *, principal: Any = None, copy: bool = True) -> None:
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self.connection = Connection(self._to_client, principal=principal)
        self.connection.decoded = copy  # without the copy, the client's own objects
        self._session = ServerSession(server, self.connection)
        self._closed = False
        self._copy = copy

    async def _to_client(self, message: Outgoing) -> None:
        if not self._copy:
            await self._queue.put(message)
            return
        try:
            copy = json_copy(message)
        except (TypeError, ValueError):
            logger.error("dropping a non-JSON outgoing message")
            return
        await self._queue.put(copy)

    async def send(self, message: Any) -> None:
        """Deliver one client->server message (a JSON-RPC dict or a batch list)."""
        if self._closed:
            raise TransportClosedError("in-process connection closed")
        if not self._copy:
            await self._session.feed(message)
            return
        copy, text = json_copy_measured(message)
        await self._session.feed(copy, text)

    async def receive(self) -> Any:
        """The next server->client message; TransportClosedError once closed and drained."""
        if self._closed and self._queue.empty():
            raise TransportClosedError("in-process connection closed")
        item = await self._queue.get()
        if item is _CLOSED:
            self._queue.put_nowait(_CLOSED)
            raise TransportClosedError("in-process connection closed")
        return item

    async def aclose(self) -> None:
        """Close the connection, cancelling requests still running."""
        if self._closed:
            return
        self._closed = True
        await self._session.aclose(0.0)
        self._queue.put_nowait(_CLOSED)

    async def __aenter__(self) -> InProcessPeer:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
