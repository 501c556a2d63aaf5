"""The HTTP server as an OAuth 2.1 resource server (MCP authorization; docs/auth.md).

On when the spec has ``server.auth`` (``ServerInfo.auth``) or ``HttpSettings.oauth`` is set;
the two merge (settings win).  Then:

* ``GET /.well-known/oauth-protected-resource`` and ``.../oauth-protected-resource<path>``
  (RFC 9728) answer the protected resource metadata: ``resource`` (the canonical URL of the
  endpoint), ``authorization_servers``, ``scopes_supported`` (the default scopes, every
  tool's and the declared extras), ``bearer_methods_supported: ["header"]`` and
  ``resource_name`` when set.  No token needed; any origin may read it.
* A request without a bearer token: 401 + ``WWW-Authenticate: Bearer
  resource_metadata="<metadata URL>", scope="<default scopes>"``; a token the verifier
  refuses: the same with ``error="invalid_token"``; the authorization server unreachable
  (keys, introspection): 503.
* A token lacking the default scopes (any request), or a ``tools/call`` of a tool whose
  ``scopes`` it lacks: 403 + ``error="insufficient_scope", scope="<every scope the call
  needs>"``, decided from the request body before any handler runs (both eras; in a
  legacy batch, any call that lacks scopes refuses the batch).
* The verifier: ``OAuthSettings.verifier``, else introspection when ``introspection_url``
  is set, else JWT with JWKS (:mod:`server.http.jwks`).

* DPoP (RFC 9449, :mod:`server.http.dpop`; ``OAuthSettings.dpop``, default ``"allow"``):
  ``Authorization: DPoP <token>`` with a valid proof, and a token whose ``cnf.jkt`` is the
  proof key's thumbprint; a DPoP-bound token sent as ``Bearer`` is refused; ``"require"``
  refuses Bearer tokens.  Refusals of a DPoP request challenge with the ``DPoP`` scheme
  (``error="invalid_dpop_proof"``, ``"use_dpop_nonce"`` with a ``DPoP-Nonce`` header,
  ``"invalid_token"``, ``algs``).  The metadata lists ``dpop_signing_alg_values_supported``
  (and ``dpop_bound_access_tokens_required`` with ``"require"``).

Static tokens (``HttpSettings.tokens``, ``MCP_CODEGEN_HTTP_TOKENS``) are tried first and
carry no scopes: they pass the scope checks (local use).
"""

from __future__ import annotations

import argparse
import logging
import os
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from ...wire import protocol as p
from ...wire.tools import AuthDef
from ..principal import Principal
from .dpop import DPoPChecker, NonceSource
from .jwks import JwtVerifier
from .request import HttpError, Request, Send
from .responses import send_json
from .settings import OAuthSettings
from .verifiers import AccessTokenVerifier, IntrospectionVerifier

if TYPE_CHECKING:
    from ..interface import ServedServer

logger = logging.getLogger("mcp_codegen.http.auth")

WELL_KNOWN = "/.well-known/oauth-protected-resource"
CLIENT_ID_ENV = "MCP_CODEGEN_OAUTH_CLIENT_ID"
CLIENT_SECRET_ENV = "MCP_CODEGEN_OAUTH_CLIENT_SECRET"


def metadata_url(resource: str) -> str:
    """The RFC 9728 metadata URL of ``resource``: the well-known path inserted before its path."""
    parts = urllib.parse.urlsplit(resource)
    path = parts.path.rstrip("/")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, WELL_KNOWN + path, "", ""))


def _merge(spec: AuthDef | None, given: OAuthSettings | None) -> OAuthSettings:
    s = given or OAuthSettings()
    if spec is None:
        return s
    return replace(
        s,
        resource=s.resource or spec.resource,
        authorization_servers=s.authorization_servers or spec.authorization_servers,
        scopes=s.scopes if s.scopes is not None else spec.scopes,
        scopes_supported=tuple(dict.fromkeys((*spec.scopes_supported, *s.scopes_supported))),
        resource_name=s.resource_name or spec.resource_name,
    )


def _quoted(values: Iterable[str]) -> str:
    return " ".join(values).replace("\\", "\\\\").replace('"', '\\"')


