"""Credentials of upstream requests, only from the environment variables the spec names.

A tool's security requirement (``http.security``, else ``upstream.defaultSecurity``) lists
alternatives; the first whose variables are all set applies, every scheme of it together:

* ``apiKey``: the key as header, query parameter or cookie;
* ``bearer``: ``Authorization: Bearer <token>``;
* ``basic``: ``Authorization: Basic base64(username:password)``;
* ``oauth2``: the client credentials grant at ``tokenUrl``, its access token as bearer.

None usable: the request goes without credentials (logged at debug level with the variables'
names, never their values).  Variables are read at each call, so a rotated key applies at once.

OAuth 2 uses authlib's ``AsyncOAuth2Client`` (the ``oauth`` extra, which the runtime's own OAuth
client uses too): it builds the RFC 6749 token request (``client_secret_basic``), parses the
answer and its errors (§5.2) and records ``expires_at``.  Here the token is cached per scheme and
client, fetched once for concurrent calls (a lock), fetched again shortly before it expires
(a tenth of its lifetime, at most 60 s, early) and dropped when the upstream answers 401.
The token endpoint gets only the client's own credentials: never a caller's headers.

Secrets never reach a log, an error or a result: the messages here name variables and schemes
only, and :class:`Redactor` cuts the values out of what the ``httpx`` logger writes (its INFO
line carries the request URL, where an ``apiKey`` in the query would be).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import os
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...wire import protocol as p
from ...wire.errors import ToolError
from .binding import ApiKeyScheme, BasicScheme, BearerScheme, OAuth2Scheme, SecurityScheme
from .serialize import encode

logger = logging.getLogger("mcp_codegen.server.upstream")


class Redactor(logging.Filter):
    """Replaces the secret values it was told about by ``[redacted]`` in the records it filters."""

    def __init__(self, keep: int = 256) -> None:
        super().__init__()
        self._secrets: deque[str] = deque(maxlen=keep)
        #: Values whose forms are all in ``_secrets`` (every call remembers its credentials again).
        self._known: set[str] = set()
        #: ``_secrets`` longest first, as :meth:`redact` replaces them (None: to sort again).
        self._order: list[str] | None = None

    def remember(self, *secrets: str) -> None:
        for secret in secrets:
            if secret in self._known:
                continue
            for form in (secret, encode(secret)):
                if len(form) >= 4 and form not in self._secrets:
                    if len(self._secrets) == self._secrets.maxlen:
                        self._known.clear()  # the oldest form goes: every value is looked at again
                    self._secrets.append(form)
                    self._order = None
            self._known.add(secret)

    def redact(self, text: str) -> str:
        order = self._order
        if order is None:  # sorted once per change, not for every log record
            order = self._order = sorted(self._secrets, key=len, reverse=True)
        for secret in order:
            text = text.replace(secret, "[redacted]")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is not ours to fix
            return True
        clean = self.redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        return True


#: The one redactor, on the loggers of httpx (installed with the first upstream client).
REDACTOR = Redactor()
_installed = False


def install_redactor() -> None:
    global _installed
    if not _installed:
        for name in ("httpx", "httpcore"):
            logging.getLogger(name).addFilter(REDACTOR)
        _installed = True


@dataclass
class Applied:
    """What the chosen alternative adds to a request (already serialised)."""

    headers: dict[str, str] = field(default_factory=dict)
    query: list[str] = field(default_factory=list)
    cookies: list[str] = field(default_factory=list)
    #: The OAuth 2 schemes used (their token is dropped on a 401).
    oauth: list[str] = field(default_factory=list)


def _values(scheme: SecurityScheme, env: Mapping[str, str]) -> list[str] | None:
    """The scheme's variables' values, or None when one is unset or empty."""
    values = [env.get(name, "") for name in scheme.env_names]
    return values if all(values) else None


class CredentialStore:
    """The credentials of one server instance's upstream calls (the OAuth 2 tokens it holds)."""

    def __init__(self, schemes: Mapping[str, SecurityScheme], timeout: float) -> None:
        self._schemes = schemes
        self._timeout = timeout
        self._tokens: dict[tuple[str, str], _TokenSource] = {}

    async def apply(self, alternatives: tuple[tuple[str, ...], ...], tool: str) -> Applied:
        """The credentials of the first usable alternative (none usable: none).

        Raises:
            ToolError: the token endpoint of an OAuth 2 scheme refused or did not answer.
        """
        env = os.environ
        for alternative in alternatives:
            unknown = [name for name in alternative if name not in self._schemes]
            if unknown:
                logger.warning("tool %s: security scheme %s is not in upstream.security", tool, unknown[0])
                continue
            found = [_values(self._schemes[name], env) for name in alternative]
            if all(values is not None for values in found):
                applied = Applied()
                for name, values in zip(alternative, found, strict=True):
                    await self._add(name, self._schemes[name], values or [], applied)
                return applied
        if alternatives:
            names = sorted({v for alt in alternatives for n in alt if n in self._schemes
                            for v in self._schemes[n].env_names})
            logger.debug("tool %s: no credentials (set %s)", tool, ", ".join(names))
        return Applied()

    async def _add(self, name: str, scheme: SecurityScheme, values: list[str], applied: Applied) -> None:
        REDACTOR.remember(*values)
        if isinstance(scheme, ApiKeyScheme):
            key = values[0]
            if scheme.location == "header":
                applied.headers[scheme.name] = key
            elif scheme.location == "query":
                applied.query.append(f"{encode(scheme.name)}={encode(key)}")
            else:
                applied.cookies.append(f"{encode(scheme.name)}={encode(key)}")
        elif isinstance(scheme, BearerScheme):
            applied.headers["Authorization"] = f"Bearer {values[0]}"
        elif isinstance(scheme, BasicScheme):
            pair = base64.b64encode(f"{values[0]}:{values[1]}".encode()).decode("ascii")
            REDACTOR.remember(pair)
            applied.headers["Authorization"] = f"Basic {pair}"
        else:
            token = await self._source(name, scheme, values[0], values[1]).token()
            REDACTOR.remember(token)
            applied.headers["Authorization"] = f"Bearer {token}"
            applied.oauth.append(name)

    def _source(self, name: str, scheme: OAuth2Scheme, client_id: str, secret: str) -> _TokenSource:
        digest = hashlib.sha256(f"{client_id}\0{secret}".encode()).hexdigest()
        source = self._tokens.get((name, digest))
        if source is None:
            source = self._tokens[(name, digest)] = _TokenSource(scheme, client_id, secret, self._timeout)
        return source

    def drop_tokens(self, schemes: list[str]) -> None:
        """Forget the access tokens of ``schemes`` (the upstream refused them)."""
        for (name, _), source in self._tokens.items():
            if name in schemes:
                source.drop()

    async def aclose(self) -> None:
        sources, self._tokens = list(self._tokens.values()), {}
        for source in sources:
            await source.aclose()


