"""Edges of the resource server's token checks that real HTTP cannot pin to the second:
``exp``/``nbf``/``iat`` exactly at the clock skew, and an ``alg`` outside a configured
allow-list refused before any key is fetched.  The attacks over HTTP are in
tests/runtime/test_oauth_attacks.py."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from mcp_codegen_runtime.server.http.jwks import JwtVerifier
from mcp_codegen_runtime.server.http.verifiers import InvalidToken, check_times

NOW = 1_800_000_000.0
SKEW = 30.0


@pytest.mark.parametrize(("claims", "refused"), [
    ({"exp": NOW - SKEW + 1}, None), ({"exp": NOW - SKEW}, "expired"), ({"exp": NOW - SKEW - 1}, "expired"),
    ({"exp": NOW + 60, "nbf": NOW + SKEW}, None), ({"exp": NOW + 60, "nbf": NOW + SKEW + 1}, "nbf is in the future"),
    ({"exp": NOW + 60, "iat": NOW + SKEW}, None), ({"exp": NOW + 60, "iat": NOW + SKEW + 0.5}, "iat is in the future"),
    ({}, "no exp claim"), ({"exp": True}, "exp is not a number"), ({"exp": "9999999999"}, "exp is not a number"),
    ({"exp": NOW + 60, "nbf": [0]}, "nbf is not a number"),
])
def test_time_claims_exactly_at_the_skew(claims: dict[str, object], refused: str | None) -> None:
    if refused is None:
        check_times(claims, SKEW, NOW)
        return
    with pytest.raises(InvalidToken) as info:
        check_times(claims, SKEW, NOW)
    assert info.value.reason == refused


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.mark.parametrize("alg", ["ES256", "PS256", "EdDSA", "HS256", "none"])
def test_an_algorithm_outside_the_allow_list_is_refused_before_any_fetch(alg: str) -> None:
    # the JWKS URL is a closed loopback port: a fetch would raise AuthServerUnavailable
    verifier = JwtVerifier(["https://as.example"], ["https://rs.example/mcp"], jwks_url="http://127.0.0.1:9/jwks",
                           algorithms=("RS256",))
    claims = {"iss": "https://as.example", "aud": "https://rs.example/mcp", "sub": "m", "exp": 4_000_000_000}
    token = f"{_b64(json.dumps({'alg': alg, 'kid': 'k'}).encode())}.{_b64(json.dumps(claims).encode())}.c2ln"
    with pytest.raises(InvalidToken) as info:
        asyncio.run(verifier.verify(token))
    assert info.value.reason == "algorithm not allowed"
    assert verifier.caches["https://as.example"].fetches == 0
