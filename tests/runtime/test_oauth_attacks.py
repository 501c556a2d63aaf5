"""A generated OAuth resource server under attack, against real authorization servers.

Two ``oauth2-mock-server`` instances run on 127.0.0.1: the configured issuer and a second,
never configured one whose JWKS really holds the key it signs with.  The ``vault`` spec is
served by ``python -m vault --http --auth-clock-skew 30``.  A local HTTP listener records
every request it gets: tokens whose ``jku``/``x5u``/``kid`` headers point at it, or that
embed a key (``jwk``, ``x5c``), must never make the server contact it.  Every bad token is
answered 401 ``Bearer error="invalid_token"`` (RFC 6750), nothing of it in the response,
and the server's stderr has no traceback.  The attack catalogue is in docs/guarantees.md.
"""

from __future__ import annotations

import base64
import datetime
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from common_support import free_port
from http_support import modern_headers, modern_request
from oauth_as_support import AuthServer, VaultProcess, auth_server, build_vault, hmac_signed, public_pem

SKEW = 30


class Recorder:
    """An HTTP listener on 127.0.0.1 that answers a JWKS of the attacker's key and records
    every request path it gets."""

    def __init__(self, jwks: dict[str, Any]) -> None:
        self.paths: list[str] = []
        seen = self.paths
        body = json.dumps(jwks).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append(self.path)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with auth_server() as server:
        yield server


@pytest.fixture(scope="module")
def stranger() -> Iterator[AuthServer]:
    """A second, real authorization server the resource server does not trust."""
    with auth_server() as server:
        yield server


@pytest.fixture(scope="module")
def attacker() -> Any:
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def recorder(attacker: Any) -> Iterator[Recorder]:
    import jwt

    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(attacker.public_key()))
    rec = Recorder({"keys": [{**jwk, "kid": "key-1", "alg": "RS256", "use": "sig"}]})
    yield rec
    rec.close()


@pytest.fixture(scope="module")
def server(issuer: AuthServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VaultProcess]:
    port = free_port()
    folder = build_vault(tmp_path_factory.mktemp("vault"), issuer.issuer, f"http://127.0.0.1:{port}/mcp")
    proc = VaultProcess(folder, port, "--auth-jwks-refetch", "0", "--auth-clock-skew", str(SKEW))
    yield proc
    log = proc.stop()
    assert "Traceback" not in log, log[-4000:]
    for secret in _SEEN:
        assert secret not in log, "a token reached the server log"


_SEEN: set[str] = set()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _good(issuer: AuthServer, server: VaultProcess, **extra: Any) -> dict[str, Any]:
    now = int(time.time())
    return {"iss": issuer.issuer, "aud": server.url, "sub": "mallory-0b7d", "scope": "vault:read vault:write",
            "iat": now, "exp": now + 600, **extra}


def _call(server: VaultProcess, token: str) -> httpx.Response:
    body = modern_request(1, "tools/call", {"name": "whoami", "arguments": {}})
    headers = {**modern_headers("tools/call", name="whoami"), "authorization": f"Bearer {token}"}
    return httpx.post(server.url, json=body, headers=headers, timeout=10)


def _refused(server: VaultProcess, token: str, status: tuple[int, ...] = (401,)) -> httpx.Response:
    """The answer to a call with ``token``: refused with ``status``, ``invalid_token`` on a 401,
    and nothing of the token in it."""
    _SEEN.add(token)
    started = time.monotonic()
    res = _call(server, token)
    assert time.monotonic() - started < 5
    assert res.status_code in status, res.text[:500]
    if res.status_code == 401:
        challenge = res.headers["www-authenticate"]
        assert challenge.startswith("Bearer ") and 'error="invalid_token"' in challenge
        assert res.json()["error"]["message"] == "Unauthorized: invalid bearer token"
    text = res.text + json.dumps(dict(res.headers))
    assert token not in text and "Traceback" not in text
    for part in token.split("."):
        assert len(part) < 16 or part not in text
    return res


