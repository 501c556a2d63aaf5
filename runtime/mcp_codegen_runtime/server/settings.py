"""Server settings: limits, pagination, caching hints and security knobs (one dataclass)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


def fair_share(total: int) -> int:
    """How many of ``total`` bounded places one client may hold by default: a tenth, but at
    least 10 (all of them when there are no more than 10: a cap that small is for one client)."""
    return max(min(total, 10), total // 10)


@dataclass(frozen=True)
class ServerSettings:
    """Tunables of a generated server; every field has a safe default.

    Pass an instance to ``ServerBase(settings=...)`` (or use ``dataclasses.replace`` on
    ``ServerSettings()``).  ``main`` exposes the most common ones as CLI flags.
    """

    #: Tools per ``tools/list`` page.
    page_size: int = 50
    #: Largest accepted JSON-RPC message, in bytes (a longer stdio line is rejected).
    max_message_bytes: int = 4 * 1024 * 1024
    #: Longest string allowed anywhere in an incoming message (characters).
    max_string_length: int = 1024 * 1024
    #: Deepest nesting allowed in an incoming message.
    max_depth: int = 64
    #: Tool calls running at once (server-wide); further calls wait for a slot.
    max_concurrent_calls: int = 64
    #: Of those, how many one HTTP client (its principal, else its address) may hold at once;
    #: None: three quarters of ``max_concurrent_calls`` (at least 1).
    max_concurrent_calls_per_client: int | None = None
    #: 2026-07-28 ``subscriptions/listen`` streams open at once, server-wide (one more is
    #: refused with -32603; each holds a connection: about 28 KB over HTTP).
    max_listen_streams: int = 1000
    #: Of those, how many one HTTP client may hold; None: a tenth of ``max_listen_streams``, at
    #: least 10 (or all of them when there are fewer: see :func:`fair_share`).
    max_listen_streams_per_client: int | None = None
    #: Seconds a tool call may take (waiting for a slot and for client input included).
    call_timeout: float = 300.0
    #: Token bucket per client: sustained tool calls per second, and burst size.
    rate_limit_per_second: float = 50.0
    rate_limit_burst: int = 100
    #: Seconds a legacy server->client request (elicitation, sampling, roots) may wait.
    client_request_timeout: float = 300.0
    #: Lifetime of an MRTR ``requestState`` (2026-07-28), seconds.
    request_state_ttl: float = 600.0
    #: ``ttlMs`` and ``cacheScope`` of ``tools/list`` and ``server/discover`` (2026-07-28).
    list_ttl_ms: int = 60_000
    cache_scope: Literal["public", "private"] = "public"
    #: Seconds in-flight requests get to finish after the client closed stdin.
    shutdown_grace: float = 2.0
    #: Minimum level of ``notifications/message`` on legacy connections before the client
    #: sends ``logging/setLevel``.
    default_log_level: str = "debug"
    #: File of the state keys that sign cursors and ``requestState`` (one hex key per line,
    #: the first signs; see ``server.signing``).  None: ``MCP_CODEGEN_STATE_KEY_FILE``, else
    #: ``MCP_CODEGEN_STATE_KEY``, else a random key per process.  Ignored when the server is
    #: given ``state_keys``.
    state_key_file: str | None = None
    #: Audience bound into cursors and ``requestState``: a server refuses tokens of another
    #: audience even when it shares the key.  None: ``MCP_CODEGEN_STATE_AUDIENCE``, else the
    #: server's name.
    state_audience: str | None = None
    #: Redis shared by the replicas (``redis://host:6379/0``): change notifications and the rate
    #: limit reach across processes (:mod:`server.replicas`).  None: ``MCP_CODEGEN_REDIS_URL``, else
    #: each process alone.
    redis_url: str | None = None
    #: Tasks extension (``server.tasks``): seconds a task is kept after it ended (its ``ttlMs``;
    #: a running task never expires), the ``pollIntervalMs`` suggested to clients (seconds), the
    #: longest a task's handler may run, and how many tasks are stored at once, server-wide and
    #: per client (None: a tenth of ``max_tasks``, at least 10; see :func:`fair_share`).
    task_ttl: float = 3600.0
    task_poll_interval: float = 0.5
    task_timeout: float = 3600.0
    max_tasks: int = 1000
    max_tasks_per_client: int | None = None
    #: Bytes of finished task results (their JSON) kept at once, server-wide and per client
    #: (None: an eighth of ``max_task_result_bytes``): the oldest results are dropped to make
    #: room, and a result larger than a client's share fails its task (``server.tasks.store``).
    max_task_result_bytes: int = 128 * 1024 * 1024
    max_task_result_bytes_per_client: int | None = None

    def __post_init__(self) -> None:
        if self.page_size < 1:
            raise ValueError("page_size must be at least 1")
        if self.max_concurrent_calls < 1:
            raise ValueError("max_concurrent_calls must be at least 1")
        if self.max_listen_streams < 1:
            raise ValueError("max_listen_streams must be at least 1")
        if self.max_tasks < 1 or self.task_ttl <= 0 or self.task_poll_interval <= 0:
            raise ValueError("max_tasks, task_ttl and task_poll_interval must be positive")
        if self.max_task_result_bytes < 1:
            raise ValueError("max_task_result_bytes must be at least 1")
        for name in ("max_concurrent_calls_per_client", "max_listen_streams_per_client", "max_tasks_per_client",
                     "max_task_result_bytes_per_client"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.max_message_bytes < 1024:
            raise ValueError("max_message_bytes must be at least 1024")

    def calls_per_client(self) -> int:
        """Tool-call slots one HTTP client may hold at once (see ``max_concurrent_calls_per_client``)."""
        if self.max_concurrent_calls_per_client is not None:
            return min(self.max_concurrent_calls_per_client, self.max_concurrent_calls)
        return max(1, self.max_concurrent_calls * 3 // 4)

    def listen_streams_per_client(self) -> int:
        """``subscriptions/listen`` streams one HTTP client may hold (``max_listen_streams_per_client``)."""
        if self.max_listen_streams_per_client is not None:
            return min(self.max_listen_streams_per_client, self.max_listen_streams)
        return fair_share(self.max_listen_streams)

    def tasks_per_client(self) -> int:
        """Tasks one client may have stored at once (``max_tasks_per_client``)."""
        if self.max_tasks_per_client is not None:
            return min(self.max_tasks_per_client, self.max_tasks)
        return fair_share(self.max_tasks)

    def task_result_bytes_per_client(self) -> int:
        """Bytes of finished task results one client may have kept (``max_task_result_bytes_per_client``)."""
        if self.max_task_result_bytes_per_client is not None:
            return min(self.max_task_result_bytes_per_client, self.max_task_result_bytes)
        return max(1, self.max_task_result_bytes // 8)
