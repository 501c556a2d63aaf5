"""DPoP (RFC 9449) on a generated resource server, over real HTTP, with hostile proofs.

The ``vault`` test spec is served by ``python -m vault --http`` twice: with the default
(``--auth-dpop allow``: Bearer and DPoP) and with ``--auth-dpop require --auth-dpop-nonce``.
Tokens come from the real authorization server of ``tests/support/oauth_as.mjs``, bound to
the test's key by a DPoP proof of the token request (``cnf.jkt``).  Proofs are built here
with joserfc (independently of the client runtime): a valid one passes, in both eras; a
wrong key, a replayed ``jti``, a wrong ``htu``/``htm``, a stale or future ``iat``, a missing
or wrong ``ath``, ``alg: none``, an HMAC proof, a private key in the header, two proofs, a
bound token sent as Bearer are each refused with 401 and ``WWW-Authenticate: DPoP
error=...``; nothing of a token reaches a response or the log.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from common_support import free_port
from http_support import modern_headers, modern_request
from joserfc import jwt
from joserfc.jwk import ECKey, OctKey, RSAKey
from oauth_as_support import AuthServer, VaultProcess, auth_server, build_vault

LEGACY = "2025-11-25"
_SEEN: set[str] = set()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def proof(key: Any, method: str, url: str, token: str | None = None, *, alg: str = "ES256", iat: float | None = None,
          jti: str | None = None, nonce: str | None = None, ath: str | None = None, header: dict[str, Any] | None = None,
          drop: tuple[str, ...] = ()) -> str:
    """A DPoP proof signed by ``key`` (claims overridable, ``drop`` removes claims)."""
    claims: dict[str, Any] = {"jti": jti or secrets.token_urlsafe(16), "htm": method, "htu": url,
                              "iat": int(time.time() if iat is None else iat)}
    if token is not None:
        claims["ath"] = ath or _b64(hashlib.sha256(token.encode()).digest())
    if nonce is not None:
        claims["nonce"] = nonce
    for name in drop:
        claims.pop(name, None)
    head = {"typ": "dpop+jwt", "alg": alg, "jwk": key.as_dict(private=False), **(header or {})}
    return str(jwt.encode(head, claims, key, algorithms=[alg]))


def unsigned_proof(key: ECKey, url: str, token: str) -> str:
    head = {"typ": "dpop+jwt", "alg": "none", "jwk": key.as_dict(private=False)}
    claims = {"jti": secrets.token_urlsafe(16), "htm": "POST", "htu": url, "iat": int(time.time()),
              "ath": _b64(hashlib.sha256(token.encode()).digest())}
    return f"{_b64(json.dumps(head).encode())}.{_b64(json.dumps(claims).encode())}."


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with auth_server() as server:
        yield server


@pytest.fixture(scope="module")
def vault(issuer: AuthServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int, int]]:
    port, strict = free_port(), free_port()
    folder = build_vault(tmp_path_factory.mktemp("vault"), issuer.issuer, f"http://127.0.0.1:{port}/mcp")
    yield folder, port, strict


@pytest.fixture(scope="module")
def server(vault: tuple[Path, int, int]) -> Iterator[VaultProcess]:
    folder, port, _ = vault
    proc = VaultProcess(folder, port)
    yield proc
    _no_leak_in(proc.stop())


@pytest.fixture(scope="module")
def strict(vault: tuple[Path, int, int]) -> Iterator[VaultProcess]:
    folder, _, port = vault
    proc = VaultProcess(folder, port, "--auth-resource", f"http://127.0.0.1:{port}/mcp", "--auth-dpop", "require",
                        "--auth-dpop-nonce")
    yield proc
    _no_leak_in(proc.stop())


def _no_leak_in(log: str) -> None:
    for secret in _SEEN:
        assert secret not in log, "a token reached the server log"


def bound_token(issuer: AuthServer, key: ECKey, resource: str, scope: str = "vault:read") -> str:
    token = issuer.token(scope=scope, resource=resource, sub="dpop-user-5d1",
                         dpop=proof(key, "POST", f"{issuer.issuer}/token"))
    _SEEN.add(token)
    return token


def call(url: str, token: str, dpop: str | list[str] | None, *, scheme: str = "DPoP") -> httpx.Response:
    body = modern_request(1, "tools/call", {"name": "whoami", "arguments": {}})
    headers: list[tuple[str, str]] = list(modern_headers("tools/call", name="whoami").items())
    headers.append(("authorization", f"{scheme} {token}"))
    for value in [dpop] if isinstance(dpop, str) else dpop or []:
        headers.append(("dpop", value))
    res = httpx.post(url, json=body, headers=headers, timeout=10)
    text = res.text + json.dumps(dict(res.headers))
    assert token not in text
    return res


def challenge(res: httpx.Response) -> dict[str, str]:
    value = res.headers["www-authenticate"]
    assert value.startswith("DPoP "), value
    out = {}
    for part in value[len("DPoP "):].split(", "):
        name, _, quoted = part.partition("=")
        out[name] = quoted.strip('"')
    return out


def subject(res: httpx.Response) -> str:
    assert res.status_code == 200, res.text
    text = res.text
    if res.headers["content-type"].startswith("text/event-stream"):
        text = [line[5:] for line in text.splitlines() if line.startswith("data:") and line[5:].strip()][-1]
    return str(json.loads(text)["result"]["structuredContent"]["subject"])


def refused(res: httpx.Response, error: str = "invalid_dpop_proof") -> None:
    assert res.status_code == 401, res.text
    assert challenge(res)["error"] == error
    assert "ES256" in challenge(res)["algs"].split()


def test_a_bound_token_with_a_valid_proof_reaches_the_handler(server: VaultProcess, issuer: AuthServer) -> None:
    key = ECKey.generate_key("P-256")
    token = bound_token(issuer, key, server.url)
    assert subject(call(server.url, token, proof(key, "POST", server.url, token))) == "dpop-user-5d1"
    # a fresh proof per request: the next one passes too; the metadata names the algorithms
    assert subject(call(server.url, token, proof(key, "POST", server.url, token))) == "dpop-user-5d1"
    meta = httpx.get(f"http://127.0.0.1:{server.port}/.well-known/oauth-protected-resource/mcp", timeout=10).json()
    assert "ES256" in meta["dpop_signing_alg_values_supported"]
    assert "dpop_bound_access_tokens_required" not in meta
    # an RSA proof key works as well (any allowed asymmetric algorithm)
    rsa = RSAKey.generate_key(2048)
    rsa_token = issuer.token(scope="vault:read", resource=server.url, sub="rsa-user",
                             claims={"cnf": {"jkt": rsa.thumbprint()}})
    _SEEN.add(rsa_token)
    assert subject(call(server.url, rsa_token, proof(rsa, "POST", server.url, rsa_token, alg="PS256"))) == "rsa-user"
    # legacy era: initialize and the call each with their own proof
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    base = {"accept": "application/json, text/event-stream", "authorization": f"DPoP {token}"}
    res = httpx.post(server.url, json=init, headers={**base, "dpop": proof(key, "POST", server.url, token)}, timeout=10)
    assert res.status_code == 200, res.text


def test_hostile_proofs_are_refused(server: VaultProcess, issuer: AuthServer) -> None:
    key = ECKey.generate_key("P-256")
    token = bound_token(issuer, key, server.url)
    url = server.url
    now = time.time()
    other = ECKey.generate_key("P-256")
    refused(call(url, token, None))  # no proof at all
    refused(call(url, token, proof(other, "POST", url, token)), "invalid_token")  # another key: not the token's cnf.jkt
    refused(call(url, token, proof(key, "POST", url.replace("/mcp", "/other"), token)))  # wrong htu
    refused(call(url, token, proof(key, "POST", "http://evil.example/mcp", token)))
    refused(call(url, token, proof(key, "POST", url + "?x=1", token)))  # htu with a query
    refused(call(url, token, proof(key, "GET", url, token)))  # wrong htm
    refused(call(url, token, proof(key, "POST", url, token, iat=now - 3600)))  # stale
    refused(call(url, token, proof(key, "POST", url, token, iat=now + 3600)))  # from the future
    refused(call(url, token, proof(key, "POST", url, token, drop=("ath",))))  # no ath
    refused(call(url, token, proof(key, "POST", url, token, ath=_b64(b"x" * 32))))  # ath of another token
    refused(call(url, token, proof(key, "POST", url, token, drop=("jti",))))
    refused(call(url, token, unsigned_proof(key, url, token)))  # alg none
    hmac_key = OctKey.generate_key(256)
    hs = jwt.encode({"typ": "dpop+jwt", "alg": "HS256", "jwk": key.as_dict(private=False)},
                    {"jti": "j-hs", "htm": "POST", "htu": url, "iat": int(now)}, hmac_key, algorithms=["HS256"])
    refused(call(url, token, hs))
    refused(call(url, token, proof(key, "POST", url, token, header={"jwk": key.as_dict(private=True)})))  # private key
    refused(call(url, token, proof(key, "POST", url, token, header={"typ": "JWT"})))
    forged = proof(key, "POST", url, token)
    head, claims, sig = forged.split(".")
    tampered = json.loads(base64.urlsafe_b64decode(claims + "=="))
    tampered["htm"] = "POST"
    tampered["jti"] = "changed"
    refused(call(url, token, f"{head}.{_b64(json.dumps(tampered).encode())}.{sig}"))  # bad signature
    two = [proof(key, "POST", url, token), proof(key, "POST", url, token)]
    refused(call(url, token, two))  # two DPoP headers
    # replay: the same proof twice
    once = proof(key, "POST", url, token)
    assert subject(call(url, token, once)) == "dpop-user-5d1"
    refused(call(url, token, once))
    # a DPoP-bound token presented as Bearer is refused (Bearer challenge)
    res = call(url, token, None, scheme="Bearer")
    assert res.status_code == 401 and 'error="invalid_token"' in res.headers["www-authenticate"]
    # an unbound token with a valid proof: invalid_token
    plain = issuer.token(scope="vault:read", resource=url, sub="plain-1")
    _SEEN.add(plain)
    refused(call(url, plain, proof(key, "POST", url, plain)), "invalid_token")
    # ... but as Bearer it still works on this server ("allow")
    assert subject(call(url, plain, None, scheme="Bearer")) == "plain-1"


def test_nonces_and_required_dpop(strict: VaultProcess, issuer: AuthServer) -> None:
    key = ECKey.generate_key("P-256")
    url = strict.url
    token = bound_token(issuer, key, url)
    first = call(url, token, proof(key, "POST", url, token))
    refused(first, "use_dpop_nonce")
    nonce = first.headers["dpop-nonce"]
    assert nonce
    assert subject(call(url, token, proof(key, "POST", url, token, nonce=nonce))) == "dpop-user-5d1"
    refused(call(url, token, proof(key, "POST", url, token, nonce="1.forged")), "use_dpop_nonce")
    # Bearer is refused outright, with a DPoP challenge; the metadata says DPoP is required
    plain = issuer.token(scope="vault:read", resource=url, sub="plain-2")
    _SEEN.add(plain)
    res = call(url, plain, None, scheme="Bearer")
    assert res.status_code == 401 and challenge(res)["error"] == "invalid_token"
    meta = httpx.get(f"http://127.0.0.1:{strict.port}/.well-known/oauth-protected-resource", timeout=10).json()
    assert meta["dpop_bound_access_tokens_required"] is True
    no_token = httpx.post(url, json=modern_request(1, "tools/list", {}), headers=modern_headers("tools/list"), timeout=10)
    assert no_token.status_code == 401 and no_token.headers["www-authenticate"].startswith("DPoP ")
