"""A generated server as an OAuth 2.1 resource server, against a real authorization server.

``oauth2-mock-server`` (npm) runs on 127.0.0.1 and issues real signed tokens from its token
endpoint; the ``vault`` test spec (``server.auth`` with default scope ``vault:read``, tool
``write_secret`` needing ``vault:write``) is generated and served by ``python -m vault
--http`` in a subprocess.  Over real HTTP, in both protocol eras: no token -> 401 with the
metadata URL; metadata reachable; valid token -> the handler sees the principal; missing
scope -> 403 naming it; forged, expired, wrong-audience, wrong-issuer, ``alg: none``,
not-yet-valid tokens -> 401 ``invalid_token``; key rotation; introspection (RFC 7662)
against the server's own endpoint; nothing of a token in responses or the server's log.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from common_support import free_port, state_key_hex
from http_support import DemoHttpServer, modern_headers, modern_request, serve_app
from mcp_codegen_runtime.server.http import HttpSettings, InvalidToken, OAuthSettings
from mcp_codegen_runtime.server.principal import Principal
from oauth_as_support import (
    AuthServer,
    VaultProcess,
    auth_server,
    build_vault,
    claims_of,
    forged,
    hmac_signed,
    public_pem,
    unsigned,
)

LEGACY = "2025-11-25"


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with auth_server() as server:
        yield server


@pytest.fixture(scope="module")
def vault(issuer: AuthServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    port = free_port()
    folder = build_vault(tmp_path_factory.mktemp("vault"), issuer.issuer, f"http://127.0.0.1:{port}/mcp")
    yield folder, port


@pytest.fixture(scope="module")
def server(vault: tuple[Path, int]) -> Iterator[VaultProcess]:
    folder, port = vault
    proc = VaultProcess(folder, port, "--auth-jwks-refetch", "0")
    yield proc
    log = proc.stop()
    assert "bearer token refused: wrong audience" in log  # the reason is logged, nothing else
    for secret in _SEEN:
        assert secret not in log, "a token or one of its claims reached the server log"


#: Tokens and claim values the tests sent; none may appear in a response or in the log.
_SEEN: set[str] = set()


def _remember(token: str) -> str:
    _SEEN.add(token)
    if token.count(".") == 2:
        for key, value in claims_of(token).items():
            if key in ("sub", "client_id", "jti") and isinstance(value, str):
                _SEEN.add(value)
    return token


def _call_modern(url: str, token: str | None, tool: str, args: dict[str, Any] | None = None) -> httpx.Response:
    body = modern_request(1, "tools/call", {"name": tool, "arguments": args or {}})
    headers = modern_headers("tools/call", name=tool)
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return httpx.post(url, json=body, headers=headers, timeout=10)


def _legacy_session(url: str, token: str, version: str = LEGACY) -> dict[str, str]:
    auth = {"authorization": f"Bearer {token}", "accept": "application/json, text/event-stream"}
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    res = httpx.post(url, json=init, headers=auth, timeout=10)
    assert res.status_code == 200, res.text
    headers = {**auth, "mcp-session-id": res.headers["mcp-session-id"], "mcp-protocol-version": version}
    note = httpx.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers, timeout=10)
    assert note.status_code == 202
    return headers


def _legacy_call(url: str, headers: dict[str, str], tool: str, args: dict[str, Any] | None = None) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": tool, "arguments": args or {}}}
    return httpx.post(url, json=body, headers={**headers, "accept": "application/json"}, timeout=10)


def _challenge(res: httpx.Response) -> dict[str, str]:
    value = res.headers["www-authenticate"]
    assert value.startswith("Bearer ")
    out = {}
    for part in value[len("Bearer "):].split(", "):
        key, _, quoted = part.partition("=")
        out[key] = quoted.strip('"')
    return out


def _result(res: httpx.Response) -> dict[str, Any]:
    assert res.status_code == 200, res.text
    if res.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:].strip() for line in res.text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return dict(json.loads(data[-1]))
    return dict(res.json())


def _assert_no_leak(res: httpx.Response) -> None:
    text = res.text + json.dumps(dict(res.headers))
    for secret in _SEEN:
        assert secret not in text


def test_without_a_token_the_challenge_names_the_metadata(server: VaultProcess, issuer: AuthServer) -> None:
    res = _call_modern(server.url, None, "whoami")
    assert res.status_code == 401
    challenge = _challenge(res)
    assert "error" not in challenge
    assert challenge["scope"] == "vault:read"
    prm_url = challenge["resource_metadata"]
    assert prm_url == f"http://127.0.0.1:{server.port}/.well-known/oauth-protected-resource/mcp"
    for url in (prm_url, f"http://127.0.0.1:{server.port}/.well-known/oauth-protected-resource"):
        meta = httpx.get(url, timeout=10)
        assert meta.status_code == 200
        assert meta.headers["access-control-allow-origin"] == "*"
        assert meta.json() == {
            "resource": server.url,
            "authorization_servers": [issuer.issuer],
            "scopes_supported": ["vault:read", "vault:write"],
            "bearer_methods_supported": ["header"],
            "resource_name": "Test vault",
            # DPoP-bound tokens are accepted by default (test_oauth_dpop_server.py)
            "dpop_signing_alg_values_supported": ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
                                                  "ES256", "ES384", "ES512", "EdDSA"],
        }
    assert httpx.post(prm_url, timeout=10).status_code == 405
    # legacy initialize without a token: the same challenge
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    legacy = httpx.post(server.url, json=init, headers={"accept": "application/json, text/event-stream"}, timeout=10)
    assert legacy.status_code == 401 and _challenge(legacy)["resource_metadata"] == prm_url


def test_a_valid_token_reaches_the_handler_with_its_principal(server: VaultProcess, issuer: AuthServer) -> None:
    token = _remember(issuer.token(scope="vault:read", resource=server.url, sub="alice-7f3e"))
    res = _call_modern(server.url, token, "whoami")
    out = _result(res)["result"]["structuredContent"]
    assert out == {"subject": "alice-7f3e", "client_id": "app-client", "scopes": ["vault:read"]}
    headers = _legacy_session(server.url, token)
    assert _result(_legacy_call(server.url, headers, "whoami"))["result"]["structuredContent"]["subject"] == "alice-7f3e"
    # a client-credentials token without sub: the client is the subject
    machine = _remember(issuer.token(scope="vault:read", resource=server.url, client=("batch-job-91", "s")))
    assert _result(_call_modern(server.url, machine, "whoami"))["result"]["structuredContent"]["subject"] == "batch-job-91"


def test_a_token_without_the_tools_scope_is_refused_with_403(server: VaultProcess, issuer: AuthServer) -> None:
    token = _remember(issuer.token(scope="vault:read", resource=server.url, sub="bob-2c9a"))
    res = _call_modern(server.url, token, "write_secret", {"name": "x"})
    assert res.status_code == 403
    challenge = _challenge(res)
    assert challenge["error"] == "insufficient_scope"
    assert challenge["scope"] == "vault:read vault:write"
    assert challenge["resource_metadata"].endswith("/.well-known/oauth-protected-resource/mcp")
    assert res.json()["id"] == 1
    assert res.json()["error"]["message"] == "Forbidden: insufficient scope for write_secret"
    _assert_no_leak(res)
    headers = _legacy_session(server.url, token)
    legacy = _legacy_call(server.url, headers, "write_secret", {"name": "x"})
    assert legacy.status_code == 403 and _challenge(legacy)["error"] == "insufficient_scope"
    # a 2025-03-26 batch with one such call is refused as a whole, before any of it runs
    old = _legacy_session(server.url, token, "2025-03-26")
    batch = [{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}},
             {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "write_secret", "arguments": {"name": "y"}}}]
    refused = httpx.post(server.url, json=batch, headers={**old, "accept": "application/json"}, timeout=10)
    assert refused.status_code == 403 and _challenge(refused)["scope"] == "vault:read vault:write"
    assert httpx.post(server.url, json=batch[:1], headers={**old, "accept": "application/json"}, timeout=10).status_code == 200
    # stepped up: the same subject with both scopes may call it, in the same legacy session
    stepped = _remember(issuer.token(scope="vault:read vault:write", resource=server.url, sub="bob-2c9a"))
    assert _result(_call_modern(server.url, stepped, "write_secret", {"name": "x"}))["result"]["content"][0]["text"] == \
        "stored x for bob-2c9a"
    again = _legacy_call(server.url, {**headers, "authorization": f"Bearer {stepped}"}, "write_secret", {"name": "z"})
    assert _result(again)["result"]["content"][0]["text"] == "stored z for bob-2c9a"
    # and the handler sees the stepped-up token's scopes there, not those of the token that opened the session
    who = _legacy_call(server.url, {**headers, "authorization": f"Bearer {stepped}"}, "whoami")
    assert _result(who)["result"]["structuredContent"]["scopes"] == ["vault:read", "vault:write"]
    assert _result(_legacy_call(server.url, headers, "whoami"))["result"]["structuredContent"]["scopes"] == ["vault:read"]
    # without even the default scope: 403 for any request
    bare = _remember(issuer.token(scope="other", resource=server.url, sub="carol-51d0"))
    res = _call_modern(server.url, bare, "whoami")
    assert res.status_code == 403 and _challenge(res) == {
        "error": "insufficient_scope", "scope": "vault:read", "resource_metadata": challenge["resource_metadata"]}


@pytest.mark.parametrize("case", ["forged", "expired", "audience", "no-audience", "issuer", "none", "future", "hs256",
                                  "garbage"])
def test_bad_tokens_are_refused_with_invalid_token(server: VaultProcess, issuer: AuthServer, case: str) -> None:
    now = int(time.time())
    good = {"iss": issuer.issuer, "aud": server.url, "sub": "mallory-0b7d", "scope": "vault:read vault:write",
            "iat": now, "exp": now + 600}
    if case == "forged":  # signed by another key under the server's own kid
        token = forged(good, issuer.kid)
    elif case == "expired":  # from the real token endpoint, expired beyond the clock skew
        token = issuer.token(scope="vault:read", resource=server.url, sub="mallory-0b7d",
                             claims={"exp": now - 600, "iat": now - 1200, "nbf": now - 1200})
    elif case == "audience":
        token = issuer.token(scope="vault:read", resource="http://127.0.0.1:1/other", sub="mallory-0b7d")
    elif case == "no-audience":
        token = issuer.token(scope="vault:read", sub="mallory-0b7d")
    elif case == "issuer":  # signed by the real key, but claiming another issuer
        token = issuer.token(scope="vault:read", resource=server.url, sub="mallory-0b7d",
                             claims={"iss": "http://127.0.0.1:1"})
    elif case == "none":
        token = unsigned(good, issuer.kid)
    elif case == "future":
        token = issuer.token(scope="vault:read", resource=server.url, sub="mallory-0b7d", claims={"nbf": now + 3600})
    elif case == "hs256":  # HMAC keyed with the published public key (algorithm confusion): never accepted
        jwks = httpx.get(f"{issuer.issuer}/jwks", timeout=10).json()
        token = hmac_signed(good, public_pem(jwks["keys"][0]), issuer.kid)
    else:
        token = "not-a-jwt"
    _remember(token)
    for res in (_call_modern(server.url, token, "whoami"),
                httpx.post(server.url, headers={"authorization": f"Bearer {token}", "accept": "application/json, text/event-stream"},
                           json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                               "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
                           timeout=10)):
        assert res.status_code == 401, (case, res.text)
        challenge = _challenge(res)
        assert challenge["error"] == "invalid_token"
        assert challenge["resource_metadata"].endswith("/.well-known/oauth-protected-resource/mcp")
        _assert_no_leak(res)


def test_a_rotated_key_is_fetched_when_a_token_names_it(server: VaultProcess, issuer: AuthServer) -> None:
    first = _remember(issuer.token(scope="vault:read", resource=server.url, sub="dave-77aa"))
    assert _call_modern(server.url, first, "whoami").status_code == 200  # the key set is cached now
    issuer.rotate("key-rotated")
    token = _remember(issuer.signed_with("key-rotated", {"aud": server.url, "sub": "dave-77aa", "scope": "vault:read"}))
    assert claims_of(token)["sub"] == "dave-77aa"
    res = _call_modern(server.url, token, "whoami")
    assert _result(res)["result"]["structuredContent"]["subject"] == "dave-77aa"


def test_introspection_against_the_authorization_server(vault: tuple[Path, int], issuer: AuthServer) -> None:
    folder, _ = vault
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    proc = VaultProcess(folder, port, "--auth-resource", resource, "--auth-introspection-url", f"{issuer.issuer}/introspect",
                        env={"MCP_CODEGEN_OAUTH_CLIENT_ID": "rs-client", "MCP_CODEGEN_OAUTH_CLIENT_SECRET": "rs-secret"})
    try:
        token = _remember(issuer.token(scope="vault:read", resource=resource, sub="erin-3d41"))
        assert _result(_call_modern(resource, token, "whoami"))["result"]["structuredContent"]["subject"] == "erin-3d41"
        assert _call_modern(resource, token, "write_secret", {"name": "a"}).status_code == 403
        other = _remember(issuer.token(scope="vault:read", resource="http://127.0.0.1:1/mcp", sub="erin-3d41"))
        assert _challenge(_call_modern(resource, other, "whoami"))["error"] == "invalid_token"
        made_up = _remember(forged({"iss": issuer.issuer, "aud": resource, "sub": "ghost-5a1c", "exp": int(time.time()) + 60}, "k"))
        assert _call_modern(resource, made_up, "whoami").status_code == 401  # the server never issued it
    finally:
        log = proc.stop()
    for secret in _SEEN:
        assert secret not in log


def test_introspection_with_wrong_credentials_is_unavailable(vault: tuple[Path, int], issuer: AuthServer) -> None:
    folder, _ = vault
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    proc = VaultProcess(folder, port, "--auth-resource", resource, "--auth-introspection-url", f"{issuer.issuer}/introspect",
                        env={"MCP_CODEGEN_OAUTH_CLIENT_ID": "rs-client", "MCP_CODEGEN_OAUTH_CLIENT_SECRET": "wrong"})
    try:
        token = _remember(issuer.token(scope="vault:read", resource=resource, sub="frank-9e02"))
        res = _call_modern(resource, token, "whoami")
        assert res.status_code == 503 and res.headers["retry-after"] == "5"
        _assert_no_leak(res)
    finally:
        log = proc.stop()
    assert "answered HTTP 401" in log
    assert "wrong" not in log.replace("wrong credentials", "")


class _Verifier:
    """A verifier of one's own: a fixed table of opaque tokens."""

    def __init__(self) -> None:
        self.table = {"opaque-reader-4411": Principal("reader", "https://as.example", "app", frozenset({"r"})),
                      "opaque-writer-8823": Principal("writer", "https://as.example", "app", frozenset({"r", "w"}))}

    async def verify(self, token: str) -> Principal | None:
        if token == "opaque-broken-0000":
            raise InvalidToken("revoked")
        return self.table.get(token)


