"""Who may talk to the HTTP endpoint: ``Host``/``Origin`` allow-lists and bearer tokens.

* DNS rebinding: the ``Host`` and ``Origin`` headers must name an allowed host (default:
  localhost, 127.0.0.1 and [::1], on the bound port when known), else 403.  An allowed
  entry without a port allows any port; ``"*"`` allows anything.  A request without
  ``Origin`` (not from a browser) passes that check.
* Bearer tokens: with ``HttpSettings.tokens`` / ``verify_token`` (or the environment
  variable ``MCP_CODEGEN_HTTP_TOKENS`` = ``principal=token,...``), a request without a
  valid ``Authorization: Bearer`` gets 401 + ``WWW-Authenticate``.  Tokens are compared in
  constant time; the principal reaches ``ServerBase.authorize`` and ``ctx.principal``.
* OAuth (:mod:`server.http.oauth`, when the spec has ``server.auth`` or
  ``HttpSettings.oauth`` asks): after the static tokens, the resource server's verifier;
  the challenge names the protected resource metadata and the default scopes; a refused
  token is 401 ``invalid_token`` (the reason is logged, never the token), a token lacking
  the default scopes 403 ``insufficient_scope``, an unreachable authorization server 503.
  :meth:`AccessPolicy.serve_metadata` answers the metadata document.  DPoP: ``Authorization:
  DPoP <token>`` needs a valid proof (:mod:`server.http.dpop`) and a token bound to its key
  (``cnf.jkt``); a bound token sent as ``Bearer`` is refused.
* :func:`client_key`: the rate-limit key, the principal when authenticated, else the
  client address.
"""

from __future__ import annotations

import inspect
import logging
import os
import secrets
from typing import Any

from ...wire import protocol as p
from ..principal import Principal, identity
from .dpop import DPoPError
from .oauth import ResourceServer
from .request import HttpError, Request, Send
from .settings import HttpSettings
from .verifiers import AuthServerUnavailable, InvalidToken

TOKENS_ENV = "MCP_CODEGEN_HTTP_TOKENS"
LOOPBACK = ("localhost", "127.0.0.1", "[::1]")
logger = logging.getLogger("mcp_codegen.http.auth")


def tokens_from_env() -> dict[str, Any]:
    """Token -> principal from ``MCP_CODEGEN_HTTP_TOKENS``.

    Returns:
        One entry per comma-separated item: ``principal=token``, or a bare token (its
        principal is then ``token-<position>``).  Empty when the variable is unset.
    """
    raw = os.environ.get(TOKENS_ENV, "")
    tokens: dict[str, Any] = {}
    for index, item in enumerate(part.strip() for part in raw.split(",")):
        if not item:
            continue
        principal, sep, token = item.partition("=")
        if sep and principal and token:
            tokens[token] = principal
        else:
            tokens[item] = f"token-{index + 1}"
    return tokens


def client_key(req: Request, principal: Any) -> str:
    """The rate-limit key of a request: its principal, or (without auth) its client address.

    Args:
        req: the request.
        principal: what :meth:`AccessPolicy.check` returned.

    Returns:
        ``"principal:<identity>"`` (:func:`server.principal.identity`: the verified issuer,
        subject and client of an OAuth token) or ``"ip:<address>"``.
    """
    return f"principal:{identity(principal)}" if principal is not None else f"ip:{req.client_host}"


def _without_port(host: str) -> str:
    """``name:port`` -> ``name`` (a bracketed IPv6 literal without a port stays whole)."""
    return host.rsplit(":", 1)[0] if not host.endswith("]") else host


