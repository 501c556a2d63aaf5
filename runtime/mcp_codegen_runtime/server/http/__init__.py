"""Streamable HTTP transport (server side): a plain ASGI application, both protocol eras.

Serve::

    python -m weather --http --host 127.0.0.1 --port 8000      # uvicorn (optional extra)
    app = WeatherService().asgi_app()                           # any ASGI server; mount it
    python -m weather --http --workers 4                        # 4 processes on one port
    uvicorn --factory weather.asgi:app_from_env --workers 4     # see :mod:`.factory`

One endpoint (``HttpSettings.path``, default ``/mcp``).  Imports only the standard library;
uvicorn is imported by :func:`run` alone.  This module is the public face of the transport
(``server/main.py`` calls its :func:`add_arguments` and :func:`run`); the work is done in:

=====================  ==============================================================
:mod:`.app`            :class:`HttpApp`: ASGI entry, lifespan, routing, choice of era
:mod:`.settings`       :class:`HttpSettings`
:mod:`.request`        header access, content negotiation, body limits, ``HttpError``
:mod:`.access`         ``Host``/``Origin`` allow-lists, bearer tokens
:mod:`.oauth`          OAuth resource server: metadata, challenges, scopes, ``--auth-*``
:mod:`.verifiers`      the token verifier interface, introspection (RFC 7662)
:mod:`.jwks`           JWT access tokens checked against the issuer's JWKS
:mod:`.modern`         2026-07-28: stateless POSTs, header validation
:mod:`.legacy`         legacy sessions: POST, GET stream, ``Last-Event-ID``, DELETE
:mod:`.streams`        per-response event buffers, :func:`close_sse_stream`
:mod:`.responses`      writing JSON, SSE and error responses; HTTP status of errors
:mod:`.cli`            command-line flags, :func:`run`
:mod:`.serve`          sockets (``TCP_NODELAY``, ``SO_REUSEPORT``), drain on SIGTERM, workers
:mod:`.factory`        ``app_from_env`` for uvicorn/gunicorn workers; the shared-key check
=====================  ==============================================================

2026-07-28 (a POST whose ``params._meta`` names the protocol version): stateless, a fresh
:class:`~server.connection.Connection` per request.  ``MCP-Protocol-Version`` must equal the
``_meta`` version, ``Mcp-Method`` the method, ``Mcp-Name`` the tool name (``tools/call``),
and every ``Mcp-Param-*`` the ``x-mcp-header`` argument it mirrors; otherwise 400 +
``-32020``.  Errors -32020/-32021/-32022, -32600/-32700 and a -32602 about ``_meta`` are
HTTP 400, -32601 is 404; other errors travel with 200.  The answer is JSON, or SSE when
notifications (progress, log, subscription events) come before the result.  Closing the
response stream cancels the request.  GET and DELETE without a legacy session: 405.

Legacy (2025-03-26 … 2025-11-25): ``initialize`` mints a session (``Mcp-Session-Id``,
random visible ASCII, bound to the caller's principal); later POSTs must carry it (missing:
400, unknown/expired: 404).  Requests are answered with SSE when the client accepts it
(priming event with an id and ``retry`` first, then the request's notifications and
server->client requests, then the response) or JSON; notifications and responses get 202.
A request keeps running when its stream drops (disconnect is not cancellation); the client
resumes with GET + ``Last-Event-ID``.  A plain GET opens the session's stream for
unsolicited messages (``notifications/tools/list_changed``, requests unrelated to a call),
one at a time (409 otherwise).  DELETE ends the session.  :func:`close_sse_stream` lets a
handler close its request's stream to make the client poll (SEP-1699).

Security: the ``Host`` and ``Origin`` headers must name an allowed host (default:
localhost, 127.0.0.1 and [::1], on the bound port when known), else 403 (DNS rebinding).
With bearer tokens configured (``HttpSettings.tokens`` / ``verify_token``, or the
environment variable ``MCP_CODEGEN_HTTP_TOKENS`` = ``principal=token,...``), a request
without a valid ``Authorization: Bearer`` gets 401 + ``WWW-Authenticate``; the principal
reaches ``ServerBase.authorize`` and ``ctx.principal``.  As an OAuth resource server
(spec ``server.auth``, ``HttpSettings.oauth``, ``--auth-*``; docs/auth.md) it serves
``/.well-known/oauth-protected-resource``, verifies access tokens (JWT + JWKS, or
introspection), refuses calls of tools whose ``scopes`` the token lacks with 403, and the
verified :class:`~server.principal.Principal` is ``ctx.principal``; without tokens the rate limit is per
client address (:func:`run` believes ``X-Forwarded-For`` only from the proxies listed in
``FORWARDED_ALLOW_IPS``).  A repeated header counts as its values joined by commas, so
copies that disagree fail the checks.  Bodies larger than
``ServerSettings.max_message_bytes`` get 413 (from ``Content-Length`` before reading, or
as soon as the streamed body passes the limit); a body not received within
``body_timeout`` seconds gets 408.  Every request runs in its own task and writes through a
non-blocking queue, so a slow or vanished client never blocks the others.

Several workers: 2026 requests need no shared state except the signing key of cursors
and ``requestState`` (``MCP_CODEGEN_STATE_KEY`` or a key file, see ``server.signing``;
``--workers N`` draws one for its workers when neither is set; :func:`app_from_env` refuses
several workers without one).  Legacy sessions live in one process (use sticky routing).

Operations: ``/healthz`` and ``/readyz`` probes (:mod:`.app`); on SIGTERM ``/readyz`` turns
503, then listen streams end with their final result, the port closes and requests in
flight get ``--grace`` seconds (:mod:`.serve`); an access line per request on the logger
``mcp_codegen.http.access`` (:mod:`server.logs`).
"""

from __future__ import annotations

from .access import TOKENS_ENV
from .app import HttpApp, asgi_app
from .cli import add_arguments, run, settings_from_args
from .factory import IMPL_ENV, SETTINGS_ENV, WORKERS_ENV, app_from_env, check_shared_key
from .oauth import ResourceServer
from .request import Message, Receive, Scope, Send
from .settings import HttpSettings, OAuthSettings, TokenVerifier
from .streams import close_sse_stream
from .verifiers import AccessTokenVerifier, AuthServerUnavailable, InvalidToken

__all__ = [
    "AccessTokenVerifier",
    "AuthServerUnavailable",
    "IMPL_ENV",
    "SETTINGS_ENV",
    "TOKENS_ENV",
    "WORKERS_ENV",
    "HttpApp",
    "HttpSettings",
    "InvalidToken",
    "Message",
    "OAuthSettings",
    "ResourceServer",
    "Receive",
    "Scope",
    "Send",
    "TokenVerifier",
    "add_arguments",
    "app_from_env",
    "asgi_app",
    "check_shared_key",
    "close_sse_stream",
    "run",
    "settings_from_args",
]
