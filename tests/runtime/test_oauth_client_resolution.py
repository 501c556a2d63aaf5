"""The OAuth client's own requests (``client/oauth/net.py``): host names resolved once and checked
against the address rules, the connection made to the checked address, answers cut at a size.

There is no DNS server to point at here, so the resolver is replaced in process
(``socket.getaddrinfo`` for names under ``.test``; every other name resolves as usual); the
servers are real HTTP listeners on 127.0.0.1 that record every request.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from mcp_codegen_runtime.client.oauth.flow import OAuthFlow, OAuthSettings
from mcp_codegen_runtime.client.oauth.metadata import OAuthError, discover_issuer
from mcp_codegen_runtime.client.oauth.net import MAX_ANSWER_BYTES, make_checked_transport

PUBLIC_SERVER = "https://mcp.public.test/mcp"  # never contacted: only its address kind matters


class Listener:
    """HTTP on 127.0.0.1: ``routes`` (path -> handler); every request's path and Host recorded."""

    def __init__(self) -> None:
        self.routes: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {}
        self.seen: list[tuple[str, str]] = []
        me = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                me.seen.append((self.path, self.headers.get("host", "")))
                route = me.routes.get(self.path.split("?")[0])
                if route is None:
                    body = b'{"ok": true}'
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                try:
                    route(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = _any

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *args: None  # type: ignore[method-assign]  # a cut answer is the point
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site() -> Iterator[Listener]:
    listener = Listener()
    yield listener
    listener.close()


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """name -> the addresses it resolves to, one list per lookup (the last one repeats)."""
    answers: dict[str, list[str]] = {}
    calls: dict[str, int] = {}
    real = socket.getaddrinfo

    def fake(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if not name.endswith(".test"):
            return real(host, port, *args, **kwargs)
        n = calls[name] = calls.get(name, 0) + 1
        seq = answers.get(name)
        if not seq:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        address = seq[min(n, len(seq)) - 1]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, int(port or 0)))]

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    answers["mcp.public.test"] = ["8.8.8.8"]
    return answers


async def _get(server_url: str, url: str, *, allow_local: bool = False) -> httpx.Response:
    async with httpx.AsyncClient(transport=make_checked_transport(server_url, allow_local=allow_local)) as http:
        return await http.get(url)


@pytest.mark.parametrize("address, kind", [("127.0.0.1", "loopback"), ("169.254.169.254", "link-local"),
                                           ("10.0.0.7", "private"), ("0.0.0.0", "unspecified"),
                                           ("::ffff:169.254.169.254", "mapped link-local")])
def test_a_name_resolving_to_a_local_address_is_refused_for_a_public_server(
        site: Listener, dns: dict[str, list[str]], address: str, kind: str) -> None:
    dns["metadata.test"] = [address]
    with pytest.raises(OAuthError, match=r"resolves to .*: refused"):
        asyncio.run(_get(PUBLIC_SERVER, f"http://metadata.test:{site.port}/latest"))
    assert site.seen == []


def test_link_local_is_refused_even_for_a_loopback_server(site: Listener, dns: dict[str, list[str]]) -> None:
    dns["as.test"] = ["169.254.169.254"]
    with pytest.raises(OAuthError, match="169.254.169.254, a forbidden address"):
        asyncio.run(_get(f"http://127.0.0.1:{site.port}/mcp", f"http://as.test:{site.port}/token"))
    assert site.seen == []


