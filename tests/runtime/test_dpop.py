"""DPoP pieces in isolation: the client's proofs, the server's thumbprints, nonces and replay cache.

Oracles are independent of the code under test: joserfc computes RFC 7638 thumbprints and
PyJWT verifies the client's proofs; the RFC 7638 example key gives a known thumbprint.
"""

from __future__ import annotations

import base64
import hashlib

import jwt
import pytest
from joserfc.jwk import ECKey, OKPKey, RSAKey
from mcp_codegen_runtime.client.oauth.dpop import DPoPKey, NonceCache, claim
from mcp_codegen_runtime.server.http.dpop import DPoPChecker, DPoPError, NonceSource, Proof, comparable_htu, thumbprint

#: RFC 7638 §3.1's example RSA key and its thumbprint.
RFC7638_KEY = {
    "kty": "RSA", "e": "AQAB", "alg": "RS256", "kid": "2011-04-29",
    "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMs"
         "tn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1"
         "n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
}  # fmt: skip


def test_thumbprints_match_rfc7638_and_joserfc() -> None:
    assert thumbprint(RFC7638_KEY) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
    for key in (ECKey.generate_key("P-256"), ECKey.generate_key("P-384"), RSAKey.generate_key(2048),
                OKPKey.generate_key("Ed25519")):
        assert thumbprint(key.as_dict(private=False)) == key.thumbprint()
    with pytest.raises(ValueError):
        thumbprint({"kty": "oct", "k": "c2VjcmV0"})


def test_client_proofs_verify_and_carry_the_claims() -> None:
    key = DPoPKey()
    token = "an-access-token"
    proof = key.proof("post", "https://mcp.example.com/mcp?x=1#f", access_token=token, nonce="n-1")
    header = jwt.get_unverified_header(proof)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and "d" not in header["jwk"]
    claims = jwt.decode(proof, jwt.PyJWK(header["jwk"], algorithm="ES256").key, algorithms=["ES256"])
    assert claims["htm"] == "POST" and claims["htu"] == "https://mcp.example.com/mcp"
    assert claims["ath"] == base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()
    assert claims["nonce"] == "n-1" and claim(proof, "nonce") == "n-1"
    again = key.proof("POST", "https://mcp.example.com/mcp")
    assert claim(again, "jti") != claims["jti"] and "ath" not in jwt.decode(again, options={"verify_signature": False})
    assert thumbprint(header["jwk"]) == key.thumbprint
    # the stored private JWK gives the same key back
    assert DPoPKey(key.private_jwk()).thumbprint == key.thumbprint
    assert key.private_jwk()["d"] not in repr(key)


def test_nonce_cache_remembers_per_server() -> None:
    cache = NonceCache()
    assert cache.update("https://A.example/mcp", "n1") is True
    assert cache.update("https://a.example/other", "n1") is False  # same server, same nonce
    assert cache.get("https://a.example/x") == "n1" and cache.get("https://b.example/mcp") is None
    assert cache.update("https://a.example/mcp", "bad\nnonce") is False


def test_server_nonces_are_windowed_and_keyed() -> None:
    source = NonceSource("shared-secret", 300)
    now = 1_000_000.0
    nonce = source.current(now)
    assert source.valid(nonce, now) and source.valid(nonce, now + 300)  # the next window still accepts it
    assert not source.valid(nonce, now + 600)
    assert NonceSource("shared-secret", 300).valid(nonce, now)  # replicas with the same secret
    assert not NonceSource("another-secret", 300).valid(nonce, now)
    window, mac = nonce.split(".")
    assert not source.valid(f"{int(window) + 1}.{mac}", now)
    assert not source.valid("garbage", now) and not source.valid(None, now)


def test_replay_cache_is_bounded_and_detects_replays() -> None:
    checker = DPoPChecker("https://mcp.example.com/mcp", ["ES256"], proof_lifetime=300, clock_skew=0, replay_cache=3)
    now = 1_000_000.0
    checker.remember(Proof("k", "j1", now), now)
    with pytest.raises(DPoPError) as info:
        checker.remember(Proof("k", "j1", now), now + 1)
    assert info.value.error == "invalid_dpop_proof"
    checker.remember(Proof("other-key", "j1", now), now)  # the same jti under another key is another proof
    for n in range(2, 6):
        checker.remember(Proof("k", f"j{n}", now), now)
    assert len(checker._seen) == 3  # the oldest dropped
    checker.remember(Proof("k", "j1", now), now + 400)  # expired entries are pruned: no false replay later


def test_htu_comparison() -> None:
    assert comparable_htu("HTTPS://MCP.Example.com:443/mcp/") == "https://mcp.example.com/mcp"
    assert comparable_htu("http://127.0.0.1:8080/mcp") == "http://127.0.0.1:8080/mcp"
    assert comparable_htu("http://[::1]:80/mcp") == "http://[::1]/mcp"
    assert comparable_htu("https://mcp.example.com/MCP") != comparable_htu("https://mcp.example.com/mcp")
