"""The client's OAuth flow against hostile metadata, with small HTTP servers on 127.0.0.1.

A server that names URLs the flow would fetch or send the user to (``resource_metadata``,
``authorization_servers``, the authorization, token and registration endpoints) cannot make
the client reach link-local, private or (unless the MCP server itself is on loopback)
loopback addresses, plain http, or ``file:``/``javascript:``/``data:`` URLs; huge, endless or
stalled documents are cut at a size and a time limit; redirects to another origin are not
followed.  Every listener records what it got: the refused targets get nothing.  The attack
catalogue is in docs/guarantees.md.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from mcp_codegen_runtime.client.oauth import metadata as oauth_metadata
from mcp_codegen_runtime.client.oauth.flow import OAuthFlow, OAuthSettings
from mcp_codegen_runtime.client.oauth.metadata import OAuthError, check_endpoint, discover_issuer, discover_resource
from mcp_codegen_runtime.client.oauth.registration import register

Route = Callable[[BaseHTTPRequestHandler], None]


class Listener:
    """An HTTP server on 127.0.0.1 answering ``routes`` (path -> handler), recording every path."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.paths: list[str] = []
        me = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                me.paths.append(self.path)
                route = me.routes.get(self.path.split("?")[0])
                if route is None:
                    self.send_response(404)
                    self.send_header("content-length", "0")
                    self.end_headers()
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
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def json_route(doc: Any, status: int = 200) -> Route:
    def route(h: BaseHTTPRequestHandler) -> None:
        body = json.dumps(doc).encode()
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
    return route


def redirect_route(location: str, status: int = 302) -> Route:
    def route(h: BaseHTTPRequestHandler) -> None:
        h.send_response(status)
        h.send_header("location", location)
        h.send_header("content-length", "0")
        h.end_headers()
    return route


@pytest.fixture
def site() -> Iterator[Listener]:
    listener = Listener()
    yield listener
    listener.close()


@pytest.fixture
def elsewhere() -> Iterator[Listener]:
    """Another origin: must never be contacted."""
    listener = Listener()
    yield listener
    listener.close()


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def _http() -> httpx.AsyncClient:
    return httpx.AsyncClient(follow_redirects=False, timeout=5)  # as the transport's client


async def _discover(server_url: str, challenge: dict[str, str], **kw: Any) -> Any:
    async with _http() as http:
        return await discover_resource(http, server_url, challenge, **kw)


async def _issuer(issuer: str, server_url: str, **kw: Any) -> Any:
    async with _http() as http:
        return await discover_issuer(http, issuer, server_url, **kw)


BAD_TARGETS = ["http://169.254.169.254/latest/meta-data", "https://169.254.169.254/x", "https://[fe80::1]/x",
               "https://[::ffff:169.254.169.254]/x", "https://0.0.0.0/x", "https://224.0.0.1/x", "http://10.0.0.8/x",
               "file:///etc/passwd", "javascript:alert(1)", "data:application/json,{}", "ftp://127.0.0.1/x",
               "gopher://127.0.0.1:6379/_x", "//127.0.0.1/x", "https:///x", 7]


@pytest.mark.parametrize("target", BAD_TARGETS)
def test_bad_urls_are_refused_even_for_a_loopback_server(target: Any) -> None:
    with pytest.raises(OAuthError) as info:
        check_endpoint(target, "http://127.0.0.1:8000/mcp", "the token_endpoint")
    assert "refused" in str(info.value)


@pytest.mark.parametrize(("target", "server", "ok"), [
    ("https://auth.example.com/token", "https://mcp.example.com/mcp", True),
    ("http://auth.example.com/token", "https://mcp.example.com/mcp", False),
    ("https://127.0.0.1/token", "https://mcp.example.com/mcp", False),
    ("https://localhost/token", "https://mcp.example.com/mcp", False),
    ("https://[::1]/token", "https://mcp.example.com/mcp", False),
    ("https://10.1.2.3/token", "https://mcp.example.com/mcp", False),
    ("https://192.168.1.1/token", "https://mcp.example.com/mcp", False),
    ("https://[fd00::1]/token", "https://mcp.example.com/mcp", False),
    ("https://10.1.2.3/token", "https://10.0.0.5/mcp", True),
    ("http://10.1.2.3/token", "http://10.0.0.5/mcp", False),
    ("http://127.0.0.1:9000/token", "http://127.0.0.1:8000/mcp", True),
    ("http://localhost:9000/token", "http://127.0.0.1:8000/mcp", True),
    ("http://127.0.0.1:9000/token", "http://10.0.0.5/mcp", False),
    ("https://169.254.169.254/token", "http://169.254.169.254/mcp", False),
    ("https://8.8.8.8/token", "https://mcp.example.com/mcp", True),
])
def test_address_and_scheme_rules(target: str, server: str, ok: bool) -> None:
    if ok:
        assert check_endpoint(target, server, "the token_endpoint") == target
    else:
        with pytest.raises(OAuthError):
            check_endpoint(target, server, "the token_endpoint")


