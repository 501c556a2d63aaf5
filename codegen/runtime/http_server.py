"""Streamable HTTP transport (server side): a plain ASGI application, both protocol eras.

Serve::

    python -m weather --http --host 127.0.0.1 --port 8000      # uvicorn (optional extra)
    app = WeatherService().asgi_app()                           # any ASGI server; mount it
    uvicorn --factory weather._runtime.http_server:app_from_env --workers 4   # see below

One endpoint (``HttpSettings.path``, default ``/mcp``).  Imports only the standard library;
uvicorn is imported by :func:`run` alone.

2026-07-28 (a POST whose ``params._meta`` names the protocol version): stateless, a fresh
:class:`~.connection.Connection` per request.  ``MCP-Protocol-Version`` must equal the
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
reaches ``ServerBase.authorize`` and ``ctx.principal``; without tokens the rate limit is per
client address (:func:`run` believes ``X-Forwarded-For`` only from the proxies listed in
``FORWARDED_ALLOW_IPS``).  A repeated header counts as its values joined by commas, so
copies that disagree fail the checks.  Bodies larger than
``ServerSettings.max_message_bytes`` get 413 (from ``Content-Length`` before reading, or
as soon as the streamed body passes the limit); a body not received within
``body_timeout`` seconds gets 408.  Every request runs in its own task and writes through a
non-blocking queue, so a slow or vanished client never blocks the others.

Several workers: 2026 requests need no shared state except the signing key of cursors
and ``requestState`` (``MCP_CODEGEN_STATE_KEY``; ``--workers N`` draws one for its
workers when unset).  Legacy sessions live in one process (use sticky routing).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import inspect
import itertools
import json
import logging
import os
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from . import jsonrpc
from . import protocol as p
from .connection import Connection, Outgoing
from .http_headers import decode_value, header_params, name_source, value_matches
from .sse import encode_comment, encode_event

if TYPE_CHECKING:
    from .server import ServerBase

logger = logging.getLogger("mcp_codegen.http")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
TokenVerifier = Callable[[str], Any]

TOKENS_ENV = "MCP_CODEGEN_HTTP_TOKENS"
IMPL_ENV = "MCP_CODEGEN_IMPL"
SETTINGS_ENV = "MCP_CODEGEN_HTTP_SETTINGS"
_LOOPBACK = ("localhost", "127.0.0.1", "[::1]")
_400_CODES = frozenset({p.HEADER_MISMATCH, p.MISSING_CAPABILITY, p.UNSUPPORTED_VERSION, p.PARSE_ERROR, p.INVALID_REQUEST})


@dataclass(frozen=True)
class HttpSettings:
    """Knobs of the HTTP transport (every field has a safe default)."""

    #: The MCP endpoint.
    path: str = "/mcp"
    #: Allowed ``Host`` values (``name`` or ``name:port``; ``"*"`` allows any).  None:
    #: localhost, 127.0.0.1 and [::1] (on :attr:`port` when known).
    allowed_hosts: tuple[str, ...] | None = None
    #: Allowed ``Origin`` values (``"*"`` allows any).  None: ``http(s)://<allowed host>``.
    allowed_origins: tuple[str, ...] | None = None
    #: The bound port (narrows the default allowed hosts).
    port: int | None = None
    #: Bearer token -> principal.  With neither this nor ``verify_token`` no auth is asked.
    tokens: Mapping[str, Any] | None = None
    #: ``verify(token) -> principal | None`` (may be async); used after ``tokens``.
    verify_token: TokenVerifier | None = None
    #: ``realm`` of ``WWW-Authenticate``; ``resource_metadata`` adds that parameter.
    auth_realm: str = "mcp"
    resource_metadata: str | None = None
    #: Largest request body (None: ``ServerSettings.max_message_bytes``).
    max_body_bytes: int | None = None
    #: Seconds a client may take to send its whole body (then 408).
    body_timeout: float = 30.0
    #: Legacy: answer requests with JSON even when the client accepts SSE.
    json_response: bool = False
    #: Legacy: ``retry`` (ms) sent in SSE priming events.
    sse_retry_ms: int = 1000
    #: Seconds between keep-alive comments on idle SSE streams.
    keepalive: float = 15.0
    #: Legacy sessions: idle lifetime (seconds) and maximum number.
    session_idle_timeout: float = 3600.0
    max_sessions: int = 1000
    #: Events kept per SSE stream for replay (legacy) and queued per request (2026).
    max_events_per_stream: int = 1000


class _HttpError(Exception):
    def __init__(
        self, status: int, code: int | None, message: str, *, headers: Sequence[tuple[str, str]] = (), rid: Any = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = tuple(headers)
        self.rid = rid


# ------------------------------------------------------------------ event streams
class _Stream:
    """Messages for one response stream; writers follow it, it never blocks producers."""

    def __init__(self, number: int, limit: int, *, standalone: bool = False) -> None:
        self.number = number
        self.standalone = standalone
        self.events: deque[tuple[int, jsonrpc.JsonObject | list[jsonrpc.JsonObject]]] = deque(maxlen=limit)
        self.seq = 0
        self.done = False
        self.final = False
        self.json_only = False
        #: Incremented by :func:`close_sse_stream`; writers end when it changes.
        self.closes = 0
        self.attached = False
        #: Standalone stream: last seq written to some GET response.
        self.cursor = 0
        self.finished_at: float | None = None
        self._changed = asyncio.Event()

    def append(self, message: Outgoing, *, final: bool = False) -> None:
        if self.done:
            return
        self.seq += 1
        self.events.append((self.seq, message))
        if final:
            self.final = True
            self.finish()
        self._changed.set()

    def finish(self) -> None:
        if not self.done:
            self.done = True
            self.finished_at = time.monotonic()
        self._changed.set()

    def request_close(self) -> None:
        self.closes += 1
        self._changed.set()

    def after(self, seq: int) -> list[tuple[int, Outgoing]]:
        return [(n, m) for n, m in self.events if n > seq]

    async def wait(self, timeout: float | None) -> bool:
        """Wait for news (call right after checking there is none); False on timeout."""
        self._changed.clear()
        try:
            async with asyncio.timeout(timeout):
                await self._changed.wait()
        except TimeoutError:
            return False
        return True

    def poke(self) -> None:
        self._changed.set()


_CURRENT_STREAM: contextvars.ContextVar[_Stream | None] = contextvars.ContextVar("mcp_http_stream", default=None)


def close_sse_stream() -> bool:
    """Close the SSE stream of the legacy request being handled (SEP-1699 polling).

    Call it from a tool handler: the client reconnects after the ``retry`` interval with
    GET + ``Last-Event-ID`` and receives what the handler sends next, including the
    result.  Returns False when there is no such stream (stdio, 2026, JSON responses).
    """
    stream = _CURRENT_STREAM.get()
    if stream is None or stream.json_only:
        return False
    stream.request_close()
    return True


class _RequestConnection(Connection):
    """2026: one request, one connection; everything goes to that request's stream."""

    def __init__(self, stream: _Stream, principal: Any, client_key: str) -> None:
        super().__init__(principal=principal, client_key=client_key)
        self.stream = stream

    async def deliver(self, message: Outgoing, related_to: jsonrpc.RequestId | None) -> None:
        if not self.closed:
            self.stream.append(message)


