"""Settings of the Streamable HTTP transport (frozen dataclasses, safe defaults).

Pass an instance, or the same fields as keyword overrides, to
``ServerBase.asgi_app(...)`` / :class:`~server.http.app.HttpApp`; ``python -m <package> --http``
builds one from its command line (:func:`~server.http.cli.settings_from_args`).
:class:`OAuthSettings` (``HttpSettings.oauth``) configures the OAuth resource server
(:mod:`server.http.oauth`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..settings import fair_share
from .jwks import DEFAULT_ALGORITHMS
from .verifiers import AccessTokenVerifier

#: ``verify(token) -> principal | None``; may return an awaitable.
TokenVerifier = Callable[[str], Any]


@dataclass(frozen=True)
class OAuthSettings:
    """Run-time OAuth configuration (``HttpSettings.oauth``); empty fields take the spec's."""

    #: Canonical URL of the MCP endpoint (RFC 8707): the audience tokens must name.
    resource: str | None = None
    #: The resource when neither :attr:`resource` nor the spec names one (the CLI sets it
    #: to ``http://HOST:PORT/PATH``).
    default_resource: str | None = None
    #: Issuer URLs of the accepted authorization servers.
    authorization_servers: tuple[str, ...] = ()
    #: Further accepted ``aud`` values (the resource is always accepted).
    audiences: tuple[str, ...] = ()
    #: Scopes every request needs (None: the spec's ``server.auth.scopes``).
    scopes: tuple[str, ...] | None = None
    #: Further scopes to advertise in the metadata.
    scopes_supported: tuple[str, ...] = ()
    resource_name: str | None = None
    #: JWKS URI (None: discovered from each issuer's metadata).
    jwks_url: str | None = None
    #: RFC 7662 endpoint; when set, tokens are introspected instead of verified as JWTs.
    introspection_url: str | None = None
    #: This resource server's credentials for introspection (default: the environment
    #: variables ``MCP_CODEGEN_OAUTH_CLIENT_ID`` / ``MCP_CODEGEN_OAUTH_CLIENT_SECRET``).
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    client_auth: str = "client_secret_basic"
    algorithms: tuple[str, ...] = DEFAULT_ALGORITHMS
    #: Seconds of slack for ``exp``/``nbf``/``iat``.
    clock_skew: float = 60.0
    jwks_ttl: float = 300.0
    jwks_refetch_interval: float = 30.0
    introspection_cache_ttl: float = 30.0
    #: Seconds per request to the authorization server.
    timeout: float = 5.0
    #: A verifier of your own (then JWKS / introspection settings are unused).
    verifier: AccessTokenVerifier | None = field(default=None, repr=False)
    #: DPoP-bound tokens (RFC 9449, ``server/http/dpop.py``): ``"allow"`` (default: Bearer
    #: and DPoP), ``"require"`` (DPoP only) or ``"off"`` (Bearer only).
    dpop: str = "allow"
    #: Accepted DPoP proof algorithms.
    dpop_algorithms: tuple[str, ...] = DEFAULT_ALGORITHMS
    #: Seconds a DPoP proof is accepted after its ``iat``.
    dpop_proof_lifetime: float = 300.0
    #: Require server-issued nonces in DPoP proofs (``DPoP-Nonce``).
    dpop_nonce: bool = False
    #: Seconds a nonce stays valid (its window; the previous window's nonce is accepted too).
    dpop_nonce_lifetime: float = 300.0
    #: The nonce HMAC secret shared by replicas (default: ``$MCP_CODEGEN_DPOP_NONCE_SECRET``, else random).
    dpop_nonce_secret: str | None = field(default=None, repr=False)
    #: Most DPoP proof ids remembered against replays (per process).
    dpop_replay_cache: int = 100_000


