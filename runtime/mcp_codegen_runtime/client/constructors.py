"""``Client.stdio(...)``, ``Client.in_process(server)``, ``Client.http(url)``: a client with its transport.

:class:`TransportConstructors` is a base of :class:`~client.connection.ClientConnection`; each class method
builds the transport (``client/transports.py``, ``client/inprocess.py``, ``client/http/transport.py``)
and passes the remaining keyword arguments to the client's constructor.  The HTTP transport
is imported only by :meth:`TransportConstructors.http`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self

from ..wire.tools import ToolDef
from .inprocess import InProcessTransport
from .transports import ClientTransport, StderrMode, StdioTransport


class TransportConstructors:
    """The class methods that make a client and its transport in one call."""

    tool_defs: ClassVar[tuple[ToolDef, ...]] = ()

    if TYPE_CHECKING:

        def __init__(self, transport: ClientTransport, **options: Any) -> None: ...

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: StderrMode = "capture",
        inherit_env: bool = True,
        shutdown_timeout: float = 2.0,
        **options: Any,
    ) -> Self:
        """Spawn ``command args...`` and connect over stdio (connect with ``async with``).

        The keyword arguments before ``options`` are those of
        :class:`~client.transports.StdioTransport` (``env`` is laid over the current
        environment); ``options`` are the keyword arguments of the constructor
        (handlers, hooks, timeouts, era).
        """
        transport = StdioTransport(
            command,
            args,
            env=env,
            cwd=cwd,
            stderr=stderr,
            inherit_env=inherit_env,
            shutdown_timeout=shutdown_timeout,
        )
        return cls(transport, **options)

    @classmethod
    def in_process(cls, server: object, *, principal: Any = None, zero_copy: bool = False, **options: Any) -> Self:
        """Connect to a server object in this event loop (no subprocess, no socket).

        ``server`` is an instance of a generated server class (or anything
        ``InProcessTransport`` accepts); ``principal`` is the identity it sees.  Messages
        are copied through JSON as on a wire, unless ``zero_copy`` (see
        :class:`~client.inprocess.InProcessTransport`).
        """
        return cls(InProcessTransport(server, principal=principal, zero_copy=zero_copy), **options)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        bearer_token: str | None = None,
        http_timeout: float = 30.0,
        listen: bool | None = None,
        http_client: Any = None,
        auth: Any = None,
        **options: Any,
    ) -> Self:
        """Connect to a Streamable HTTP endpoint (needs ``httpx``; see :mod:`client.http.transport`).

        ``headers`` go with every request, ``bearer_token`` as ``Authorization``;
        ``http_timeout`` bounds connecting and writing; ``listen`` keeps the legacy GET
        stream open for messages not tied to a request: ``tools/list_changed``, and server
        requests that some servers send there (the TypeScript SDK sends ``elicitation/create``
        there when the tool does not relate it to its call).  By default (None) it is open
        when the client watches the tool list or has an elicitation, sampling or roots
        handler.  ``http_client`` is an ``httpx.AsyncClient`` to reuse.  ``auth`` is an
        :class:`~client.oauth.flow.OAuthSettings` (the OAuth flow on 401/403; needs authlib).
        ``options`` are the constructor's keyword arguments.
        """
        from .http.transport import HttpTransport

        watches = options.get("on_tools_changed") is not None or bool(options.get("watch_tools"))
        answers = any(options.get(k) is not None for k in ("elicitation", "sampling", "roots"))

        transport = HttpTransport(
            url,
            headers=headers,
            bearer_token=bearer_token,
            timeout=http_timeout,
            tools=[td.wire for td in cls.tool_defs],
            listen=bool(listen) or watches or (listen is None and answers),
            client=http_client,
            auth=auth,
        )
        return cls(transport, **options)


__all__ = ["TransportConstructors"]