class _Session:
    """A legacy session: its connection, in-flight request streams and the GET stream."""

    def __init__(self, sid: str, principal: Any, client_key: str, limit: int) -> None:
        self.id = sid
        self.principal = principal
        self.limit = limit
        self.conn = _SessionConnection(self, principal, client_key)
        self.standalone = _Stream(0, limit, standalone=True)
        self.streams: OrderedDict[int, _Stream] = OrderedDict()
        self.by_request: dict[jsonrpc.RequestId, _Stream] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.last_seen = time.monotonic()
        self._numbers = itertools.count(1)

    def new_stream(self) -> _Stream:
        stream = _Stream(next(self._numbers), self.limit)
        self.streams[stream.number] = stream
        while len(self.streams) > 256:  # forget the oldest finished streams
            oldest = next(iter(self.streams.values()))
            if not oldest.done:
                break
            self.streams.popitem(last=False)
        return stream

    def find(self, number: int) -> _Stream | None:
        return self.standalone if number == 0 else self.streams.get(number)

    def close(self) -> None:
        self.conn.close()
        for task in list(self.tasks):
            task.cancel()
        self.standalone.finish()
        for stream in self.streams.values():
            stream.finish()


class _SessionConnection(Connection):
    def __init__(self, session: _Session, principal: Any, client_key: str) -> None:
        super().__init__(principal=principal, client_key=client_key)
        self.session = session

    async def deliver(self, message: Outgoing, related_to: jsonrpc.RequestId | None) -> None:
        if self.closed:
            return
        stream = self.session.by_request.get(related_to) if related_to is not None else None
        if stream is None or stream.json_only or stream.done:
            stream = self.session.standalone
        stream.append(message)


