"""Client half of the runtime: ``ClientBase`` (async) and ``SyncClientBase`` (blocking).

The generated ``client.py`` subclasses both (``from ._runtime.client import ClientBase,
SyncClientBase``) and adds one typed method per tool, calling
:meth:`ClientBase._call_structured` (tools with an ``outputSchema``) or
:meth:`ClientBase._call_content` (the others).  This module is the entry point; the
work is done in:

=====================  ================================================================
``client_base``        :class:`ClientBase`: connecting, requests, ``tools/list``, ``tools/call``
``client_sync``        :class:`SyncClientBase`: the blocking facade on a private event loop
``client_handshake``   the era probe: ``server/discover``, else ``initialize``
``client_tools``       ``tools/list`` pagination, the ``ttlMs`` page cache, ``check_compat``
``client_results``     ``isError`` and JSON-RPC errors to exception classes, typed outputs
``client_input``       elicitation / sampling / roots handlers, ``input_required`` rounds
``client_hooks``       confirm, audit and progress hooks; :func:`default_audit_hook`
``client_session``     JSON-RPC ids, pending requests, idle and hard timeouts
``client_transports``  stdio and in-process transports (``client_http``: Streamable HTTP)
``client_types``       the models and records handlers and hooks receive
=====================  ================================================================

Connecting
    ``Client.stdio(command, args, env=..., cwd=..., stderr="passthrough"|"capture"|"discard")``
    spawns the server; ``Client.http(url, bearer_token=..., headers=...)`` speaks
    Streamable HTTP (``client_http``); ``Client.in_process(server)`` serves a server object in the same
    event loop; ``Client(transport)`` takes any :class:`~.client_transports.ClientTransport`.
    Use ``async with``; :meth:`ClientBase.aclose` shuts down cleanly (stdio: close
    stdin, wait, SIGTERM, SIGKILL).

Errors
    :meth:`ClientBase.call_raw` returns ``isError`` results; :meth:`ClientBase.call_tool`
    and the typed methods raise the mapped :class:`~.errors.ToolError` (see
    ``client_results``).  Besides: :class:`McpTimeoutError`, :class:`TransportClosedError`,
    :class:`OutputValidationError`, :class:`InputRequiredLoopError`,
    :class:`ConfirmationDeniedError`.
"""

from __future__ import annotations

from .client_base import ClientBase
from .client_handshake import Era
from .client_hooks import arguments_digest as arguments_digest
from .client_hooks import default_audit_hook
from .client_results import INVALID_ARGUMENTS_CODE as INVALID_ARGUMENTS_CODE
from .client_results import UNSET, Unset, wire_arguments
from .client_sync import SyncClientBase

__all__ = ["UNSET", "ClientBase", "Era", "SyncClientBase", "Unset", "default_audit_hook", "wire_arguments"]
