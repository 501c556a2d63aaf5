""":class:`ServerBase`, the base class of every generated server: the protocol core plus the
ways to serve it in the same process.

:class:`~server.dispatch.ServerCore` (the protocol core: message dispatch) speaks MCP and knows no transport; the transports
(:mod:`server.session`, :mod:`server.stdio`, :mod:`server.http`) know the server only as a
:class:`~server.interface.ServedServer`.  This module is where the two meet: it adds
:meth:`ServerBase.connect_in_process` and :meth:`ServerBase.asgi_app`.  The HTTP package is
imported by ``asgi_app`` alone, so stdio serving never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .dispatch import ServerCore
from .session import InProcessPeer

if TYPE_CHECKING:
    from .http import HttpApp, HttpSettings


class ServerBase(ServerCore):
    """Base of every generated server (see :mod:`server.dispatch` for the protocol side)."""

    def connect_in_process(self, *, principal: Any = None, copy: bool = True) -> InProcessPeer:
        """An in-memory client end of a new connection (see :mod:`server.session`); messages
        are copied through JSON unless ``copy`` is False."""
        return InProcessPeer(self, principal=principal, copy=copy)

    def asgi_app(self, settings: HttpSettings | None = None, **options: Any) -> HttpApp:
        """This server as an ASGI app: Streamable HTTP at ``/mcp`` (see :mod:`server.http`)."""
        from .http import HttpApp

        return HttpApp(self, settings, **options)


__all__ = ["ServerBase"]