# ------------------------------------------------------------------ the request
class _Request:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.method: str = scope.get("method", "GET")
        self.path: str = scope.get("path", "/")
        self.headers: dict[str, list[str]] = {}
        for raw_name, raw_value in scope.get("headers", []):
            name = raw_name.decode("latin-1").lower()
            self.headers.setdefault(name, []).append(raw_value.decode("latin-1"))
        client = scope.get("client")
        self.client_host = str(client[0]) if client else "unknown"

    def get(self, name: str) -> str | None:
        values = self.headers.get(name)
        if not values:
            return None
        # A repeated header is its values joined (RFC 9110 5.3): copies that disagree then match
        # nothing, so no check passes on one copy while an intermediary acts on another.
        return values[0] if len(values) == 1 or all(v == values[0] for v in values) else ", ".join(values)

    def accepts(self, mime: str) -> bool:
        accept = self.get("accept")
        if accept is None:
            return True
        kinds = {part.split(";")[0].strip().lower() for part in accept.split(",")}
        return mime in kinds or "*/*" in kinds or f"{mime.split('/')[0]}/*" in kinds


def _json_body(message: Any) -> bytes:
    return jsonrpc.encode(message)[:-1]


def _sse_headers() -> list[tuple[bytes, bytes]]:
    return [
        (b"content-type", b"text/event-stream"),
        (b"cache-control", b"no-cache, no-transform"),
        (b"x-accel-buffering", b"no"),
    ]


def _status_for(message: Any, *, modern: bool, meta_problem: bool) -> int:
    if not isinstance(message, dict) or "error" not in message:
        return 200
    code = message["error"].get("code") if isinstance(message["error"], dict) else None
    if code in _400_CODES:
        return 400
    if code == p.METHOD_NOT_FOUND and modern:
        return 404
    if code == p.INVALID_PARAMS and meta_problem:
        return 400
    return 200


def _meta_problem(params: Any) -> bool:
    """True when the request's ``_meta`` lacks what 2026 requires (the -32602 -> 400 case)."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        return True
    level = meta.get(p.META_LOG_LEVEL)
    return (
        not isinstance(meta.get(p.META_PROTOCOL_VERSION), str)
        or not isinstance(meta.get(p.META_CLIENT_CAPABILITIES), dict)
        or (level is not None and level not in p.LOG_LEVELS)
    )


def _event_number(text: str) -> int | None:
    """A part of an SSE event id: ASCII digits only (``"\xb2".isdigit()`` is true), bounded."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def _bad_chars(value: str) -> bool:
    return any((ord(c) < 0x20 and c != "\t") or ord(c) > 0x7E for c in value)


