"""Settings of the Streamable HTTP transport (one frozen dataclass, safe defaults).

Pass an instance, or the same fields as keyword overrides, to
``ServerBase.asgi_app(...)`` / :class:`~server.http.app.HttpApp`; ``python -m <package> --http``
builds one from its command line (:func:`~server.http.cli.settings_from_args`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: ``verify(token) -> principal | None``; may return an awaitable.
TokenVerifier = Callable[[str], Any]


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
    #: Legacy sessions: idle lifetime (seconds) and maximum number.
    session_idle_timeout: float = 3600.0
    max_sessions: int = 1000
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