def test_allow_local_urls_lifts_the_address_rules_not_the_scheme_rule() -> None:
    for target in ("http://169.254.169.254/x", "http://10.0.0.1/x", "http://127.0.0.1:9/x"):
        assert check_endpoint(target, "https://mcp.example.com/mcp", "x", allow_local=True) == target
    for target in ("file:///etc/passwd", "javascript:alert(1)", "data:,x"):
        with pytest.raises(OAuthError):
            check_endpoint(target, "https://mcp.example.com/mcp", "x", allow_local=True)


def test_a_challenge_naming_a_link_local_metadata_url_is_refused_before_any_fetch(site: Listener) -> None:
    with pytest.raises(OAuthError, match="resource_metadata URL"):
        _run(_discover(f"{site.base}/mcp", {"resource_metadata": "http://169.254.169.254/latest/meta-data"}))
    with pytest.raises(OAuthError, match="resource_metadata URL"):
        _run(_discover("https://mcp.example.com/mcp", {"resource_metadata": f"{site.base}/prm"}))
    assert site.paths == []


@pytest.mark.parametrize("server", ["http://169.254.169.254", "file:///etc", "javascript:alert(1)", "http://10.0.0.9"])
def test_resource_metadata_naming_a_bad_authorization_server_is_refused(site: Listener, server: str) -> None:
    site.routes["/prm"] = json_route({"resource": f"{site.base}/mcp", "authorization_servers": [server]})
    with pytest.raises(OAuthError, match="authorization server"):
        _run(_discover(f"{site.base}/mcp", {"resource_metadata": f"{site.base}/prm"}))


@pytest.mark.parametrize("key", ["authorization_endpoint", "token_endpoint", "registration_endpoint"])
@pytest.mark.parametrize("target", ["http://169.254.169.254/x", "https://[fe80::1]/x", "file:///etc/passwd",
                                    "javascript:alert(document.cookie)", "data:text/html,<script>x</script>",
                                    "http://192.168.0.10/x"])
def test_authorization_server_metadata_with_a_bad_endpoint_is_refused(site: Listener, key: str, target: str) -> None:
    meta = {"issuer": site.base, "authorization_endpoint": f"{site.base}/authorize", "token_endpoint": f"{site.base}/token",
            "registration_endpoint": f"{site.base}/register", key: target}
    site.routes["/.well-known/oauth-authorization-server"] = json_route(meta)
    with pytest.raises(OAuthError, match=key):
        _run(_issuer(site.base, f"{site.base}/mcp"))
    # the same document is used when every endpoint is fine
    site.routes["/.well-known/oauth-authorization-server"] = json_route({**meta, key: f"{site.base}/{key}"})
    assert _run(_issuer(site.base, f"{site.base}/mcp"))[key] == f"{site.base}/{key}"


def test_the_flow_refuses_a_server_pointing_at_link_local(site: Listener) -> None:
    """The whole flow (OAuthFlow.after on a 401) stops before any authorization request."""
    site.routes["/.well-known/oauth-protected-resource/mcp"] = json_route(
        {"resource": f"{site.base}/mcp", "authorization_servers": [site.base]})
    site.routes["/.well-known/oauth-authorization-server"] = json_route(
        {"issuer": site.base, "authorization_endpoint": "http://169.254.169.254/authorize",
         "token_endpoint": f"{site.base}/token", "registration_endpoint": f"{site.base}/register"})

    def never(url: str) -> str:
        raise AssertionError("the user was sent to a refused authorization endpoint")

    async def go() -> None:
        async with _http() as http:
            flow = OAuthFlow(OAuthSettings(redirect_handler=never, redirect_uri="http://127.0.0.1:1/cb"),
                             f"{site.base}/mcp", http)
            await flow.after(401, {"www-authenticate": "Bearer"}, None)

    with pytest.raises(OAuthError, match="authorization_endpoint"):
        _run(go())
    assert "/register" not in site.paths and "/token" not in site.paths


def test_huge_metadata_is_cut_at_the_size_limit(site: Listener) -> None:
    def huge(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(10 * 1024 * 1024))
        h.end_headers()
        chunk = b" " * 65536
        for _ in range(160):
            h.wfile.write(chunk)

    site.routes["/prm"] = huge
    started = time.monotonic()
    with pytest.raises(OAuthError, match="larger than"):
        _run(_discover(f"{site.base}/mcp", {"resource_metadata": f"{site.base}/prm"}))
    assert time.monotonic() - started < 5


