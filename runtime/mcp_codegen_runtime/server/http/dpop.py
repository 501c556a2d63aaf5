"""DPoP (RFC 9449) on the resource server: proofs of possession for DPoP-bound access tokens.

A request ``Authorization: DPoP <token>`` must carry exactly one ``DPoP`` header, a proof JWT
that :meth:`DPoPChecker.check` verifies in this order (any failure: 401 ``DPoP
error="invalid_dpop_proof"``; the reason is logged, never sent):

1. the header: ``typ`` is ``dpop+jwt``; ``alg`` an allowed asymmetric algorithm (never
   ``none``, never HMAC); ``jwk`` a public key (no private member) of the type ``alg`` needs;
2. the signature, with that embedded key (PyJWT, exactly that algorithm);
3. ``htm`` is the request's method and ``htu`` the endpoint's URL (the resource URL, compared
   with scheme and host lower-cased, default ports and a trailing ``/`` dropped; a query or
   fragment in ``htu`` is refused);
4. ``iat`` within ``proof_lifetime`` seconds in the past and ``clock_skew`` in the future;
5. ``ath`` is base64url(SHA-256(the access token));
6. with nonces on: ``nonce`` is one this server issued within ``nonce_lifetime`` (else 401
   ``DPoP error="use_dpop_nonce"`` and a fresh ``DPoP-Nonce`` header);
7. (:meth:`DPoPChecker.remember`, once the token is verified and bound to the key, so
   proofs without a valid token cannot fill the cache) ``jti`` not seen before with this key
   within the proof lifetime (replay cache, bounded: at most ``replay_cache`` entries, the
   oldest dropped first, expired ones pruned).

The check returns a :class:`Proof` (the key's RFC 7638 thumbprint, ``jti``, ``iat``); the
caller (``server/http/access.py``) verifies the token, requires its ``cnf.jkt`` to equal the
thumbprint, then remembers the proof.  Nonces are stateless (an HMAC
of the time window): replicas and workers sharing ``nonce_secret`` (``OAuthSettings.
dpop_nonce_secret`` or ``$MCP_CODEGEN_DPOP_NONCE_SECRET``) accept each other's.  The replay
cache is per process.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, NamedTuple
from urllib.parse import urlsplit

logger = logging.getLogger("mcp_codegen.http.auth")

NONCE_SECRET_ENV = "MCP_CODEGEN_DPOP_NONCE_SECRET"
_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
_PRIVATE_MEMBERS = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")
_THUMBPRINT_MEMBERS = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n"), "OKP": ("crv", "kty", "x")}
_MAX_PROOF = 8192


class Proof(NamedTuple):
    """A proof that passed :meth:`DPoPChecker.check`."""

    jkt: str
    jti: str
    iat: float


class DPoPError(Exception):
    """A refused proof: ``error`` for the challenge, ``reason`` for the log only."""

    def __init__(self, error: str, reason: str, nonce: str | None = None) -> None:
        super().__init__(reason)
        self.error, self.reason, self.nonce = error, reason, nonce


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def thumbprint(jwk: dict[str, Any]) -> str:
    """The RFC 7638 SHA-256 thumbprint of a public JWK (its required members only).

    Raises:
        ValueError: an unknown key type or a missing member.
    """
    members = _THUMBPRINT_MEMBERS.get(str(jwk.get("kty")))
    if members is None or not all(isinstance(jwk.get(m), str) for m in members):
        raise ValueError("not a public EC, RSA or OKP JWK")
    canonical = json.dumps({m: jwk[m] for m in members}, separators=(",", ":"), sort_keys=True)
    return _b64(hashlib.sha256(canonical.encode("utf-8")).digest())


def comparable_htu(url: str) -> str:
    """``scheme://host[:port]/path`` lower-cased where case does not count, no default port, no trailing ``/``."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if port in (None, default) else f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path.rstrip('/')}"


