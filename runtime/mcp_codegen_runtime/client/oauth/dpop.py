"""DPoP (RFC 9449) for the OAuth client: proofs of possession, server nonces, bound tokens.

Used by :class:`~client.oauth.flow.OAuthFlow` when DPoP is on (``OAuthSettings.dpop``):

* :class:`DPoPKey` is the client's key pair (EC P-256, ``ES256``), made once per flow and kept
  in the token storage entry with the tokens it binds (a stored DPoP-bound token is useless
  without it).  Each :meth:`DPoPKey.proof` is a fresh JWT (``typ: dpop+jwt``, the public key
  as ``jwk``) with a new ``jti``, ``htm`` (the HTTP method), ``htu`` (the request URL without
  query and fragment), ``iat``, the server's ``nonce`` when one was given, and ``ath`` (the
  SHA-256 of the access token) on requests to a resource server.
* :class:`NonceCache` keeps the last ``DPoP-Nonce`` each server (origin) sent; the next proof
  to that server carries it.  A ``use_dpop_nonce`` error is retried once with the new nonce.

The signing is joserfc's (the JOSE library authlib itself uses); only hashing and encoding
are done here.  joserfc is imported when the first key is made.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

#: The proof algorithm (the only one this client signs with; every DPoP server supports it).
DPOP_ALG = "ES256"
#: The ``error`` of a challenge (resource server) or token error (authorization server) asking for a nonce.
USE_DPOP_NONCE = "use_dpop_nonce"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def token_hash(access_token: str) -> str:
    """``ath``: base64url(SHA-256(the ASCII access token)) (RFC 9449 §4.2)."""
    return _b64(hashlib.sha256(access_token.encode("ascii")).digest())


def htu(url: str) -> str:
    """The ``htu`` of a request to ``url``: without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def server_of(url: str) -> str:
    """The key of a server in the nonce cache (scheme and authority)."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def _need_joserfc() -> Any:
    try:
        from joserfc import jwt  # type: ignore[import-not-found, unused-ignore]
        from joserfc.jwk import ECKey  # type: ignore[import-not-found, unused-ignore]
    except ImportError:  # pragma: no cover - optional extra
        raise RuntimeError("DPoP needs joserfc: pip install 'joserfc>=1.0' (or the package's [oauth] extra)") from None
    return jwt, ECKey


class DPoPKey:
    """The client's DPoP key pair.

    Args:
        jwk: a stored private key (a JWK dict); a new P-256 key when None.
    """

    def __init__(self, jwk: dict[str, Any] | None = None) -> None:
        _, ec_key = _need_joserfc()
        self._key = ec_key.import_key(jwk) if jwk is not None else ec_key.generate_key("P-256")
        self.public_jwk: dict[str, Any] = dict(self._key.as_dict(private=False))
        #: The RFC 7638 thumbprint (``cnf.jkt`` of the tokens bound to this key).
        self.thumbprint: str = str(self._key.thumbprint())

    def private_jwk(self) -> dict[str, Any]:
        """The private key as a JWK (for the token storage; a secret)."""
        return dict(self._key.as_dict(private=True))

    def proof(self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None) -> str:
        """A fresh DPoP proof for one request (see the module docstring)."""
        jwt, _ = _need_joserfc()
        claims: dict[str, Any] = {"jti": secrets.token_urlsafe(24), "htm": method.upper(), "htu": htu(url),
                                  "iat": int(time.time())}
        if nonce:
            claims["nonce"] = nonce
        if access_token is not None:
            claims["ath"] = token_hash(access_token)
        header = {"typ": "dpop+jwt", "alg": DPOP_ALG, "jwk": self.public_jwk}
        return str(jwt.encode(header, claims, self._key, algorithms=[DPOP_ALG]))

    def __repr__(self) -> str:
        return f"DPoPKey(jkt={self.thumbprint!r})"


class NonceCache:
    """The last ``DPoP-Nonce`` of each server (origin)."""

    def __init__(self) -> None:
        self._nonces: dict[str, str] = {}

    def get(self, url: str) -> str | None:
        return self._nonces.get(server_of(url))

    def update(self, url: str, nonce: str | None) -> bool:
        """Remember ``nonce`` (a response's ``DPoP-Nonce``); True when it is new."""
        if not nonce or not nonce.isprintable() or len(nonce) > 1024:
            return False
        key = server_of(url)
        if self._nonces.get(key) == nonce:
            return False
        self._nonces[key] = nonce
        return True


def claim(jwt: str, name: str) -> Any:
    """A claim of a JWT this client made (read without verifying: only to compare with an answer)."""
    import json

    try:
        part = jwt.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (IndexError, ValueError):
        return None
    return claims.get(name) if isinstance(claims, dict) else None


def supported(meta: dict[str, Any]) -> bool:
    """The authorization server's metadata lists the proof algorithm this client signs with."""
    algs = meta.get("dpop_signing_alg_values_supported")
    return isinstance(algs, list) and DPOP_ALG in algs


__all__ = ["DPOP_ALG", "USE_DPOP_NONCE", "DPoPKey", "NonceCache", "claim", "htu", "server_of", "supported", "token_hash"]