@dataclass(frozen=True)
class HttpSettings:
    """Knobs of the HTTP transport (every field has a safe default)."""

    #: The MCP endpoint.
    path: str = "/mcp"
    #: Allowed ``Host`` values (``name`` or ``name:port``; ``"*"`` allows any).  None:
    #: localhost, 127.0.0.1 and [::1] (on :attr:`port` when known).
    allowed_hosts: tuple[str, ...] | None = None
    #: Allowed ``Origin`` values (``"*"`` allows any).  None: ``http(s)://<allowed host>``.
    allowed_origins: tuple[str, ...] | None = None
    #: The bound port (narrows the default allowed hosts).
    port: int | None = None
    #: Bearer token -> principal.  With neither this nor ``verify_token`` no auth is asked.
    tokens: Mapping[str, Any] | None = None
    #: ``verify(token) -> principal | None`` (may be async); used after ``tokens``.
    verify_token: TokenVerifier | None = None
    #: ``realm`` of ``WWW-Authenticate``; ``resource_metadata`` adds that parameter.
    auth_realm: str = "mcp"
    resource_metadata: str | None = None
    #: OAuth resource server (docs/auth.md); the spec's ``server.auth`` turns it on too.
    oauth: OAuthSettings | None = None
    #: Largest request body (None: ``ServerSettings.max_message_bytes``).
    max_body_bytes: int | None = None
    #: Seconds a client may take to send its whole body (then 408).
    body_timeout: float = 30.0
    #: Legacy: answer requests with JSON even when the client accepts SSE.
    json_response: bool = False
    #: Legacy: ``retry`` (ms) sent in SSE priming events.
    sse_retry_ms: int = 1000
    #: Seconds between keep-alive comments on idle SSE streams.
    keepalive: float = 15.0
    #: Legacy sessions: idle lifetime (seconds; a session is idle while no request runs and no
    #: GET stream is open) and maximum number.
    session_idle_timeout: float = 3600.0
    max_sessions: int = 1000
    #: Of those, how many one client (its principal, else its address) may hold: at the cap its
    #: longest-idle session makes room, 503 when none is idle.  None: a tenth of ``max_sessions``,
    #: at least 10 (``fair_share``), so one client cannot take every session (nor every GET stream).
    max_sessions_per_client: int | None = None
    #: Events kept per SSE stream for replay (legacy) and queued per request (2026).
    max_events_per_stream: int = 1000
    #: Legacy: finished request streams are kept for ``Last-Event-ID`` resumption at most this
    #: long (seconds) and, per session, up to this many bytes of events (oldest dropped first);
    #: a stream answered with plain JSON cannot be resumed and is dropped at once.
    replay_ttl: float = 300.0
    max_replay_bytes: int = 8 * 1024 * 1024
    #: Legacy: this replica's name, the prefix of its session ids (``<replica-id>.<random>``) so a
    #: load balancer can route a session to the replica that has it (docs/legacy-load-balancing.md).
    #: 1-64 of ``A-Z a-z 0-9 _ -``.  None: ``MCP_CODEGEN_REPLICA_ID`` from the environment, and
    #: without it no prefix.
    replica_id: str | None = None
    #: Probes (GET or HEAD, no auth, no Host check: they tell nothing but "alive"/"ready"):
    #: ``health_path`` answers 200 while the process serves, ``ready_path`` 200 until the
    #: server starts draining (SIGTERM), then 503.  None (or "") turns a probe off.
    health_path: str | None = "/healthz"
    ready_path: str | None = "/readyz"

    def __post_init__(self) -> None:
        mcp = self.path.rstrip("/") or "/"
        for probe in (self.health_path, self.ready_path):
            if probe and (not probe.startswith("/") or (probe.rstrip("/") or "/") == mcp):
                raise ValueError(f"probe path {probe!r} must start with '/' and differ from the MCP path {self.path!r}")
        if self.max_sessions_per_client is not None and self.max_sessions_per_client < 1:
            raise ValueError("max_sessions_per_client must be at least 1")
        if self.max_events_per_stream < 1:  # a stream keeping no event would lose every answer
            raise ValueError("max_events_per_stream must be at least 1")

    def sessions_per_client(self) -> int:
        """Legacy sessions one client may hold (see ``max_sessions_per_client``)."""
        if self.max_sessions_per_client is not None:
            return min(self.max_sessions_per_client, self.max_sessions)
        return fair_share(self.max_sessions)
