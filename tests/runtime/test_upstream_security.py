"""Credentials of upstream-bound tools come only from the environment variables the spec names,
go where the scheme says (apiKey header/query/cookie, bearer, basic, OAuth 2 client credentials
with a cached token fetched again before it expires or when refused), and never appear in logs,
errors or results.  The MCP caller's HTTP headers reach the upstream only when named in
``forwardHeaders`` (both protocol eras over real HTTP), and a redirect to another host is not
followed, so it carries neither credentials nor forwarded headers."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from common_support import free_port
from http_stress_support import legacy_headers, legacy_init, messages_of
from http_support import modern_headers, modern_request, post, serve_app
from upstream_support import (
    API_KEY,
    BASIC_PASSWORD,
    BASIC_USER,
    BEARER,
    CLIENT_SECRET,
    SECRETS,
    call,
    echoed,
    error_of,
    header,
    server_class,
    start_app,
    stats,
    tool,
)

SCHEMES: dict[str, Any] = {
    "key_header": {"type": "apiKey", "in": "header", "name": "X-API-Key", "env": "PETS_KEY"},
    "key_query": {"type": "apiKey", "in": "query", "name": "api_key", "env": "PETS_KEY"},
    "key_cookie": {"type": "apiKey", "in": "cookie", "name": "session_key", "env": "PETS_KEY"},
    "token": {"type": "bearer", "env": "PETS_TOKEN"},
    "basic": {"type": "basic", "env": {"username": "PETS_USER", "password": "PETS_PASSWORD"}},
}
ENV = ("PETS_KEY", "PETS_TOKEN", "PETS_USER", "PETS_PASSWORD", "PETS_CLIENT_ID", "PETS_CLIENT_SECRET")


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with start_app() as url:
        yield url


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def _server(base: str, binding: dict[str, Any], *, props: dict[str, Any] | None = None,
            **upstream: Any) -> Any:
    definition = tool("t", {"method": "GET", **binding}, props)
    return server_class({"baseUrl": base, "security": SCHEMES, **upstream}, [definition])()


def _assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, (secret, text[:500])


# ------------------------------------------------------------------ schemes
def test_api_key_in_header_query_and_cookie(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETS_KEY", API_KEY)
    binding = {"path": "/echo/k", "security": [["key_header", "key_query", "key_cookie"]],
               "args": {"q": {"in": "query", "name": "q"}, "c": {"in": "cookie", "name": "c"}}}
    echo = echoed(call(_server(base, binding, props={"q": {}, "c": {}}), "t", {"q": "1", "c": "2"}))
    assert header(echo, "x-api-key") == [API_KEY]
    assert echo["query"] == f"q=1&api_key={API_KEY}"
    assert header(echo, "cookie") == [f"c=2; session_key={API_KEY}"]
    result = call(_server(base, {"path": "/secure/apikey", "security": [["key_query"]]}), "t")
    assert result["content"][0]["text"] == '{"ok": "apikey"}'


def test_bearer_and_basic(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETS_TOKEN", BEARER)
    monkeypatch.setenv("PETS_USER", BASIC_USER)
    monkeypatch.setenv("PETS_PASSWORD", BASIC_PASSWORD)
    assert call(_server(base, {"path": "/secure/bearer", "security": [["token"]]}), "t")["content"][0]["text"] == \
        '{"ok": "bearer"}'
    assert call(_server(base, {"path": "/secure/basic", "security": [["basic"]]}), "t")["content"][0]["text"] == \
        '{"ok": "basic"}'


def test_first_alternative_with_its_variables_set(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    default = [["key_header"], ["token"]]
    none = echoed(call(_server(base, {"path": "/echo/a"}, defaultSecurity=default), "t"))
    assert header(none, "x-api-key") == [] and header(none, "authorization") == []
    monkeypatch.setenv("PETS_TOKEN", BEARER)
    echo = echoed(call(_server(base, {"path": "/echo/a"}, defaultSecurity=default), "t"))
    assert header(echo, "x-api-key") == [] and header(echo, "authorization") == [f"Bearer {BEARER}"]
    monkeypatch.setenv("PETS_KEY", API_KEY)
    echo = echoed(call(_server(base, {"path": "/echo/a"}, defaultSecurity=default), "t"))
    assert header(echo, "x-api-key") == [API_KEY] and header(echo, "authorization") == []
    # the tool's own requirement wins; [] means no credentials
    echo = echoed(call(_server(base, {"path": "/echo/a", "security": []}, defaultSecurity=default), "t"))
    assert header(echo, "x-api-key") == [] and header(echo, "authorization") == []


# ------------------------------------------------------------------ OAuth 2 client credentials
def _oauth_server(base: str, path: str = "/oauth/protected") -> Any:
    schemes = {"oauth": {"type": "oauth2", "tokenUrl": f"{base}/oauth/token", "scopes": ["read", "write"],
                         "env": {"clientId": "PETS_CLIENT_ID", "clientSecret": "PETS_CLIENT_SECRET"}}}
    definition = tool("t", {"method": "GET", "path": path})
    return server_class({"baseUrl": base, "security": schemes, "defaultSecurity": [["oauth"]]}, [definition])()


def _token_of(result: dict[str, Any]) -> str:
    assert not result.get("isError"), result
    token: str = json.loads(result["content"][0]["text"])["token"]
    return token


def test_oauth_token_cached_and_fetched_again(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from upstream_support import call_many

    monkeypatch.setenv("PETS_CLIENT_SECRET", CLIENT_SECRET)
    monkeypatch.setenv("PETS_CLIENT_ID", "long-lived")
    before = stats(base).get("token", 0)
    results = asyncio.run(call_many(_oauth_server(base), [("t", {}), ("t", {}), ("t", {})]))
    tokens = [_token_of(r) for r in results]
    assert len(set(tokens)) == 1 and tokens[0].endswith("-long-lived")
    assert stats(base)["token"] - before == 1
    assert stats(base)["token-scope:read write"] >= 1

    monkeypatch.setenv("PETS_CLIENT_ID", "short-lived")  # 2-second tokens

    async def expiring() -> list[str]:
        from upstream_support import call_many as many

        server = _oauth_server(base)
        first = await many(server, [("t", {})])
        await asyncio.sleep(2.2)
        return [_token_of(r) for r in first + await many(server, [("t", {})])]

    before = stats(base)["token"]
    short = asyncio.run(expiring())
    assert short[0] != short[1]
    assert stats(base)["token"] - before == 2


def test_oauth_token_refused_by_the_upstream_is_fetched_again(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    import httpx
    from upstream_support import call_many

    monkeypatch.setenv("PETS_CLIENT_SECRET", CLIENT_SECRET)
    monkeypatch.setenv("PETS_CLIENT_ID", "revoked")
    server = _oauth_server(base)

    async def run() -> list[str]:
        first = await call_many(server, [("t", {})])
        httpx.post(f"{base}/oauth/revoke-all", timeout=5)
        return [_token_of(r) for r in first + await call_many(server, [("t", {})])]

    before = stats(base)["token"]
    tokens = asyncio.run(run())
    assert tokens[0] != tokens[1]
    assert stats(base)["token"] - before == 2


def test_oauth_wrong_secret_is_a_tool_error(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETS_CLIENT_ID", "someone")
    monkeypatch.setenv("PETS_CLIENT_SECRET", "cs-not-the-right-one")
    message, code, _ = error_of(call(_oauth_server(base), "t"))
    assert (message, code) == ("the upstream's token endpoint did not issue a token: invalid_client",
                               "mcp-codegen.upstream")


# ------------------------------------------------------------------ secrets stay secret
def test_secrets_never_in_logs_or_results(base: str, monkeypatch: pytest.MonkeyPatch,
                                          caplog: pytest.LogCaptureFixture) -> None:
    for name, value in (("PETS_KEY", API_KEY), ("PETS_TOKEN", BEARER), ("PETS_USER", BASIC_USER),
                        ("PETS_PASSWORD", BASIC_PASSWORD), ("PETS_CLIENT_ID", "logged"),
                        ("PETS_CLIENT_SECRET", CLIENT_SECRET)):
        monkeypatch.setenv(name, value)
    caplog.set_level(logging.DEBUG)
    dead = f"http://127.0.0.1:{free_port()}"
    results = [
        call(_server(base, {"path": "/boom", "security": [["key_query", "token"]]}), "t"),
        call(_server(base, {"path": "/missing", "security": [["key_query", "basic"]]}), "t"),
        call(_server(base, {"path": "/octet", "security": [["key_query"]]}), "t"),
        call(_server(base, {"path": "/slow", "security": [["key_query"]]}, timeout=0.3, retries=0), "t"),
        call(_server(dead, {"path": "/x", "security": [["key_query", "key_header"]]}, retries=0), "t"),
        call(_oauth_server(base), "t"),
        call(_oauth_server(dead), "t"),
    ]
    assert any("api_key=[redacted]" in r.getMessage() for r in caplog.records if r.name == "httpx"), \
        [r.getMessage() for r in caplog.records]
    _assert_no_secret(caplog.text, *(r.getMessage() for r in caplog.records), *(json.dumps(r) for r in results))


def test_redirect_to_another_host_is_not_followed(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETS_TOKEN", BEARER)
    with start_app() as other:
        binding = {"path": "/redirect", "security": [["token"]],
                   "fixed": [{"in": "query", "name": "to", "value": f"{other}/echo/stolen"}]}
        message, code, data = error_of(call(_server(base, binding), "t"))
        assert (message, data) == ("the upstream answered HTTP 302 Found", {"status": 302, "body": None})
        assert stats(other).get("echo", 0) == 0


# ------------------------------------------------------------------ forwarded caller headers
def _http_server(base: str) -> Any:
    definition = tool("t", {"method": "GET", "path": "/echo/fwd"})
    return server_class({"baseUrl": base, "forwardHeaders": ["X-Tenant", "authorization", "Host", "Content-Length"]},
                        [definition])()


def _result(response: Any) -> dict[str, Any]:
    messages = [m for m in messages_of(response.headers.get("content-type", ""), response.content) if "id" in m]
    assert len(messages) == 1, response.text[:300]
    result: dict[str, Any] = messages[0]["result"]
    return result


def test_forward_headers_modern_era(base: str) -> None:
    with serve_app(_http_server(base).asgi_app()) as url:
        for tenant in ("acme", "globex"):
            headers = modern_headers("tools/call", "t", **{"x-tenant": tenant, "x-other": "no",
                                                           "authorization": "Bearer caller-token"})
            echo = echoed(_result(post(url, modern_request(1, "tools/call", {"name": "t", "arguments": {}}), headers)))
            assert header(echo, "x-tenant") == [tenant]
            assert header(echo, "x-other") == []
            assert header(echo, "authorization") == ["Bearer caller-token"]
            assert header(echo, "host") == [base.removeprefix("http://")]
            assert header(echo, "content-length") == []


def test_forward_headers_legacy_session(base: str) -> None:
    with serve_app(_http_server(base).asgi_app()) as url:
        init = post(url, legacy_init(0), {"content-type": "application/json", "accept": "application/json",
                                          "x-tenant": "at-initialize"})
        sid = init.headers["mcp-session-id"]
        post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, legacy_headers(sid))
        for rid, tenant in ((1, "acme"), (2, "globex")):
            body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
            echo = echoed(_result(post(url, body, {**legacy_headers(sid, sse=False), "x-tenant": tenant})))
            assert header(echo, "x-tenant") == [tenant]


def test_nothing_forwarded_in_process(base: str) -> None:
    echo = echoed(call(_http_server(base), "t"))
    assert header(echo, "x-tenant") == [] and header(echo, "authorization") == []


def test_credentials_beat_forwarded_headers(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETS_TOKEN", BEARER)
    definition = tool("t", {"method": "GET", "path": "/echo/fwd"})
    server = server_class({"baseUrl": base, "security": SCHEMES, "defaultSecurity": [["token"]],
                           "forwardHeaders": ["authorization"]}, [definition])()
    with serve_app(server.asgi_app()) as url:
        headers = modern_headers("tools/call", "t", authorization="Bearer caller-token")
        echo = echoed(_result(post(url, modern_request(1, "tools/call", {"name": "t", "arguments": {}}), headers)))
    assert header(echo, "authorization") == [f"Bearer {BEARER}"]

