"""Redirect handlers: how the user's authorization reaches the OAuth client.

A redirect handler is any callable ``handler(authorization_url) -> callback_url`` (sync or
async): it sends the user to the authorization server's ``authorization_url`` and returns
the URL the server redirected back to (the ``redirect_uri`` with ``code``, ``state`` and maybe
``iss`` in its query).  A handler may carry a ``redirect_uri`` attribute, which
:class:`~client.oauth.flow.OAuthSettings` then uses (the loopback handler's port is only known
once it listens).  Two come with the runtime:

* :class:`HeadlessRedirect`: follows the authorization URL with httpx, without a browser,
  until a redirect reaches the ``redirect_uri``; for tests and authorization servers that
  approve without a user (the conformance suite's mock server).
* :class:`LoopbackBrowserRedirect`: for scripts and command lines: listens on
  ``127.0.0.1`` (a free port unless given), opens the authorization URL in the user's
  browser (:mod:`webbrowser`; or prints it), and returns when the browser comes back to
  ``http://127.0.0.1:<port>/callback``.  Nothing but loopback is contacted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys
from collections.abc import Awaitable, Callable
from urllib.parse import urljoin, urlsplit

from .metadata import OAuthError, check_endpoint

logger = logging.getLogger("mcp_codegen.client.oauth")

#: A redirect handler (see the module docstring).
RedirectHandler = Callable[[str], "str | Awaitable[str]"]

_PAGE = (
    b"<!doctype html><meta charset=utf-8><title>Authorization</title>"
    b"<p>Authorization received. You can close this window and return to the application.</p>"
)


class HeadlessRedirect:
    """Follow the authorization URL with plain HTTP GETs (no browser, no user).

    Args:
        redirect_uri: where the authorization server sends the user back (never fetched).
            Every URL fetched on the way must pass
            :func:`~client.oauth.metadata.check_endpoint` for the authorization URL's host.
        max_hops: redirects followed inside the authorization server.
        timeout: seconds per request.
    """

    def __init__(self, redirect_uri: str = "http://127.0.0.1:8765/callback", *, max_hops: int = 10,
                 timeout: float = 30.0) -> None:
        self.redirect_uri = redirect_uri
        self.max_hops = max_hops
        self.timeout = timeout

    async def __call__(self, authorization_url: str) -> str:
        import httpx  # type: ignore[import-not-found, unused-ignore]

        target = urlsplit(self.redirect_uri)
        url = authorization_url
        async with httpx.AsyncClient(follow_redirects=False, timeout=self.timeout) as http:
            for _ in range(self.max_hops):
                # a hop may not lead where the authorization server's own address does not allow
                check_endpoint(url, authorization_url, "a redirect of the authorization server")
                resp = await http.get(url)
                location = resp.headers.get("location")
                if resp.status_code not in (301, 302, 303, 307, 308) or not location:
                    raise OAuthError(f"the authorization server answered HTTP {resp.status_code} "
                                     "instead of redirecting back (it may need a user: use a browser)")
                url = urljoin(url, str(location))
                here = urlsplit(url)
                if (here.scheme, here.netloc, here.path) == (target.scheme, target.netloc, target.path):
                    return url
        raise OAuthError(f"no redirect back to the redirect URI after {self.max_hops} hops")


class LoopbackBrowserRedirect:
    """Open the browser and wait for its redirect to ``http://127.0.0.1:<port>/callback``.

    Args:
        port: the loopback port (0: a free one, chosen now; it listens from now on, so the
            browser's redirect waits in the queue until the handler is called).
        path: the callback path.
        open_browser: open the URL with :mod:`webbrowser` (else only print it).
        timeout: seconds to wait for the user (then :class:`OAuthError`).
    """

    def __init__(self, port: int = 0, *, path: str = "/callback", open_browser: bool = True,
                 timeout: float = 300.0) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(8)
        self.port = int(self._sock.getsockname()[1])
        self.path = path
        self.redirect_uri = f"http://127.0.0.1:{self.port}{path}"
        self.open_browser = open_browser
        self.timeout = timeout

    async def __call__(self, authorization_url: str) -> str:
        loop = asyncio.get_running_loop()
        got: asyncio.Future[str] = loop.create_future()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                line = await asyncio.wait_for(reader.readline(), 10)
                while (await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                    pass
                parts = line.decode("latin-1").split()
                target = parts[1] if len(parts) >= 2 else ""
                if parts[:1] == ["GET"] and urlsplit(target).path == self.path and not got.done():
                    got.set_result(f"http://127.0.0.1:{self.port}{target}")
                    status, body = b"200 OK", _PAGE
                else:
                    status, body = b"404 Not Found", b"not found"
                writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\n"
                             b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
                await writer.drain()
            except (OSError, TimeoutError, asyncio.IncompleteReadError):
                pass
            finally:
                writer.close()

        self._sock.setblocking(False)
        server = await asyncio.start_server(serve, sock=self._sock)
        try:
            print(f"Open this URL to authorize the application:\n  {authorization_url}", file=sys.stderr)
            if self.open_browser:
                import webbrowser

                with contextlib.suppress(Exception):
                    await asyncio.to_thread(webbrowser.open, authorization_url)
            try:
                return await asyncio.wait_for(got, self.timeout)
            except TimeoutError:
                raise OAuthError(f"no authorization arrived within {self.timeout:.0f}s") from None
        finally:
            server.close()
            await server.wait_closed()
            self._reopen()

    def _reopen(self) -> None:
        """A fresh listening socket on the same port (the server closed the old one)."""
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        with contextlib.suppress(OSError):
            self._sock.bind(("127.0.0.1", self.port))
            self._sock.listen(8)


__all__ = ["HeadlessRedirect", "LoopbackBrowserRedirect", "RedirectHandler"]
