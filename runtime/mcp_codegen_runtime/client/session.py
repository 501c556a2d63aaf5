"""The client's JSON-RPC core: request ids, pending requests, timeouts, dispatch.

Transport-agnostic (see ``client/transports.py``) and era-agnostic: the MCP-level logic
(``_meta``, handshake, tools) lives in ``core.py`` and ``base.py``; this module only moves JSON-RPC
messages.

Timeouts: each request has an *idle* timeout, restarted by every progress notification
for it and paused while a handler for a server request runs (a human may be answering
an elicitation), plus a *hard* maximum counted from the send that nothing extends.  On
expiry the request is cancelled on the wire (``notifications/cancelled``) and
:class:`McpTimeoutError` is raised.  When the transport is lost every pending request
fails with :class:`TransportClosedError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..wire import protocol as p
from ..wire.errors import McpError, McpTimeoutError, ProtocolError, TransportClosedError, from_wire
from .transports import ClientTransport, JsonMessage

logger = logging.getLogger("mcp_codegen.client")

RequestHandler = Callable[[str, Any], Awaitable[Any]]
NotificationHandler = Callable[[str, Any], Awaitable[None] | None]
ProgressHandler = Callable[[float, float | None, str | None], Awaitable[None] | None]


@dataclass
class _Pending:
    method: str
    future: asyncio.Future[Any]
    started: float
    last_activity: float
    progress_token: str | int | None = None
    on_progress: ProgressHandler | None = None
    last_progress: float | None = None


@dataclass
class Timeouts:
    """Idle timeout (restarted by progress) and hard maximum, in seconds (``None``: none)."""

    idle: float | None = 60.0
    hard: float | None = 600.0


@dataclass
class _State:
    pending: dict[str | int, _Pending] = field(default_factory=dict)
    by_token: dict[str | int, _Pending] = field(default_factory=dict)
    handler_tasks: dict[str | int, asyncio.Task[None]] = field(default_factory=dict)


class JsonRpcSession:
    """Requests, responses and notifications over one :class:`ClientTransport`.

    ``on_request(method, params) -> result`` answers server→client requests (legacy
    era); raise an :class:`McpError` for a JSON-RPC error response.  ``on_notification``
    receives every notification except ``notifications/progress`` (routed to the
    request's progress handler) and ``notifications/cancelled`` (cancels the matching
    ``on_request`` task).
    """

    def __init__(
        self,
        transport: ClientTransport,
        *,
        on_request: RequestHandler | None = None,
        on_notification: NotificationHandler | None = None,
    ) -> None:
        self.transport = transport
        self.on_request = on_request
        self.on_notification = on_notification
        self._ids = itertools.count(1)
        self._state = _State()
        self._closed: TransportClosedError | None = None
        self._started = False
        self._handlers_running = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- lifecycle -----------------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._started = True
        await self.transport.start(self)

    @property
    def is_closed(self) -> bool:
        return self._closed is not None

    @property
    def close_error(self) -> TransportClosedError | None:
        return self._closed

    async def aclose(self) -> None:
        await self.transport.aclose()
        self.closed_now(TransportClosedError(f"{self.transport.description}: client closed"))

    def closed_now(self, error: TransportClosedError) -> None:
        if self._closed is None:
            self._closed = error
        unsent = self.transport.unsent_ids
        for rid, pending in list(self._state.pending.items()):
            if not pending.future.done():
                data = {"requestSent": False} if rid in unsent else None  # else it may have run
                pending.future.set_exception(TransportClosedError(error.message, data=data))
        self._state.pending.clear()
        self._state.by_token.clear()
        for task in list(self._state.handler_tasks.values()):
            task.cancel()

    # MessageSink
    def closed(self, error: TransportClosedError) -> None:
        self.closed_now(error)

    # -- outgoing ------------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": p.JSONRPC, "method": method}
        if params is not None:
            message["params"] = params
        await self.transport.send(message)

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None,
        *,
        timeouts: Timeouts,
        progress_token: str | int | None = None,
        on_progress: ProgressHandler | None = None,
        request_id: int | None = None,
    ) -> Any:
        """Send a request and wait for its result (raise the mapped error on failure)."""
        if self._closed is not None:
            raise TransportClosedError(self._closed.message, data={"requestSent": False})
        loop = asyncio.get_running_loop()
        rid = request_id if request_id is not None else self.next_id()
        now = loop.time()
        pending = _Pending(
            method=method,
            future=loop.create_future(),
            started=now,
            last_activity=now,
            progress_token=progress_token,
            on_progress=on_progress,
        )
        self._state.pending[rid] = pending
        if progress_token is not None:
            self._state.by_token[progress_token] = pending
        message: dict[str, Any] = {"jsonrpc": p.JSONRPC, "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        try:
            try:
                await self.transport.send(message)
            except TransportClosedError as exc:  # the message did not go out
                raise TransportClosedError(exc.message, data={"requestSent": False}) from None
            return await self._wait(rid, pending, timeouts)
        except asyncio.CancelledError:
            await self._cancel_on_wire(rid, "cancelled by the client")
            raise
        finally:
            self._state.pending.pop(rid, None)
            if progress_token is not None:
                self._state.by_token.pop(progress_token, None)

    async def _wait(self, rid: int, pending: _Pending, timeouts: Timeouts) -> Any:
        loop = asyncio.get_running_loop()
        fut = pending.future
        while True:
            now = loop.time()
            deadlines: list[float] = []
            if timeouts.hard is not None:
                deadlines.append(pending.started + timeouts.hard)
            if timeouts.idle is not None:
                if self._handlers_running:
                    deadlines.append(now + timeouts.idle)
                else:
                    deadlines.append(pending.last_activity + timeouts.idle)
            wait = min(deadlines) - now if deadlines else None
            if wait is not None and wait <= 0:
                break
            if wait is None:
                return await fut
            if await _settled_within(fut, wait, loop):
                return fut.result()
        hard = timeouts.hard is not None and loop.time() >= pending.started + timeouts.hard
        await self._cancel_on_wire(rid, "timeout")
        if fut.done() and not fut.cancelled():
            return fut.result()  # raced in just now
        limit = timeouts.hard if hard else timeouts.idle
        raise McpTimeoutError(
            f"{pending.method} timed out after {limit:g} s"
            + (" (hard maximum)" if hard else " without a response or progress"),
            data={"method": pending.method, "requestId": rid, "hard": hard},
        )

    async def _cancel_on_wire(self, rid: int, reason: str) -> None:
        if self._closed is not None:
            return
        with contextlib.suppress(Exception):
            await self.notify("notifications/cancelled", {"requestId": rid, "reason": reason})

    # -- incoming (MessageSink) ----------------------------------------------------------

    async def deliver(self, message: JsonMessage) -> None:
        if isinstance(message, list):  # 2025-03-26 batch
            for item in message:
                if isinstance(item, dict):
                    await self._deliver_one(item)
            return
        await self._deliver_one(message)

    async def _deliver_one(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if isinstance(method, str):
            if "id" in msg and msg["id"] is not None:
                self._start_handler(msg["id"], method, msg.get("params"))
            else:
                await self._on_notification(method, msg.get("params"))
            return
        if "id" in msg and ("result" in msg or "error" in msg):
            rid = msg["id"]
            pending = self._state.pending.get(rid)
            if pending is None or pending.future.done():
                logger.debug("dropping a response to an unknown or finished request %r", rid)
                return
            if "error" in msg:
                pending.future.set_exception(from_wire(msg["error"]))
            else:
                pending.future.set_result(msg["result"])
            return
        logger.warning("ignoring an unrecognised message from the server: %.200r", msg)

    async def _on_notification(self, method: str, params: Any) -> None:
        if method == "notifications/progress" and isinstance(params, dict):
            token = params.get("progressToken")
            pending = self._state.by_token.get(token) if isinstance(token, (str, int)) else None
            if pending is None:
                return
            value = params.get("progress")
            if not isinstance(value, (int, float)):
                return
            assert self._loop is not None
            pending.last_activity = self._loop.time()
            pending.last_progress = float(value)
            if pending.on_progress is not None:
                total = params.get("total")
                msg = params.get("message")
                try:
                    out = pending.on_progress(
                        float(value),
                        float(total) if isinstance(total, (int, float)) else None,
                        msg if isinstance(msg, str) else None,
                    )
                    if inspect.isawaitable(out):
                        await out
                except Exception:
                    logger.exception("progress callback failed")
            return
        if method == "notifications/cancelled" and isinstance(params, dict):
            task = self._state.handler_tasks.get(params.get("requestId"))  # type: ignore[arg-type]
            if task is not None:
                task.cancel()
            return
        if self.on_notification is not None:
            try:
                out = self.on_notification(method, params)
                if inspect.isawaitable(out):
                    await out
            except Exception:
                logger.exception("notification handler failed for %s", method)

    def _start_handler(self, rid: Any, method: str, params: Any) -> None:
        if not isinstance(rid, (str, int)):
            return
        task = asyncio.create_task(self._handle_request(rid, method, params), name=f"mcp-client-handle-{method}")
        self._state.handler_tasks[rid] = task

    async def _handle_request(self, rid: str | int, method: str, params: Any) -> None:
        self._handlers_running += 1
        response: dict[str, Any] = {"jsonrpc": p.JSONRPC, "id": rid}
        try:
            if self.on_request is None:
                raise ProtocolError("Method not found", code=p.METHOD_NOT_FOUND, data=method)
            response["result"] = await self.on_request(method, params)
        except asyncio.CancelledError:
            return  # cancelled by the server or by close: send nothing
        except McpError as exc:
            response["error"] = exc.to_wire()
        except Exception:
            logger.exception("handler for server request %s failed", method)
            response["error"] = {"code": p.INTERNAL_ERROR, "message": "client handler failed"}
        finally:
            self._handlers_running -= 1
            self._state.handler_tasks.pop(rid, None)
            if self._handlers_running == 0 and self._loop is not None:
                now = self._loop.time()
                for pending in self._state.pending.values():
                    pending.last_activity = max(pending.last_activity, now)
        if self._closed is None:
            with contextlib.suppress(TransportClosedError):
                await self.transport.send(response)

    def pending_methods(self) -> list[str]:
        return [pending.method for pending in self._state.pending.values()]


async def _settled_within(fut: asyncio.Future[Any], wait: float, loop: asyncio.AbstractEventLoop) -> bool:
    """Wait up to ``wait`` seconds for ``fut`` without cancelling it (``asyncio.wait`` for
    one future, without its task bookkeeping); True when it is done."""
    if fut.done():
        return True
    waiter: asyncio.Future[None] = loop.create_future()

    def wake(_: object = None) -> None:
        if not waiter.done():
            waiter.set_result(None)

    fut.add_done_callback(wake)
    timer = loop.call_later(wait, wake)
    try:
        await waiter
    finally:
        timer.cancel()
        fut.remove_done_callback(wake)
    return fut.done()
