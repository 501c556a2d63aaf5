""":class:`ServerBase`, the base class of every generated server: the protocol core plus the
ways to serve it in the same process.

:class:`~server.dispatch.ServerCore` (the protocol core: message dispatch) speaks MCP and knows no transport; the transports
(:mod:`server.session`, :mod:`server.stdio`, :mod:`server.http`) know the server only as a
:class:`~server.interface.ServedServer`.  This module is where the two meet: it adds
:meth:`ServerBase.connect_in_process` and :meth:`ServerBase.asgi_app`.  The HTTP package is
imported by ``asgi_app`` alone, so stdio serving never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..wire.launch import EnvVarDef
from .dispatch import ServerCore
from .session import InProcessPeer

if TYPE_CHECKING:
    from .http import HttpApp, HttpSettings


class ServerBase(ServerCore):
    """Base of every generated server (see :mod:`server.dispatch` for the protocol side)."""

    #: The environment variables the server reads (the spec's ``server.env`` and its upstream's),
    #: what ``--print-config`` lists (:func:`~..wire.launch.stdio_launch`).
    env_vars: ClassVar[tuple[EnvVarDef, ...]] = ()
    #: The server card (SEP-2127) served at ``<streamable-http path>/server-card``: the package's
    #: ``server-card.json``; None (no ``registry`` in the spec): 404.
    server_card: ClassVar[Mapping[str, Any] | None] = None

    def connect_in_process(self, *, principal: Any = None, copy: bool = True) -> InProcessPeer:
        """An in-memory client end of a new connection (see :mod:`server.session`); messages
        are copied through JSON unless ``copy`` is False."""
        return InProcessPeer(self, principal=principal, copy=copy)

    def asgi_app(self, settings: HttpSettings | None = None, **options: Any) -> HttpApp:
        """This server as an ASGI app: Streamable HTTP at ``/mcp`` (see :mod:`server.http`)."""
        from .http import HttpApp

        return HttpApp(self, settings, **options)


__all__ = ["ServerBase"]
