"""JWT access tokens verified against the authorization server's published keys (JWKS).

:class:`JwtVerifier` checks, in order: the header's ``alg`` is an allowed asymmetric
algorithm (never ``none``, never HMAC: a public key is no shared secret); the ``iss``
claim (read before the signature, only to pick the key set) is an accepted issuer; the key
named by ``kid`` is in that issuer's JWKS and fits the algorithm (``kty``, and its ``alg``
when the key states one); the signature (PyJWT); ``exp``/``nbf``/``iat`` with
``clock_skew`` seconds of slack; ``aud`` names this resource.

:class:`JwksCache` fetches a JWKS URI (configured, or the ``jwks_uri`` of the issuer's
RFC 8414 / OpenID Connect discovery metadata), keeps it ``ttl`` seconds, and refetches
early when a token names an unknown ``kid`` (key rotation), at most once per
``refetch_interval`` seconds (a flood of made-up ``kid`` values cannot flood the
authorization server).  Concurrent misses share one fetch.  A failed fetch counts against
that interval too: while the authorization server is down, tokens are checked against the
keys fetched last (expired or not), or refused with :class:`AuthServerUnavailable` when there
are none, and the next attempt waits for the interval.

PyJWT (with ``cryptography``) is the ``oauth`` extra, imported when a verifier is built.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..principal import Principal, principal_from_claims
from .verifiers import AuthServerUnavailable, InvalidToken, audience_matches, check_times, check_url, fetch_json

logger = logging.getLogger("mcp_codegen.http.auth")

#: Asymmetric JWS algorithms accepted by default, and the key types each needs.
DEFAULT_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}


def import_pyjwt() -> Any:
    """The ``jwt`` module (PyJWT), or a clear error naming the extra to install."""
    try:
        import jwt  # type: ignore[import-not-found, unused-ignore]  # optional: the oauth extra
        from jwt.algorithms import has_crypto  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise RuntimeError("verifying OAuth access tokens needs PyJWT: pip install 'pyjwt[crypto]' "
                           "(the package's oauth extra)") from None
    if not has_crypto:
        raise RuntimeError("verifying OAuth access tokens needs cryptography: pip install 'pyjwt[crypto]'")
    return jwt


async def discover_jwks_uri(issuer: str, timeout: float) -> str:
    """The ``jwks_uri`` of ``issuer``: RFC 8414 metadata, else OpenID Connect discovery.

    Raises:
        AuthServerUnavailable: neither document names a JWKS URI for this issuer.
    """
    base = issuer.rstrip("/")
    scheme, _, rest = base.partition("://")
    host, slash, path = rest.partition("/")
    candidates = [f"{scheme}://{host}/.well-known/oauth-authorization-server{slash}{path}",
                  f"{base}/.well-known/openid-configuration"]
    for url in candidates:
        try:
            meta = await fetch_json(url, timeout=timeout)
        except AuthServerUnavailable:
            continue
        if isinstance(meta, dict) and meta.get("issuer") == issuer and isinstance(meta.get("jwks_uri"), str):
            return check_url(meta["jwks_uri"], "jwks_uri")
    raise AuthServerUnavailable(f"no authorization server metadata with a jwks_uri for {issuer}")


class JwksCache:
    """The keys of one issuer (module docstring).

    Args:
        issuer: whose keys (used to discover the JWKS URI when ``url`` is None).
        url: the JWKS URI, or None to discover it.
        ttl: seconds a fetched key set is used before it is fetched again.
        refetch_interval: least seconds between two fetches caused by an unknown ``kid``.
        timeout: seconds per HTTP request.
    """

    def __init__(self, issuer: str, url: str | None, *, ttl: float = 300.0, refetch_interval: float = 30.0,
                 timeout: float = 5.0) -> None:
        self.issuer = issuer
        self.url = check_url(url, "the JWKS URL") if url is not None else None
        self.ttl = ttl
        self.refetch_interval = refetch_interval
        self.timeout = timeout
        self._keys: dict[str | None, Mapping[str, Any]] = {}
        self._fetched_at: float | None = None
        #: The last attempt (fetched or failed) and whether it failed.
        self._tried_at: float | None = None
        self._failed = False
        self._lock = asyncio.Lock()
        #: JWKS fetches so far (for tests and metrics).
        self.fetches = 0

    async def _refresh(self) -> None:
        if self.url is None:
            self.url = await discover_jwks_uri(self.issuer, self.timeout)
        document = await fetch_json(self.url, timeout=self.timeout)
        keys = document.get("keys") if isinstance(document, dict) else None
        if not isinstance(keys, list):
            raise AuthServerUnavailable(f"{self.url} is not a JWK set")
        fresh: dict[str | None, Mapping[str, Any]] = {}
        for jwk in keys:
            if isinstance(jwk, dict) and jwk.get("use", "sig") == "sig" and isinstance(jwk.get("kty"), str):
                kid = jwk.get("kid") if isinstance(jwk.get("kid"), str) else None
                fresh.setdefault(kid, jwk)
        self._keys = fresh
        self._fetched_at = time.monotonic()
        self.fetches += 1

    async def key(self, kid: str | None) -> Mapping[str, Any] | None:
        """The JWK named ``kid`` (None: the only key without a ``kid``), fetching as needed.

        Raises:
            AuthServerUnavailable: no key set was ever fetched and the last attempt failed
                (now, or less than ``refetch_interval`` seconds ago).
        """
        async with self._lock:
            now = time.monotonic()
            age = None if self._fetched_at is None else now - self._fetched_at
            since = None if self._tried_at is None else now - self._tried_at
            waited = since is None or since >= self.refetch_interval
            if age is None or age > self.ttl:
                fetch = waited or not self._failed  # the TTL alone: after a failure, wait the interval
            else:
                fetch = kid not in self._keys and waited
                if fetch:
                    logger.info("JWKS of %s: unknown key id, fetching the key set again", self.issuer)
            if fetch:
                await self._attempt(now)
            elif self._fetched_at is None:
                raise AuthServerUnavailable(f"the JWKS of {self.issuer} could not be fetched; next attempt in "
                                            f"{max(0.0, self.refetch_interval - (since or 0.0)):.0f} s")
            return self._keys.get(kid)

    async def _attempt(self, now: float) -> None:
        """One fetch; a failure is remembered (and raised only when there are no keys to use)."""
        self._tried_at = now
        try:
            await self._refresh()
        except AuthServerUnavailable as exc:
            self._failed = True
            if self._fetched_at is None:
                raise
            logger.warning("JWKS of %s could not be fetched (%s): using the keys fetched last", self.issuer, exc)
        else:
            self._failed = False


class JwtVerifier:
    """Verifies JWT access tokens (module docstring); an ``AccessTokenVerifier``.

    Args:
        issuers: accepted ``iss`` values (each an authorization server's issuer URL).
        audiences: accepted ``aud`` values (this resource's canonical URL, first).
        jwks_url: the JWKS URI (all issuers), or None to discover each issuer's.
        algorithms: accepted ``alg`` values (asymmetric ones only).
        clock_skew: seconds of slack for ``exp``/``nbf``/``iat``.
        jwks_ttl, jwks_refetch_interval, timeout: see :class:`JwksCache`.

    Raises:
        ValueError: no issuer or audience, or a symmetric / ``none`` algorithm.
        RuntimeError: PyJWT is not installed.
    """

    def __init__(self, issuers: Sequence[str], audiences: Sequence[str], *, jwks_url: str | None = None,
                 algorithms: Sequence[str] = DEFAULT_ALGORITHMS, clock_skew: float = 60.0, jwks_ttl: float = 300.0,
                 jwks_refetch_interval: float = 30.0, timeout: float = 5.0) -> None:
        self._jwt = import_pyjwt()
        if not issuers or not audiences:
            raise ValueError("a JWT verifier needs at least one issuer and one audience")
        bad = [a for a in algorithms if a[:2] not in _KEY_TYPES]
        if bad:
            raise ValueError(f"only asymmetric JWS algorithms can be verified with published keys, not {bad}")
        self.issuers = tuple(issuers)
        self.audiences = tuple(audiences)
        self.algorithms = tuple(algorithms)
        self.clock_skew = clock_skew
        self.caches = {iss: JwksCache(iss, jwks_url, ttl=jwks_ttl, refetch_interval=jwks_refetch_interval,
                                      timeout=timeout) for iss in self.issuers}

    def _peek(self, token: str) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
        jwt = self._jwt
        try:
            header = jwt.get_unverified_header(token)
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise InvalidToken("malformed") from None
        if not isinstance(header, dict) or not isinstance(claims, dict):
            raise InvalidToken("malformed")
        return header, claims

    async def verify(self, token: str) -> Principal | None:
        """The principal of a valid token (class docstring).

        Raises:
            InvalidToken: a check failed (its reason names the check).
            AuthServerUnavailable: the keys could not be fetched.
        """
        header, unverified = self._peek(token)
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.algorithms:
            raise InvalidToken("algorithm not allowed")
        cache = self.caches.get(str(unverified.get("iss")))
        if cache is None:
            raise InvalidToken("wrong issuer")
        kid = header.get("kid")
        jwk = await cache.key(kid if isinstance(kid, str) else None)
        if jwk is None:
            raise InvalidToken("unknown signing key")
        if jwk.get("kty") != _KEY_TYPES[alg[:2]] or jwk.get("alg", alg) != alg:
            raise InvalidToken("key does not fit the algorithm")
        jwt = self._jwt
        try:
            key = jwt.PyJWK(dict(jwk), algorithm=alg).key
            claims = jwt.decode(
                token, key=key, algorithms=[alg], issuer=cache.issuer, leeway=self.clock_skew,
                options={"verify_aud": False, "require": ["exp", "iss"]},
            )
        except jwt.ExpiredSignatureError:
            raise InvalidToken("expired") from None
        except jwt.ImmatureSignatureError:
            raise InvalidToken("not yet valid") from None
        except jwt.InvalidIssuerError:
            raise InvalidToken("wrong issuer") from None
        except jwt.MissingRequiredClaimError:
            raise InvalidToken("missing exp or iss") from None
        except (jwt.PyJWTError, ValueError, TypeError):
            raise InvalidToken("bad signature") from None
        check_times(claims, self.clock_skew)  # numbers only (PyJWT accepts some strings)
        if not audience_matches(claims.get("aud"), self.audiences):
            raise InvalidToken("wrong audience")
        principal = principal_from_claims(claims)
        if principal is None:
            raise InvalidToken("no subject")
        return principal
