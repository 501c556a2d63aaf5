"""Token endpoint requests of the OAuth client: DPoP on them, and the grants without a user.

* :func:`dpop_hooks`: httpx event hooks for authlib's token client: a fresh DPoP proof
  (``client/oauth/dpop.py``) on every request it sends (``htm``/``htu`` of that request, the
  server's last nonce), and every ``DPoP-Nonce`` answered is remembered.
* :func:`with_nonce_retry`: a token request that fails with ``use_dpop_nonce`` (RFC 9449 §8)
  is sent once more, with the nonce the server just gave; a second refusal is raised.
* :func:`token_client`: authlib's token client with the client authentication of a
  registration (``client_secret_basic``/``_post``, ``none``, ``private_key_jwt``, or none at
  all for a workload without a client id); :func:`grant_client`: that registration for a
  grant without a user (pre-registered).
* :func:`run_grant`: the grants of ``client/oauth/grants.py`` (client credentials, JWT
  bearer, enterprise-managed) at the token endpoint of ``meta``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .dpop import USE_DPOP_NONCE, DPoPKey, NonceCache
from .grants import (
    ID_JAG_TYPE,
    ID_TOKEN_TYPE,
    TOKEN_EXCHANGE,
    ClientCredentials,
    EnterpriseManaged,
    Grant,
    JwtBearer,
    PrivateKeyJwtAuth,
    load_private_key,
    resolve,
    signing_alg,
)
from .metadata import OAuthError
from .registration import secret_method

if TYPE_CHECKING:
    from .settings import OAuthSettings

if TYPE_CHECKING:  # types only; httpx is optional
    import httpx  # type: ignore[import-not-found, unused-ignore]

logger = logging.getLogger("mcp_codegen.client.oauth")


def dpop_hooks(key: DPoPKey, nonces: NonceCache) -> dict[str, list[Callable[[Any], Awaitable[None]]]]:
    """``event_hooks`` for an httpx client whose requests carry DPoP proofs (no access token)."""

    async def on_request(request: httpx.Request) -> None:
        url = str(request.url)
        request.headers["DPoP"] = key.proof(request.method, url, nonce=nonces.get(url))

    async def on_response(response: httpx.Response) -> None:
        nonces.update(str(response.request.url), response.headers.get("dpop-nonce"))

    return {"request": [on_request], "response": [on_response]}


async def with_nonce_retry(call: Callable[[], Awaitable[dict[str, Any]]], dpop: bool) -> dict[str, Any]:
    """``await call()``; once more when the server asks for a DPoP nonce (the hooks kept it)."""
    try:
        return await call()
    except Exception as exc:
        if not dpop or getattr(exc, "error", None) != USE_DPOP_NONCE:
            raise
        logger.info("the token endpoint asked for a DPoP nonce: sending the request again with it")
    return await call()


def pinned_issuer(pinned: str | None, advertised: list[str]) -> str:
    """The authorization server to use: ``OAuthSettings.issuer`` when the MCP server lists it
    (exactly), the first one listed when none is pinned.

    Raises:
        OAuthError: an issuer is pinned and the MCP server does not list it (no credential,
            assertion or user is sent to an authorization server the MCP server chose).
    """
    if pinned is None:
        return advertised[0]
    if pinned in advertised:
        return pinned
    raise OAuthError(f"the server names the authorization server(s) {', '.join(advertised)}, "
                     f"not the configured issuer {pinned}: refused")


def grant_client(s: OAuthSettings, meta: dict[str, Any]) -> dict[str, Any]:
    """The client of a grant without a user (pre-registered: no registration is made)."""
    if s.private_key is not None:
        method = "private_key_jwt"
    elif s.client_secret:
        method = s.token_endpoint_auth_method or secret_method(meta.get("token_endpoint_auth_methods_supported"))
    else:
        method = "none"
    if s.client_id is None and method != "none":
        raise OAuthError("a client secret or private key needs OAuthSettings(client_id=...)")
    return {"client_id": s.client_id, "client_secret": s.client_secret, "method": method}


def token_client(s: OAuthSettings, entry: dict[str, Any], client: dict[str, Any], **options: Any) -> Any:
    """authlib's ``AsyncOAuth2Client`` for the token endpoint, authenticating as ``client``.

    ``entry`` (the flow's stored state) gives the issuer (the ``private_key_jwt`` audience)
    and the server's ``token_endpoint_auth_signing_alg_values_supported``.
    """
    from .settings import _need_authlib

    cls = _need_authlib()
    method = client.get("method", "none")
    auth: PrivateKeyJwtAuth | None = None
    if method == "private_key_jwt":
        if s.private_key is None:
            raise OAuthError("private_key_jwt needs OAuthSettings(private_key=...)")
        key = load_private_key(s.private_key)
        alg = signing_alg(key, s.signing_algorithm, entry.get("auth_signing_algs"))
        auth = PrivateKeyJwtAuth(key, alg, str(entry.get("issuer") or ""), s.private_key_id)
    elif client.get("client_id") is None:
        method = "_anonymous"
    secret = client.get("client_secret") if method not in ("none", "private_key_jwt", "_anonymous") else None
    oauth = cls(client_id=client["client_id"], client_secret=secret, token_endpoint_auth_method=method,
                timeout=s.timeout, **options)
    if auth is not None:
        oauth.register_client_auth_method(auth)
    elif method == "_anonymous":
        oauth.register_client_auth_method(("_anonymous", _no_client_auth))
    return oauth


def _no_client_auth(auth: Any, method: str, uri: str, headers: Any, body: str) -> tuple[str, Any, str]:
    """No client authentication and no ``client_id`` (a JWT bearer grant of a workload without one)."""
    return uri, headers, body


def describe(exc: BaseException) -> str:
    """An exception as text without request bodies (authlib's errors carry only the server's
    ``error`` and ``error_description``)."""
    error = getattr(exc, "error", None)
    if isinstance(error, str):
        text = getattr(exc, "description", None)
        return f"{error}" + (f" ({text})" if isinstance(text, str) and text else "")
    if isinstance(exc, OAuthError):  # our own text (client/oauth/net.py: size, time, address)
        return str(exc)
    return type(exc).__name__


async def run_grant(grant: Grant, meta: dict[str, Any], resource: str, scope: str | None,
                    oauth_client: Callable[..., Any], dpop: bool, http: httpx.AsyncClient,
                    timeout: float) -> dict[str, Any]:
    """The token response of ``grant`` at the token endpoint of ``meta``.

    Args:
        grant: the grant of ``OAuthSettings.grant``.
        meta: the authorization server's metadata (checked by discovery).
        resource: the RFC 8707 resource (the protected resource metadata's ``resource``).
        scope: the scope to ask, if any.
        oauth_client: makes authlib's token client of this flow (client auth, DPoP hooks).
        dpop: DPoP proofs are on (a ``use_dpop_nonce`` refusal is retried once).
        http: the transport's client (the identity provider's token exchange).
        timeout: seconds per request.

    Raises:
        OAuthError: the grant was refused or failed (not retried, no other grant tried).
    """
    endpoint = meta["token_endpoint"]
    params: dict[str, Any] = {"resource": resource}
    if scope:
        params["scope"] = scope
    if isinstance(grant, ClientCredentials):
        params["grant_type"] = "client_credentials"
    elif isinstance(grant, JwtBearer):
        params.update(grant_type=grant.grant_type, assertion=await _assertion(grant.assertion, "JWT bearer assertion"))
    elif isinstance(grant, EnterpriseManaged):
        jag = await exchange_id_token(grant, meta, resource, scope, http, timeout)
        params.update(grant_type=grant.grant_type, assertion=jag)
    else:  # pragma: no cover - typed
        raise OAuthError(f"unknown grant {type(grant).__name__}")
    logger.info("asking %s for a token (%s grant, scope %s)", meta.get("issuer") or endpoint,
                params["grant_type"], scope or "-")

    async def call() -> dict[str, Any]:
        async with oauth_client() as oauth:
            return dict(await oauth.fetch_token(endpoint, **params))

    try:
        return await with_nonce_retry(call, dpop)
    except OAuthError:
        raise
    except Exception as exc:
        raise OAuthError(f"the token request to {endpoint} failed: {describe(exc)}") from None


async def _assertion(source: Any, what: str) -> str:
    try:
        return await resolve(source, what)
    except Exception as exc:
        raise OAuthError(f"could not read the {what}: {type(exc).__name__}: {exc}") from None


async def exchange_id_token(grant: EnterpriseManaged, meta: dict[str, Any], resource: str, scope: str | None,
                            http: httpx.AsyncClient, timeout: float) -> str:
    """RFC 8693 token exchange at the identity provider: the user's ID token for an ID-JAG."""
    import base64
    import json
    from urllib.parse import quote

    import httpx

    from .metadata import read_limited

    audience = grant.audience or meta.get("issuer")
    if not isinstance(audience, str) or not audience:
        raise OAuthError("enterprise-managed authorization needs the authorization server's issuer (no metadata issuer)")
    form: dict[str, str] = {
        "grant_type": TOKEN_EXCHANGE,
        "requested_token_type": ID_JAG_TYPE,
        "subject_token": await _assertion(grant.id_token, "ID token"),
        "subject_token_type": ID_TOKEN_TYPE,
        "audience": audience,
        "resource": resource,
    }
    if scope:
        form["scope"] = scope
    headers = {"accept": "application/json"}
    if grant.idp_client_id and grant.idp_client_secret:
        pair = f"{quote(grant.idp_client_id, safe='')}:{quote(grant.idp_client_secret, safe='')}"
        headers["authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    elif grant.idp_client_id:
        form["client_id"] = grant.idp_client_id
    endpoint = grant.idp_token_endpoint
    try:
        status, content = await read_limited(http, "POST", endpoint, "the token exchange answer", data=form,
                                             headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        raise OAuthError(f"the token exchange at {endpoint} failed: {type(exc).__name__}") from None
    try:
        data = json.loads(content)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise OAuthError(f"the token exchange at {endpoint} failed: HTTP {status}, no JSON answer")
    if status != 200 or "error" in data:
        error = data.get("error") if isinstance(data.get("error"), str) else f"HTTP {status}"
        raise OAuthError(f"the token exchange at {endpoint} was refused: {error}")
    if data.get("issued_token_type") != ID_JAG_TYPE or not isinstance(data.get("access_token"), str):
        raise OAuthError(f"the token exchange at {endpoint} did not issue an ID-JAG")
    return str(data["access_token"])


__all__ = ["describe", "dpop_hooks", "exchange_id_token", "grant_client", "pinned_issuer", "run_grant", "token_client",
           "with_nonce_retry"]