class AccessPolicy:
    """The Host/Origin allow-lists and bearer authentication of one application.

    Args:
        settings: the transport settings (hosts, origins, port, tokens, realm).
        resource: the OAuth resource server, when OAuth is on.
    """

    def __init__(self, settings: HttpSettings, resource: ResourceServer | None = None) -> None:
        self.settings = settings
        self.resource = resource
        self.tokens = dict(settings.tokens) if settings.tokens is not None else tokens_from_env()
        self.auth = bool(self.tokens) or settings.verify_token is not None or resource is not None
        self.hosts, self.origins = self._allowed()

    def _allowed(self) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        s = self.settings
        if s.allowed_hosts is not None:
            hosts: frozenset[str] | None = None if "*" in s.allowed_hosts else frozenset(h.lower() for h in s.allowed_hosts)
        elif s.port is not None:
            hosts = frozenset(f"{h}:{s.port}" for h in LOOPBACK)
        else:
            hosts = frozenset(LOOPBACK)
        if s.allowed_origins is not None:
            origins = None if "*" in s.allowed_origins else frozenset(o.lower().rstrip("/") for o in s.allowed_origins)
        elif hosts is None:
            origins = None
        else:
            origins = frozenset(f"{scheme}://{h}" for h in hosts for scheme in ("http", "https"))
        return hosts, origins

    def host_ok(self, host: str | None) -> bool:
        """Whether a ``Host`` header value is allowed (a missing one is not, unless ``"*"``)."""
        if self.hosts is None:
            return True
        if host is None:
            return False
        host = host.strip().lower()
        return host in self.hosts or _without_port(host) in self.hosts  # an entry without a port allows any port

    def origin_ok(self, origin: str | None) -> bool:
        """Whether an ``Origin`` header value is allowed (a missing one is)."""
        if origin is None or self.origins is None:
            return True
        origin = origin.strip().lower().rstrip("/")
        if origin in self.origins:
            return True
        scheme, sep, rest = origin.partition("://")
        if not sep:
            return False
        return f"{scheme}://{_without_port(rest)}" in self.origins

    async def check(self, req: Request) -> Any:
        """Admit a request or refuse it.

        Args:
            req: the request.

        Returns:
            The principal of its bearer token (None when no auth is configured).

        Raises:
            HttpError: 403 (Host or Origin not allowed), 401 (bearer token missing or invalid).
        """
        self.check_origin(req)
        return await self._authenticate(req)

    def check_origin(self, req: Request) -> None:
        """The Host and Origin checks of :meth:`check`: all of it when no auth is configured
        (``not self.auth``), then called alone, without a coroutine.

        Raises:
            HttpError: 403 (Host or Origin not allowed).
        """
        if not self.host_ok(req.get("host")):
            raise HttpError(403, p.INVALID_REQUEST, "Forbidden: Host header not allowed")
        if not self.origin_ok(req.get("origin")):
            raise HttpError(403, p.INVALID_REQUEST, "Forbidden: Origin not allowed")

    async def serve_metadata(self, req: Request, send: Send) -> bool:
        """Answer a request for the OAuth protected resource metadata (False: not such a request).

        Raises:
            HttpError: 403 (Host not allowed), 405 (not GET/HEAD).
        """
        if self.resource is None or req.path not in self.resource.paths:
            return False
        if not self.host_ok(req.get("host")):
            raise HttpError(403, p.INVALID_REQUEST, "Forbidden: Host header not allowed")
        await self.resource.serve_metadata(req, send)
        return True

    async def _authenticate(self, req: Request) -> Any:
        if not self.auth:
            return None
        s = self.settings
        rs = self.resource
        auth = req.get("authorization") or ""
        scheme, _, token = auth.strip(" \t").partition(" ")
        token = token.strip(" \t")  # HTTP whitespace only: str.strip() also eats NBSP and NEL
        if rs is not None and rs.dpop is not None and scheme.lower() == "dpop" and token:
            return await self._dpop(req, rs, token)
        if scheme.lower() != "bearer" or not token:
            raise self._refuse("Unauthorized: bearer token required", None)
        principal: Any = None
        for known, who in self.tokens.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                principal = who
                break
        if principal is None and s.verify_token is not None:
            principal = s.verify_token(token)
            if inspect.isawaitable(principal):
                principal = await principal
        if principal is None and rs is not None:
            if rs.settings.dpop == "require":
                logger.info("bearer token refused: DPoP is required")
                raise self._refuse("Unauthorized: a DPoP-bound token is required", "invalid_token")
            principal = await self._verify(rs, token)
            if isinstance(principal, Principal) and rs.dpop is not None and _bound_to(principal) is not None:
                logger.info("bearer token refused: a DPoP-bound token sent without its proof")
                principal = None
        if principal is None:
            raise self._refuse("Unauthorized: invalid bearer token", "invalid_token")
        return principal

    async def _dpop(self, req: Request, rs: ResourceServer, token: str) -> Any:
        """A DPoP request: the proof (:mod:`server.http.dpop`), then the token and its binding."""
        assert rs.dpop is not None
        try:
            proof = rs.dpop.check(req.get("dpop"), req.method, token)
        except DPoPError as exc:
            raise self._dpop_refused(rs, exc) from None
        principal = await self._verify(rs, token)
        if principal is not None and (not isinstance(principal, Principal) or _bound_to(principal) != proof.jkt):
            logger.info("bearer token refused: not bound to the DPoP proof's key")
            principal = None
        if principal is None:
            raise rs.refuse(401, "Unauthorized: invalid DPoP-bound token", "invalid_token", scheme="DPoP")
        try:
            rs.dpop.remember(proof)
        except DPoPError as exc:
            raise self._dpop_refused(rs, exc) from None
        return principal

    @staticmethod
    def _dpop_refused(rs: ResourceServer, exc: DPoPError) -> HttpError:
        logger.info("DPoP proof refused: %s", exc.reason)
        message = "Unauthorized: DPoP nonce required" if exc.nonce else "Unauthorized: invalid DPoP proof"
        return rs.refuse(401, message, exc.error, scheme="DPoP", nonce=exc.nonce)

    def _refuse(self, message: str, error: str | None) -> HttpError:
        """401 with the challenge: the OAuth resource's (metadata, scopes), else a static one."""
        if self.resource is not None:
            return self.resource.refuse(401, message, error)
        s = self.settings
        challenge = f'Bearer realm="{s.auth_realm}"'
        if s.resource_metadata:
            challenge += f', resource_metadata="{s.resource_metadata}"'
        if error:
            challenge += f', error="{error}"'
        return HttpError(401, p.INVALID_REQUEST, message, headers=[("www-authenticate", challenge)])

    @staticmethod
    async def _verify(rs: ResourceServer, token: str) -> Any:
        """The verifier's principal (None when refused); 403 without the default scopes."""
        try:
            principal = await rs.verifier.verify(token)
        except InvalidToken as exc:
            logger.info("bearer token refused: %s", exc.reason)
            return None
        except AuthServerUnavailable as exc:
            logger.warning("cannot verify bearer tokens: %s", exc)
            raise HttpError(503, p.INVALID_REQUEST, "Service Unavailable: the authorization server cannot be reached",
                            headers=[("retry-after", "5")]) from None
        if principal is None:
            logger.info("bearer token refused by the verifier")
            return None
        rs.check_scopes(principal, None)
        return principal


def _bound_to(principal: Principal) -> str | None:
    """The ``cnf.jkt`` (RFC 9449 §6) a token's claims bind it to, or None."""
    cnf = principal.claims.get("cnf")
    jkt = cnf.get("jkt") if isinstance(cnf, dict) else None
    return jkt if isinstance(jkt, str) else None