def _endless(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("content-type", "application/json")
    h.send_header("transfer-encoding", "chunked")
    h.end_headers()
    h.wfile.write(b"1\r\n{\r\n")
    for _ in range(600):  # a byte every 50 ms, never the last chunk (ends after 30 s)
        h.wfile.write(b"1\r\n \r\n")
        h.wfile.flush()
        time.sleep(0.05)


def _stalled(h: BaseHTTPRequestHandler) -> None:
    time.sleep(30)  # never answers


@pytest.mark.parametrize("route", [_endless, _stalled])
def test_endless_or_stalled_metadata_is_cut_at_the_time_limit(site: Listener, monkeypatch: pytest.MonkeyPatch,
                                                              route: Route) -> None:
    monkeypatch.setattr(oauth_metadata, "METADATA_DEADLINE", 1.0)
    site.routes["/.well-known/oauth-authorization-server"] = route
    started = time.monotonic()
    with pytest.raises(OAuthError, match="not read within"):
        async def go() -> None:
            async with httpx.AsyncClient(follow_redirects=False, timeout=60) as http:  # per-read timeout never hit
                await discover_issuer(http, site.base, f"{site.base}/mcp")
        _run(go())
    assert time.monotonic() - started < 3


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_metadata_redirects_to_another_origin_are_not_followed(site: Listener, elsewhere: Listener, status: int) -> None:
    elsewhere.routes["/prm"] = json_route({"resource": f"{site.base}/mcp", "authorization_servers": [elsewhere.base]})
    elsewhere.routes["/.well-known/oauth-authorization-server"] = json_route(
        {"issuer": site.base, "authorization_endpoint": f"{elsewhere.base}/a", "token_endpoint": f"{elsewhere.base}/t"})
    site.routes["/prm"] = redirect_route(f"{elsewhere.base}/prm", status)
    site.routes["/.well-known/oauth-protected-resource/mcp"] = redirect_route(f"{elsewhere.base}/prm", status)
    site.routes["/.well-known/oauth-protected-resource"] = redirect_route(f"{elsewhere.base}/prm", status)
    site.routes["/.well-known/oauth-authorization-server"] = redirect_route(
        f"{elsewhere.base}/.well-known/oauth-authorization-server", status)
    site.routes["/.well-known/openid-configuration"] = redirect_route(f"{elsewhere.base}/x", status)
    assert _run(_discover(f"{site.base}/mcp", {"resource_metadata": f"{site.base}/prm"})) is None
    assert _run(_issuer(site.base, f"{site.base}/mcp")) is None
    assert elsewhere.paths == []


def test_a_registration_redirect_is_not_followed(site: Listener, elsewhere: Listener) -> None:
    elsewhere.routes["/register"] = json_route({"client_id": "stolen"}, 201)
    site.routes["/register"] = redirect_route(f"{elsewhere.base}/register", 307)

    async def go() -> None:
        async with _http() as http:
            await register(OAuthSettings(), http, f"{site.base}/register", "http://127.0.0.1:1/cb", ["none"])

    with pytest.raises(OAuthError, match="HTTP 307"):
        _run(go())
    assert elsewhere.paths == []


def test_a_huge_registration_answer_is_cut(site: Listener) -> None:
    def huge(h: BaseHTTPRequestHandler) -> None:
        h.send_response(201)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(10 * 1024 * 1024))
        h.end_headers()
        for _ in range(160):
            h.wfile.write(b" " * 65536)

    site.routes["/register"] = huge

    async def go() -> None:
        async with _http() as http:
            await register(OAuthSettings(), http, f"{site.base}/register", "http://127.0.0.1:1/cb", ["none"])

    started = time.monotonic()
    with pytest.raises(OAuthError, match="larger than"):
        _run(go())
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("target", ["http://169.254.169.254/latest/meta-data", "http://10.0.0.7/x"])
def test_the_headless_handler_does_not_follow_a_public_server_into_local_addresses(target: str) -> None:
    from mcp_codegen_runtime.client.oauth.redirect import HeadlessRedirect

    async def go() -> None:
        # the authorization URL is public (never fetched: the first hop is checked before)
        await HeadlessRedirect("http://127.0.0.1:1/cb")(target)

    with pytest.raises(OAuthError, match="refused"):
        _run(go())


def test_the_headless_handler_refuses_a_redirect_into_link_local(site: Listener) -> None:
    from mcp_codegen_runtime.client.oauth.redirect import HeadlessRedirect

    site.routes["/authorize"] = redirect_route("http://169.254.169.254/latest/meta-data")
    with pytest.raises(OAuthError, match="refused"):
        _run(HeadlessRedirect("http://127.0.0.1:1/cb")(f"{site.base}/authorize"))
    site.routes["/authorize"] = redirect_route("file:///etc/passwd")
    with pytest.raises(OAuthError, match="refused"):
        _run(HeadlessRedirect("http://127.0.0.1:1/cb")(f"{site.base}/authorize"))