def test_one_bad_address_among_several_refuses_the_name(site: Listener, dns: dict[str, list[str]],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    real = socket.getaddrinfo

    def two(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "mixed.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port)),
                    (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.1.1", port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", two)
    with pytest.raises(OAuthError, match="169.254.1.1"):
        asyncio.run(_get(f"http://127.0.0.1:{site.port}/mcp", f"http://mixed.test:{site.port}/x"))
    assert site.seen == []


def test_the_connection_goes_to_the_checked_address(site: Listener, dns: dict[str, list[str]]) -> None:
    """A loopback MCP server's flow may reach a name resolving to loopback; a rebinding resolver
    answers an unroutable address on every later lookup, yet the request arrives: it went to the
    address that was checked, with the name in ``Host``."""
    dns["as.test"] = ["127.0.0.1", "203.0.113.9"]
    resp = asyncio.run(_get(f"http://127.0.0.1:{site.port}/mcp", f"http://as.test:{site.port}/meta"))
    assert resp.status_code == 200 and resp.json() == {"ok": True}
    assert site.seen == [("/meta", f"as.test:{site.port}")]


def test_allow_local_urls_lifts_the_resolution_rules(site: Listener, dns: dict[str, list[str]]) -> None:
    dns["dev.test"] = ["127.0.0.1"]
    resp = asyncio.run(_get(PUBLIC_SERVER, f"http://dev.test:{site.port}/meta", allow_local=True))
    assert resp.status_code == 200
    assert [path for path, _ in site.seen] == ["/meta"]


def test_an_unresolvable_name_is_a_clear_error(dns: dict[str, list[str]]) -> None:
    with pytest.raises(OAuthError, match="cannot be resolved"):
        asyncio.run(_get(PUBLIC_SERVER, "http://nowhere.test/x"))


def test_discovery_through_the_checked_client_refuses_a_rebound_issuer(
        site: Listener, dns: dict[str, list[str]]) -> None:
    """Discovery with the transport's OAuth client: a metadata URL whose name resolves to
    link-local stops the flow with OAuthError (not taken as absent)."""
    dns["issuer.test"] = ["169.254.169.254"]

    async def go() -> Any:
        async with httpx.AsyncClient(transport=make_checked_transport(f"http://127.0.0.1:{site.port}/mcp")) as http:
            return await discover_issuer(http, f"http://issuer.test:{site.port}")

    with pytest.raises(OAuthError, match="refused"):
        asyncio.run(go())
    assert site.seen == []


def _huge_token(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("content-type", "application/json")
    h.send_header("content-length", str(10 * 1024 * 1024))
    h.end_headers()
    h.wfile.write(b'{"access_token": "')
    for _ in range(160):
        h.wfile.write(b"a" * 65536)


def _trickle(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("content-type", "application/json")
    h.send_header("transfer-encoding", "chunked")
    h.end_headers()
    for _ in range(400):
        h.wfile.write(b"1\r\n \r\n")
        h.wfile.flush()
        time.sleep(0.05)


def _flow(site: Listener) -> OAuthFlow:
    def never(url: str) -> str:
        raise AssertionError("no authorization in this test")

    settings = OAuthSettings(redirect_handler=never, redirect_uri="http://127.0.0.1:1/cb")
    return OAuthFlow(settings, f"http://127.0.0.1:{site.port}/mcp", httpx.AsyncClient())


def test_a_huge_token_answer_is_cut(site: Listener) -> None:
    site.routes["/token"] = _huge_token
    flow = _flow(site)

    async def go() -> None:
        try:
            await flow._exchange({"token_endpoint": f"http://127.0.0.1:{site.port}/token"},
                                 {"client_id": "c", "method": "none"}, f"http://127.0.0.1:{site.port}/mcp", None,
                                 "code", "verifier")
        finally:
            await flow.http.aclose()

    started = time.monotonic()
    with pytest.raises(OAuthError, match=f"larger than {MAX_ANSWER_BYTES} bytes"):
        asyncio.run(go())
    assert time.monotonic() - started < 5
    assert flow.access_token is None


def test_a_trickling_token_answer_is_cut_at_the_deadline(site: Listener, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_codegen_runtime.client.oauth import net as oauth_net

    monkeypatch.setattr(oauth_net, "ANSWER_DEADLINE", 1.0)
    site.routes["/token"] = _trickle
    flow = _flow(site)

    async def go() -> None:
        try:
            await flow._exchange({"token_endpoint": f"http://127.0.0.1:{site.port}/token"},
                                 {"client_id": "c", "method": "none"}, f"http://127.0.0.1:{site.port}/mcp", None,
                                 "code", "verifier")
        finally:
            await flow.http.aclose()

    started = time.monotonic()
    with pytest.raises(OAuthError, match="not read within"):
        asyncio.run(go())
    assert time.monotonic() - started < 10


def test_a_normal_token_answer_still_works(site: Listener) -> None:
    def token(h: BaseHTTPRequestHandler) -> None:
        body = json.dumps({"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600}).encode()
        h.send_response(200)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    site.routes["/token"] = token
    flow = _flow(site)

    async def go() -> None:
        try:
            await flow._exchange({"token_endpoint": f"http://127.0.0.1:{site.port}/token"},
                                 {"client_id": "c", "method": "none"}, f"http://127.0.0.1:{site.port}/mcp", None,
                                 "code", "verifier")
        finally:
            await flow.http.aclose()

    asyncio.run(go())
    assert flow.access_token == "at-1"


def test_the_http_transport_gives_the_flow_the_checked_client(site: Listener, dns: dict[str, list[str]]) -> None:
    """``Client.http(url, auth=...)``: discovery and registration go through the checked client
    (the MCP requests themselves do not)."""
    from mcp_codegen_runtime.client.http.transport import HttpTransport

    dns["issuer.test"] = ["169.254.169.254"]
    dns["good.test"] = ["127.0.0.1"]

    class Sink:
        async def deliver(self, message: Any) -> None: ...

        def closed(self, error: Any) -> None: ...

    async def go() -> None:
        transport = HttpTransport(f"http://127.0.0.1:{site.port}/mcp", auth=OAuthSettings())
        await transport.start(Sink())
        try:
            assert transport.oauth is not None
            with pytest.raises(OAuthError, match="169.254.169.254"):
                await discover_issuer(transport.oauth.http, f"http://issuer.test:{site.port}")
            resp = await transport.oauth.http.get(f"http://good.test:{site.port}/ok")
            assert resp.status_code == 200
        finally:
            await transport.aclose()

    asyncio.run(go())
    assert site.seen == [("/ok", f"good.test:{site.port}")]
