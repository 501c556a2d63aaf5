"""The HTTP/1.1 connection pool of :class:`~client.http.transport.HttpTransport`: h11 over asyncio streams.

Why not httpx's pool: a profile of the client at 100 concurrent calls spent about 45% of its
CPU in httpcore 1.x's pool, which re-scans every connection for every queued request each
time a request starts or ends, and probes each idle socket while doing so (quadratic in the
calls in flight); and, even for one call at a time, httpx's request and response models,
cookie extraction, URL merging and anyio wrappers cost about four times the HTTP/1.1
protocol work itself.  :class:`PooledHttp` keeps that work and drops the rest:

* cookies a server sets are sent back (``client/http/cookies.py``: ``http.cookiejar`` rules, as httpx does), so
  cookie-based load-balancer affinity keeps working;
* the protocol is **h11** (what httpcore uses): request framing, header validation,
  response parsing, ``Content-Length`` / chunked / close-delimited bodies, keep-alive rules,
  and its limit on the size of a response head;
* a request (head and body) goes out in **one write**;
* connections are kept per origin, idle ones in a LIFO list: taking one is O(1); one
  whose peer has closed it (EOF seen by the event loop) is dropped and another taken;
  at most ``max_connections`` are open, further requests wait for one (``timeout``:
  :class:`httpx.PoolTimeout`);
* a response read to its end returns its connection to the pool; one closed earlier (a
  cancelled call, an abandoned stream) closes its connection, which the server sees as the
  client going away (the 2026 cancellation);
* errors are httpx's exception classes (``ConnectError``, ``ConnectTimeout``, ``ReadError``,
  ``ReadTimeout``, ``WriteError``, ``WriteTimeout``, ``RemoteProtocolError``,
  ``PoolTimeout``), so the transport handles both clients alike; https uses
  ``httpx.create_ssl_context()`` (httpx's own defaults, ``SSL_CERT_FILE`` included; the
  stdlib's default context with an httpx that lacks it).

It offers the subset of ``httpx.AsyncClient`` the transport uses: ``stream(...)`` (an async
context manager yielding a response with ``status_code``, ``reason_phrase``, ``headers``,
``aiter_bytes()``), ``post``, ``delete`` and ``aclose``.  The transport uses it unless it was
given an ``httpx.AsyncClient``, or the environment names a proxy (httpx honours
``HTTP_PROXY`` and friends; :func:`~client.http.env.usable_for` sends those cases to httpx), or h11 is missing.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import select
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import Any

from .cookies import CookieJar

#: Bytes asked of the socket per read.
READ_SIZE = 65536
_USER_AGENT = "mcp-codegen"


class Headers(dict[str, str]):
    """Response headers: lower-case names; repeated ones joined with ``", "``."""


class _Origin:
    """Where a URL's requests go: the connection key, the ``Host`` value and the request target."""

    __slots__ = ("host", "port", "tls", "authority", "key", "target")

    def __init__(self, url: str) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        self.tls = parts.scheme.lower() == "https"
        if not parts.hostname:
            raise ValueError(f"no host in {url!r}")
        self.host = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.authority = host if parts.port is None else f"{host}:{parts.port}"
        self.key = (self.tls, self.host, self.port)
        self.target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


