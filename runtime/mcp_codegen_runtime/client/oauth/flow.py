"""The MCP authorization flow (OAuth 2.1) of the HTTP client transport.

Give ``Client.http(url, auth=OAuthSettings(...))``; the transport (``client/http/transport.py``) asks
:class:`OAuthFlow` for the ``Authorization`` header of each request and shows it every
answer.  On ``401``, or ``403`` with ``error="insufficient_scope"``, the flow:

1. finds the protected resource metadata (RFC 9728, ``client/oauth/metadata.py``) and checks
   its ``resource`` names this server; without any (a 2025-03-26 server) the authorization
   server is the MCP server's origin;
2. reads the authorization server's metadata (RFC 8414 / OpenID discovery; issuer checked);
   2025-03-26 fallback: ``/authorize``, ``/token``, ``/register`` at the origin;
3. forgets tokens and registration of another authorization server (the server migrated);
4. on 401 with a refresh token of the same server: refreshes first;
5. chooses the scope: the challenge's ``scope``, else the metadata's ``scopes_supported``,
   else none; on 403, the union of the scopes asked before and the challenged ones; adds
   ``offline_access`` when the authorization server lists it (and a scope is asked at all);
6. gets a client id (``client/oauth/registration.py``): the stored registration, else the
   pre-registered ``client_id``, else the client ID metadata document URL when the server
   supports those, else dynamic client registration (RFC 7591) at ``registration_endpoint``;
7. authorization code with PKCE S256 (authlib) and ``resource`` (RFC 8707): the redirect
   handler (``client/oauth/redirect.py``) takes the user there and returns the callback URL,
   whose ``state`` must match and whose ``iss`` (RFC 9207) must equal the issuer exactly
   (and be present when the server advertises ``authorization_response_iss_parameter_supported``);
8. exchanges the code at the token endpoint (authlib's httpx client) with the client
   authentication of the registration or of ``token_endpoint_auth_methods_supported``
   (``client_secret_basic``, ``client_secret_post``, ``none``), and stores the tokens.

Instead of steps 6-8, ``OAuthSettings.grant`` names a grant without a user
(``client/oauth/grants.py``: client credentials, JWT bearer for workload identity,
enterprise-managed authorization), run by ``client/oauth/exchange.py``.  With a
``private_key`` the client authenticates with ``private_key_jwt`` (RFC 7523).  DPoP (RFC 9449,
``client/oauth/dpop.py``): on when ``OAuthSettings.dpop`` is true, or (``None``, the default)
when the authorization server lists ``ES256`` in ``dpop_signing_alg_values_supported`` and the
resource server challenges with the ``DPoP`` scheme or its metadata names DPoP; then every token
request and every request to the MCP server carries a fresh proof, server nonces are used (a
``use_dpop_nonce`` refusal is retried with the new nonce), and a ``token_type: DPoP`` token is
sent as ``Authorization: DPoP <token>``.

Then the transport sends the request again; tokens close to expiry are refreshed first.  At most
``max_authorizations`` authorizations (and refreshes) follow each other without a request
succeeding.  Tokens, codes, verifiers and secrets are never logged nor put in exception texts.
authlib and httpx load when a flow runs; its requests are address-checked (``client/oauth/net.py``).
"""

from __future__ import annotations

import asyncio
import hmac
import inspect
import logging
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from .dpop import USE_DPOP_NONCE, DPoPKey, NonceCache, claim
from .dpop import supported as dpop_supported
from .exchange import describe, dpop_hooks, grant_client, pinned_issuer, run_grant, token_client, with_nonce_retry
from .metadata import (
    OAuthError,
    canonical_resource,
    discover_issuer,
    discover_resource,
    fallback_metadata,
    origin,
    parse_challenge,
)
from .redirect import LoopbackBrowserRedirect, RedirectHandler
from .registration import choose_client
from .settings import OAuthSettings

if TYPE_CHECKING:  # types only; httpx is optional
    import httpx  # type: ignore[import-not-found, unused-ignore]

logger = logging.getLogger("mcp_codegen.client.oauth")

#: Seconds before expiry at which a token is refreshed ahead of a request.
REFRESH_LEEWAY = 30.0
#: ``use_dpop_nonce`` refusals retried in a row without a request succeeding.
MAX_NONCE_RETRIES = 4
_DPOP_SCHEME = re.compile(r"(?:^|,)\s*dpop\b", re.IGNORECASE)


