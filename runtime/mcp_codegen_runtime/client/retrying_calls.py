"""The client core's half of the retry policy (``client/retry_policy.py``): calls with retries, reconnecting.

:class:`RetryingCalls` is a base of :class:`~client.connection.ClientConnection`.  :meth:`RetryingCalls._with_retry`
runs one call (connecting first) once, or under the policy; before another attempt
:meth:`RetryingCalls._recover` replaces a transport the failure closed with a fresh one of the
same settings (``ClientTransport.fresh()``: stdio spawns the command again), under a new JSON-RPC
session, agreeing on the era and version agreed before, and tells ``on_tools_changed``.
Concurrent calls that lost the same transport share one reconnection; a client closed by its
user, a transport that cannot be reopened, or ``RetryPolicy(reconnect=False)`` re-raise the error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..wire.errors import McpError
from .retry_policy import RetryPolicy, run_with_retries

if TYPE_CHECKING:
    from .handshake import Era
    from .session import JsonRpcSession
    from .transports import ClientTransport

logger = logging.getLogger("mcp_codegen.client")
T = TypeVar("T")


class RetryingCalls:
    """Calls under the retry policy (see the module docstring).

    The mixin declares the connection state it reads and replaces (set by
    :class:`~client.connection.ClientConnection`'s ``__init__``) and the three operations it
    needs of the connection, which :class:`~client.connection.ClientConnection` implements.
    """

    retry: RetryPolicy | None
    transport: ClientTransport
    requested_era: Era | None
    requested_version: str | None
    _session: JsonRpcSession
    _connected: bool
    _closed_by_user: bool
    _reconnect_lock: asyncio.Lock
    _listen_task: asyncio.Task[None] | None
    _era: Era | None
    _version: str | None

    async def connect(self) -> None:
        """Start the transport and negotiate (the connection's)."""
        raise NotImplementedError

    def _make_session(self, transport: ClientTransport) -> JsonRpcSession:
        """A JSON-RPC session over ``transport`` wired to the client (the connection's)."""
        raise NotImplementedError

    async def _on_notification(self, method: str, params: Any) -> None:
        """Handle a server notification (the connection's)."""
        raise NotImplementedError

    async def _with_retry(self, what: str, call: Callable[[], Awaitable[T]], repeatable: bool) -> T:
        """``call()`` once connected; with a retry policy, again after safe failures."""
        if self.retry is None:
            await self.connect()
            return await call()
        return await run_with_retries(self.retry, what, self.connect, call, repeatable=repeatable, recover=self._recover)

    async def _recover(self, error: McpError) -> None:
        """Before another attempt: when the failure closed the transport, a fresh one (else raise ``error``)."""
        async with self._reconnect_lock:
            if not self._session.is_closed:
                return  # still open, or another call reconnected already
            fresh = self.transport.fresh() if self.retry and self.retry.reconnect and not self._closed_by_user else None
            if fresh is None:
                raise error
            task, self._listen_task = self._listen_task, None
            if task is not None:
                task.cancel()
            with contextlib.suppress(Exception):
                await self._session.aclose()
            self.transport, self._connected = fresh, False
            self._session = self._make_session(fresh)
            if self._era is not None:  # agree on what was agreed before (the models are of that version)
                self.requested_era, self.requested_version = self._era, self._version
        logger.info("reconnecting to %s after: %s", fresh.description, error.message)
        await self._on_notification("notifications/tools/list_changed", None)  # the new server may differ


__all__ = ["RetryingCalls"]
