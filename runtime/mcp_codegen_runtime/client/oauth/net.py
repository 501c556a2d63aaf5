"""The OAuth flow's connections: host names resolved and checked, answers cut at a size.

:class:`CheckedTransport` is the ``httpx`` transport of every request the flow makes itself
(discovery, registration, token and refresh requests; ``client/oauth/flow.py``,
``client/http/transport.py``).  For each request it

* **resolves the host once** (``getaddrinfo``) and applies the address rules of
  :func:`~client.oauth.metadata.check_endpoint` to every address the name resolves to, for an
  MCP server whose own address kind is resolved the same way: a name that resolves to a
  link-local, unspecified, multicast or reserved address, to loopback for a server off
  loopback, or to a private address for a public server is refused with
  :class:`~client.oauth.metadata.OAuthError` before any connection;
* **connects to the checked address**, not to the name again (the request goes to the IP,
  with the ``Host`` header and, for https, the TLS server name and certificate check of the
  name), so a DNS answer that changes between the check and the connection (rebinding) cannot
  send it elsewhere;
* **reads the answer through a counter**: a body over :data:`MAX_ANSWER_BYTES` fails the
  request with ``OAuthError`` (``... larger than ... bytes``) as soon as that much arrived, and
  one still arriving after :data:`ANSWER_DEADLINE` seconds (a trickle) with ``... not read
  within ...``; a server that sends nothing is cut by the client's read timeout.

``OAuthSettings(allow_local_urls=True)`` lifts the address rules (not the size limit).  A proxy
named by the environment resolves names itself: requests through it are not resolved here.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from .metadata import MAX_METADATA_BYTES, METADATA_DEADLINE, OAuthError, address_allowed, address_kind

#: The largest answer the flow reads (metadata, registration, token).
MAX_ANSWER_BYTES = MAX_METADATA_BYTES
#: Most seconds spent reading one answer.
ANSWER_DEADLINE = METADATA_DEADLINE


async def resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (itself when it is an address), in resolver order."""
    if address_kind(host) != "name":
        return [host.strip("[]")]
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def http_module_of(client_class: type) -> Any:
    """The httpx package ``client_class`` (an ``AsyncClient`` subclass) is built on: authlib's
    OAuth client may use a fork (``httpx2``) whose transports are other classes."""
    import importlib

    for base in client_class.__mro__:
        if base.__name__ == "AsyncClient":
            return importlib.import_module(base.__module__.split(".")[0])
    return importlib.import_module("httpx")  # optional: typed as Any (mypy without httpx installed)


def make_checked_transport(server_url: str, *, allow_local: bool = False, max_bytes: int = MAX_ANSWER_BYTES,
                           http_module: Any = None) -> Any:
    """A :class:`CheckedTransport` of ``http_module`` (``httpx`` by default; defined on first use:
    ``httpx`` is optional)."""
    import importlib

    httpx = http_module if http_module is not None else importlib.import_module("httpx")

    class CheckedTransport(httpx.AsyncBaseTransport):  # type: ignore[misc, name-defined, unused-ignore]
        """See the module docstring."""

        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport()
            self.server_kind: str | None = None

        async def _server_kind(self) -> str:
            if self.server_kind is None:
                parts = urlsplit(server_url)
                host = parts.hostname or ""
                try:
                    kinds = {address_kind(a) for a in await _addresses(host, parts.port or 443)}
                except OAuthError:  # not resolvable here (a proxy's name): judged as written
                    kinds = {address_kind(host)}
                # the strictest kind the server's name resolves to decides what its flow may reach
                order = ["public", "private", "loopback"]
                self.server_kind = next((k for k in order if k in kinds), "public")
            return self.server_kind

        async def handle_async_request(self, request: Any) -> Any:
            host = request.url.host
            if not allow_local:
                port = request.url.port or (443 if request.url.scheme == "https" else 80)
                addresses = await _addresses(host, port)
                server = await self._server_kind()
                for address in addresses:
                    kind = address_kind(address)
                    if not address_allowed(kind, server):
                        raise OAuthError(f"{request.url}: {host} resolves to {address}, a {kind} address: refused "
                                         "(OAuthSettings(allow_local_urls=True) allows it)")
                if address_kind(host) == "name" and addresses:
                    if request.url.scheme == "https":
                        request.extensions = {**request.extensions, "sni_hostname": host}
                    request.url = request.url.copy_with(host=addresses[0])  # the Host header keeps the name
            response = await self.inner.handle_async_request(request)
            return httpx.Response(response.status_code, headers=response.headers,
                                  stream=_Limited(response.stream, max_bytes, str(request.url)),
                                  extensions=response.extensions)

        async def aclose(self) -> None:
            await self.inner.aclose()

    class _Limited(httpx.AsyncByteStream):  # type: ignore[misc, name-defined, unused-ignore]
        def __init__(self, stream: Any, limit: int, url: str) -> None:
            self.stream, self.limit, self.url = stream, limit, url

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            loop = asyncio.get_running_loop()
            until = loop.time() + ANSWER_DEADLINE
            async for chunk in self.stream:
                seen += len(chunk)
                if seen > self.limit:
                    raise OAuthError(f"{self.url}: the answer is larger than {self.limit} bytes: refused")
                if loop.time() > until:
                    raise OAuthError(f"{self.url}: the answer was not read within {ANSWER_DEADLINE:g} s: refused")
                yield chunk

        async def aclose(self) -> None:
            await self.stream.aclose()

    return CheckedTransport()


async def _addresses(host: str, port: int) -> list[str]:
    try:
        found = await resolve(host, port)
    except OSError as exc:
        raise OAuthError(f"{host} cannot be resolved: {exc}") from None
    if not found:
        raise OAuthError(f"{host} resolves to no address")
    return found


__all__ = ["ANSWER_DEADLINE", "MAX_ANSWER_BYTES", "http_module_of", "make_checked_transport", "resolve"]
