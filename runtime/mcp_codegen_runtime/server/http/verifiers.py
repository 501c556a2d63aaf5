"""Access-token verification: the verifier interface, fetching from the authorization server,
and RFC 7662 token introspection.

A verifier turns a bearer token into a :class:`~server.principal.Principal` (or None, or
raises :class:`InvalidToken`) and is responsible for every check of the token itself:
signature or introspection, issuer, audience, expiry.  Scopes are checked afterwards by the
resource server (:mod:`server.http.oauth`).  Two built-in verifiers:

* :class:`~server.http.jwks.JwtVerifier`: JWT access tokens, keys from the authorization
  server's JWKS (PyJWT, the ``oauth`` extra).
* :class:`IntrospectionVerifier`: asks the authorization server (RFC 7662) with the
  resource server's own client credentials; positive answers are cached briefly
  (``introspection_cache_ttl``, never past the token's ``exp``), negative ones never.

Nothing here logs or returns a token or its claims; failure reasons name the check only.
Fetches use the standard library (``urllib`` in a worker thread), only ``https`` URLs unless
the host is a loopback address, with a timeout and a size limit.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import ipaddress
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ...wire.urls import comparable_url
from ..principal import Principal, principal_from_claims

#: Largest metadata / JWKS / introspection answer read (bytes).
MAX_FETCH_BYTES = 1024 * 1024


class InvalidToken(Exception):
    """The token is not acceptable (401 ``invalid_token``).  ``reason`` names the failed
    check (e.g. ``"expired"``); it never contains the token or its claims."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class AuthServerUnavailable(Exception):
    """The authorization server could not be asked (JWKS, metadata, introspection): 503."""


@runtime_checkable
class AccessTokenVerifier(Protocol):
    """What the resource server asks to verify a bearer token."""

    async def verify(self, token: str) -> Principal | None:
        """The token's principal; None or :class:`InvalidToken` when it is not acceptable.

        Raises:
            InvalidToken: the token failed a check.
            AuthServerUnavailable: the authorization server could not be reached.
        """
        ...


