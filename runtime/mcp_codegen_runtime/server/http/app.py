"""The Streamable HTTP ASGI application: lifespan, routing, and the choice of protocol era.

:class:`HttpApp` serves one endpoint (``HttpSettings.path``).  Every request passes the
access checks (:mod:`server.http.access`) and is then routed:

* POST: the body is read (:func:`~server.http.request.read_message`), then a message whose
  ``params._meta`` names the protocol version goes to the 2026 handler
  (:mod:`server.http.modern`); ``initialize``, a message with ``Mcp-Session-Id`` or a legacy
  ``MCP-Protocol-Version`` goes to the legacy handler (:mod:`server.http.legacy`); anything else
  is treated as 2026.
* GET and DELETE: legacy sessions only (405 otherwise).  Other methods: 405.
* ``<path>/server-card``: the server card, when the server has one (:mod:`server.http.card`),
  without the endpoint's access checks (public metadata, CORS ``*``).

Probes (``HttpSettings.health_path`` / ``ready_path``, GET or HEAD) are answered before any
check: no auth, no ``Host``/``Origin`` check (kubelets and load balancers send the pod
address as ``Host``; the answer tells nothing but "ok" or "draining"), no rate limit.
``/healthz`` is 200 while the process serves; ``/readyz`` is 200 until :meth:`HttpApp.begin_drain`
(SIGTERM, see :mod:`server.http.serve`), then 503.  :meth:`HttpApp.close_streams` ends the
long-lived streams when the server stops accepting.

Logging: each request's log records carry its fields (:mod:`server.logs`), and the logger
``mcp_codegen.http.access`` writes one INFO line per request (method, path, status, duration).

With OAuth (:mod:`server.http.oauth`) the protected resource metadata is served at its
well-known paths, and a ``tools/call`` whose tool needs scopes the token lacks is refused
(403) as soon as the body is read.

A refused request (:class:`~server.http.request.HttpError`) gets its error response unless the
response has already started.  Every request runs in its own task and writes through a
non-blocking stream, so a slow or vanished client never blocks the others.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...wire import protocol as p
from ..logs import REQUEST_FIELDS
from .access import AccessPolicy
from .card import card_endpoint
from .legacy import LegacyHandler
from .modern import StatelessHandler
from .oauth import ResourceServer
from .request import HttpError, Message, Receive, Request, Scope, Send, UnreadableMessage, read_message
from .responses import send_body, send_error
from .settings import HttpSettings

if TYPE_CHECKING:
    from ..interface import ServedServer

logger = logging.getLogger("mcp_codegen.http")
access_logger = logging.getLogger("mcp_codegen.http.access")
_FIELD_LIMIT = 100  # characters of a client-chosen method or tool name in a log line


class HttpApp:
    """The ASGI application serving one :class:`~server.interface.ServedServer` (module docstring).

    Args:
        server: the server to serve.
        settings: the transport settings (default: :class:`HttpSettings`).
        **overrides: fields of :class:`HttpSettings` replacing those of ``settings``.
    """

    def __init__(self, server: ServedServer, settings: HttpSettings | None = None, **overrides: Any) -> None:
        base = settings or HttpSettings()
        self.settings = replace(base, **overrides) if overrides else base
        self.server = server
        self._max_body = self.settings.max_body_bytes or server.settings.max_message_bytes
        self._access = AccessPolicy(self.settings, ResourceServer.for_server(server, self.settings.oauth, self.settings.path))
        self._legacy = LegacyHandler(server, self.settings)
        self._modern = StatelessHandler(server, self.settings)
        self._probes = {path.rstrip("/") or "/": path == self.settings.ready_path
                        for path in (self.settings.health_path, self.settings.ready_path) if path}
        self._card = card_endpoint(server, self.settings.path)  # <path>/server-card (server.http.card)
        #: True once the server is going away (``/readyz`` answers 503).
        self.draining = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind == "lifespan":
            await self._lifespan(receive, send)
            return
        if kind != "http":
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1003})
            return
        req = Request(scope)
        probe = self._probes.get(req.path.rstrip("/") or "/")
        if probe is not None:
            await self._answer_probe(req, send, ready=probe)
            return
        fields: dict[str, Any] = {"http_method": req.method, "path": req.path[:_FIELD_LIMIT], "client": req.client_host}
        token = REQUEST_FIELDS.set(fields)
        state = {"status": 0}
        start = time.perf_counter()

        async def tracked(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["status"] = int(message["status"])
            await send(message)

        try:
            await self._route(req, receive, tracked)
        except HttpError as exc:
            if not state["status"]:
                await send_error(tracked, exc)
        except (OSError, RuntimeError) as exc:  # the client went away mid-response
            logger.debug("HTTP response aborted: %r", exc)
        finally:
            REQUEST_FIELDS.reset(token)
            if access_logger.isEnabledFor(logging.INFO):
                done = {**fields, "status": state["status"], "duration_ms": round((time.perf_counter() - start) * 1000, 2)}
                access_logger.info("%s %s %s", req.method, fields["path"], state["status"] or "-", extra={"fields": done})

    async def _answer_probe(self, req: Request, send: Send, *, ready: bool) -> None:
        if req.method not in ("GET", "HEAD"):
            allow_headers = [(b"allow", b"GET, HEAD"), (b"content-type", b"text/plain; charset=utf-8")]
            await send_body(send, 405, b"Method Not Allowed", allow_headers)
            return
        status, body = (503, b"draining\n") if ready and self.draining else (200, b"ok\n")
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"cache-control", b"no-store")]
        await send_body(send, status, body if req.method == "GET" else b"", headers)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self.server.start_bus()  # hear the other replicas' changes from the start
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.shutdown()
                await self.server.close_shared()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def begin_drain(self) -> None:
        """The server is going away: ``/readyz`` answers 503 from now on (requests are still served)."""
        self.draining = True

    def close_streams(self) -> None:
        """End the long-lived streams (the server stops accepting): every ``subscriptions/listen``
        stream with its final result (later ones at once), and legacy GET streams, so their
        clients reconnect, elsewhere; requests in flight go on."""
        self.draining = True
        self.server.close_subscriptions()
        self._legacy.close_streams()

    def shutdown(self) -> None:
        """End every session and subscription stream (called on lifespan shutdown)."""
        self.draining = True
        self.server.close_subscriptions()
        self._legacy.close_all()

    async def _route(self, req: Request, receive: Receive, send: Send) -> None:
        if self._access.resource is not None and await self._access.serve_metadata(req, send):  # OAuth metadata
            return  # (serve_metadata answers False at once without a resource server: not awaited then)
        if req.path.rstrip("/") != self.settings.path.rstrip("/"):
            if self._card is not None and self._card.matches(req.path):  # public: no token, any origin
                await self._card.serve(req, send)
                return
            raise HttpError(404, None, "Not Found")
        principal = None
        if self._access.auth:
            principal = await self._access.check(req)
        else:  # no token to read: the Host and Origin checks alone, without a coroutine
            self._access.check_origin(req)
        if req.method == "POST":
            await self._post(req, receive, send, principal)
        elif req.method == "GET":
            await self._legacy.get(req, receive, send, principal)
        elif req.method == "DELETE":
            await self._legacy.delete(req, send, principal)
        else:
            raise HttpError(405, None, "Method Not Allowed", headers=[("allow", "GET, POST, DELETE")])

    async def _post(self, req: Request, receive: Receive, send: Send, principal: Any) -> None:
        try:
            message = await read_message(req, receive, max_bytes=self._max_body, timeout=self.settings.body_timeout)
        except UnreadableMessage as exc:
            self._legacy.refuse_answer(req, principal, exc)  # a legacy answer the server waits for
            raise
        fields = REQUEST_FIELDS.get()
        if fields is not None and isinstance(message, dict) and isinstance(message.get("method"), str):
            fields["mcp_method"] = message["method"][:_FIELD_LIMIT]
            name = message.get("params", {}).get("name") if isinstance(message.get("params"), dict) else None
            if message["method"] == "tools/call" and isinstance(name, str):
                fields["tool"] = name[:_FIELD_LIMIT]
        if self._access.resource is not None:  # 403 insufficient_scope before any handler runs
            self._access.resource.check_scopes(principal, message)
        params = message.get("params") if isinstance(message, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and p.META_PROTOCOL_VERSION in meta:
            await self._modern.handle(req, receive, send, principal, message)
        elif isinstance(message, dict) and message.get("method") == "initialize":
            await self._legacy.initialize(req, send, principal, message)
        elif req.get("mcp-session-id") is not None or req.protocol_version in p.LEGACY_VERSIONS:
            await self._legacy.post(req, receive, send, principal, message)  # 400 without a session id
        else:
            await self._modern.handle(req, receive, send, principal, message)


def asgi_app(server: ServedServer, settings: HttpSettings | None = None, **overrides: Any) -> HttpApp:
    """The ASGI application for ``server`` (same as ``server.asgi_app(...)``).

    Args:
        server: the server to serve.
        settings: the transport settings.
        **overrides: fields of :class:`HttpSettings` replacing those of ``settings``.

    Returns:
        The application.
    """
    return HttpApp(server, settings, **overrides)
