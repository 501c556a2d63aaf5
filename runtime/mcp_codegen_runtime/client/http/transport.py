"""Streamable HTTP client transport (both eras), needing httpx (an optional extra).

``httpx`` is imported when a transport starts, so the rest of the runtime works without it.
Requests go through the lean h11 pool of ``client/http/pool.py``, or through httpx when an
``httpx.AsyncClient`` is given or the environment names a proxy (OAuth requests: httpx).
Use it through ``Client.http(url, ...)`` (see the ``client`` package) or directly::

    transport = HttpTransport("http://127.0.0.1:8000/mcp", bearer_token="...", headers={...})
    async with WeatherClient(transport) as client: ...

What it does (the client core only sees JSON-RPC messages):

* every message is one POST with ``Accept: application/json, text/event-stream``; the
  answer is read as JSON or as an SSE stream (each event's data is one message);
* 2026-07-28 requests (``params._meta`` names the version) carry ``MCP-Protocol-Version``
  (= the ``_meta`` version), ``Mcp-Method``, ``Mcp-Name`` (``tools/call``,
  ``prompts/get``, ``resources/read``) and one ``Mcp-Param-<Name>`` per ``x-mcp-header``
  argument present (``=?base64?...?=`` when the value needs it);
* ``tools/list`` results are filtered: a tool whose ``x-mcp-header`` annotations are
  invalid is dropped (logged, and listed in :attr:`HttpTransport.dropped_tools`); the
  annotations of the others drive the ``Mcp-Param-*`` headers;
* an HTTP error with a JSON-RPC error body is delivered as the response (401/403, and
  404 with ``-32601``, get ``data = {"httpStatus": ...}`` when they have no ``data``: 404 +
  ``-32601`` tells the era probe the server is a 2026 one); without one a synthetic
  ``-32600`` error carrying ``data = {"httpStatus": ...}`` (so the era probe of
  ``server/discover`` falls back to ``initialize`` on a legacy server, TOOLS-PROTOCOL
  §2.3); an unreachable server closes the transport;
* legacy (the session itself is in ``client/http/legacy.py``): the ``Mcp-Session-Id`` of the
  ``initialize`` answer is sent on every later request, with ``MCP-Protocol-Version``; a
  request that carried it and got 404 (session unknown: expired, or another replica behind a
  load balancer) starts a new session and is sent once more; an SSE stream that ends before
  its response is resumed with GET + ``Last-Event-ID`` after the server's ``retry`` interval
  (default 1 s), up to ``max_reconnects`` times without progress; ``listen=True`` keeps the
  GET stream open for unsolicited messages (``tools/list_changed``); closing sends DELETE;
* OAuth (``auth=OAuthSettings(...)``, ``client/oauth/flow.py``): the flow's token goes in
  ``Authorization``; a 401, or a 403 ``insufficient_scope``, runs the authorization flow and
  sends the request again (a failed flow fails the request with ``-32600``; optional: :func:`oauth_flow`);
* cancelling (the core's ``notifications/cancelled``) closes the request's stream, which
  is the cancellation in 2026 (legacy also POSTs the notification).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ...wire import protocol as p
from ...wire.errors import MissingDependencyError
from ...wire.sse import SseError
from ..features import missing
from ..headers import HeaderPlan
from ..transports import JsonMessage, MessageSink, parse_incoming
from .auth import OAuthError
from .env import remember_missing_sniffio, usable_for
from .legacy import LegacySession, SessionRenewalError, session_lost
from .pool import PooledHttp
from .responses import SSE_DRAIN_SECONDS, ResponseReader

if TYPE_CHECKING:  # types only; httpx is optional, so mypy without it sees Any
    import httpx  # type: ignore[import-not-found, unused-ignore]

    from ..oauth.flow import OAuthFlow, OAuthSettings  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

logger = logging.getLogger("mcp_codegen.client.http")


def oauth_flow() -> Any:
    """The module of the OAuth flow (``client/oauth/flow.py``; optional: ``client/features.py``)."""
    try:
        from ..oauth import flow  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    except ImportError as exc:
        missing("oauth", "Client.http(..., auth=...)", exc)
    return flow


#: Connections kept to the server, busy or idle (httpx keeps only 20 idle by default: with more
#: calls in flight most answers closed their connection and the next call opened a new one).
MAX_CONNECTIONS = 100
#: Seconds the legacy handshake waits for the GET stream to open (a server slow to answer it costs this once).
_SETTLE_S = 2.0


def require_httpx() -> None:
    """Raise :class:`~wire.errors.MissingDependencyError` (naming the install) when httpx
    cannot be imported: a client fails where it is made, not at its first connect."""
    try:
        found = importlib.util.find_spec("httpx") is not None
    except (ImportError, ValueError):  # a module entry that is None (import blocked) or broken
        found = False
    if not found:
        runtime = __name__.split(".")[0]
        install = ("pip install 'mcp-codegen-runtime[http]' (or the generated package's http extra)"
                   if runtime == "mcp_codegen_runtime" else "pip install httpx")
        raise MissingDependencyError("calling a server over HTTP", "httpx", install)


class HttpTransport(ResponseReader):
    """Streamable HTTP transport (see the module docstring).

    Args:
        url: the MCP endpoint, e.g. ``http://127.0.0.1:8000/mcp``.
        headers: extra headers sent with every request.
        bearer_token: sent as ``Authorization: Bearer <token>``.
        auth: OAuth settings (``client/oauth/flow.py``): authorize on 401/403 and send the token.
        timeout: connect/write/pool timeout in seconds (the client core applies the
            per-request idle and hard timeouts).
        read_timeout: seconds without a byte before a response read fails (None: no limit).
        tools: wire Tool objects known in advance (the generated tool table), so
            ``Mcp-Param-*`` headers are right even before ``tools/list``.
        listen: legacy era: keep the GET stream open for unsolicited messages.
        max_reconnects: legacy SSE resumption attempts without progress.
        max_message_bytes: the largest accepted response message.
        client: an ``httpx.AsyncClient`` to use (not closed by the transport).
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        bearer_token: str | None = None,
        timeout: float = 30.0,
        read_timeout: float | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
        listen: bool = False,
        max_reconnects: int = 3,
        default_retry_ms: int = 1000,
        max_message_bytes: int = 32 * 1024 * 1024,
        client: httpx.AsyncClient | None = None,
        auth: OAuthSettings | None = None,
    ) -> None:
        super().__init__()
        if client is None:
            require_httpx()
        self.url = url
        self.headers = dict(headers or {})
        self.bearer_token = bearer_token
        self.timeout = timeout
        self.read_timeout = read_timeout
        self.listen = listen
        self.max_reconnects = max_reconnects
        self.default_retry_ms = default_retry_ms
        self.max_message_bytes = max_message_bytes
        self.description = f"HTTP server {url}"
        #: The legacy session: its id, renewals after 404, GET streams.
        self.legacy = LegacySession(self)
        self._given_client = client
        #: The HTTP client: the one given, else :class:`~client.http.pool.PooledHttp` (httpx's
        #: ``AsyncClient`` when the environment names a proxy); both offer the same calls.
        self._http: Any = client
        self._oauth_http: httpx.AsyncClient | None = client
        self._requests: dict[Any, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._list_ids: set[Any] = set()
        self._plan = HeaderPlan(tools)
        self._tools = [dict(t) for t in tools]
        self._closing = False
        self._auth = auth
        self._flow: Any = oauth_flow() if auth is not None else None  # a copy without client/oauth/ says so here
        #: The OAuth flow (with ``auth``, once started).
        self.oauth: OAuthFlow | None = None

    def fresh(self) -> HttpTransport:
        """The same endpoint and settings, with no session yet (OAuth tokens come back from the
        settings' token storage); its description kept (a caller may have hidden secrets of the
        URL in it)."""
        again = HttpTransport(self.url, headers=self.headers, bearer_token=self.bearer_token, timeout=self.timeout,
                             read_timeout=self.read_timeout, tools=self._tools, listen=self.listen,
                             max_reconnects=self.max_reconnects, default_retry_ms=self.default_retry_ms,
                             max_message_bytes=self.max_message_bytes, client=self._given_client, auth=self._auth)
        again.description = self.description
        return again

    @property
    def session_id(self) -> str | None:
        """The legacy session id (from the ``initialize`` answer), if any."""
        return self.legacy.id

    @property
    def dropped_tools(self) -> dict[str, str]:
        """Tools dropped from ``tools/list`` for invalid ``x-mcp-header`` annotations -> why."""
        return self._plan.dropped_tools

    # -- lifecycle -------------------------------------------------------------------------
    async def start(self, sink: MessageSink) -> None:
        try:
            parts = urlsplit(self.url)
            usable = parts.scheme.lower() in ("http", "https") and bool(parts.hostname) and (parts.port or 0) >= 0
        except ValueError:  # a port that is not a number (an unencoded "/" or "@" in a password ...)
            usable = False
        if not usable:
            from ...wire.errors import TransportClosedError

            raise TransportClosedError(f"{self.description}: not an http(s) URL with a host and a valid port "
                                       f"(percent-encode '/', '@' and ':' in a user name or password)")
        await super().start(sink)
        if self._http is None or (self._auth is not None and self._oauth_http is None):
            require_httpx()
            import httpx
            remember_missing_sniffio()
            if self._http is None and usable_for(self.url):  # the lean pool (client/http/pool.py)
                self._http = PooledHttp(timeout=self.timeout, read_timeout=self.read_timeout, max_connections=MAX_CONNECTIONS)
            if self._http is None or self._auth is not None:  # OAuth discovery and token requests use httpx
                def plain(transport: Any = None) -> Any:
                    return httpx.AsyncClient(
                        timeout=httpx.Timeout(self.timeout, read=self.read_timeout), follow_redirects=False,
                        limits=httpx.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS),
                        transport=transport)

                checked = None
                if self._auth is not None:  # names resolved and checked, answers size-limited (client/oauth/net.py)
                    from ..oauth.net import make_checked_transport  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

                    checked = make_checked_transport(self.url, allow_local=self._auth.allow_local_urls)
                self._oauth_http = plain(checked)
                self._http = self._http or (plain() if checked is not None else self._oauth_http)
        if self._auth is not None and self.oauth is None:
            self.oauth = self._flow.OAuthFlow(self._auth, self.url, self._oauth_http)

    async def aclose(self) -> None:
        if self._closing:
            return
        self._closing = True
        tasks = [*self._requests.values(), *self._background]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._http is not None:
            if self.session_id is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(
                        self._http.delete(self.url, headers=self.base_headers(legacy=True, method="DELETE")), 2.0
                    )
            for owned in {self._http, self._oauth_http} - {None, self._given_client}:
                with contextlib.suppress(Exception):
                    await owned.aclose()
        self._report_closed("transport closed")

    def set_protocol(self, era: str, version: str) -> None:
        super().set_protocol(era, version)
        if era == "legacy" and self.listen:
            self.legacy.listening = True
            self.legacy.start_listening()

    async def ensure_listening(self, timeout: float | None = None) -> None:
        """Legacy: open the GET stream (if not yet) and wait until the server answered it."""
        if self.era == "legacy" and self.session_id is not None:
            if not self.legacy.listening:
                self.legacy.listening = True
                self.legacy.start_listening()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.legacy.ready.wait(), self.timeout if timeout is None else timeout)

    async def settle_listening(self) -> None:
        if self.listen:
            await self.ensure_listening(_SETTLE_S)

    @property
    def closing(self) -> bool:
        """:meth:`aclose` has begun: no new request, stream or renewal starts."""
        return self._closing

    def open_stream(self, method: str, headers: Mapping[str, str], content: bytes = b"") -> Any:
        """``async with transport.open_stream("GET", headers) as resp``: one request to the endpoint."""
        assert self._http is not None
        return self._http.stream(method, self.url, content=content, headers=headers)

    def spawn(self, coro: Any) -> asyncio.Task[None]:
        """Run ``coro`` as a background task of the transport (cancelled by :meth:`aclose`)."""
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    # -- headers -------------------------------------------------------------------------------
    def base_headers(self, *, legacy: bool, method: str = "POST") -> dict[str, str]:
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        headers.update(self.headers)
        auth = self.oauth.request_headers(method, self.url) if self.oauth is not None else {}
        if auth:
            headers.update(auth)  # Authorization (and a DPoP proof for this method: client/oauth/dpop.py)
        elif self.bearer_token:
            headers["authorization"] = f"Bearer {self.bearer_token}"
        if legacy:
            if self.session_id is not None:
                headers["mcp-session-id"] = self.session_id
            if self.era == "legacy" and self.protocol_version:
                headers["mcp-protocol-version"] = self.protocol_version
        return headers

    def _headers_for(self, message: JsonMessage) -> dict[str, str]:
        modern = self._plan.modern_headers(message)
        if modern is None:
            headers = self.base_headers(legacy=True)
            if isinstance(message, dict) and message.get("method") == "initialize":
                headers.pop("mcp-protocol-version", None)
            return headers
        return {**self.base_headers(legacy=False), **modern}

    def _filter(self, message: JsonMessage) -> JsonMessage:
        """A ``tools/list`` answer minus tools with invalid header annotations; others as they are."""
        if isinstance(message, dict) and message.get("id") in self._list_ids:
            return self._plan.filter_list(message)
        return message

    # -- sending -------------------------------------------------------------------------------
    async def send(self, message: JsonMessage) -> None:
        if self._closing or self._closed_reported or self._http is None:
            from ...wire.errors import TransportClosedError

            raise TransportClosedError(f"{self.description}: not connected")
        if isinstance(message, dict) and isinstance(message.get("method"), str) and message.get("id") is not None:
            rid = message["id"]
            if message["method"] == "tools/list":
                self._list_ids.add(rid)
            elif message["method"] == "initialize" and isinstance(message.get("params"), dict):
                self.legacy.init_params = message["params"]  # what a renewal repeats
            task = asyncio.get_running_loop().create_task(self._request(message))
            self._requests[rid] = task
            return
        if isinstance(message, dict) and message.get("method") == "notifications/cancelled":
            params = message.get("params")
            target = params.get("requestId") if isinstance(params, dict) else None
            running = self._requests.get(target)
            if running is not None:
                running.cancel()  # closing the stream is the cancellation (2026)
            if self.era != "legacy":
                return
        await self.post_message(message)

    async def post_message(self, message: JsonMessage) -> None:
        """A notification or a (legacy) response: expect 202."""
        assert self._http is not None
        import httpx

        try:
            for _ in range(4):
                headers = await self._authorized(message)
                resp = await self._http.post(self.url, content=_encode(message), headers=headers)
                if self.oauth is None or not await self.oauth.after(resp.status_code, resp.headers,
                                                                    headers.get("authorization"), headers.get("dpop")):
                    break
        except (httpx.HTTPError, OAuthError) as exc:
            logger.warning("POST of a %s failed: %r", _describe(message), exc)
            return
        if resp.status_code == 404 and "mcp-session-id" in headers:
            logger.warning("dropped a %s: the server does not know session %s (HTTP 404)",
                           _describe(message), headers["mcp-session-id"])
        elif resp.status_code >= 400:
            logger.warning("server refused a %s: HTTP %d", _describe(message), resp.status_code)
        elif resp.content:
            answer = parse_incoming(resp.content)
            if answer is not None:
                await self.deliver(answer)

    async def _request(self, message: dict[str, Any]) -> None:
        assert self._http is not None
        import httpx

        rid = message["id"]
        renewed = False
        try:
            while True:
                headers = await self._authorized(message)
                sent = headers.get("mcp-session-id") if self.era == "legacy" else None
                async with self._http.stream("POST", self.url, content=_encode(message), headers=headers) as resp:
                    if self.oauth is not None and await self.oauth.after(resp.status_code, resp.headers,
                                                                         headers.get("authorization"), headers.get("dpop")):
                        continue
                    if message.get("method") == "initialize":
                        sid = resp.headers.get("mcp-session-id")
                        if sid:
                            self.legacy.id = sid.strip()
                    if sent is None or resp.status_code != 404:
                        await self.deliver_answer(resp, message)
                        return
                    body = await self.read_body(resp)
                    lost = session_lost(body)
                    if not lost or renewed:
                        await self.deliver_http_error(resp, rid, body, again=lost)
                        return
                renewed = True
                try:
                    await self.legacy.renew(sent)  # the request was not processed: send it again
                except SessionRenewalError as exc:
                    await self.fail(rid, p.INVALID_REQUEST, f"the server lost the session (HTTP 404) and {exc}",
                                     {"httpStatus": 404, "sessionLost": True})
                    return
        except asyncio.CancelledError:
            raise
        except httpx.ConnectError as exc:
            self.unsent_ids.add(rid)  # its error says the request never reached the server
            self._report_closed(f"cannot connect: {exc}")
        except httpx.TimeoutException as exc:
            delivered = not isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout, httpx.WriteTimeout))
            await self.fail(rid, p.INTERNAL_ERROR, f"HTTP timeout: {exc!r}", {"requestSent": delivered})
        except OAuthError as exc:
            await self.fail(rid, p.INVALID_REQUEST, f"authorization failed: {exc}", {"httpStatus": 401, "oauth": True})
        except (httpx.HTTPError, SseError, OSError) as exc:
            # a request not written whole is never dispatched; a broken answer may have run
            delivered = not isinstance(exc, (httpx.WriteError, httpx.LocalProtocolError))
            await self.fail(rid, p.INTERNAL_ERROR, f"HTTP request failed: {exc!r}", {"requestSent": delivered})
        except Exception as exc:  # anything else fails this call (never a task error nobody reads); its
            # text is left out: it may quote the URL, and so a secret the caller hid from the description
            await self.fail(rid, p.INTERNAL_ERROR, f"HTTP request failed: {type(exc).__name__}", {"requestSent": False})
        finally:
            self._requests.pop(rid, None)
            self._list_ids.discard(rid)

    async def _authorized(self, message: JsonMessage) -> dict[str, str]:
        """The headers of ``message``, with a token refreshed first if it is about to expire."""
        if self.oauth is not None:
            await self.oauth.prepare()
        return self._headers_for(message)


def _encode(message: JsonMessage) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _describe(message: JsonMessage) -> str:
    return str(message.get("method") or "response") if isinstance(message, dict) else "batch"


__all__ = ["SSE_DRAIN_SECONDS", "HttpTransport"]
