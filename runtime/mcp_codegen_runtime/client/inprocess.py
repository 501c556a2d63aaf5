"""The in-process client transport: a server object in the same event loop, no subprocess
and no socket (tests, embedding).  It takes either a runtime ``ServerBase`` (anything with
``connect_in_process(principal=...)``, see :class:`InProcessPeerLike`) or any object with
``serve_messages(receive, send)`` (:class:`InMemoryServer`)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, cast, runtime_checkable

from ..wire.errors import TransportClosedError
from .transports import ClientTransport, JsonMessage, MessageSink

logger = logging.getLogger("mcp_codegen.client.transport")

Receive = Callable[[], Awaitable[JsonMessage | None]]
Send = Callable[[JsonMessage], Awaitable[None]]


@runtime_checkable
class InProcessPeerLike(Protocol):
    """The client end of an in-memory connection, as the runtime's server provides it.

    ``ServerBase.connect_in_process(principal=...)`` returns one: ``send`` hands one
    client message to the server, ``receive`` returns the next server message and
    raises :class:`TransportClosedError` once the connection is closed, ``aclose``
    closes it.
    """

    async def send(self, message: Any) -> None: ...

    async def receive(self) -> Any: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class InMemoryServer(Protocol):
    """Alternative interface for other server objects.

    ``serve_messages(receive, send)`` serves ONE connection: it awaits ``receive()``
    for each client message (``None`` means the client closed the connection, and
    the call should then return) and calls ``send(message)`` for every message to
    the client.
    """

    def serve_messages(self, receive: Receive, send: Send) -> Awaitable[None]: ...


class InProcessTransport(ClientTransport):
    """Talk to a server object in the same event loop (for users' unit tests).

    ``server`` is either a runtime server (anything with
    ``connect_in_process(principal=...) -> InProcessPeerLike``, i.e. a generated
    ``ServerBase`` subclass instance) or an :class:`InMemoryServer`.  Messages are
    copied through JSON once in each direction (by a runtime server's peer itself, else
    here), so neither side aliases the other's data and what JSON cannot carry fails as
    on a wire.  ``zero_copy=True`` hands messages over as they are (embedding, where
    the copies are the cost to save): the runtime never changes a message it sent or
    received, and code using this transport must not either.  ``principal`` is the
    authenticated identity the server sees for this connection.
    """

    def __init__(self, server: object, *, principal: Any = None, zero_copy: bool = False) -> None:
        super().__init__()
        if not callable(getattr(server, "connect_in_process", None)) and not isinstance(server, InMemoryServer):
            raise TypeError(
                f"{type(server).__name__} cannot be served in-process: it needs "
                "connect_in_process() (a runtime ServerBase) or serve_messages(receive, send)"
            )
        self.server = server
        self.principal = principal
        self.zero_copy = zero_copy
        self._copy = not zero_copy  # whether this transport copies (a runtime peer copies itself)
        self.description = f"in-process server {type(server).__name__}"
        self._peer: InProcessPeerLike | None = None
        self._inbox: asyncio.Queue[JsonMessage | None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        #: The event loop the connection runs on, once started (a test fixture closes the client there).
        self.loop: asyncio.AbstractEventLoop | None = None

    async def start(self, sink: MessageSink) -> None:
        await super().start(sink)
        self.loop = asyncio.get_running_loop()
        connect = getattr(self.server, "connect_in_process", None)
        if callable(connect):
            options: dict[str, Any] = {} if self.principal is None else {"principal": self.principal}
            if "copy" in inspect.signature(connect).parameters:  # a runtime server: it copies, or not
                options["copy"], self._copy = not self.zero_copy, False
            peer = connect(**options)
            if not isinstance(peer, InProcessPeerLike):
                raise TypeError("connect_in_process() did not return a peer with send/receive/aclose")
            self._peer = peer
            self._task = asyncio.create_task(
                self._until_closed(lambda: self._pump_peer(peer), "peer", "server closed the connection"),
                name="mcp-in-process-reader",
            )
        else:
            self._inbox = asyncio.Queue()
            self._task = asyncio.create_task(
                self._until_closed(self._serve, "server", "server stopped"), name="mcp-in-process-server"
            )

    async def _until_closed(self, work: Callable[[], Awaitable[None]], what: str, ended: str) -> None:
        """Run ``work``, which feeds the client (``what`` names it in errors); then report the channel closed."""
        reason = ended
        try:
            await work()
        except asyncio.CancelledError:
            reason = "transport closed"
            raise
        except Exception as exc:
            logger.exception("in-process %s failed", what)
            reason = f"{what} failed: {exc!r}"
        finally:
            self._report_closed(reason)

    async def _pump_peer(self, peer: InProcessPeerLike) -> None:
        with contextlib.suppress(TransportClosedError):  # the peer's way to say the connection closed
            while True:
                message = await peer.receive()
                if isinstance(message, (dict, list)):
                    await self.deliver(message)

    def _serve(self) -> Awaitable[None]:
        return cast(InMemoryServer, self.server).serve_messages(self._receive, self._send_to_client)

    async def _receive(self) -> JsonMessage | None:
        assert self._inbox is not None
        return await self._inbox.get()

    async def _send_to_client(self, message: JsonMessage) -> None:
        await self.deliver(json.loads(json.dumps(message)) if self._copy else message)

    async def send(self, message: JsonMessage) -> None:
        if self._task is None or self._task.done() or self._closing or self._closed_reported:
            raise TransportClosedError(f"{self.description}: not connected")
        copied: JsonMessage = json.loads(json.dumps(message)) if self._copy else message
        if self._peer is not None:
            await self._peer.send(copied)
        else:
            assert self._inbox is not None
            self._inbox.put_nowait(copied)

    async def aclose(self) -> None:
        if self._closing:
            return
        self._closing = True
        if self._peer is not None:
            with contextlib.suppress(Exception):
                await self._peer.aclose()
        elif self._inbox is not None:
            self._inbox.put_nowait(None)
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), 2.0)
            except (TimeoutError, Exception):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._report_closed("transport closed")
