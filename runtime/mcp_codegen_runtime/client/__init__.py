"""Client half of the runtime: ``ClientBase`` (async) and ``SyncClientBase`` (blocking).

The generated ``client.py`` subclasses both (imported through the facade
``client/gencode.py``; one module per concern, in this folder) and adds one typed method per tool, calling
:meth:`ClientBase._call_structured` (tools with an ``outputSchema``) or
:meth:`ClientBase._call_content` (the others).  This module is the entry point; the
work is done in:

================  ================================================================
``base``          :class:`ClientBase`: connecting, requests, ``tools/list``, ``tools/call``
``sync``          :class:`SyncClientBase`: the blocking facade on a private event loop
``handshake``     the era probe: ``server/discover``, else ``initialize``
``tools``         ``tools/list`` pagination, the ``ttlMs`` page cache, ``check_compat``
``results``       ``isError`` and JSON-RPC errors to exception classes, typed outputs
``inputs``        elicitation / sampling / roots handlers, ``input_required`` rounds
``hooks``         confirm, audit and progress hooks; :func:`default_audit_hook`
``session``       JSON-RPC ids, pending requests, idle and hard timeouts
``transports``    stdio and in-process transports (``client/http.py``: Streamable HTTP;
                  ``http_responses``: reading its answers; ``http_legacy``: its legacy
                  session, renewed after a 404; ``http_conn``: the h11 connection pool)
``types``         the models and records handlers and hooks receive
``oauth``         the OAuth 2.1 flow of the HTTP transport (``oauth_metadata``: discovery;
                  ``oauth_redirect``: redirect handlers; ``tokens``: token storage;
                  ``oauth_grants``: grants without a user; ``oauth_dpop``: DPoP proofs)
================  ================================================================

Connecting
    ``Client.stdio(command, args, env=..., cwd=..., stderr="passthrough"|"capture"|"discard")``
    spawns the server; ``Client.http(url, bearer_token=..., headers=..., auth=OAuthSettings(...))``
    speaks Streamable HTTP (``client/http.py``; ``auth``: the OAuth flow, ``client/oauth.py``);
    ``Client.in_process(server)`` serves a server object in the same event loop; ``Client(transport)`` takes any :class:`~client.transports.ClientTransport`.
    Use ``async with``; :meth:`ClientBase.aclose` shuts down cleanly (stdio: close
    stdin, wait, SIGTERM, SIGKILL).

Errors
    :meth:`ClientBase.call_raw` returns ``isError`` results; :meth:`ClientBase.call_tool`
    and the typed methods raise the mapped :class:`~wire.errors.ToolError` (see
    ``client/results.py``).  Besides: :class:`McpTimeoutError`, :class:`TransportClosedError`,
    :class:`OutputValidationError`, :class:`InputRequiredLoopError`,
    :class:`ConfirmationDeniedError`; with ``retry=`` (``client/retry.py``):
    :class:`CallMayHaveRunError`, :class:`RetriesExhaustedError`.
"""

from __future__ import annotations

from .base import ClientBase
from .handshake import Era
from .hooks import arguments_digest as arguments_digest
from .hooks import default_audit_hook
from .oauth import OAuthError, OAuthSettings
from .oauth_grants import ClientCredentials, EnterpriseManaged, JwtBearer, assertion_from_env, assertion_from_file
from .oauth_redirect import HeadlessRedirect, LoopbackBrowserRedirect
from .results import INVALID_ARGUMENTS_CODE as INVALID_ARGUMENTS_CODE
from .results import UNSET, Unset, wire_arguments
from .retry import CallMayHaveRunError, RetriesExhaustedError, RetryPolicy
from .sync import SyncClientBase
from .tokens import FileTokenStorage, MemoryTokenStorage, TokenStorage

__all__ = [
    "UNSET",
    "CallMayHaveRunError",
    "ClientBase",
    "ClientCredentials",
    "EnterpriseManaged",
    "Era",
    "FileTokenStorage",
    "HeadlessRedirect",
    "JwtBearer",
    "LoopbackBrowserRedirect",
    "MemoryTokenStorage",
    "OAuthError",
    "OAuthSettings",
    "RetriesExhaustedError",
    "RetryPolicy",
    "SyncClientBase",
    "TokenStorage",
    "Unset",
    "assertion_from_env",
    "assertion_from_file",
    "default_audit_hook",
    "wire_arguments",
]