class ResourceServer:
    """The OAuth side of one application (module docstring).

    Args:
        settings: the merged configuration.
        tool_scopes: tool name -> scopes its calls need.
        path: the MCP endpoint path.

    Raises:
        ValueError: no resource URL or no authorization server.
    """

    def __init__(self, settings: OAuthSettings, tool_scopes: Mapping[str, tuple[str, ...]], path: str) -> None:
        resource = settings.resource or settings.default_resource
        if not resource:
            raise ValueError("OAuth needs the canonical URL of this server (OAuthSettings.resource, --auth-resource, "
                             "or server.auth.resource in the spec)")
        if not settings.authorization_servers:
            raise ValueError("OAuth needs at least one authorization server (--auth-issuer or "
                             "server.auth.authorizationServers)")
        self.settings = settings
        self.resource = resource
        self.scopes = tuple(settings.scopes or ())
        self.tool_scopes = dict(tool_scopes)
        self.metadata_url = metadata_url(self.resource)
        self.paths = {WELL_KNOWN, WELL_KNOWN + path.rstrip("/"), urllib.parse.urlsplit(self.metadata_url).path}
        self.verifier = settings.verifier or self._builtin()
        if settings.dpop not in ("off", "allow", "require"):
            raise ValueError(f"OAuthSettings.dpop must be off, allow or require, not {settings.dpop!r}")
        self.dpop: DPoPChecker | None = None
        if settings.dpop != "off":
            nonces = NonceSource(settings.dpop_nonce_secret, settings.dpop_nonce_lifetime) if settings.dpop_nonce else None
            self.dpop = DPoPChecker(self.resource, settings.dpop_algorithms, proof_lifetime=settings.dpop_proof_lifetime,
                                    clock_skew=settings.clock_skew, nonces=nonces,
                                    replay_cache=settings.dpop_replay_cache)

    def _builtin(self) -> AccessTokenVerifier:
        s = self.settings
        audiences = (self.resource, *s.audiences)
        if s.introspection_url:
            return IntrospectionVerifier(
                s.introspection_url, client_id=s.client_id or os.environ.get(CLIENT_ID_ENV),
                client_secret=s.client_secret or os.environ.get(CLIENT_SECRET_ENV), issuers=s.authorization_servers,
                audiences=audiences, client_auth=s.client_auth, clock_skew=s.clock_skew,
                cache_ttl=s.introspection_cache_ttl, timeout=s.timeout,
            )
        return JwtVerifier(s.authorization_servers, audiences, jwks_url=s.jwks_url, algorithms=s.algorithms,
                           clock_skew=s.clock_skew, jwks_ttl=s.jwks_ttl, jwks_refetch_interval=s.jwks_refetch_interval,
                           timeout=s.timeout)

    @classmethod
    def for_server(cls, server: ServedServer, oauth: OAuthSettings | None, path: str) -> ResourceServer | None:
        """The resource server of ``server``: None unless the spec has ``server.auth`` or ``oauth``
        names an authorization server, a JWKS URL, an introspection endpoint or a verifier."""
        info = getattr(server, "server_info", None)
        spec = getattr(info, "auth", None)
        asked = oauth is not None and bool(oauth.authorization_servers or oauth.verifier or oauth.introspection_url
                                           or oauth.jwks_url)
        if spec is None and not asked:
            return None
        table = {t.name: tuple(t.scopes) for t in server.tool_defs if getattr(t, "scopes", ())}
        return cls(_merge(spec, oauth), table, path)

    def metadata(self) -> dict[str, Any]:
        """The protected resource metadata document (RFC 9728)."""
        supported = [*self.scopes, *(s for scopes in self.tool_scopes.values() for s in scopes),
                     *self.settings.scopes_supported]
        doc: dict[str, Any] = {
            "resource": self.resource,
            "authorization_servers": list(self.settings.authorization_servers),
            "scopes_supported": list(dict.fromkeys(supported)),
            "bearer_methods_supported": ["header"],
        }
        if self.settings.resource_name:
            doc["resource_name"] = self.settings.resource_name
        if self.dpop is not None:
            doc["dpop_signing_alg_values_supported"] = list(self.dpop.algorithms)
            if self.settings.dpop == "require":
                doc["dpop_bound_access_tokens_required"] = True
        return doc

    async def serve_metadata(self, req: Request, send: Send) -> None:
        """Answer a request for the metadata document (GET/HEAD only)."""
        if req.method not in ("GET", "HEAD"):
            raise HttpError(405, None, "Method Not Allowed", headers=[("allow", "GET")])
        await send_json(send, 200, self.metadata(), [(b"access-control-allow-origin", b"*"),
                                                     (b"cache-control", b"max-age=3600")])

    def challenge(self, error: str | None = None, scopes: Iterable[str] | None = None, scheme: str = "Bearer") -> str:
        """A ``WWW-Authenticate`` value: ``Bearer`` (or ``DPoP``, with ``algs``) with ``error``,
        ``scope`` and ``resource_metadata``; with DPoP required, the ``DPoP`` scheme always."""
        if self.settings.dpop == "require":
            scheme = "DPoP"
        parts = [f'error="{error}"'] if error else []
        needed = tuple(scopes) if scopes is not None else self.scopes
        if needed:
            parts.append(f'scope="{_quoted(needed)}"')
        parts.append(f'resource_metadata="{self.metadata_url}"')
        if scheme == "DPoP" and self.dpop is not None:
            parts.append(f'algs="{" ".join(self.dpop.algorithms)}"')
        return f"{scheme} " + ", ".join(parts)

    def refuse(self, status: int, message: str, error: str | None = None, scopes: Iterable[str] | None = None,
               rid: Any = None, scheme: str = "Bearer", nonce: str | None = None) -> HttpError:
        """The :class:`HttpError` of a refusal with its challenge (and a ``DPoP-Nonce`` to use)."""
        headers = [("www-authenticate", self.challenge(error, scopes, scheme))]
        if nonce:
            headers.append(("dpop-nonce", nonce))
        return HttpError(status, p.INVALID_REQUEST, message, headers=headers, rid=rid)

    def check_scopes(self, principal: Any, message: Any) -> None:
        """Refuse (403 ``insufficient_scope``) a message whose tool calls need scopes the token lacks.

        Only principals with scopes (:class:`Principal`) are checked; static tokens pass.
        """
        if not isinstance(principal, Principal):
            return
        for item in message if isinstance(message, list) else [message]:
            params = item.get("params") if isinstance(item, dict) and item.get("method") == "tools/call" else None
            name = params.get("name") if isinstance(params, dict) else None
            needed = (*self.scopes, *self.tool_scopes.get(name, ())) if isinstance(name, str) else self.scopes
            if principal.missing(needed):
                logger.info("refused %s: the token lacks scope(s) %s", f"a call of {name}" if name else "a request",
                            " ".join(principal.missing(needed)))
                raise self.refuse(403, f"Forbidden: insufficient scope for {name}" if name else "Forbidden: insufficient scope",
                                  "insufficient_scope", tuple(dict.fromkeys(needed)), item.get("id") if isinstance(item, dict) else None)


