"""The OAuth resource server's parts: JWKS caching, the JWT and introspection verifiers against
a real loopback HTTP server, principals and what they bind, metadata and challenges, and the
spec's ``server.auth`` / tool ``scopes`` checks (located diagnostics)."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from mcp_codegen_runtime.server.http.jwks import JwksCache, JwtVerifier
from mcp_codegen_runtime.server.http.oauth import ResourceServer, metadata_url
from mcp_codegen_runtime.server.http.settings import OAuthSettings
from mcp_codegen_runtime.server.http.verifiers import AuthServerUnavailable, IntrospectionVerifier, InvalidToken
from mcp_codegen_runtime.server.input_required import RequestStateCodec
from mcp_codegen_runtime.server.principal import Principal, identity, principal_from_claims
from mcp_codegen_runtime.server.signing import Signer
from mcp_codegen_runtime.wire.errors import InvalidParamsError

from codegen import generate


class FakeAS:
    """A real HTTP server on 127.0.0.1 serving JSON documents by path; counts every request."""

    def __init__(self) -> None:
        self.docs: dict[str, Any] = {}
        self.hits: dict[str, int] = {}
        self.down = False  # every GET answers 503 (the authorization server is unavailable)
        self.forms: list[tuple[dict[str, list[str]], str | None]] = []
        self.introspect: Any = None  # callable(form, authorization) -> (status, body)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                owner.hits[self.path] = owner.hits.get(self.path, 0) + 1
                if owner.down:
                    self._answer(503, {})
                elif self.path in owner.docs:
                    self._answer(200, owner.docs[self.path])
                else:
                    self._answer(404, {})

            def do_POST(self) -> None:
                owner.hits[self.path] = owner.hits.get(self.path, 0) + 1
                form = parse_qs(self.rfile.read(int(self.headers["content-length"])).decode())
                owner.forms.append((form, self.headers.get("authorization")))
                self._answer(*owner.introspect(form, self.headers.get("authorization")))

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake_as() -> Iterator[FakeAS]:
    server = FakeAS()
    yield server
    server.close()


def _jwk(key: Any, kid: str, alg: str | None = None) -> dict[str, Any]:
    algo = jwt.algorithms.RSAAlgorithm if isinstance(key, rsa.RSAPrivateKey) else jwt.algorithms.ECAlgorithm
    data: dict[str, Any] = json.loads(algo.to_jwk(key.public_key()))
    data["kid"] = kid
    if alg:
        data["alg"] = alg
    return data


RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())
AUD = "https://mcp.example.com/mcp"


def _claims(issuer: str, **extra: Any) -> dict[str, Any]:
    now = int(time.time())
    return {"iss": issuer, "aud": AUD, "sub": "alice", "scope": "a b", "iat": now, "exp": now + 300, **extra}


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


# ------------------------------------------------------------------ JWKS cache
def test_jwks_is_cached_and_refetched_for_unknown_kids_at_most_once_per_interval(fake_as: FakeAS) -> None:
    fake_as.docs["/jwks"] = {"keys": [_jwk(RSA_KEY, "k1")]}

    async def scenario() -> None:
        slow = JwksCache(fake_as.url, f"{fake_as.url}/jwks", ttl=3600, refetch_interval=3600)
        assert (await slow.key("k1") or {}).get("kid") == "k1"
        assert await slow.key("k1") is not None
        assert fake_as.hits["/jwks"] == 1
        for i in range(20):  # made-up kids cannot make it fetch again within the interval
            assert await slow.key(f"nope-{i}") is None
        assert fake_as.hits["/jwks"] == 1
        eager = JwksCache(fake_as.url, f"{fake_as.url}/jwks", ttl=3600, refetch_interval=0)
        assert await eager.key("k1") is not None
        fake_as.docs["/jwks"] = {"keys": [_jwk(RSA_KEY, "k1"), _jwk(EC_KEY, "k2")]}  # the AS rotates
        assert (await eager.key("k2") or {}).get("kty") == "EC"  # fetched again for the new kid
        assert eager.fetches == 2
        fresh = JwksCache(fake_as.url, f"{fake_as.url}/jwks", ttl=3600, refetch_interval=3600)
        before = fake_as.hits["/jwks"]
        results = await asyncio.gather(*(fresh.key("k1") for _ in range(10)))
        assert all(r is not None for r in results)
        assert fake_as.hits["/jwks"] == before + 1  # concurrent first calls share one fetch
        expired = JwksCache(fake_as.url, f"{fake_as.url}/jwks", ttl=0, refetch_interval=3600)
        await expired.key("k1")
        await expired.key("k1")
        assert expired.fetches == 2

    _run(scenario())


def test_failed_jwks_fetches_count_against_the_refetch_interval(fake_as: FakeAS) -> None:
    """Issue 44: while the authorization server answers 503, made-up kids do not each cause a
    fetch; the keys fetched last stay in use; the next attempt waits for the interval."""
    fake_as.docs["/jwks"] = {"keys": [_jwk(RSA_KEY, "k1")]}
    fake_as.down = True

    async def scenario() -> None:
        never = JwksCache(fake_as.url, f"{fake_as.url}/jwks", ttl=3600, refetch_interval=0.5)
        for i in range(10):  # no key set yet, the server down: one fetch, then refusals
            with pytest.raises(AuthServerUnavailable):
                await never.key(f"made-up-{i}")
        assert fake_as.hits["/jwks"] == 1
        await asyncio.sleep(0.6)
        fake_as.down = False  # back: the next attempt, after the interval, succeeds
        assert await never.key("k1") is not None
        assert fake_as.hits["/jwks"] == 2

        stale = JwksCache(fake_as.url, f"{fake_as.url}/jwks", ttl=0.2, refetch_interval=30)
        assert await stale.key("k1") is not None
        before = fake_as.hits["/jwks"]
        fake_as.down = True
        await asyncio.sleep(0.3)  # the keys expired, the server is down
        assert await stale.key("k1") is not None  # the keys fetched last are used
        for i in range(10):
            assert await stale.key(f"made-up-{i}") is None
        assert fake_as.hits["/jwks"] == before + 1

    _run(scenario())


def test_jwks_uri_is_discovered_from_the_issuer_metadata(fake_as: FakeAS) -> None:
    fake_as.docs["/keys"] = {"keys": [_jwk(RSA_KEY, "k1")]}
    fake_as.docs["/.well-known/openid-configuration"] = {"issuer": fake_as.url, "jwks_uri": f"{fake_as.url}/keys"}

    async def scenario() -> None:
        cache = JwksCache(fake_as.url, None)
        assert await cache.key("k1") is not None
        assert fake_as.hits["/.well-known/oauth-authorization-server"] == 1  # RFC 8414 first, then OIDC
        fake_as.docs["/.well-known/oauth-authorization-server"] = {"issuer": "https://evil.example", "jwks_uri": "x"}
        with pytest.raises(AuthServerUnavailable):  # metadata of another issuer is not used
            await JwksCache(fake_as.url + "/tenant", None).key("k1")

    _run(scenario())


def test_only_https_or_loopback_urls() -> None:
    with pytest.raises(ValueError):
        JwksCache("https://as.example", "http://as.example/jwks")
    JwksCache("https://as.example", "https://as.example/jwks")
    JwksCache("https://as.example", "http://[::1]:9/jwks")


# ------------------------------------------------------------------ JWT verifier
def test_jwt_verifier_checks_key_type_times_and_audience(fake_as: FakeAS) -> None:
    fake_as.docs["/jwks"] = {"keys": [_jwk(RSA_KEY, "rsa"), _jwk(EC_KEY, "ec", "ES256")]}
    iss = fake_as.url

    async def scenario() -> None:
        v = JwtVerifier([iss], [AUD], jwks_url=f"{fake_as.url}/jwks", clock_skew=60)
        p = await v.verify(jwt.encode(_claims(iss), EC_KEY, algorithm="ES256", headers={"kid": "ec"}))
        assert p is not None and p.subject == "alice" and p.scopes == {"a", "b"} and p.issuer == iss
        assert (await v.verify(jwt.encode(_claims(iss, aud=[AUD + "/", "x"]), RSA_KEY, algorithm="PS256",
                                          headers={"kid": "rsa"}))) is not None  # PS256 fits an RSA key
        cases = {
            "key does not fit the algorithm": jwt.encode(_claims(iss), RSA_KEY, algorithm="RS256", headers={"kid": "ec"}),
            "unknown signing key": jwt.encode(_claims(iss), RSA_KEY, algorithm="RS256", headers={"kid": "other"}),
            "missing exp or iss": jwt.encode({k: v for k, v in _claims(iss).items() if k != "exp"}, RSA_KEY,
                                             algorithm="RS256", headers={"kid": "rsa"}),
            "wrong audience": jwt.encode(_claims(iss, aud="https://mcp.example.com/other"), RSA_KEY, algorithm="RS256",
                                         headers={"kid": "rsa"}),
            "wrong issuer": jwt.encode(_claims("https://as.example"), RSA_KEY, algorithm="RS256", headers={"kid": "rsa"}),
            "expired": jwt.encode(_claims(iss, exp=int(time.time()) - 61), RSA_KEY, algorithm="RS256",
                                  headers={"kid": "rsa"}),
        }
        for reason, token in cases.items():
            with pytest.raises(InvalidToken) as err:
                await v.verify(token)
            assert err.value.reason == reason
        # within the clock skew: accepted; without skew: refused
        recent = jwt.encode(_claims(iss, exp=int(time.time()) - 30), RSA_KEY, algorithm="RS256", headers={"kid": "rsa"})
        assert await v.verify(recent) is not None
        strict = JwtVerifier([iss], [AUD], jwks_url=f"{fake_as.url}/jwks", clock_skew=0)
        with pytest.raises(InvalidToken, match="expired"):
            await strict.verify(recent)

    _run(scenario())


def test_jwt_verifier_refuses_symmetric_algorithms_up_front() -> None:
    with pytest.raises(ValueError, match="asymmetric"):
        JwtVerifier(["https://as.example"], [AUD], algorithms=("RS256", "HS256"))
    with pytest.raises(ValueError):
        JwtVerifier([], [AUD])


# ------------------------------------------------------------------ introspection
def test_introspection_caches_positive_answers_and_authenticates(fake_as: FakeAS) -> None:
    answers = {"good": {"active": True, "sub": "bob", "aud": AUD, "iss": fake_as.url, "scope": "a",
                        "exp": int(time.time()) + 300, "client_id": "c1"},
               "noaud": {"active": True, "sub": "bob", "exp": int(time.time()) + 300},
               "gone": {"active": False}}

    def introspect(form: dict[str, list[str]], authorization: str | None) -> tuple[int, Any]:
        return 200, answers[form["token"][0]]

    fake_as.introspect = introspect

    async def scenario() -> None:
        v = IntrospectionVerifier(f"{fake_as.url}/introspect", client_id="rs", client_secret="s:cr et",
                                  issuers=[fake_as.url], audiences=[AUD], cache_ttl=60)
        p = await v.verify("good")
        assert p == Principal("bob", fake_as.url, "c1") and p is not None and p.scopes == {"a"}
        assert await v.verify("good") == p
        assert v.requests == 1  # the second answer came from the cache
        form, authorization = fake_as.forms[0]
        assert form == {"token": ["good"], "token_type_hint": ["access_token"]}
        assert authorization == "Basic " + base64.b64encode(b"rs:s%3Acr%20et").decode()
        for token, reason in (("gone", "not active"), ("noaud", "wrong audience")):
            with pytest.raises(InvalidToken, match=reason):
                await v.verify(token)
            with pytest.raises(InvalidToken):  # refusals are never cached
                await v.verify(token)
        assert v.requests == 5
        post = IntrospectionVerifier(f"{fake_as.url}/introspect", client_id="rs", client_secret="pw", issuers=[fake_as.url],
                                     audiences=[AUD], client_auth="client_secret_post", cache_ttl=0)
        await post.verify("good")
        await post.verify("good")
        assert post.requests == 2
        assert fake_as.forms[-1] == ({"token": ["good"], "token_type_hint": ["access_token"], "client_id": ["rs"],
                                      "client_secret": ["pw"]}, None)
        fake_as.introspect = lambda form, auth: (401, {"error": "invalid_client"})
        with pytest.raises(AuthServerUnavailable, match="HTTP 401"):
            await post.verify("good")

    _run(scenario())


# ------------------------------------------------------------------ principals
def test_principals_are_their_issuer_subject_and_client() -> None:
    a = principal_from_claims({"iss": "i", "sub": "s", "scope": "x", "client_id": "c", "exp": 5, "secret": "t0k"})
    b = principal_from_claims({"iss": "i", "sub": "s", "scp": ["x", "y"], "azp": "c"})
    assert a is not None and b is not None
    assert a == b and hash(a) == hash(b) and identity(a) == identity(b) == "oauth:i|s|c"
    assert b.scopes == {"x", "y"} and a.missing(["x", "y", "z"]) == ("y", "z")
    assert "t0k" not in repr(a) and "secret" not in repr(a)  # claims stay out of reprs and logs
    assert principal_from_claims({"iss": "i"}) is None
    assert principal_from_claims({"client_id": "svc"}) == Principal("svc", None, "svc")
    assert identity("alice") == "'alice'"  # a static token's principal


def test_request_state_is_bound_to_the_verified_identity() -> None:
    codec = RequestStateCodec(Signer("requestState", [b"k" * 32], "aud"), ttl=60)
    reader = Principal("alice", "https://as", "app", frozenset({"read"}))
    state = codec.issue("tool", {"a": 1}, reader, {})
    stepped = Principal("alice", "https://as", "app", frozenset({"read", "write"}), {"exp": 1})
    assert codec.open(state, "tool", {"a": 1}, stepped) == {}  # new token, same caller
    with pytest.raises(InvalidParamsError):
        codec.open(state, "tool", {"a": 1}, Principal("mallory", "https://as", "app", frozenset({"read"})))


# ------------------------------------------------------------------ metadata and challenges
def test_metadata_url_and_challenges() -> None:
    assert metadata_url("https://h.example/mcp") == "https://h.example/.well-known/oauth-protected-resource/mcp"
    assert metadata_url("https://h.example/") == "https://h.example/.well-known/oauth-protected-resource"

    class Verifier:
        async def verify(self, token: str) -> Principal | None:
            return None

    rs = ResourceServer(OAuthSettings(resource="https://h.example/v1/mcp", authorization_servers=("https://as",),
                                      scopes=("r",), verifier=Verifier()), {"t": ("w",)}, "/v1/mcp")
    assert rs.challenge() == 'Bearer scope="r", resource_metadata="https://h.example/.well-known/oauth-protected-resource/v1/mcp"'
    assert rs.challenge("insufficient_scope", ("r", "w")).startswith('Bearer error="insufficient_scope", scope="r w", ')
    assert "/.well-known/oauth-protected-resource/v1/mcp" in rs.paths
    assert rs.metadata()["scopes_supported"] == ["r", "w"]
    with pytest.raises(ValueError, match="canonical URL"):
        ResourceServer(OAuthSettings(authorization_servers=("https://as",), verifier=Verifier()), {}, "/mcp")
    with pytest.raises(ValueError, match="authorization server"):
        ResourceServer(OAuthSettings(resource="https://h.example/mcp", verifier=Verifier()), {}, "/mcp")


# ------------------------------------------------------------------ spec checks
BASE = "mcp-codegen: 1\nserver:\n  name: s\n  version: '1'\n"
TOOL = "tools:\n  - name: t\n    inputSchema: {type: object}\n"


@pytest.mark.parametrize(("text", "code", "pointer"), [
    (BASE + "  auth: {authorizationServers: ['as.example']}\n" + TOOL, "E090", "/server/auth/authorizationServers/0"),
    (BASE + "  auth: {authorizationServers: ['https://as.example?x=1']}\n" + TOOL, "E090",
     "/server/auth/authorizationServers/0"),
    (BASE + "  auth: {authorizationServers: ['https://as.example'], resource: 'https://h/mcp#f'}\n" + TOOL, "E090",
     "/server/auth/resource"),
    (BASE + "  auth: {authorizationServers: []}\n" + TOOL, "E010", "/server/auth/authorizationServers"),
    (BASE + "  auth: {authorizationServers: ['https://as.example'], scope: [a]}\n" + TOOL, "E011", "/server/auth/scope"),
    (BASE + "  auth: {authorizationServers: ['https://as.example']}\n" + TOOL + "    scopes: ['has space']\n", "E010",
     "/tools/0/scopes/0"),
    (BASE + "  auth: {authorizationServers: ['https://as.example']}\n" + TOOL + "    scopes: 'a'\n", "E010",
     "/tools/0/scopes"),
])
def test_auth_mistakes_are_located(tmp_path: Path, text: str, code: str, pointer: str) -> None:
    (tmp_path / "s.yaml").write_text(text, "utf-8")
    result = generate([tmp_path / "s.yaml"])
    found = [(d.code, d.pointer) for d in result.diagnostics if d.is_error]
    assert (code, pointer) in found, found
    assert all(d.line > 0 for d in result.diagnostics if d.is_error)


def test_auth_warnings_and_the_generated_tables(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(BASE + TOOL + "    scopes: [notes:write]\n", "utf-8")
    result = generate([tmp_path / "s.yaml"])
    assert result.ok and [(d.code, d.pointer) for d in result.diagnostics] == [("W108", "/tools/0/scopes")]
    (tmp_path / "s.yaml").write_text(BASE + "  auth: {authorizationServers: ['http://as.example', 'http://127.0.0.1:9'],"
                                     " resource: 'http://localhost:8000/mcp', scopes: [r], scopesSupported: [x]}\n"
                                     + TOOL + "    scopes: [notes:write]\n", "utf-8")
    result = generate([tmp_path / "s.yaml"])
    assert result.ok and [(d.code, d.pointer) for d in result.diagnostics] == [("W107", "/server/auth/authorizationServers/0")]
    tools = next(f.content for f in result.files if f.path.split("/")[-2:] == ["s", "tools.py"])
    flat = "".join(tools.split())
    assert 'authorization_servers=("http://as.example","http://127.0.0.1:9")' in flat
    assert 'scopes=("notes:write",)' in flat and 'scopes_supported=("x",)' in flat and 'scopes=("r",)' in flat


# ------------------------------------------------------------------ flags and workers
def test_flags_and_the_worker_round_trip() -> None:
    import argparse

    from mcp_codegen_runtime.server.http.cli import add_arguments, settings_from_args
    from mcp_codegen_runtime.server.http.oauth import oauth_from_json, oauth_to_json

    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    add_arguments(parser)
    plain = settings_from_args(parser.parse_args([]))
    assert plain.oauth is not None and plain.oauth.default_resource == "http://127.0.0.1:8000/mcp"
    assert plain.oauth.authorization_servers == () and plain.oauth.scopes is None  # the spec decides
    args = parser.parse_args(["--auth-issuer", "https://as", "--auth-scope", "a", "--auth-scope", "b", "--auth-audience",
                              "api://x", "--auth-introspection-url", "https://as/introspect", "--auth-clock-skew", "5"])
    oauth = settings_from_args(args).oauth
    assert oauth is not None
    assert (oauth.authorization_servers, oauth.scopes, oauth.audiences, oauth.clock_skew) == (("https://as",), ("a", "b"),
                                                                                            ("api://x",), 5.0)
    secret = OAuthSettings(resource="https://h/mcp", authorization_servers=("https://as",), client_secret="pw-91x")
    data = json.loads(json.dumps(oauth_to_json(secret)))
    assert "pw-91x" not in json.dumps(data)
    assert oauth_from_json(data) == OAuthSettings(resource="https://h/mcp", authorization_servers=("https://as",))