def is_loopback(host: str | None) -> bool:
    """Whether a URL host is ``localhost`` or a loopback address."""
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_url(url: str, what: str) -> str:
    """``url`` when it is absolute ``https`` (or ``http`` to a loopback host).

    Raises:
        ValueError: anything else.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return url
    if parts.scheme == "http" and is_loopback(parts.hostname):
        return url
    raise ValueError(f"{what} must be an https URL (http only to a loopback host), got {url!r}")


def _fetch_sync(url: str, data: bytes | None, headers: Mapping[str, str], timeout: float) -> Any:
    request = urllib.request.Request(url, data=data, headers={"accept": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read(MAX_FETCH_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise AuthServerUnavailable(f"{url} answered HTTP {exc.code}") from None
    except (OSError, ValueError) as exc:
        raise AuthServerUnavailable(f"{url} unreachable: {type(exc).__name__}") from None
    if len(body) > MAX_FETCH_BYTES:
        raise AuthServerUnavailable(f"{url} answered more than {MAX_FETCH_BYTES} bytes")
    try:
        return json.loads(body)
    except ValueError:
        raise AuthServerUnavailable(f"{url} did not answer JSON") from None


async def fetch_json(url: str, *, form: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None,
                     timeout: float = 5.0) -> Any:
    """GET ``url`` (or POST ``form`` to it) and decode its JSON answer, in a worker thread.

    Raises:
        AuthServerUnavailable: unreachable, an HTTP error status, too large, not JSON.
    """
    data = urllib.parse.urlencode(dict(form)).encode() if form is not None else None
    all_headers = dict(headers or {})
    if data is not None:
        all_headers["content-type"] = "application/x-www-form-urlencoded"
    return await asyncio.to_thread(_fetch_sync, url, data, all_headers, timeout)


def audience_matches(aud: Any, accepted: Sequence[str]) -> bool:
    """Whether a token's ``aud`` (a string or a list) names one of ``accepted`` (URLs compare
    with scheme and host lower-cased and without a trailing ``/``)."""
    wanted = {comparable_url(a) for a in accepted}
    values = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    return any(isinstance(v, str) and comparable_url(v) in wanted for v in values)


def check_times(claims: Mapping[str, Any], skew: float, now: float | None = None, *, require_exp: bool = True) -> None:
    """``exp`` (in the future), ``nbf`` and ``iat`` (not in the future), ``skew`` seconds of slack.

    Raises:
        InvalidToken: a time claim fails, or is not a number.
    """
    now = time.time() if now is None else now
    for name in ("exp", "nbf", "iat"):
        value = claims.get(name)
        if value is None:
            if name == "exp" and require_exp:
                raise InvalidToken("no exp claim")
            continue
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise InvalidToken(f"{name} is not a number")
        if name == "exp" and value <= now - skew:
            raise InvalidToken("expired")
        if name != "exp" and value > now + skew:
            raise InvalidToken(f"{name} is in the future")


class IntrospectionVerifier:
    """RFC 7662 token introspection (module docstring).

    Args:
        url: the introspection endpoint.
        client_id: this resource server's client id at the authorization server.
        client_secret: its secret (None: the client id is sent alone, in the form).
        issuers: accepted ``iss`` values (an answer naming another issuer is refused).
        audiences: accepted ``aud`` values; the answer must carry one.
        client_auth: ``client_secret_basic`` (default) or ``client_secret_post``.
        clock_skew: seconds of slack for ``exp``/``nbf``/``iat``.
        cache_ttl: seconds a positive answer is reused (0: never).
        timeout: seconds per request to the endpoint.
        max_cached: most answers kept.
    """

    def __init__(self, url: str, *, client_id: str | None, client_secret: str | None, issuers: Sequence[str],
                 audiences: Sequence[str], client_auth: str = "client_secret_basic", clock_skew: float = 60.0,
                 cache_ttl: float = 30.0, timeout: float = 5.0, max_cached: int = 10000) -> None:
        if client_auth not in ("client_secret_basic", "client_secret_post"):
            raise ValueError(f"unsupported introspection client auth {client_auth!r}")
        self.url = check_url(url, "the introspection endpoint")
        self.client_id = client_id
        self._secret = client_secret
        self.issuers = tuple(issuers)
        self.audiences = tuple(audiences)
        self.client_auth = client_auth
        self.clock_skew = clock_skew
        self.cache_ttl = cache_ttl
        self.timeout = timeout
        self.max_cached = max_cached
        self._cache: OrderedDict[str, tuple[float, Principal]] = OrderedDict()
        #: Requests sent to the introspection endpoint (for tests and metrics).
        self.requests = 0

    def _credentials(self, form: dict[str, str]) -> dict[str, str]:
        if self.client_id is None:
            return {}
        if self.client_auth == "client_secret_post" or self._secret is None:
            form["client_id"] = self.client_id
            if self._secret is not None:
                form["client_secret"] = self._secret
            return {}
        quote = urllib.parse.quote  # RFC 6749 2.3.1: form-encode, then Base64
        pair = f"{quote(self.client_id, safe='')}:{quote(self._secret, safe='')}"
        return {"authorization": "Basic " + base64.b64encode(pair.encode()).decode()}

    async def verify(self, token: str) -> Principal | None:
        """Introspect ``token`` (or reuse a recent positive answer); see the class docstring."""
        key = hashlib.sha256(token.encode()).hexdigest()
        now = time.time()
        hit = self._cache.get(key)
        if hit is not None:
            if hit[0] > now:
                return hit[1]
            del self._cache[key]
        form = {"token": token, "token_type_hint": "access_token"}
        headers = self._credentials(form)
        self.requests += 1
        answer = await fetch_json(self.url, form=form, headers=headers, timeout=self.timeout)
        if not isinstance(answer, dict):
            raise AuthServerUnavailable("the introspection endpoint did not answer an object")
        if answer.get("active") is not True:
            raise InvalidToken("not active")
        check_times(answer, self.clock_skew, now, require_exp=False)
        if self.issuers and answer.get("iss") is not None and answer.get("iss") not in self.issuers:
            raise InvalidToken("wrong issuer")
        if not audience_matches(answer.get("aud"), self.audiences):
            raise InvalidToken("wrong audience")
        claims = dict(answer)
        claims.setdefault("iss", self.issuers[0] if len(self.issuers) == 1 else None)
        principal = principal_from_claims(claims)
        if principal is None:
            raise InvalidToken("no subject")
        if self.cache_ttl > 0:
            until = now + self.cache_ttl
            if principal.expires_at is not None:
                until = min(until, principal.expires_at)
            self._cache[key] = (until, principal)
            while len(self._cache) > self.max_cached:
                self._cache.popitem(last=False)
        return principal