def add_oauth_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--auth-*`` flags of ``python -m <package> --http``."""
    g = parser.add_argument_group("OAuth resource server (docs/auth.md)")
    g.add_argument("--auth-issuer", action="append", default=None, metavar="URL",
                   help="accepted authorization server (issuer URL; repeatable; default: the spec's server.auth)")
    g.add_argument("--auth-resource", default=None, metavar="URL",
                   help="canonical URL of this endpoint, the audience tokens must name "
                   "(default: the spec's, else http://HOST:PORT/PATH)")
    g.add_argument("--auth-audience", action="append", default=None, metavar="AUD", help="further accepted audience (repeatable)")
    g.add_argument("--auth-scope", action="append", default=None, metavar="SCOPE",
                   help="scope every request needs (repeatable; default: the spec's server.auth.scopes)")
    g.add_argument("--auth-jwks-url", default=None, metavar="URL", help="JWKS URI (default: from the issuer's metadata)")
    g.add_argument("--auth-introspection-url", default=None, metavar="URL",
                   help=f"introspect tokens here (RFC 7662) instead of verifying JWTs; credentials from "
                   f"${CLIENT_ID_ENV} / ${CLIENT_SECRET_ENV}")
    g.add_argument("--auth-clock-skew", type=float, default=OAuthSettings.clock_skew, metavar="SECONDS",
                   help="slack for exp/nbf/iat (default 60)")
    g.add_argument("--auth-dpop", choices=("off", "allow", "require"), default=OAuthSettings.dpop,
                   help="DPoP-bound tokens (RFC 9449): allow (default), require, or off (Bearer only)")
    g.add_argument("--auth-dpop-nonce", action="store_true",
                   help="require server nonces in DPoP proofs (secret shared by workers: $MCP_CODEGEN_DPOP_NONCE_SECRET)")
    g.add_argument("--auth-jwks-refetch", type=float, default=OAuthSettings.jwks_refetch_interval, metavar="SECONDS",
                   help="least seconds between JWKS fetches for an unknown key id (default 30)")


def oauth_from_args(args: argparse.Namespace, path: str) -> OAuthSettings:
    """The OAuth settings the ``--auth-*`` flags ask for (they turn OAuth on only when the spec
    has ``server.auth`` or an issuer, JWKS or introspection URL is given).  Without
    ``--auth-resource`` the resource is ``http://HOST:PORT/PATH`` unless the spec names one."""
    resource = getattr(args, "auth_resource", None)
    fallback = None
    if getattr(args, "port", None):
        host = args.host if ":" not in args.host else f"[{args.host}]"
        fallback = f"http://{host}:{args.port}{path}"  # set --auth-resource behind a proxy
    return OAuthSettings(
        resource=resource,
        default_resource=fallback,
        authorization_servers=tuple(args.auth_issuer or ()),
        audiences=tuple(args.auth_audience or ()),
        scopes=tuple(args.auth_scope) if args.auth_scope else None,
        jwks_url=args.auth_jwks_url,
        introspection_url=args.auth_introspection_url,
        clock_skew=args.auth_clock_skew,
        jwks_refetch_interval=args.auth_jwks_refetch,
        dpop=getattr(args, "auth_dpop", OAuthSettings.dpop),
        dpop_nonce=bool(getattr(args, "auth_dpop_nonce", False)),
    )


def oauth_to_json(settings: OAuthSettings | None) -> dict[str, Any] | None:
    """``settings`` as JSON data for the worker processes (no secret, no verifier object)."""
    if settings is None:
        return None
    data = asdict(replace(settings, verifier=None, client_secret=None, dpop_nonce_secret=None))
    data.pop("verifier", None)
    return data


def oauth_from_json(data: Mapping[str, Any] | None) -> OAuthSettings | None:
    """The inverse of :func:`oauth_to_json`."""
    if data is None:
        return None
    fixed: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return OAuthSettings(**fixed)