class _Connection:
    """One socket and its h11 state machine."""

    __slots__ = ("h11", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        import h11  # type: ignore[import-not-found, unused-ignore]

        self.h11 = h11.Connection(h11.CLIENT)
        self.reader = reader
        self.writer = writer

    def alive(self) -> bool:
        # Bytes or EOF on an idle connection: the server closed it (or sent something unasked).
        buffered: bytes = getattr(self.reader, "_buffer", b"")
        if self.writer.is_closing() or self.reader.at_eof() or buffered:
            return False
        # ... also when the event loop has not read them yet (a server that just died): a request
        # written there would fail as one that may have run, though it never reached a server.
        sock = self.writer.get_extra_info("socket")
        if sock is None or not hasattr(select, "poll"):  # no poll (Windows): the loop's view only
            return True
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
        return not poller.poll(0)

    def close(self) -> None:
        self.writer.close()


class Response:
    """One response: status, headers, and the body as it arrives (see the module docstring)."""

    def __init__(self, pool: PooledHttp, conn: _Connection, origin: _Origin, status: int, reason: str,
                 headers: Headers, read_timeout: float | None) -> None:
        self.status_code = status
        self.reason_phrase = reason
        self.headers = headers
        self.content = b""
        self._pool = pool
        self._conn: _Connection | None = conn
        self._origin = origin
        self._complete = False
        self._read_timeout = read_timeout

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body, chunk by chunk, as the server sends it."""
        import h11  # type: ignore[import-not-found, unused-ignore]

        while self._conn is not None and not self._complete:
            event = await self._pool._next_event(self._conn, self._read_timeout)
            if type(event) is h11.Data:
                if event.data:
                    yield bytes(event.data)
            elif type(event) is h11.EndOfMessage:
                self._complete = True
                self._finish()
            else:  # ConnectionClosed before the end: a close-delimited body ends here
                self._complete = type(event) is h11.ConnectionClosed
                self._finish()

    async def aread(self) -> bytes:
        """The whole body (also kept as :attr:`content`)."""
        body = bytearray()
        async for chunk in self.aiter_bytes():
            body += chunk
        self.content = bytes(body)
        return self.content

    def _finish(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._pool._release(self._origin, conn, reusable=self._complete)

    async def aclose(self) -> None:
        """Done with the response (a connection whose body was not read to its end is closed)."""
        self._finish()


class _Streaming:
    def __init__(self, pool: PooledHttp, method: str, url: str, content: bytes, headers: Mapping[str, str] | None) -> None:
        self.args = (method, url, content, headers)
        self.pool = pool
        self.response: Response | None = None

    async def __aenter__(self) -> Response:
        self.response = await self.pool.send(*self.args)
        return self.response

    async def __aexit__(self, *exc: object) -> None:
        if self.response is not None:
            await self.response.aclose()


class PooledHttp:
    """Keep-alive HTTP/1.1 connections (see the module docstring).

    Args:
        timeout: seconds to connect, to write a request and to wait for a free connection.
        read_timeout: seconds without a byte before a read fails (None: no limit).
        max_connections: connections open at once, over all origins.
    """

    def __init__(self, *, timeout: float, read_timeout: float | None, max_connections: int) -> None:
        self.timeout = timeout
        self.read_timeout = read_timeout
        self.max_connections = max_connections
        self._idle: dict[tuple[bool, str, int], list[_Connection]] = {}
        self._origins: dict[str, _Origin] = {}
        self._open = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._ssl: ssl.SSLContext | None = None
        self._closed = False
        self._cookies: CookieJar | None = None

    # -- the httpx.AsyncClient subset -----------------------------------------------------------
    def stream(self, method: str, url: str, *, content: bytes = b"", headers: Mapping[str, str] | None = None) -> _Streaming:
        """``async with pool.stream("POST", url, ...) as response``: the body is read by the caller."""
        return _Streaming(self, method, url, content, headers)

    async def post(self, url: str, *, content: bytes = b"", headers: Mapping[str, str] | None = None) -> Response:
        """POST and read the whole answer."""
        return await self._complete("POST", url, content, headers)

    async def delete(self, url: str, *, headers: Mapping[str, str] | None = None) -> Response:
        """DELETE and read the whole answer."""
        return await self._complete("DELETE", url, b"", headers)

    async def aclose(self) -> None:
        """Close every idle connection; busy ones close when their responses end."""
        self._closed = True
        for conns in self._idle.values():
            for conn in conns:
                conn.close()
        self._idle.clear()

    async def _complete(self, method: str, url: str, content: bytes, headers: Mapping[str, str] | None) -> Response:
        response = await self.send(method, url, content, headers)
        try:
            await response.aread()
        finally:
            await response.aclose()
        return response

    # -- one exchange ---------------------------------------------------------------------------
    async def send(self, method: str, url: str, content: bytes = b"", headers: Mapping[str, str] | None = None) -> Response:
        """Send a request and read the head of its response (the body is the caller's)."""
        import h11  # type: ignore[import-not-found, unused-ignore]
        import httpx  # type: ignore[import-not-found, unused-ignore]

        origin = self._origins.get(url)
        if origin is None:
            if len(self._origins) >= 64:  # the transport uses one URL; stay bounded anyway
                self._origins.clear()
            origin = self._origins[url] = _Origin(url)
        fields = [("host", origin.authority), ("user-agent", _USER_AGENT), ("content-length", str(len(content)))]
        for name, value in (headers or {}).items():
            if name.lower() not in ("host", "content-length"):
                fields.append((name, value))
        if self._cookies is not None:
            fields += self._cookies.header_for(url)
        conn = await self._acquire(origin)
        try:
            try:
                data = conn.h11.send(h11.Request(method=method, target=origin.target, headers=fields))
                if content:
                    data += conn.h11.send(h11.Data(data=content))
                data += conn.h11.send(h11.EndOfMessage())
            except (h11.LocalProtocolError, UnicodeError) as exc:
                raise httpx.LocalProtocolError(str(exc)) from None
            try:
                conn.writer.write(data)
                async with asyncio.timeout(self.timeout):
                    await conn.writer.drain()
            except TimeoutError:
                raise httpx.WriteTimeout("timed out sending the request") from None
            except OSError as exc:
                raise httpx.WriteError(str(exc) or repr(exc)) from None
            while True:
                event = await self._next_event(conn, self.read_timeout)
                if type(event) is h11.Response:
                    break
                if type(event) is not h11.InformationalResponse:
                    raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        except BaseException:
            self._release(origin, conn, reusable=False)
            raise
        received = Headers()
        for raw_name, raw_value in event.headers:
            name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
            received[name] = f"{received[name]}, {value}" if name in received else value
        if "set-cookie" in received:
            self._cookies = self._cookies or CookieJar()
            self._cookies.extract(url, event.headers)
        reason = event.reason.decode("latin-1") if event.reason else ""
        return Response(self, conn, origin, event.status_code, reason, received, self.read_timeout)

    async def _next_event(self, conn: _Connection, read_timeout: float | None) -> Any:
        import h11  # type: ignore[import-not-found, unused-ignore]
        import httpx  # type: ignore[import-not-found, unused-ignore]

        while True:
            try:
                event = conn.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise httpx.RemoteProtocolError(str(exc)) from None
            if event is not h11.NEED_DATA:
                return event
            try:
                if read_timeout is None:
                    data = await conn.reader.read(READ_SIZE)
                else:
                    async with asyncio.timeout(read_timeout):
                        data = await conn.reader.read(READ_SIZE)
            except TimeoutError:
                raise httpx.ReadTimeout("timed out reading the response") from None
            except OSError as exc:
                raise httpx.ReadError(str(exc) or repr(exc)) from None
            try:
                conn.h11.receive_data(data)  # b"" is the end of the stream
            except h11.RemoteProtocolError as exc:
                raise httpx.RemoteProtocolError(str(exc)) from None

    # -- the pool -------------------------------------------------------------------------------
    async def _acquire(self, origin: _Origin) -> _Connection:
        import httpx  # type: ignore[import-not-found, unused-ignore]

        if self._closed:
            raise httpx.ConnectError("the HTTP client is closed")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            idle = self._idle.get(origin.key)
            while idle:
                conn = idle.pop()
                if conn.alive():
                    return conn
                self._discard(conn)
            if self._open < self.max_connections or self._evict_idle():
                break
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            try:
                async with asyncio.timeout_at(deadline):
                    await waiter
            except TimeoutError:
                raise httpx.PoolTimeout("no free connection in time") from None
            finally:
                if not waiter.done():
                    waiter.cancel()
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
        self._open += 1
        try:
            return await self._connect(origin)
        except BaseException:
            self._open -= 1
            self._wake()
            raise

    async def _connect(self, origin: _Origin) -> _Connection:
        import httpx  # type: ignore[import-not-found, unused-ignore]

        context: ssl.SSLContext | None = None
        if origin.tls:
            if self._ssl is None:
                make = getattr(httpx, "create_ssl_context", None)  # httpx's defaults, where it offers them
                self._ssl = make() if make is not None else ssl.create_default_context()
            context = self._ssl
        try:
            async with asyncio.timeout(self.timeout):
                reader, writer = await asyncio.open_connection(
                    origin.host, origin.port, ssl=context, server_hostname=origin.host if context else None, limit=READ_SIZE
                )
        except TimeoutError:
            raise httpx.ConnectTimeout(f"timed out connecting to {origin.authority}") from None
        except OSError as exc:
            raise httpx.ConnectError(str(exc) or repr(exc)) from None
        return _Connection(reader, writer)

    def _release(self, origin: _Origin, conn: _Connection, *, reusable: bool) -> None:
        import h11  # type: ignore[import-not-found, unused-ignore]

        state = conn.h11
        if reusable and not self._closed and state.our_state is h11.DONE and state.their_state is h11.DONE:
            state.start_next_cycle()
            self._idle.setdefault(origin.key, []).append(conn)
        else:
            self._discard(conn)
        self._wake()

    def _discard(self, conn: _Connection) -> None:
        conn.close()
        self._open -= 1

    def _evict_idle(self) -> bool:
        """Close an idle connection to another origin to make room (True if one was closed)."""
        for conns in self._idle.values():
            if conns:
                self._discard(conns.pop(0))
                return True
        return False

    def _wake(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return


__all__ = ["Headers", "PooledHttp", "Response"]
