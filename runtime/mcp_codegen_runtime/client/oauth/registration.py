"""Getting a client id for the OAuth flow (``client/oauth/flow.py``, step 6).

In order: a pre-registered ``client_id`` (with its secret, a confidential client), the client
ID metadata document URL when the authorization server supports those, else dynamic client
registration (RFC 7591) at its ``registration_endpoint``.  The client authentication at the
token endpoint follows the registration or ``token_endpoint_auth_methods_supported``.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Protocol

from .metadata import OAuthError, read_limited

if TYPE_CHECKING:  # types only; httpx is optional
    import httpx  # type: ignore[import-not-found, unused-ignore]

logger = logging.getLogger("mcp_codegen.client.oauth")

#: The client authentications this client can do at a token endpoint.
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")


class RegistrationSettings(Protocol):
    """The fields of :class:`~client.oauth.flow.OAuthSettings` a registration reads."""

    client_id: str | None
    client_secret: str | None
    client_metadata_url: str | None
    client_name: str
    token_endpoint_auth_method: str | None
    private_key: str | bytes | None
    application_type: str
    timeout: float


async def choose_client(s: RegistrationSettings, meta: dict[str, Any], redirect_uri: str,
                        http: httpx.AsyncClient) -> dict[str, Any]:
    """A new client registration for the authorization server of ``meta`` (no stored one fits).

    Args:
        s: the flow's settings (a pre-registered client, the metadata document URL, names).
        meta: the authorization server's metadata.
        redirect_uri: the redirect URI the registration must allow.
        http: the client for the registration request.

    Returns:
        ``{"client_id", "client_secret", "method"}`` (the client authentication at the token endpoint).

    Raises:
        OAuthError: no way to get a client id, or the registration failed.
    """
    supported = meta.get("token_endpoint_auth_methods_supported")
    if s.client_id:
        secret = s.client_secret
        method = s.token_endpoint_auth_method or secret_method(supported) if secret else "none"
        if s.private_key is not None:
            method = "private_key_jwt"
        client = {"client_id": s.client_id, "client_secret": secret, "method": method}
    elif s.client_metadata_url and meta.get("client_id_metadata_document_supported") is True:
        client = {"client_id": s.client_metadata_url, "method": "none"}
    elif isinstance(meta.get("registration_endpoint"), str):
        client = await register(s, http, meta["registration_endpoint"], redirect_uri, supported)
    else:
        raise OAuthError("the authorization server offers no dynamic client registration: "
                         "give OAuthSettings(client_id=...) (a pre-registered client)")
    return client


async def register(s: RegistrationSettings, http: httpx.AsyncClient, endpoint: str, redirect_uri: str,
                   supported: Any) -> dict[str, Any]:
    """Dynamic client registration (RFC 7591) at ``endpoint``; the registered client."""
    import httpx

    if isinstance(supported, list) and "none" in supported:
        method = "none"
    else:
        method = secret_method(supported)
    body = {
        "client_name": s.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": s.application_type,
    }
    try:
        status, content = await read_limited(http, "POST", endpoint, "the registration answer", json=body,
                                             timeout=s.timeout)
    except httpx.HTTPError as exc:
        raise OAuthError(f"dynamic client registration at {endpoint} failed: {exc!r}") from None
    if status not in (200, 201):
        raise OAuthError(f"dynamic client registration at {endpoint} failed: HTTP {status}")
    try:
        data = json.loads(content)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("client_id"), str):
        raise OAuthError(f"dynamic client registration at {endpoint} answered without a client_id")
    secret = data.get("client_secret") if isinstance(data.get("client_secret"), str) else None
    chosen = data.get("token_endpoint_auth_method") or method
    if chosen not in AUTH_METHODS:
        raise OAuthError(f"the authorization server registered token_endpoint_auth_method {chosen!r}, "
                         f"which this client does not support")
    if chosen != "none" and not secret:
        chosen = "none"
    logger.info("registered client %s at %s", data["client_id"], endpoint)
    return {"client_id": data["client_id"], "client_secret": secret, "method": chosen}


def secret_method(supported: Any) -> str:
    """The client authentication for a client with a secret (RFC 8414 default: basic)."""
    if isinstance(supported, list) and "client_secret_basic" not in supported and "client_secret_post" in supported:
        return "client_secret_post"
    return "client_secret_basic"


__all__ = ["AUTH_METHODS", "RegistrationSettings", "choose_client", "register", "secret_method"]
