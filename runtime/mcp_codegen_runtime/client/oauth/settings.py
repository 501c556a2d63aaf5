"""The settings of the OAuth client flow (``client/oauth/flow.py``): :class:`OAuthSettings`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .grants import Grant
from .redirect import HeadlessRedirect, RedirectHandler
from .tokens import MemoryTokenStorage, TokenStorage


def _need_authlib() -> Any:
    try:
        from authlib.integrations.httpx_client import AsyncOAuth2Client  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:  # pragma: no cover - optional extra
        raise RuntimeError("OAuth needs authlib and httpx: pip install 'authlib>=1.7' joserfc httpx "
                           "(or the package's [oauth] extra)") from None
    return AsyncOAuth2Client


@dataclass
class OAuthSettings:
    """How a client authorizes with a protected MCP server (see ``client/oauth/flow.py``).

    Args:
        client_id: a pre-registered client id (then no registration is made).
        client_secret: its secret, for a confidential pre-registered client.
        client_metadata_url: the HTTPS URL of this client's metadata document, used as the
            client id when the authorization server supports client ID metadata documents.
        client_name: the name sent in a dynamic registration.
        redirect_handler: takes the authorization URL, returns the callback URL (sync or
            async); default: :class:`~client.oauth.redirect.LoopbackBrowserRedirect`.
        redirect_uri: the redirect URI; default: the handler's ``redirect_uri``.
        scope: a fixed scope to ask for instead of the selection strategy (space-separated).
        storage: where tokens and registrations are kept (default: memory).
        token_endpoint_auth_method: force ``client_secret_basic``, ``client_secret_post``
            or ``none`` for a pre-registered client.
        offline_access: ask for ``offline_access`` (a refresh token) when the server offers it.
        max_authorizations: authorizations in a row without a successful request.
        application_type: sent in a dynamic registration (``native`` or ``web``).
        timeout: seconds per request to the authorization server.
        allow_local_urls: let metadata name plain-http, loopback, private or link-local
            URLs whatever the MCP server's address (a local test set-up); other schemes than
            http(s) stay refused.
        grant: a grant without a user instead of the authorization code flow:
            :class:`~client.oauth.grants.ClientCredentials`, :class:`~client.oauth.grants.JwtBearer`
            (workload identity) or :class:`~client.oauth.grants.EnterpriseManaged`.
        private_key: this client's PEM private key: authenticate with ``private_key_jwt``.
        private_key_id: the ``kid`` of that key, sent in the assertion's header.
        signing_algorithm: the assertion's ``alg`` (default: one the server lists for the key).
        dpop: DPoP-bound tokens: True always, False never, None when both servers offer it.
        issuer: the only authorization server to use (its issuer identifier, exactly): the
            flow stops when the MCP server does not list it.  Strongly advised with a
            ``grant`` (credentials are sent without a user to look at where they go).
    """

    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    client_metadata_url: str | None = None
    client_name: str = "mcp-codegen client"
    redirect_handler: RedirectHandler | None = None
    redirect_uri: str | None = None
    scope: str | None = None
    storage: TokenStorage = field(default_factory=MemoryTokenStorage)
    token_endpoint_auth_method: str | None = None
    offline_access: bool = True
    max_authorizations: int = 3
    application_type: str = "native"
    timeout: float = 30.0
    allow_local_urls: bool = False
    grant: Grant | None = None
    private_key: str | bytes | None = field(default=None, repr=False)
    private_key_id: str | None = None
    signing_algorithm: str | None = None
    dpop: bool | None = None
    issuer: str | None = None

    @classmethod
    def headless(cls, **options: Any) -> OAuthSettings:
        """Settings with the :class:`HeadlessRedirect` handler (servers that approve without a user)."""
        return cls(redirect_handler=HeadlessRedirect(options.pop("redirect_uri", "http://127.0.0.1:8765/callback")),
                   **options)


__all__ = ["OAuthSettings", "_need_authlib"]