class NonceSource:
    """Stateless nonces: ``<window>.<HMAC(secret, window)>``, valid in their window and the next."""

    def __init__(self, secret: str | bytes | None, lifetime: float) -> None:
        raw = secret if secret is not None else os.environ.get(NONCE_SECRET_ENV)
        self._secret = (raw.encode("utf-8") if isinstance(raw, str) else raw) or secrets.token_bytes(32)
        self.lifetime = max(1.0, float(lifetime))

    def _mac(self, window: int) -> str:
        return _b64(hmac.new(self._secret, str(window).encode("ascii"), hashlib.sha256).digest()[:18])

    def current(self, now: float | None = None) -> str:
        window = int((time.time() if now is None else now) // self.lifetime)
        return f"{window}.{self._mac(window)}"

    def valid(self, nonce: Any, now: float | None = None) -> bool:
        if not isinstance(nonce, str) or nonce.count(".") != 1 or len(nonce) > 64:
            return False
        head, mac = nonce.split(".")
        if not head.isdigit():
            return False
        window = int(head)
        current = int((time.time() if now is None else now) // self.lifetime)
        return window in (current, current - 1) and hmac.compare_digest(mac, self._mac(window))


class DPoPChecker:
    """Verifies DPoP proofs (module docstring).

    Args:
        url: the endpoint's canonical URL (the expected ``htu``).
        algorithms: accepted proof algorithms (asymmetric only; HMAC and ``none`` are dropped).
        proof_lifetime: seconds a proof is accepted after its ``iat`` (and kept in the replay cache).
        clock_skew: seconds a proof's ``iat`` may be in the future.
        nonces: issue and require server nonces when given.
        replay_cache: most ``jti`` values remembered.
    """

    def __init__(self, url: str, algorithms: Sequence[str], *, proof_lifetime: float = 300.0, clock_skew: float = 60.0,
                 nonces: NonceSource | None = None, replay_cache: int = 100_000) -> None:
        self.htu = comparable_htu(url)
        self.algorithms = tuple(a for a in algorithms if a[:2] in _KEY_TYPES)
        self.proof_lifetime, self.clock_skew = float(proof_lifetime), float(clock_skew)
        self.nonces = nonces
        self.max_seen = max(1, int(replay_cache))
        self._seen: OrderedDict[str, float] = OrderedDict()

    def check(self, proof: str | None, method: str, token: str, now: float | None = None) -> Proof:
        """The proof's key thumbprint, ``jti`` and ``iat``, once checks 1-6 passed (module docstring).

        Raises:
            DPoPError: ``invalid_dpop_proof`` or ``use_dpop_nonce``.
        """
        from .jwks import import_pyjwt

        jwt = import_pyjwt()
        bad = "invalid_dpop_proof"
        if not proof or "," in proof or len(proof) > _MAX_PROOF:
            raise DPoPError(bad, "no single DPoP proof header" if not proof or "," in proof else "DPoP proof too large")
        try:
            header = jwt.get_unverified_header(proof)
        except jwt.PyJWTError:
            raise DPoPError(bad, "DPoP proof is not a JWT") from None
        alg, jwk = header.get("alg"), header.get("jwk")
        if header.get("typ") != "dpop+jwt":
            raise DPoPError(bad, "DPoP proof typ is not dpop+jwt")
        if not isinstance(alg, str) or alg not in self.algorithms:
            raise DPoPError(bad, "DPoP proof alg not allowed")
        if not isinstance(jwk, dict) or any(m in jwk for m in _PRIVATE_MEMBERS):
            raise DPoPError(bad, "DPoP proof jwk missing or not a public key")
        if jwk.get("kty") != _KEY_TYPES[alg[:2]]:
            raise DPoPError(bad, "DPoP proof jwk does not fit its alg")
        try:
            jkt = thumbprint(jwk)
            key = jwt.PyJWK(jwk, algorithm=alg)
            claims = jwt.decode(proof, key.key, algorithms=[alg], options={
                "verify_aud": False, "verify_iss": False, "verify_exp": False, "verify_nbf": False,
                "verify_iat": False})
        except (jwt.PyJWTError, ValueError, TypeError):
            raise DPoPError(bad, "DPoP proof signature or key invalid") from None
        now = time.time() if now is None else now
        self._claims(claims, method, token, now)
        if self.nonces is not None and not self.nonces.valid(claims.get("nonce"), now):
            raise DPoPError("use_dpop_nonce", "DPoP proof without a current nonce", self.nonces.current(now))
        return Proof(jkt, str(claims["jti"]), float(claims["iat"]))

    def _claims(self, claims: dict[str, Any], method: str, token: str, now: float) -> None:
        bad = "invalid_dpop_proof"
        jti, htm, htu, iat, ath = (claims.get(k) for k in ("jti", "htm", "htu", "iat", "ath"))
        if not isinstance(jti, str) or not 1 <= len(jti) <= 256:
            raise DPoPError(bad, "DPoP proof jti missing or malformed")
        if htm != method.upper():
            raise DPoPError(bad, "DPoP proof htm does not match the request method")
        if not isinstance(htu, str) or "?" in htu or "#" in htu or comparable_htu(htu) != self.htu:
            raise DPoPError(bad, "DPoP proof htu does not match this endpoint")
        if isinstance(iat, bool) or not isinstance(iat, (int, float)):
            raise DPoPError(bad, "DPoP proof iat missing")
        if iat > now + self.clock_skew or iat < now - self.proof_lifetime:
            raise DPoPError(bad, "DPoP proof iat outside the accepted window")
        expected = _b64(hashlib.sha256(token.encode("ascii", "replace")).digest())
        if not isinstance(ath, str) or not hmac.compare_digest(ath, expected):
            raise DPoPError(bad, "DPoP proof ath missing or not the hash of the access token")

    def remember(self, proof: Proof, now: float | None = None) -> None:
        """Record a proof of an accepted request.

        Raises:
            DPoPError: ``invalid_dpop_proof``, the proof was used before (a replay).
        """
        now = time.time() if now is None else now
        key, iat = f"{proof.jkt}:{proof.jti}", proof.iat
        seen = self._seen
        while seen:  # prune expired entries (oldest first)
            oldest, until = next(iter(seen.items()))
            if until > now:
                break
            del seen[oldest]
        if key in seen:
            raise DPoPError("invalid_dpop_proof", "DPoP proof replayed (jti seen before)")
        seen[key] = max(iat, now) + self.proof_lifetime + self.clock_skew
        while len(seen) > self.max_seen:
            seen.popitem(last=False)


__all__ = ["NONCE_SECRET_ENV", "DPoPChecker", "DPoPError", "NonceSource", "Proof", "comparable_htu", "thumbprint"]
