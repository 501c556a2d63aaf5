"""One connection as the server core sees it: its state and its outgoing channel.

A :class:`Connection` is what a transport hands to ``ServerBase.handle`` with every
message.  It carries what the legacy era keeps per session (negotiated version, client
capabilities, ``logging/setLevel``), the in-flight request tasks (for
``notifications/cancelled``), and the outgoing side: notifications and server->client
requests whose responses come back through ``handle``.

Transports either pass a ``sink`` (an ``async`` callable taking one message dict) or
subclass and override :meth:`Connection.deliver`, which also receives the id of the
request a message relates to (``None`` for unsolicited ones such as list_changed), so an
HTTP transport can route progress to the right response stream.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import Any

from ..wire import jsonrpc
from ..wire.errors import McpTimeoutError, ProtocolError, TransportClosedError, from_wire

#: One outgoing message: a JSON-RPC object, or a list of responses (2025-03-26 batch).
Outgoing = jsonrpc.JsonObject | list[jsonrpc.JsonObject]
Sink = Callable[[Outgoing], Awaitable[None]]
_conn_ids = itertools.count(1)
#: The HTTP request headers of a connection that has none (stdio, in process).
NO_HEADERS: Mapping[str, str] = MappingProxyType({})


def is_network_client(client_key: str) -> bool:
    """Whether a client key names an HTTP client (``principal:…`` or ``ip:…``), one of many a
    server shares its bounded resources between (a stdio or in-process connection is alone)."""
    return client_key.startswith(("principal:", "ip:"))


class Connection:
    """State and outgoing channel of one client connection (see module docstring).

    Args:
        sink: coroutine function receiving each outgoing message (dict).
        principal: the authenticated identity (``None`` on stdio).
        client_key: rate-limit key of the client; unique per connection by default.
        request_headers: the HTTP request's headers (lower-case names, read-only; empty on
            stdio and in process).
    """

    def __init__(
        self, sink: Sink | None = None, *, principal: Any = None, client_key: str | None = None,
        request_headers: Mapping[str, str] = NO_HEADERS,
    ) -> None:
        self._sink = sink
        self.principal = principal
        self.request_headers = request_headers
        self.client_key = client_key or f"conn-{next(_conn_ids)}"
        #: Negotiated version after a legacy ``initialize`` (None: no legacy session).
        self.legacy_version: str | None = None
        #: True once ``notifications/initialized`` arrived.
        self.initialized = False
        self.client_capabilities: dict[str, Any] = {}
        self.client_info: dict[str, Any] | None = None
        #: Legacy ``logging/setLevel`` threshold (None: the server default).
        self.log_level: str | None = None
        #: Resource URIs this (legacy) session subscribed to (``resources/subscribe``).
        self.resource_subscriptions: set[str] = set()
        self.closed = False
        #: Its messages come from a JSON decoder (plain JSON data: exact dicts and lists, no
        #: tuple, no enum); False where they are handed over as objects (in process, no copy).
        self.decoded = True
        #: True once the client can no longer answer (its input ended).
        self.input_closed = False
        #: Request id -> task running it (cancelled by ``notifications/cancelled``).
        self.inflight: dict[jsonrpc.RequestId, asyncio.Task[Any]] = {}
        #: Request ids cancelled by the peer (their response is suppressed).
        self.cancelled_ids: set[jsonrpc.RequestId] = set()
        self._pending: dict[jsonrpc.RequestId, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)

    async def deliver(self, message: Outgoing, related_to: jsonrpc.RequestId | None) -> None:
        """Send one message to the client.  Override in transports that route messages."""
        if self._sink is not None and not self.closed:
            await self._sink(message)

    async def notify(
        self, method: str, params: jsonrpc.JsonObject | None = None, *, related_to: jsonrpc.RequestId | None = None
    ) -> None:
        """Send a notification (errors of a closing transport are swallowed)."""
        await self.send_notification(jsonrpc.notification(method, params), related_to=related_to)

    async def send_notification(self, message: jsonrpc.JsonObject, *,
                                related_to: jsonrpc.RequestId | None = None) -> None:
        """Send a notification built once for many connections (never changed afterwards:
        streams keep it for replay)."""
        if self.closed:
            return
        try:
            await self.deliver(message, related_to)
        except (OSError, RuntimeError, TransportClosedError):
            pass

    async def request(
        self,
        method: str,
        params: jsonrpc.JsonObject | None,
        *,
        timeout: float,
        related_to: jsonrpc.RequestId | None = None,
    ) -> Any:
        """Send a server->client request and await its result (legacy era only).

        Raises:
            ProtocolError: the client answered with an error.
            McpTimeoutError: no answer within ``timeout`` seconds.
            TransportClosedError: the connection closed first.
        """
        if self.closed or self.input_closed:
            raise TransportClosedError("connection closed")
        rid = f"srv-{next(self._ids)}"
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            await self.deliver(jsonrpc.request(rid, method, params), related_to)
            async with asyncio.timeout(timeout):
                return await fut
        except TimeoutError:
            raise McpTimeoutError(f"client did not answer {method} in time") from None
        except asyncio.CancelledError:
            if fut.cancelled() or not fut.done():  # cancelling the task cancels ``fut`` too
                await self.notify(
                    "notifications/cancelled", {"requestId": rid, "reason": "request cancelled"}
                )
            raise
        finally:
            self._pending.pop(rid, None)

    def receive_response(self, message: jsonrpc.JsonObject) -> None:
        """Resolve the pending server->client request ``message`` answers (else ignore)."""
        rid = message.get("id")
        fut = self._pending.get(rid) if isinstance(rid, (str, int)) else None
        if fut is None or fut.done():
            return
        if "error" in message:
            fut.set_exception(from_wire(message["error"]))
        else:
            fut.set_result(message.get("result"))

    def refuse_answer(self, raw: bytes | str, error: ProtocolError) -> bool:
        """A message from the client that could not be read (invalid JSON, a lone surrogate, too
        deep): when it is an answer whose ``id`` names a pending server->client request (found
        without parsing, :func:`~wire.jsonrpc.salvage_response_id`), that request fails with
        ``error`` at once, so the call that asked ends with an error instead of waiting for an
        answer that never comes.  True when one was failed."""
        rid = jsonrpc.salvage_response_id(raw)
        fut = self._pending.get(rid) if rid is not None else None
        if fut is None or fut.done():
            return False
        fut.set_exception(error)
        return True

    def cancel_request(self, request_id: Any) -> bool:
        """Cancel the in-flight request ``request_id`` (from ``notifications/cancelled``)."""
        task = self.inflight.get(request_id) if jsonrpc.is_valid_id(request_id) else None
        if task is None or task.done():
            return False
        self.cancelled_ids.add(request_id)
        task.cancel()
        return True

    def fail_pending(self) -> None:
        """The client stopped reading/answering: fail every pending server->client request."""
        self.input_closed = True
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(TransportClosedError("connection closed"))
        self._pending.clear()

    def close(self) -> None:
        """Mark closed (nothing more is delivered) and fail pending requests."""
        self.fail_pending()
        self.closed = True


__all__ = ["NO_HEADERS", "Connection", "Outgoing", "ProtocolError", "Sink", "is_network_client"]