class OAuthFlow:
    """The authorization state of one transport (see the module docstring).

    Args:
        settings: the :class:`OAuthSettings`.
        server_url: the MCP endpoint.
        http: the transport's ``httpx.AsyncClient`` (discovery and registration).
    """

    def __init__(self, settings: OAuthSettings, server_url: str, http: httpx.AsyncClient) -> None:
        self.settings = settings
        self.server_url = server_url
        self.http = http
        self.key = canonical_resource(server_url)
        #: Authorizations and refreshes since the last request that succeeded.
        self.attempts = 0
        #: Authorization requests made (all time; for tests and diagnostics).
        self.authorizations = 0
        self._entry: dict[str, Any] | None = None
        self._lock: asyncio.Lock | None = None
        self._handler: RedirectHandler | None = settings.redirect_handler
        #: The last ``DPoP-Nonce`` of each server.
        self.nonces = NonceCache()
        self._dpop_key: DPoPKey | None = None
        self._nonce_retries = 0
        self._rs_dpop = False

    # -- state ------------------------------------------------------------------------------
    @property
    def entry(self) -> dict[str, Any]:
        if self._entry is None:
            self._entry = self.settings.storage.load(self.key) or {}
        return self._entry

    def _save(self) -> None:
        self.settings.storage.save(self.key, self.entry)

    @property
    def access_token(self) -> str | None:
        token = self.entry.get("token")
        value = token.get("access_token") if isinstance(token, dict) else None
        return value if isinstance(value, str) else None

    def authorization(self) -> str | None:
        """The ``Authorization`` header value, or None before any token."""
        token = self.access_token
        if not token:
            return None
        kind = str((self.entry.get("token") or {}).get("token_type") or "")
        return f"DPoP {token}" if kind.lower() == "dpop" and self.entry.get("dpop_key") else f"Bearer {token}"

    @property
    def dpop_key(self) -> DPoPKey:
        """The DPoP key of the stored tokens (made and stored when there is none)."""
        stored = self.entry.get("dpop_key")
        if self._dpop_key is None or not isinstance(stored, dict):
            self._dpop_key = DPoPKey(stored if isinstance(stored, dict) else None)
            if not isinstance(stored, dict):
                self.entry["dpop_key"] = self._dpop_key.private_jwk()
                self._save()
        return self._dpop_key

    def request_headers(self, method: str, url: str) -> dict[str, str]:
        """``Authorization`` (and ``DPoP``, a fresh proof, for a DPoP-bound token) of one request."""
        auth = self.authorization()
        if auth is None:
            return {}
        headers = {"authorization": auth}
        if auth.startswith("DPoP "):
            headers["dpop"] = self.dpop_key.proof(method, url, access_token=auth[5:], nonce=self.nonces.get(url))
        return headers

    # -- called by the transport --------------------------------------------------------------
    async def prepare(self) -> None:
        """Refresh a token that expires within :data:`REFRESH_LEEWAY` seconds (if it can)."""
        token = self.entry.get("token")
        if not isinstance(token, dict) or not token.get("refresh_token"):
            return
        expires = token.get("expires_at")
        if not isinstance(expires, (int, float)) or expires - REFRESH_LEEWAY > time.time():
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.entry.get("token") is token:
                await self._refresh()

    async def after(self, status: int, headers: Mapping[str, str], sent: str | None,
                    proof: str | None = None) -> bool:
        """See an answer; True when the request should be sent again (authorized now).

        ``sent``: the request's ``Authorization``; ``proof``: its ``DPoP`` header.

        Raises:
            OAuthError: the flow failed (its text says why).
        """
        nonce = headers.get("dpop-nonce")
        self.nonces.update(self.server_url, nonce)
        if status < 400:
            self.attempts = self._nonce_retries = 0
            return False
        header = headers.get("www-authenticate")
        challenge = parse_challenge(header)
        if header and _DPOP_SCHEME.search(header):
            self._rs_dpop = True
        if status == 401 and challenge.get("error") == USE_DPOP_NONCE and proof is not None:
            # RFC 9449 §9: send it again with the server's nonce (a new one: not the refused one)
            if not nonce or nonce == claim(proof, "nonce") or self._nonce_retries >= MAX_NONCE_RETRIES:
                return False
            self._nonce_retries += 1
            return True
        if status != 401 and not (status == 403 and challenge.get("error") == "insufficient_scope"):
            return False
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.authorization() != sent:
                return True  # another request authorized meanwhile
            if self.attempts >= self.settings.max_authorizations:
                logger.warning("HTTP %d from %s after %d authorizations in a row: giving up",
                               status, self.server_url, self.attempts)
                return False
            self.attempts += 1
            await self._authorize(status, challenge)
            return True

    # -- the flow -------------------------------------------------------------------------------
    async def _authorize(self, status: int, challenge: dict[str, str]) -> None:
        local = self.settings.allow_local_urls
        prm = await discover_resource(self.http, self.server_url, challenge, allow_local=local)
        if prm is not None:
            issuer: str = pinned_issuer(self.settings.issuer, prm["authorization_servers"])
            resource = str(prm["resource"])
            meta = await discover_issuer(self.http, issuer, self.server_url, allow_local=local)
            if meta is None:
                raise OAuthError(f"no authorization server metadata found for {issuer}")
        else:  # 2025-03-26: the MCP server's origin is the authorization server
            issuer, resource = pinned_issuer(self.settings.issuer, [origin(self.server_url)]), self.key
            meta = await discover_issuer(self.http, issuer, self.server_url, allow_local=local) \
                or fallback_metadata(self.server_url)
        entry = self.entry
        if entry.get("issuer") not in (None, issuer):
            logger.info("the authorization server of %s changed to %s: forgetting the old tokens and client",
                        self.server_url, issuer)
            entry.clear()
        entry.update(issuer=issuer, resource=resource, token_endpoint=meta["token_endpoint"],
                     auth_signing_algs=meta.get("token_endpoint_auth_signing_alg_values_supported"),
                     dpop=self._use_dpop(meta, prm))
        token = entry.get("token")
        if status == 401 and isinstance(token, dict) and token.get("refresh_token") and await self._refresh():
            return
        scope = self._scope(status, challenge, prm, meta)
        grant = self.settings.grant
        if grant is not None:  # no user: client credentials, JWT bearer, enterprise-managed
            client = entry["client"] = self._grant_client(meta)
            self.authorizations += 1
            fresh = await run_grant(grant, meta, resource, scope, lambda: self._oauth_client(client),
                                    bool(entry["dpop"]), self.http, self.settings.timeout)
            self._store(fresh, scope)
            return
        client = await self._client(meta)
        verifier_params = await self._code(meta, client, scope, resource)
        await self._exchange(meta, client, resource, scope, *verifier_params)

    def _scope(self, status: int, challenge: dict[str, str], prm: dict[str, Any] | None,
               meta: dict[str, Any]) -> str | None:
        if self.settings.scope is not None:
            return self.settings.scope or None
        wanted = (challenge.get("scope") or "").split()
        if not wanted and prm is not None and isinstance(prm.get("scopes_supported"), list):
            wanted = [str(s) for s in prm["scopes_supported"]]
        if status == 403:
            wanted = [*str(self.entry.get("scope") or "").split(), *wanted]
        supported = meta.get("scopes_supported")
        if wanted and self.settings.offline_access and self.settings.grant is None and isinstance(supported, list) and "offline_access" in supported:
            wanted.append("offline_access")
        return " ".join(dict.fromkeys(wanted)) or None

    def _redirect(self) -> tuple[RedirectHandler, str]:
        if self._handler is None:
            self._handler = LoopbackBrowserRedirect()
        uri = self.settings.redirect_uri or getattr(self._handler, "redirect_uri", None)
        if not isinstance(uri, str):
            raise OAuthError("no redirect URI: give OAuthSettings(redirect_uri=...) or a handler with one")
        return self._handler, uri

    async def _client(self, meta: dict[str, Any]) -> dict[str, Any]:
        """The client registration to use with this authorization server (made if needed)."""
        _, redirect_uri = self._redirect()
        client = self.entry.get("client")
        if isinstance(client, dict) and client.get("redirect_uri") == redirect_uri:
            return client
        client = await choose_client(self.settings, meta, redirect_uri, self.http)
        client["redirect_uri"] = redirect_uri
        self.entry["client"] = client
        self._save()
        return client

    def _use_dpop(self, meta: dict[str, Any], prm: dict[str, Any] | None) -> bool:
        """DPoP for this authorization server (see the module docstring)."""
        wanted = self.settings.dpop
        if wanted is not None:
            return wanted
        offered = self._rs_dpop or (prm is not None and (prm.get("dpop_bound_access_tokens_required") is True
                                                         or isinstance(prm.get("dpop_signing_alg_values_supported"), list)))
        return offered and dpop_supported(meta)

    def _grant_client(self, meta: dict[str, Any]) -> dict[str, Any]:
        return grant_client(self.settings, meta)

    def _oauth_client(self, client: dict[str, Any], **options: Any) -> Any:
        """authlib's token client for ``client`` (DPoP when on; addresses checked by client/oauth/net.py)."""
        from .net import http_module_of, make_checked_transport
        from .settings import _need_authlib

        if self.entry.get("dpop"):
            options["event_hooks"] = dpop_hooks(self.dpop_key, self.nonces)
        options["transport"] = make_checked_transport(self.server_url, allow_local=self.settings.allow_local_urls,
                                                      http_module=http_module_of(_need_authlib()))
        return token_client(self.settings, self.entry, client, **options)

    async def _code(self, meta: dict[str, Any], client: dict[str, Any], scope: str | None,
                    resource: str) -> tuple[str, str]:
        """Send the user to authorize; (the code, the PKCE verifier)."""
        from authlib.common.security import generate_token  # type: ignore[import-untyped, import-not-found, unused-ignore]

        handler, redirect_uri = self._redirect()
        verifier = generate_token(64)
        async with self._oauth_client(client, redirect_uri=redirect_uri, code_challenge_method="S256") as oauth:
            url, state = oauth.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier,
                                                        scope=scope, resource=resource)
        self.authorizations += 1
        logger.info("authorizing with %s (scope %s)", meta.get("issuer") or meta["authorization_endpoint"], scope or "-")
        out = handler(url)
        callback = await out if inspect.isawaitable(out) else out
        query = {k: v[0] for k, v in parse_qs(urlsplit(str(callback)).query).items() if v}
        if "error" in query:
            raise OAuthError(f"authorization refused: {query['error']}"
                             + (f" ({query['error_description']})" if query.get("error_description") else ""))
        if not hmac.compare_digest(query.get("state", ""), state):
            raise OAuthError("the authorization response's state does not match the request")
        issuer = meta.get("issuer")
        if "iss" in query:
            if issuer is None or query["iss"] != issuer:
                raise OAuthError(f"the authorization response comes from issuer {query['iss']!r}, "
                                 f"not {issuer!r} (RFC 9207): refused")
        elif meta.get("authorization_response_iss_parameter_supported") is True:
            raise OAuthError("the authorization response lacks the iss parameter its server advertises (RFC 9207)")
        if not query.get("code"):
            raise OAuthError("the authorization response has no code")
        return query["code"], verifier

    async def _exchange(self, meta: dict[str, Any], client: dict[str, Any], resource: str, scope: str | None,
                        code: str, verifier: str) -> None:
        _, redirect_uri = self._redirect()

        async def call() -> dict[str, Any]:
            async with self._oauth_client(client, redirect_uri=redirect_uri) as oauth:
                return dict(await oauth.fetch_token(meta["token_endpoint"], grant_type="authorization_code", code=code,
                                                    code_verifier=verifier, resource=resource))

        try:
            token = await with_nonce_retry(call, bool(self.entry.get("dpop")))
        except Exception as exc:
            raise OAuthError(f"the token request to {meta['token_endpoint']} failed: {describe(exc)}") from None
        self._store(token, scope)

    async def _refresh(self) -> bool:
        """Use the refresh token; False (tokens dropped) when that fails."""
        entry = self.entry
        token, client = entry.get("token") or {}, entry.get("client")
        endpoint = entry.get("token_endpoint")
        if not token.get("refresh_token") or not isinstance(client, dict) or not isinstance(endpoint, str):
            return False

        async def call() -> dict[str, Any]:
            async with self._oauth_client(client) as oauth:
                return dict(await oauth.refresh_token(endpoint, refresh_token=token["refresh_token"],
                                                      resource=entry.get("resource") or self.key))

        try:
            fresh = await with_nonce_retry(call, bool(entry.get("dpop")))
        except Exception as exc:
            logger.info("refreshing the token at %s failed: %s", endpoint, describe(exc))
            entry.pop("token", None)
            self._save()
            return False
        if not fresh.get("refresh_token"):
            fresh = {**fresh, "refresh_token": token["refresh_token"]}
        self._store(fresh, entry.get("scope"))
        logger.info("refreshed the access token for %s", self.server_url)
        return True

    def _store(self, token: Mapping[str, Any], scope: str | None) -> None:
        if not isinstance(token.get("access_token"), str):
            raise OAuthError("the token response has no access_token")
        kept: dict[str, Any] = {"access_token": token["access_token"], "token_type": token.get("token_type", "Bearer")}
        if isinstance(token.get("refresh_token"), str):
            kept["refresh_token"] = token["refresh_token"]
        expires_in = token.get("expires_in")
        if isinstance(expires_in, (int, float)):
            kept["expires_at"] = time.time() + float(expires_in)
        elif isinstance(token.get("expires_at"), (int, float)):
            kept["expires_at"] = float(token["expires_at"])
        if isinstance(token.get("scope"), str):
            kept["scope"] = token["scope"]
        self.entry["token"] = kept
        if scope is not None:
            self.entry["scope"] = scope
        self._save()

    def __repr__(self) -> str:
        return f"OAuthFlow({self.server_url!r}, authorized={self.access_token is not None})"


__all__ = ["OAuthError", "OAuthFlow", "OAuthSettings"]
