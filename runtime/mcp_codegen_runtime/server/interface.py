"""What a transport needs from a server: :class:`ServedServer`.

The transports (``stdio``, ``session`` and everything in ``http/``) type against this
protocol, never against :class:`~server.base.ServerBase`, so the protocol core
(:mod:`server.dispatch`) and the transports do not import each other: ``dispatch`` implements the
protocol, the transports use it, and :mod:`server.base` puts the two together.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..wire.tools import ServerInfo, ToolDef
from .connection import Connection
from .settings import ServerSettings


class ServedServer(Protocol):
    """The server as a transport sees it: one message in, its answer out, plus hooks."""

    @property
    def settings(self) -> ServerSettings:
        """Limits and timeouts every transport applies (message size, shutdown grace, ...)."""
        ...

    @property
    def server_info(self) -> ServerInfo:
        """Name, version and ``auth`` of the server (OAuth metadata, the ``Mcp-*`` headers)."""
        ...

    @property
    def tool_defs(self) -> tuple[ToolDef, ...]:
        """The declared tools (header validation, per-tool scopes)."""
        ...

    async def handle(self, message: Any, conn: Connection,
                     text: bytes | None = None) -> dict[str, Any] | list[dict[str, Any]] | None:
        """Process one decoded incoming message of ``conn`` (``text``: the JSON text it was
        decoded from, when known); its response, or None."""
        ...

    async def start_bus(self) -> None:
        """Start hearing other replicas' change notifications (HTTP start-up)."""
        ...

    def close_subscriptions(self) -> None:
        """End every open subscription stream (shutdown, stdin EOF)."""
        ...

    async def close_shared(self) -> None:
        """Release shared connections (the change bus, the rate limit) on shutdown."""
        ...