class _TokenSource:
    """One client's access token at one token endpoint (module docstring)."""

    def __init__(self, scheme: OAuth2Scheme, client_id: str, secret: str, timeout: float) -> None:
        self._scheme = scheme
        self._client_id = client_id
        self._secret = secret
        self._timeout = timeout
        self._client: Any = None
        self._token: Any = None
        self._lock = asyncio.Lock()

    def _oauth_client(self) -> Any:
        if self._client is None:
            try:
                from authlib.integrations.httpx_client import AsyncOAuth2Client  # type: ignore[import-untyped, import-not-found, unused-ignore]
            except ImportError:
                raise ToolError("the upstream's OAuth 2 credentials need authlib: install the runtime's 'oauth' extra",
                                code=p.TOOL_ERROR_UPSTREAM) from None
            scope = " ".join(self._scheme.scopes) or None
            self._client = AsyncOAuth2Client(client_id=self._client_id, client_secret=self._secret, scope=scope,
                                             token_endpoint_auth_method="client_secret_basic",
                                             timeout=self._timeout, follow_redirects=False)
        return self._client

    async def token(self) -> str:
        async with self._lock:
            token = self._token
            if token is None or token.is_expired(leeway=self._leeway(token)):
                self._token = token = await self._fetch()
            return str(token["access_token"])

    @staticmethod
    def _leeway(token: Any) -> int:
        lifetime = token.get("expires_in")
        return min(60, int(lifetime) // 10) if isinstance(lifetime, (int, float)) and lifetime > 0 else 0

    async def _fetch(self) -> Any:
        client = self._oauth_client()
        try:
            token = await client.fetch_token(self._scheme.token_url, grant_type="client_credentials")
        except Exception as exc:
            error = getattr(exc, "error", None)
            kind = error if isinstance(error, str) and error.isascii() and len(error) < 64 else type(exc).__name__
            logger.warning("the OAuth 2 token endpoint of the upstream refused or failed: %s", kind)
            raise ToolError(f"the upstream's token endpoint did not issue a token: {kind}",
                            code=p.TOOL_ERROR_UPSTREAM) from None
        if not isinstance(token, dict) or not isinstance(token.get("access_token"), str):
            raise ToolError("the upstream's token endpoint answered no access token", code=p.TOOL_ERROR_UPSTREAM)
        return token

    def drop(self) -> None:
        self._token = None

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


__all__ = ["REDACTOR", "Applied", "CredentialStore", "Redactor", "install_redactor"]