def test_asgi_app_with_settings_and_a_verifier_of_ones_own() -> None:
    class Scoped(DemoHttpServer):
        tool_defs = tuple(replace(t, scopes=("w",)) if t.name == "route" else t for t in DemoHttpServer.tool_defs)

    oauth = OAuthSettings(resource="http://127.0.0.1/api/mcp", authorization_servers=("https://as.example",), scopes=("r",),
                          verifier=_Verifier())
    app = Scoped().asgi_app(HttpSettings(path="/api/mcp", oauth=oauth, allowed_hosts=("*",)))
    with serve_app(app) as url:
        base = url.rsplit("/mcp", 1)[0]
        api = base + "/api/mcp"
        meta = httpx.get(base + "/.well-known/oauth-protected-resource/api/mcp", timeout=10).json()
        assert meta["scopes_supported"] == ["r", "w"] and meta["resource"] == "http://127.0.0.1/api/mcp"
        assert _challenge(_call_modern(api, "opaque-broken-0000", "whoami"))["error"] == "invalid_token"
        assert _call_modern(api, "opaque-unknown-1", "whoami").status_code == 401
        who = _result(_call_modern(api, "opaque-reader-4411", "whoami"))["result"]["content"][0]["text"]
        assert who == "Principal(subject='reader', issuer='https://as.example', client_id='app', scopes=frozenset({'r'}))"
        refused = _call_modern(api, "opaque-reader-4411", "route", {"region": "eu"})
        assert refused.status_code == 403 and _challenge(refused)["scope"] == "r w"
        body = modern_request(2, "tools/call", {"name": "route", "arguments": {"region": "eu"}})
        headers = {**modern_headers("tools/call", name="route", **{"mcp-param-region": "eu"}),
                   "authorization": "Bearer opaque-writer-8823"}
        assert _result(httpx.post(api, json=body, headers=headers, timeout=10))["result"]["content"][0]["text"] == "eu|None|None"


def test_worker_processes_enforce_the_same_configuration(vault: tuple[Path, int], issuer: AuthServer) -> None:
    folder, _ = vault
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    proc = VaultProcess(folder, port, "--workers", "2", "--auth-resource", resource, "--auth-introspection-url",
                        f"{issuer.issuer}/introspect",
                        env={"MCP_CODEGEN_OAUTH_CLIENT_ID": "rs-client", "MCP_CODEGEN_OAUTH_CLIENT_SECRET": "rs-secret",
                             "MCP_CODEGEN_STATE_KEY": state_key_hex("oauth-workers")})
    try:
        token = _remember(issuer.token(scope="vault:read", resource=resource, sub="gina-6b18"))
        for _ in range(6):  # whichever worker answers: same resource, same scopes, the secret from the environment
            assert _result(_call_modern(resource, token, "whoami"))["result"]["structuredContent"]["subject"] == "gina-6b18"
            assert _challenge(_call_modern(resource, token, "write_secret", {"name": "a"}))["error"] == "insufficient_scope"
            assert _challenge(_call_modern(resource, None, "whoami"))["resource_metadata"] == \
                f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
    finally:
        log = proc.stop()
    assert "rs-secret" not in log
    for secret in _SEEN:
        assert secret not in log
