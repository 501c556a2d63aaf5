"""Client half of the runtime: ``ClientBase`` (async) and ``SyncClientBase`` (blocking).

The generated ``client.py`` subclasses both (imported through the facade
``client/gencode.py``; one module per concern, a subpackage per optional feature) and adds one typed method per tool, calling
:meth:`ClientBase._call_structured` (tools with an ``outputSchema``) or
:meth:`ClientBase._call_content` (the others).  This module is the entry point; the
work is done in:

======================  ==========================================================
``async_client``        :class:`ClientBase`: ``tools/list``, ``tools/call``, the typed calls
``connection``          :class:`ClientConnection`, its base: transport, session, era, requests
``sync_client``         :class:`SyncClientBase`: the blocking facade on a private event loop
``catalog``             resources, templates, prompts, completions, subscriptions
``constructors``        ``Client.stdio`` / ``Client.http`` / ``Client.in_process``
``retry_policy``        :class:`RetryPolicy`: what may be repeated, the retry loop
``retrying_calls``      the client's calls under that policy, reconnecting
``handshake``           the era probe: ``server/discover``, else ``initialize``
``tools``               ``tools/list`` pagination, the ``ttlMs`` page cache, ``check_compat``
``results``             ``isError`` and JSON-RPC errors to exception classes, typed outputs
``inputs``              elicitation / sampling / roots handlers, ``input_required`` rounds
``hooks``               confirm, audit and progress hooks; :func:`default_audit_hook`
``session``             JSON-RPC ids, pending requests, idle and hard timeouts
``transports``          stdio transport (``inprocess``: in-process)
``types``               the models and records handlers and hooks receive
``features``            the optional features below, and the error of a copy without one
``http/``               the Streamable HTTP transport (its answers, legacy session, h11 pool)
``oauth/``              the OAuth 2.1 flow of the HTTP transport (discovery, redirects,
                        token storage, grants without a user, DPoP)
``tasks/``              task handles (``start_<tool>``), polling and notifications
``skills/``             the Skills calls and their verification
``agent/``              connections of ``--layout agent`` tool functions
======================  ==========================================================

``oauth/``, ``tasks/``, ``skills/`` and ``agent/`` are optional features (``features``): the
modules above import them where used, so a private runtime copy of a package that does not use
one works without it; its names here (the OAuth settings, grants, redirects and token storage)
are imported on first access.

Connecting
    ``Client.stdio(command, args, env=..., cwd=..., stderr="capture"|"passthrough"|"discard")``
    spawns the server; ``Client.http(url, bearer_token=..., headers=..., auth=OAuthSettings(...))``
    speaks Streamable HTTP (``client/http/transport.py``; ``auth``: the OAuth flow, ``client/oauth/flow.py``);
    ``Client.in_process(server)`` serves a server object in the same event loop; ``Client(transport)`` takes any :class:`~client.transports.ClientTransport`.
    Use ``async with``; :meth:`ClientBase.aclose` shuts down cleanly (stdio: close
    stdin, wait, SIGTERM, SIGKILL).

Errors
    :meth:`ClientBase.call_raw` returns ``isError`` results; :meth:`ClientBase.call_tool`
    and the typed methods raise the mapped :class:`~wire.errors.ToolError` (see
    ``client/results.py``).  Besides: :class:`McpTimeoutError`, :class:`TransportClosedError`,
    :class:`OutputValidationError`, :class:`InputRequiredLoopError`,
    :class:`ConfirmationDeniedError`; with ``retry=`` (``client/retry_policy.py``):
    :class:`CallMayHaveRunError`, :class:`RetriesExhaustedError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .async_client import ClientBase
from .features import missing
from .handshake import Era
from .hooks import arguments_digest as arguments_digest
from .hooks import default_audit_hook
from .http.auth import OAuthError
from .results import INVALID_ARGUMENTS_CODE as INVALID_ARGUMENTS_CODE
from .results import UNSET, Unset, wire_arguments
from .retry_policy import CallMayHaveRunError, RetriesExhaustedError, RetryPolicy
from .sync_client import SyncClientBase

if TYPE_CHECKING:
    from .oauth.grants import (  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        ClientCredentials,
        EnterpriseManaged,
        JwtBearer,
        assertion_from_env,
        assertion_from_file,
    )
    from .oauth.redirect import HeadlessRedirect, LoopbackBrowserRedirect  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    from .oauth.settings import OAuthSettings  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    from .oauth.tokens import FileTokenStorage, MemoryTokenStorage, TokenStorage  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

#: The OAuth names (client/oauth/, an optional feature: client/features.py), imported on first access.
_OAUTH = {"ClientCredentials": "grants", "EnterpriseManaged": "grants", "JwtBearer": "grants",
          "assertion_from_env": "grants", "assertion_from_file": "grants", "HeadlessRedirect": "redirect",
          "LoopbackBrowserRedirect": "redirect", "OAuthSettings": "settings", "FileTokenStorage": "tokens",
          "MemoryTokenStorage": "tokens", "TokenStorage": "tokens"}


def __getattr__(name: str) -> Any:
    """The OAuth names, imported on first access (a private runtime copy may not hold them)."""
    if name not in _OAUTH:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from .oauth import grants, redirect, settings, tokens  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    except ImportError as exc:
        missing("oauth", name, exc)
    modules = {"grants": grants, "redirect": redirect, "settings": settings, "tokens": tokens}
    return getattr(modules[_OAUTH[name]], name)


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