# ------------------------------------------------------------------ the application
class HttpApp:
    """The ASGI application serving one :class:`~.server.ServerBase` (module docstring)."""

    def __init__(self, server: ServerBase, settings: HttpSettings | None = None, **overrides: Any) -> None:
        base = settings or HttpSettings()
        self.settings = replace(base, **overrides) if overrides else base
        self.server = server
        s = self.settings
        self._max_body = s.max_body_bytes or server.settings.max_message_bytes
        tokens = dict(s.tokens) if s.tokens is not None else _tokens_from_env()
        self._tokens = tokens
        self._auth = bool(tokens) or s.verify_token is not None
        self._hosts, self._origins = self._allowed()
        self._sessions: dict[str, _Session] = {}
        self._header_params = {t.name: header_params(t.wire.get("inputSchema")) for t in server.tool_defs}
        for name, (_, reason) in self._header_params.items():
            if reason is not None:
                logger.warning("tool %s: invalid x-mcp-header annotation (%s); headers not validated", name, reason)

    # -- configuration --------------------------------------------------------------
    def _allowed(self) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        s = self.settings
        if s.allowed_hosts is not None:
            hosts: frozenset[str] | None = None if "*" in s.allowed_hosts else frozenset(h.lower() for h in s.allowed_hosts)
        elif s.port is not None:
            hosts = frozenset(f"{h}:{s.port}" for h in _LOOPBACK)
        else:
            hosts = frozenset(_LOOPBACK)
        if s.allowed_origins is not None:
            origins = None if "*" in s.allowed_origins else frozenset(o.lower().rstrip("/") for o in s.allowed_origins)
        elif hosts is None:
            origins = None
        else:
            origins = frozenset(f"{scheme}://{h}" for h in hosts for scheme in ("http", "https"))
        return hosts, origins

    def _host_ok(self, host: str | None) -> bool:
        if self._hosts is None:
            return True
        if host is None:
            return False
        host = host.strip().lower()
        if host in self._hosts:
            return True
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name in self._hosts  # an entry without a port allows any port

    def _origin_ok(self, origin: str | None) -> bool:
        if origin is None or self._origins is None:
            return True
        origin = origin.strip().lower().rstrip("/")
        if origin in self._origins:
            return True
        scheme, sep, rest = origin.partition("://")
        if not sep:
            return False
        name = rest.rsplit(":", 1)[0] if not rest.endswith("]") else rest
        return f"{scheme}://{name}" in self._origins

    # -- ASGI entry --------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind == "lifespan":
            await self._lifespan(receive, send)
            return
        if kind != "http":
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1003})
            return
        req = _Request(scope)
        state = {"started": False}

        async def tracked(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        try:
            await self._route(req, receive, tracked)
        except _HttpError as exc:
            if not state["started"]:
                await self._error(tracked, exc)
        except (OSError, RuntimeError) as exc:  # the client went away mid-response
            logger.debug("HTTP response aborted: %r", exc)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def shutdown(self) -> None:
        """End every session and subscription stream (called on lifespan shutdown)."""
        self.server.close_subscriptions()
        for session in list(self._sessions.values()):
            session.close()
        self._sessions.clear()

    async def _error(self, send: Send, exc: _HttpError) -> None:
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in exc.headers]
        body = b""
        if exc.code is not None:
            body = _json_body(jsonrpc.error(exc.rid, exc.code, exc.message))
            headers.append((b"content-type", b"application/json"))
        else:
            body = exc.message.encode()
            headers.append((b"content-type", b"text/plain; charset=utf-8"))
        await self._send_body(send, exc.status, body, headers)

    @staticmethod
    async def _send_body(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
        headers = [*headers, (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _send_json(
        self, send: Send, status: int, message: Any, extra: Sequence[tuple[bytes, bytes]] = ()
    ) -> None:
        await self._send_body(send, status, _json_body(message), [(b"content-type", b"application/json"), *extra])

    # -- routing -------------------------------------------------------------------------
    async def _route(self, req: _Request, receive: Receive, send: Send) -> None:
        if req.path.rstrip("/") != self.settings.path.rstrip("/"):
            raise _HttpError(404, None, "Not Found")
        if not self._host_ok(req.get("host")):
            raise _HttpError(403, p.INVALID_REQUEST, "Forbidden: Host header not allowed")
        if not self._origin_ok(req.get("origin")):
            raise _HttpError(403, p.INVALID_REQUEST, "Forbidden: Origin not allowed")
        principal = await self._authenticate(req)
        if req.method == "POST":
            await self._post(req, receive, send, principal)
        elif req.method == "GET":
            await self._get(req, receive, send, principal)
        elif req.method == "DELETE":
            await self._delete(req, send, principal)
        else:
            raise _HttpError(405, None, "Method Not Allowed", headers=[("allow", "GET, POST, DELETE")])

    async def _authenticate(self, req: _Request) -> Any:
        if not self._auth:
            return None
        s = self.settings
        challenge = f'Bearer realm="{s.auth_realm}"'
        if s.resource_metadata:
            challenge += f', resource_metadata="{s.resource_metadata}"'
        auth = req.get("authorization") or ""
        scheme, _, token = auth.strip(" \t").partition(" ")
        token = token.strip(" \t")  # HTTP whitespace only: str.strip() also eats NBSP and NEL
        if scheme.lower() != "bearer" or not token:
            raise _HttpError(401, p.INVALID_REQUEST, "Unauthorized: bearer token required", headers=[("www-authenticate", challenge)])
        principal: Any = None
        for known, who in self._tokens.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                principal = who
                break
        if principal is None and s.verify_token is not None:
            principal = s.verify_token(token)
            if inspect.isawaitable(principal):
                principal = await principal
        if principal is None:
            raise _HttpError(
                401,
                p.INVALID_REQUEST,
                "Unauthorized: invalid bearer token",
                headers=[("www-authenticate", challenge + ', error="invalid_token"')],
            )
        return principal

    def _client_key(self, req: _Request, principal: Any) -> str:
        return f"principal:{principal!r}" if principal is not None else f"ip:{req.client_host}"

    async def _read_body(self, req: _Request, receive: Receive) -> bytes:
        length = req.get("content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                raise _HttpError(400, p.INVALID_REQUEST, "Bad Request: invalid Content-Length") from None
            if declared > self._max_body:
                raise _HttpError(413, p.INVALID_REQUEST, f"Request body larger than {self._max_body} bytes")
        body = bytearray()
        try:
            async with asyncio.timeout(self.settings.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        raise _HttpError(400, None, "client disconnected")
                    body += message.get("body", b"")
                    if len(body) > self._max_body:
                        raise _HttpError(413, p.INVALID_REQUEST, f"Request body larger than {self._max_body} bytes")
                    if not message.get("more_body", False):
                        return bytes(body)
        except TimeoutError:
            raise _HttpError(408, p.INVALID_REQUEST, "Request body not received in time") from None

    # -- POST ------------------------------------------------------------------------------
    async def _post(self, req: _Request, receive: Receive, send: Send, principal: Any) -> None:
        ctype = (req.get("content-type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise _HttpError(415, p.INVALID_REQUEST, "Unsupported Media Type: Content-Type must be application/json")
        if not req.accepts("application/json") and not req.accepts("text/event-stream"):
            raise _HttpError(406, p.INVALID_REQUEST, "Not Acceptable: accept application/json or text/event-stream")
        raw = await self._read_body(req, receive)
        try:
            message = jsonrpc.decode(raw)
        except Exception:  # noqa: BLE001 - ParseError
            raise _HttpError(400, p.PARSE_ERROR, "Parse error") from None
        params = message.get("params") if isinstance(message, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        sid = req.get("mcp-session-id")
        if isinstance(meta, dict) and p.META_PROTOCOL_VERSION in meta:
            await self._modern(req, receive, send, principal, message)
        elif isinstance(message, dict) and message.get("method") == "initialize":
            await self._initialize(req, send, principal, message)
        elif sid is not None:
            await self._legacy(req, receive, send, self._session(req, principal), message)
        elif (req.get("mcp-protocol-version") or "").strip() in p.LEGACY_VERSIONS:
            raise _HttpError(400, p.INVALID_REQUEST, "Bad Request: Mcp-Session-Id header required")
        else:
            await self._modern(req, receive, send, principal, message)

    # -- 2026-07-28 ----------------------------------------------------------------------------
    def _check_headers(self, req: _Request, message: jsonrpc.JsonObject) -> str | None:
        """Why the standard/custom headers disagree with the body (None: they agree)."""
        method = message["method"]
        raw_params = message.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        for name, values in req.headers.items():
            if name.startswith("mcp-") and any(_bad_chars(v.strip(" \t")) for v in values):
                return f"the {name} header carries characters outside visible ASCII"
        version = (req.get("mcp-protocol-version") or "").strip()
        if not version:
            return "MCP-Protocol-Version header missing"
        if version != params.get("_meta", {}).get(p.META_PROTOCOL_VERSION):
            return "MCP-Protocol-Version header does not match _meta protocolVersion"
        mcp_method = req.get("mcp-method")
        if mcp_method is None:
            return "Mcp-Method header missing"
        if mcp_method.strip(" \t") != method:
            return "Mcp-Method header does not match the method"
        expected = name_source(method, params)
        got = req.get("mcp-name")
        if expected is not None:
            if got is None:
                return "Mcp-Name header missing"
            if decode_value(got) != expected:
                return "Mcp-Name header does not match the body"
        if method == "tools/call" and isinstance(params.get("name"), str):
            specs, reason = self._header_params.get(params["name"], ((), None))
            raw_args = params.get("arguments")
            args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
            if reason is None:
                for spec in specs:
                    values = req.headers.get(spec.header_name.lower(), [])
                    body = spec.value_in(args)
                    if len(values) > 1:
                        return f"{spec.header_name} header appears more than once"
                    if body is None:
                        if values:
                            return f"{spec.header_name} header present but the argument is absent"
                        continue
                    if not values:
                        return f"{spec.header_name} header missing"
                    decoded = decode_value(values[0])
                    if decoded is None:
                        return f"{spec.header_name} header has a malformed Base64 value"
                    if not value_matches(spec.type, body, decoded):
                        return f"{spec.header_name} header does not match the argument"
        return None

    async def _modern(self, req: _Request, receive: Receive, send: Send, principal: Any, message: Any) -> None:
        kind = jsonrpc.kind(message)
        if kind in ("notification", "response"):
            if kind == "response":
                raise _HttpError(400, p.INVALID_REQUEST, "Bad Request: no server request is pending")
            await self._send_body(send, 202, b"", [])
            return
        rid = message.get("id") if kind == "request" else None
        params = message.get("params") if kind == "request" else None
        modern = isinstance(params, dict) and isinstance(params.get("_meta"), dict) and p.META_PROTOCOL_VERSION in params["_meta"]
        if kind == "request" and modern:
            problem = self._check_headers(req, message)
            if problem is not None:
                raise _HttpError(400, p.HEADER_MISMATCH, f"Header mismatch: {problem}", rid=rid)
            if message["method"] == "initialize":
                raise _HttpError(
                    404,
                    p.METHOD_NOT_FOUND,
                    "Method not found: initialize is not part of 2026-07-28; "
                    f"supported versions: {', '.join(reversed(p.ALL_VERSIONS))}",
                    rid=rid,
                )
        meta_problem = _meta_problem(params)
        stream = _Stream(0, self.settings.max_events_per_stream)
        conn = _RequestConnection(stream, principal, self._client_key(req, principal))

        async def run() -> None:
            try:
                response = await self.server.handle(message, conn)
                if response is not None:
                    stream.append(response, final=True)
            finally:
                stream.finish()

        task = asyncio.get_running_loop().create_task(run())
        try:
            await self._pump(
                req, receive, send, stream, legacy=False, sse_ok=req.accepts("text/event-stream"),
                status=lambda m: _status_for(m, modern=True, meta_problem=meta_problem),
            )
        finally:
            if not task.done():  # the client closed the stream: that cancels the request (2026)
                if rid is None or not conn.cancel_request(rid):
                    task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            conn.close()

    # -- legacy --------------------------------------------------------------------------------
    def _prune_sessions(self) -> None:
        now = time.monotonic()
        for sid, session in list(self._sessions.items()):
            if not session.tasks and now - session.last_seen > self.settings.session_idle_timeout:
                session.close()
                del self._sessions[sid]
        while len(self._sessions) >= self.settings.max_sessions:
            idle = [s for s in self._sessions.values() if not s.tasks and not s.standalone.attached]
            if not idle:
                raise _HttpError(503, p.INVALID_REQUEST, "Too many sessions", headers=[("retry-after", "5")])
            oldest = min(idle, key=lambda s: s.last_seen)
            oldest.close()
            del self._sessions[oldest.id]

    def _session(self, req: _Request, principal: Any) -> _Session:
        sid = req.get("mcp-session-id")
        if sid is None:
            raise _HttpError(400, p.INVALID_REQUEST, "Bad Request: Mcp-Session-Id header required")
        session = self._sessions.get(sid.strip())
        if session is None or session.principal != principal:
            raise _HttpError(404, p.INVALID_REQUEST, "Session not found")
        version = req.get("mcp-protocol-version")
        if version is not None and version.strip() not in p.LEGACY_VERSIONS:
            raise _HttpError(400, p.INVALID_REQUEST, f"Bad Request: unsupported MCP-Protocol-Version {version!r}")
        session.last_seen = time.monotonic()
        return session

    async def _initialize(self, req: _Request, send: Send, principal: Any, message: Any) -> None:
        if jsonrpc.kind(message) != "request":
            raise _HttpError(400, p.INVALID_REQUEST, "Invalid Request")
        self._prune_sessions()
        sid = secrets.token_urlsafe(24)
        session = _Session(sid, principal, self._client_key(req, principal), self.settings.max_events_per_stream)
        response = await self.server.handle(message, session.conn)
        if not isinstance(response, dict) or "error" in response:
            session.close()
            await self._send_json(send, 400 if isinstance(response, dict) else 500, response)
            return
        self._sessions[sid] = session
        await self._send_json(send, 200, response, [(b"mcp-session-id", sid.encode())])

    async def _legacy(self, req: _Request, receive: Receive, send: Send, session: _Session, message: Any) -> None:
        if isinstance(message, list):
            response = await self.server.handle(message, session.conn)
            if response is None:
                await self._send_body(send, 202, b"", [])
            else:
                await self._send_json(send, _status_for(response, modern=False, meta_problem=False), response)
            return
        kind = jsonrpc.kind(message)
        if kind != "request":
            response = await self.server.handle(message, session.conn)
            if response is not None:  # an invalid message
                await self._send_json(send, 400, response)
            else:
                await self._send_body(send, 202, b"", [])
            return
        rid = message["id"]
        if rid in session.by_request:
            raise _HttpError(400, p.INVALID_REQUEST, f"Invalid Request: request id {rid!r} is already in use", rid=rid)
        sse = req.accepts("text/event-stream") and not (self.settings.json_response and req.accepts("application/json"))
        stream = session.new_stream()
        stream.json_only = not sse
        session.by_request[rid] = stream

        async def run() -> None:
            _CURRENT_STREAM.set(stream)
            try:
                response = await self.server.handle(message, session.conn)
                if response is not None:
                    stream.append(response, final=True)
            finally:
                if session.by_request.get(rid) is stream:
                    del session.by_request[rid]
                stream.finish()

        task = asyncio.get_running_loop().create_task(run())
        session.tasks.add(task)
        task.add_done_callback(session.tasks.discard)
        await self._pump(
            req, receive, send, stream, legacy=True, sse_ok=sse,
            status=lambda m: _status_for(m, modern=False, meta_problem=False),
        )
        session.last_seen = time.monotonic()

    # -- GET / DELETE ----------------------------------------------------------------------------
    async def _get(self, req: _Request, receive: Receive, send: Send, principal: Any) -> None:
        version = (req.get("mcp-protocol-version") or "").strip()
        if req.get("mcp-session-id") is None or version in p.MODERN_VERSIONS:
            raise _HttpError(405, None, "Method Not Allowed", headers=[("allow", "POST")])
        if not req.accepts("text/event-stream"):
            raise _HttpError(406, p.INVALID_REQUEST, "Not Acceptable: GET needs Accept: text/event-stream")
        session = self._session(req, principal)
        last = req.get("last-event-id")
        if last is not None:
            number, _, seq = (_event_number(part) for part in last.strip().partition("-"))
            stream = session.find(number) if number is not None else None
            if stream is None or seq is None:
                raise _HttpError(404, p.INVALID_REQUEST, "Unknown Last-Event-ID")
            await self._pump(req, receive, send, stream, legacy=True, sse_ok=True, status=lambda m: 200, resume_from=seq)
            return
        if session.standalone.attached:
            raise _HttpError(409, p.INVALID_REQUEST, "Conflict: a GET stream is already open for this session")
        await self._pump(
            req, receive, send, session.standalone, legacy=True, sse_ok=True, status=lambda m: 200,
            resume_from=session.standalone.cursor,
        )

    async def _delete(self, req: _Request, send: Send, principal: Any) -> None:
        version = (req.get("mcp-protocol-version") or "").strip()
        if req.get("mcp-session-id") is None or version in p.MODERN_VERSIONS:
            raise _HttpError(405, None, "Method Not Allowed", headers=[("allow", "POST")])
        session = self._session(req, principal)
        session.close()
        self._sessions.pop(session.id, None)
        await self._send_body(send, 200, b"", [])

    # -- writing a stream -------------------------------------------------------------------------
    async def _pump(
        self,
        req: _Request,
        receive: Receive,
        send: Send,
        stream: _Stream,
        *,
        legacy: bool,
        sse_ok: bool,
        status: Callable[[Any], int],
        resume_from: int | None = None,
    ) -> None:
        """Write ``stream`` as JSON or SSE until its final message, a close or a disconnect."""
        gone = asyncio.Event()

        async def watch() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    stream.poke()
                    return

        watcher = asyncio.get_running_loop().create_task(watch())
        try:
            await self._write(send, stream, gone, legacy=legacy, sse_ok=sse_ok, status=status, resume_from=resume_from)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher

    async def _write(
        self,
        send: Send,
        stream: _Stream,
        gone: asyncio.Event,
        *,
        legacy: bool,
        sse_ok: bool,
        status: Callable[[Any], int],
        resume_from: int | None,
    ) -> None:
        keepalive = self.settings.keepalive
        if not sse_ok or not legacy:
            # JSON unless (2026) something other than the result shows up first
            while not gone.is_set() and not stream.done and not (sse_ok and stream.events):
                await stream.wait(keepalive)
            if gone.is_set():
                return
            if not sse_ok or (stream.final and len(stream.events) == 1):
                final = stream.events[-1][1] if stream.final else None
                if final is None:
                    await self._send_body(send, 202, b"", [])
                else:
                    await self._send_json(send, status(final), final)
                return
        await send({"type": "http.response.start", "status": 200, "headers": _sse_headers()})
        seq = 0
        if legacy:
            if resume_from is None:
                priming = encode_event("", event_id=f"{stream.number}-0", retry_ms=self.settings.sse_retry_ms)
                await send({"type": "http.response.body", "body": priming, "more_body": True})
            else:
                seq = resume_from
        epoch = stream.closes
        if stream.standalone:
            stream.attached = True
        try:
            while not gone.is_set() and stream.closes == epoch:
                pending = stream.after(seq)
                if pending:
                    for number, message in pending:
                        seq = number
                        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
                        event_id = f"{stream.number}-{number}" if legacy else None
                        chunk = encode_event(data, event_id=event_id)
                        await send({"type": "http.response.body", "body": chunk, "more_body": True})
                        if stream.standalone:
                            stream.cursor = max(stream.cursor, number)
                    continue
                if stream.done:
                    break
                if not await stream.wait(keepalive):
                    await send({"type": "http.response.body", "body": encode_comment("keep-alive"), "more_body": True})
        finally:
            if stream.standalone:
                stream.attached = False
        if not gone.is_set():
            await send({"type": "http.response.body", "body": b"", "more_body": False})


# ------------------------------------------------------------------ construction helpers
def _tokens_from_env() -> dict[str, Any]:
    raw = os.environ.get(TOKENS_ENV, "")
    tokens: dict[str, Any] = {}
    for index, item in enumerate(part.strip() for part in raw.split(",")):
        if not item:
            continue
        principal, sep, token = item.partition("=")
        if sep and principal and token:
            tokens[token] = principal
        else:
            tokens[item] = f"token-{index + 1}"
    return tokens


def asgi_app(server: ServerBase, settings: HttpSettings | None = None, **overrides: Any) -> HttpApp:
    """The ASGI application for ``server`` (same as ``server.asgi_app(...)``)."""
    return HttpApp(server, settings, **overrides)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """HTTP flags of ``python -m <package>`` (the main.py hook)."""
    group = parser.add_argument_group("HTTP")
    group.add_argument("--path", default=HttpSettings.path, help="MCP endpoint path (default /mcp)")
    group.add_argument("--allow-host", action="append", default=None, metavar="HOST[:PORT]",
                       help="allowed Host header (repeatable; '*' allows any; default: localhost names)")
    group.add_argument("--allow-origin", action="append", default=None, metavar="ORIGIN",
                       help="allowed Origin (repeatable; default: http(s)://<allowed host>)")
    group.add_argument("--json-response", action="store_true", help="legacy: answer with JSON instead of SSE")
    group.add_argument("--sse-retry-ms", type=int, default=HttpSettings.sse_retry_ms, help="SSE retry hint (ms)")
    group.add_argument("--body-timeout", type=float, default=HttpSettings.body_timeout,
                       help="seconds a client may take to send its request body")
    group.add_argument("--session-timeout", type=float, default=HttpSettings.session_idle_timeout,
                       help="idle lifetime of legacy sessions (seconds)")
    group.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (2026 clients; legacy needs sticky routing)")


def settings_from_args(args: argparse.Namespace) -> HttpSettings:
    hosts = tuple(args.allow_host) if args.allow_host else None
    if hosts is None and args.host not in ("127.0.0.1", "localhost", "::1"):
        hosts = (*_LOOPBACK, args.host if ":" not in args.host else f"[{args.host}]")
    return HttpSettings(
        path=args.path,
        allowed_hosts=hosts,
        allowed_origins=tuple(args.allow_origin) if args.allow_origin else None,
        port=args.port or None,
        json_response=args.json_response,
        sse_retry_ms=args.sse_retry_ms,
        body_timeout=args.body_timeout,
        session_idle_timeout=args.session_timeout,
    )


def run(server: ServerBase, args: argparse.Namespace) -> None:
    """Serve ``server`` with uvicorn until interrupted (the main.py hook; blocking)."""
    try:
        import uvicorn
    except ImportError:
        raise SystemExit("serving HTTP needs uvicorn: pip install uvicorn") from None
    settings = settings_from_args(args)
    level = str(getattr(args, "log_level", "WARNING")).lower()
    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "log_level": level if level in ("critical", "error", "warning", "info", "debug", "trace") else "warning",
        "lifespan": "on",
        "ws": "none",
        "server_header": False,
        "timeout_graceful_shutdown": 3,
        # X-Forwarded-* only from the proxies named in FORWARDED_ALLOW_IPS: uvicorn trusts
        # 127.0.0.1 by default, letting any local client choose the address it is rate-limited by
        "proxy_headers": bool(os.environ.get("FORWARDED_ALLOW_IPS")),
    }
    workers = int(getattr(args, "workers", 1) or 1)
    if workers > 1:
        from .security import STATE_KEY_ENV

        os.environ.setdefault(STATE_KEY_ENV, secrets.token_hex(32))  # one key for every worker
        cls = type(server)
        os.environ[IMPL_ENV] = f"{cls.__module__}:{cls.__qualname__}"
        os.environ[SETTINGS_ENV] = json.dumps(
            {
                "http": {k: v for k, v in vars(settings).items() if k not in ("tokens", "verify_token")},
                "server": {k: v for k, v in vars(server.settings).items()},
            }
        )
        uvicorn.run(f"{__package__}.http_server:app_from_env", factory=True, workers=workers, **options)
        return
    uvicorn.run(HttpApp(server, settings), **options)


def app_from_env() -> HttpApp:
    """ASGI factory for multi-worker serving: the class named by ``MCP_CODEGEN_IMPL``."""
    import importlib

    from .settings import ServerSettings

    spec = os.environ.get(IMPL_ENV, "")
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise RuntimeError(f"set {IMPL_ENV}=module:Class")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    config = json.loads(os.environ.get(SETTINGS_ENV, "{}"))
    http = config.get("http", {})
    for key in ("allowed_hosts", "allowed_origins"):
        if http.get(key) is not None:
            http[key] = tuple(http[key])
    server = obj(settings=ServerSettings(**config.get("server", {})))
    app: HttpApp = server.asgi_app(HttpSettings(**http)) if hasattr(server, "asgi_app") else HttpApp(server, HttpSettings(**http))
    return app


__all__ = ["HttpApp", "HttpSettings", "add_arguments", "app_from_env", "asgi_app", "close_sse_stream", "run"]