def _accepted(server: VaultProcess, token: str) -> None:
    res = _call(server, token)
    assert res.status_code == 200, res.text


def _signed(issuer: AuthServer, claims: dict[str, Any]) -> str:
    """``claims`` signed by the configured issuer's real published key (only what is given)."""
    keep = {k: claims.get(k) for k in ("iss", "iat", "exp", "nbf")}
    return issuer.signed_with(issuer.kid, {**claims, **keep})


def _attacker_token(attacker: Any, claims: dict[str, Any], headers: dict[str, Any]) -> str:
    """``claims`` signed RS256 by the attacker's key, with any header fields (signed by hand:
    PyJWT refuses to write some of them)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    signing_input = _b64(json.dumps({"alg": "RS256", "typ": "JWT", **headers}).encode()) + "." + _b64(
        json.dumps(claims).encode())
    signature = attacker.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64(signature)}"


# --- algorithm confusion ------------------------------------------------------------------

@pytest.mark.parametrize("alg", ["none", "None", "NONE", "nOnE"])
def test_unsigned_tokens_are_refused(server: VaultProcess, issuer: AuthServer, alg: str) -> None:
    header = _b64(json.dumps({"alg": alg, "typ": "JWT", "kid": issuer.kid}).encode())
    payload = _b64(json.dumps(_good(issuer, server)).encode())
    _refused(server, f"{header}.{payload}.")
    _refused(server, f"{header}.{payload}")


@pytest.mark.parametrize("form", ["pem", "modulus", "jwk-json"])
@pytest.mark.parametrize("alg", ["HS256", "HS384", "HS512"])
def test_hmac_keyed_with_the_public_key_is_refused(server: VaultProcess, issuer: AuthServer, form: str, alg: str) -> None:
    import hashlib
    import hmac

    jwk = httpx.get(f"{issuer.issuer}/jwks", timeout=10).json()["keys"][0]
    secret = {"pem": public_pem(jwk), "modulus": base64.urlsafe_b64decode(jwk["n"] + "=="),
              "jwk-json": json.dumps(jwk).encode()}[form]
    if alg == "HS256":
        token = hmac_signed(_good(issuer, server), secret, issuer.kid)
    else:
        digest = {"HS384": hashlib.sha384, "HS512": hashlib.sha512}[alg]
        signing_input = (_b64(json.dumps({"alg": alg, "typ": "JWT", "kid": issuer.kid}).encode()) + "."
                         + _b64(json.dumps(_good(issuer, server)).encode()))
        token = f"{signing_input}.{_b64(hmac.new(secret, signing_input.encode(), digest).digest())}"
    _refused(server, token)


@pytest.mark.parametrize("alg", ["RS1", "ES256K", "", "rs256", 256, None])
def test_an_algorithm_not_in_the_allowed_list_is_refused(server: VaultProcess, issuer: AuthServer, attacker: Any,
                                                          alg: Any) -> None:
    real = _signed(issuer, _good(issuer, server))
    head, payload, signature = real.split(".")
    header = json.loads(base64.urlsafe_b64decode(head + "=="))
    header["alg"] = alg
    _refused(server, f"{_b64(json.dumps(header).encode())}.{payload}.{signature}")


# --- header injection ---------------------------------------------------------------------

def _self_signed_cert(key: Any) -> str:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import NameOID

    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "attacker")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    return base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode()


@pytest.mark.parametrize("case", ["jku", "x5u", "jwk", "x5c", "kid-url", "kid-nowhere", "kid-path", "kid-sql",
                                  "kid-empty", "kid-number"])
def test_key_headers_are_never_fetched_or_trusted(server: VaultProcess, issuer: AuthServer, attacker: Any,
                                                   recorder: Recorder, case: str) -> None:
    import jwt

    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(attacker.public_key()))
    headers: dict[str, Any] = {
        "jku": {"kid": "key-1", "jku": f"{recorder.url}/jku.json"},
        "x5u": {"kid": "key-1", "x5u": f"{recorder.url}/x5u.pem"},
        "jwk": {"kid": "key-1", "jwk": public},
        "x5c": {"kid": "key-1", "x5c": [_self_signed_cert(attacker)]},
        "kid-url": {"kid": f"{recorder.url}/kid.json"},
        "kid-nowhere": {"kid": "no-such-key-4c1d"},
        "kid-path": {"kid": "../../../../../../dev/null"},
        "kid-sql": {"kid": "x' UNION SELECT 'secret' --"},
        "kid-empty": {"kid": ""},
        "kid-number": {"kid": 1},
    }[case]
    before = len(recorder.paths)
    _refused(server, _attacker_token(attacker, _good(issuer, server), headers))
    assert recorder.paths[before:] == [], "the resource server fetched a URL named by a token"


# --- audience and issuer confusion --------------------------------------------------------

def test_a_token_for_another_resource_is_refused(server: VaultProcess, issuer: AuthServer) -> None:
    for aud in ("http://127.0.0.1:1/mcp", [f"{server.url}x"], f"{server.url}/other", [], 7,
                f"http://127.0.0.1:{server.port}/mcp2"):
        _refused(server, _signed(issuer, _good(issuer, server, aud=aud)))
    # the real token endpoint, asked for another resource
    _refused(server, issuer.token(scope="vault:read", resource="http://127.0.0.1:1/other", sub="m"))


def test_a_token_of_a_stranger_issuer_is_refused(server: VaultProcess, issuer: AuthServer, stranger: AuthServer) -> None:
    # a genuine token of an authorization server that is not configured (its JWKS holds the key)
    genuine = stranger.token(scope="vault:read vault:write", resource=server.url, sub="mallory-0b7d")
    assert httpx.get(f"{stranger.issuer}/jwks", timeout=10).json()["keys"]
    _refused(server, genuine)
    # the stranger's key, claiming to be the configured issuer (same kid "key-1")
    _refused(server, stranger.token(scope="vault:read", resource=server.url, sub="m", claims={"iss": issuer.issuer}))


@pytest.mark.parametrize("variant", ["slash", "upper-scheme", "upper-host", "localhost", "space", "missing", "list"])
def test_issuer_variants_are_refused(server: VaultProcess, issuer: AuthServer, variant: str) -> None:
    iss = issuer.issuer
    value: Any = {"slash": iss + "/", "upper-scheme": iss.replace("http://", "HTTP://"),
                  "upper-host": iss.replace("127.0.0.1", "127.0.0.01"), "localhost": iss.replace("127.0.0.1", "localhost"),
                  "space": iss + " ", "missing": None, "list": [iss]}[variant]
    _refused(server, issuer.signed_with(issuer.kid, {"iss": value, "aud": server.url, "sub": "m", "scope": "vault:read"}))


# --- time claims around the clock skew ----------------------------------------------------

@pytest.mark.parametrize(("claim", "offset", "ok"), [
    ("exp", -(SKEW - 10), True), ("exp", -(SKEW + 10), False),
    ("nbf", SKEW - 10, True), ("nbf", SKEW + 10, False),
    ("iat", SKEW - 10, True), ("iat", SKEW + 10, False),
    ("exp", None, False), ("exp", "9999999999", False), ("nbf", "0", False),
])
def test_time_claims_around_the_clock_skew(server: VaultProcess, issuer: AuthServer, claim: str, offset: Any,
                                           ok: bool) -> None:
    now = int(time.time())
    claims = _good(issuer, server, iat=now - 5)
    claims[claim] = now + offset if isinstance(offset, int) else offset
    token = _signed(issuer, claims)
    if ok:
        _accepted(server, token)
    else:
        _refused(server, token)


# --- oversized and malformed tokens -------------------------------------------------------

def _too_big(server: VaultProcess, token: str) -> None:
    """A huge bearer header: 400/431 from the HTTP server (h11 refuses a request head it
    cannot parse within 16 KiB), or the connection closed at once (it answers 400 and
    closes while the client still sends, so the client may see a reset), or, when the
    whole head arrived in one read, 401 ``invalid_token`` from the verifier."""
    started = time.monotonic()
    try:
        res = _call(server, token)
    except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError):
        pass
    else:
        assert res.status_code in (400, 401, 431), res.status_code
        assert token[:64] not in res.text and "Traceback" not in res.text
        if res.status_code == 401:
            assert 'error="invalid_token"' in res.headers["www-authenticate"]
    assert time.monotonic() - started < 5


def _nested(depth: int, opening: str = '{"n":', closing: str = "}") -> str:
    return opening * depth + "1" + closing * depth


def test_oversized_tokens_are_refused_at_once(server: VaultProcess, issuer: AuthServer, attacker: Any) -> None:
    _too_big(server, "a" * (1024 * 1024))
    many = {f"c{i}": i for i in range(10_000)}
    _too_big(server, _attacker_token(attacker, _good(issuer, server, **many), {"kid": "key-1"}))
    header = _b64(json.dumps({"alg": "RS256", "kid": issuer.kid}).encode())
    _too_big(server, f"{header}.{_b64(_nested(5_000).encode())}.c2ln")
    # just under the header limit, the verifier itself sees them: 401, no traceback
    _refused(server, "e30." + "a" * 15_000 + ".c2ln")
    _refused(server, _attacker_token(attacker, _good(issuer, server, **{f"c{i}": i for i in range(800)}), {"kid": "key-1"}))
    deep = _b64(('{"deep":' + _nested(1_500) + "}").encode())
    _refused(server, f"{header}.{deep}.c2ln")
    _refused(server, f"{_b64(_nested(1_500, '[', ']').encode())}.e30.c2ln")
    shallower = _b64(('{"deep":' + _nested(900) + "}").encode())
    _refused(server, f"{header}.{shallower}.c2ln")
    # the server still answers a good token afterwards
    _accepted(server, _signed(issuer, _good(issuer, server)))


@pytest.mark.parametrize("token", [
    "abc", "abc.def", "a.b.c.d", "..", "!!!.###.$$$", _b64(b"not json") + ".e30.c2ln",
    _b64(b"[1,2]") + ".e30.c2ln", _b64(b'"RS256"') + ".e30.c2ln", _b64(b"{}") + ".e30.c2ln",
    _b64(b'{"alg":"RS256"}') + "." + _b64(b"[]") + ".c2ln", _b64(b'{"alg":"RS256"}') + "." + _b64(b"\xff\xfe") + ".c2ln",
    _b64(b'{"alg":"RS256","kid":"key-1"}') + ".e30.%%%",
])
def test_malformed_tokens_are_refused(server: VaultProcess, token: str) -> None:
    _refused(server, token, (400, 401))


def test_nothing_was_fetched_from_the_recorder(recorder: Recorder) -> None:
    assert recorder.paths == []



def test_503_only_when_the_authorization_server_is_unreachable(issuer: AuthServer, attacker: Any,
                                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    dead = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    port = free_port()
    folder = build_vault(tmp_path_factory.mktemp("vault-dead"), dead, f"http://127.0.0.1:{port}/mcp")
    proc = VaultProcess(folder, port)
    try:
        claims = {"iss": dead, "aud": proc.url, "sub": "m", "exp": int(time.time()) + 600}
        token = _attacker_token(attacker, claims, {"kid": "key-1"})
        res = _call(proc, token)
        assert res.status_code == 503 and res.headers["retry-after"] == "5"
        assert "www-authenticate" not in res.headers
        assert token not in res.text and dead not in res.text
        # bad tokens that need no key are still 401, not 503
        for bad in ("abc.def", _attacker_token(attacker, {**claims, "iss": issuer.issuer}, {"kid": "key-1"}),
                    f"{_b64(json.dumps({'alg': 'none'}).encode())}.{_b64(json.dumps(claims).encode())}."):
            _refused(proc, bad)
    finally:
        log = proc.stop()
    assert "Traceback" not in log
