"""``ClientConnection``: the connection half of the async client (``ClientBase`` builds on it).

It owns the transport (``client/transports.py``, ``client/http/transport.py``) under a JSON-RPC session
(``client/session.py``), runs the era probe (``client/handshake.py``) on :meth:`ClientConnection.connect`,
adds the era's ``_meta`` to every request, and answers what the server sends: its
requests (legacy client input, see ``client/inputs.py``) and notifications.  ``timeout=``
is the idle timeout of a request (restarted by progress), ``max_timeout=`` its hard
maximum.

``on_tools_changed=`` is called on ``notifications/tools/list_changed`` (which also
empties the ``tools/list`` cache), and when the HTTP transport replaced a lost legacy
session (the new one may be on a replica with other tools); in the 2026 era the client then keeps a
``subscriptions/listen`` stream open to get them (``watch_tools=True`` does so without
a callback).  Server log messages (``notifications/message``) go to the
``mcp_codegen.client.server_log`` logger.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, Self

from ..wire import protocol as p
from ..wire.apps import UI_EXTENSION, UI_MIME_TYPE, tool_ui
from ..wire.errors import McpError, TransportClosedError
from ..wire.tools import ServerInfo, ToolDef
from .constructors import TransportConstructors
from .features import missing
from .handshake import Era, Handshake, legacy_outcome, modern_meta, requested_era
from .hooks import default_audit_hook
from .inputs import answer_input
from .retry_policy import RetrySetting, resolve_policy
from .retrying_calls import RetryingCalls
from .session import JsonRpcSession, Timeouts
from .subscriptions import ListenStreams, Subscription, route_change
from .tools import ToolsPageCache
from .transports import ClientTransport, StdioTransport
from .types import (
    AuditHook,
    ConfirmHook,
    ElicitationHandler,
    ProgressCallback,
    Root,
    RootsHandler,
    SamplingHandler,
)

logger = logging.getLogger("mcp_codegen.client")
server_log = logging.getLogger("mcp_codegen.client.server_log")

_LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO, "warning": logging.WARNING,
               "error": logging.ERROR, "critical": logging.CRITICAL, "alert": logging.CRITICAL, "emergency": logging.CRITICAL}


class ClientConnection(TransportConstructors, RetryingCalls):
    """The connection of an MCP client: lifecycle, era, requests, and the server's messages.

    :class:`~client.async_client.ClientBase` adds the tool API on top; ``stdio``, ``in_process`` and
    ``http`` (build one with its transport) come from :class:`~client.constructors.TransportConstructors`.  Class attributes
    (filled by the generated subclass): ``server_info`` (the spec's server identity; the
    client's own ``clientInfo`` defaults to ``{name: "<server>-client", version: <spec
    version>}``) and ``tool_defs``.
    """

    server_info: ClassVar[ServerInfo] = ServerInfo(name="mcp", version="0")
    tool_defs: ClassVar[tuple[ToolDef, ...]] = ()
    #: Declare the tasks extension (2026-07-28): None = when a tool's spec says ``task:``.
    declare_tasks: ClassVar[bool | None] = None

    def __init__(
        self,
        transport: ClientTransport,
        *,
        era: Era | None = None,
        protocol_version: str | None = None,
        client_info: Mapping[str, Any] | None = None,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        roots: RootsHandler | Sequence[Root] | None = None,
        confirm: ConfirmHook | None = None,
        audit: AuditHook | None = default_audit_hook,
        progress: ProgressCallback | None = None,
        on_tools_changed: Callable[[], Awaitable[None] | None] | None = None,
        watch_tools: bool | None = None,
        timeout: float | None = 60.0,
        max_timeout: float | None = 600.0,
        probe_timeout: float = 5.0,
        max_input_rounds: int = 8,
        validate_output: bool = True,
        retry: RetrySetting = None,
    ) -> None:
        """Bind the client to ``transport`` (nothing is sent before :meth:`connect`).

        Args:
            transport: the channel to the server.
            era: force ``"modern"`` (2026-07-28) or ``"legacy"``; ``None`` probes.
            protocol_version: force one protocol version (implies its era).
            client_info: the ``clientInfo`` sent to the server.
            elicitation: answers ``elicitation/create`` (declares the capability).
            sampling: answers ``sampling/createMessage`` (declares the capability).
            roots: answers ``roots/list``: a handler or a fixed list (declares the capability).
            confirm: asked before a tool call that may change something.
            audit: receives an :class:`~client.types.AuditRecord` per tool call (``None``: off).
            progress: receives the progress of every tool call.
            on_tools_changed: called on ``notifications/tools/list_changed``.
            watch_tools: keep the 2026 ``subscriptions/listen`` open (default: with ``on_tools_changed``).
            timeout: idle timeout of a request in seconds, restarted by progress.
            max_timeout: hard maximum of a request in seconds.
            probe_timeout: how long the unforced ``server/discover`` probe may take.
            max_input_rounds: the most ``input_required`` rounds of one tool call.
            validate_output: check typed outputs against the wire ``outputSchema`` too.
            retry: retry safe calls: ``"safe"`` or a :class:`~client.retry_policy.RetryPolicy` (None: off).

        Raises:
            ValueError: a bad era or version, or ``timeout`` above ``max_timeout``.
        """
        era = requested_era(era, protocol_version)
        if timeout is not None and max_timeout is not None and timeout > max_timeout:
            raise ValueError("timeout must not exceed max_timeout")
        self.transport = transport
        self.requested_era: Era | None = era
        self.requested_version = protocol_version
        self.client_info: dict[str, Any] = dict(
            client_info or {"name": f"{self.server_info.name}-client", "version": self.server_info.version}
        )
        self.elicitation_handler = elicitation
        self.sampling_handler = sampling
        self.roots_handler = roots
        self.confirm_hook = confirm
        self.audit_hook = audit
        self.progress_callback = progress
        self.on_tools_changed = on_tools_changed
        self.watch_tools = watch_tools if watch_tools is not None else on_tools_changed is not None
        self.timeout = timeout
        self.max_timeout = max_timeout
        self.probe_timeout = probe_timeout
        self.max_input_rounds = max_input_rounds
        self.validate_output = validate_output
        self.retry = resolve_policy(retry)
        self._closed_by_user = False
        self._reconnect_lock = asyncio.Lock()

        self._session = self._make_session(transport)
        self._era: Era | None = None
        self._version: str | None = None
        self._server_capabilities: dict[str, Any] = {}
        self._server_identity: dict[str, Any] = {}
        self._instructions: str | None = None
        self._connected = False
        self._connect_lock: asyncio.Lock | None = None
        self._tools_cache = ToolsPageCache()
        self._live_tools: dict[str, dict[str, Any]] = {}
        self._tokens = 0
        self._inflight: list[str] = []
        self._listen_task: asyncio.Task[None] | None = None
        self._subscriptions: set[Subscription] = set()
        self.task_notices = ListenStreams()  # open listen streams (the task notices too once declared, below)
        self._by_name: dict[str, ToolDef] = {td.name: td for td in self.tool_defs}

    # -- lifecycle ---------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def connect(self) -> None:
        """Start the transport and negotiate the era (idempotent)."""
        if self._connect_lock is None:
            self._connect_lock = asyncio.Lock()
        async with self._connect_lock:
            if self._connected:
                return
            if self._session.is_closed:
                raise TransportClosedError("client is closed")
            await self._session.start()
            try:
                await self._negotiate()
            except BaseException:
                await self._session.aclose()
                raise
            self._connected = True
            tools_caps = self._server_capabilities.get("tools")
            if (
                self.watch_tools
                and self._era == "modern"
                and isinstance(tools_caps, dict)
                and tools_caps.get("listChanged") is True
            ):
                self._listen_task = asyncio.create_task(self._listen(), name="mcp-client-listen")

    async def _negotiate(self) -> None:
        """Run the handshake, keep its outcome, and tell the transport the era."""
        agreed = await self._handshake().negotiate(era=self.requested_era, version=self.requested_version,
                                                   probe_timeout=self.probe_timeout, timeouts=self._timeouts())
        self._era, self._version = agreed.era, agreed.version
        self._server_capabilities = agreed.capabilities
        self._server_identity = agreed.server_info
        self._instructions = agreed.instructions
        self.transport.set_protocol(agreed.era, agreed.version)
        if agreed.era == "legacy":
            await self._session.notify("notifications/initialized")
            await self.transport.settle_listening()

    def _handshake(self) -> Handshake:
        return Handshake(self._session, self.client_capabilities, self.client_info)

    async def _listen(self) -> None:
        """2026-07-28: keep a ``subscriptions/listen`` open for ``toolsListChanged``."""
        params = self._params({"notifications": {"toolsListChanged": True}})
        listen_id = self._session.next_id()
        self.task_notices.opening(listen_id)
        try:
            await self._session.request("subscriptions/listen", params, timeouts=Timeouts(idle=None, hard=None), request_id=listen_id)
        except McpError as exc:
            logger.debug("subscriptions/listen ended: %s", exc)
        finally:
            self.task_notices.closed(listen_id)

    def _make_session(self, transport: ClientTransport) -> JsonRpcSession:
        """The JSON-RPC session over ``transport``, wired to this client (also after a reconnect)."""
        transport.on_session_renewed = self._session_renewed
        return JsonRpcSession(transport, on_request=self._on_server_request, on_notification=self._on_notification)

    async def aclose(self) -> None:
        """Close the connection (stdio: close stdin, wait, terminate, kill)."""
        self._closed_by_user = True
        task, self._listen_task = self._listen_task, None
        if task is not None and not task.done():
            task.cancel()  # sends notifications/cancelled for the listen request
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        await self._session.aclose()

    @property
    def era(self) -> Era | None:
        """``"modern"`` (2026-07-28) or ``"legacy"`` once connected."""
        return self._era

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol version once connected."""
        return self._version

    @property
    def server_capabilities(self) -> dict[str, Any]:
        """The server's capabilities (from the handshake)."""
        return self._server_capabilities

    @property
    def server_identity(self) -> dict[str, Any]:
        """The live ``serverInfo`` (self-reported; for display and logging only)."""
        return self._server_identity

    @property
    def instructions(self) -> str | None:
        """The server's ``instructions`` (from the handshake), if any."""
        return self._instructions

    @property
    def is_closed(self) -> bool:
        """True once the connection is gone: closed, or lost (the server exited, the stream broke)."""
        return self._session.is_closed

    @property
    def stderr_output(self) -> str:
        """The server's captured stderr (stdio with ``stderr="capture"``), else ``""``."""
        return self.transport.stderr_output if isinstance(self.transport, StdioTransport) else ""

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """Capabilities declared to the server: only for the handlers given."""
        caps: dict[str, Any] = {}
        if self.elicitation_handler is not None:
            caps["elicitation"] = {}
        if self.sampling_handler is not None:
            caps["sampling"] = {}
        if self.roots_handler is not None:
            caps["roots"] = {}
        if any(tool_ui(t.wire) is not None for t in self.tool_defs):  # MCP Apps: the server then sends the UI links
            caps["extensions"] = {UI_EXTENSION: {"mimeTypes": [UI_MIME_TYPE]}}
        return caps

    def _modern_capabilities(self) -> dict[str, Any]:
        """2026-07-28: the capabilities plus the tasks extension when a tool may run as a task
        (``client/tasks/handle.py``; ``declare_tasks`` forces it on or off)."""
        caps = self.client_capabilities
        declare = self.declare_tasks
        if declare is None:
            declare = any(t.task_support != "forbidden" for t in self.tool_defs)
        if declare:
            if type(self.task_notices) is ListenStreams:  # a task may notify from now on: keep its notices
                try:
                    from .tasks.notify import TaskNotices  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
                except ImportError as exc:
                    missing("tasks", "declaring the tasks extension (declare_tasks)", exc)
                self.task_notices = TaskNotices.over(self.task_notices)
            caps = {**caps, "extensions": {**caps.get("extensions", {}), p.TASKS_EXTENSION: {}}}
        return caps

    # -- requests --------------------------------------------------------------------------

    def _timeouts(self, timeout: float | None = None) -> Timeouts:
        idle = self.timeout if timeout is None else timeout
        hard = self.max_timeout
        if idle is not None and hard is not None:
            idle = min(idle, hard)
        return Timeouts(idle=idle, hard=hard)

    def _params(self, params: Mapping[str, Any] | None, progress_token: str | None = None) -> dict[str, Any] | None:
        """``params`` with the ``_meta`` of the era (and the progress token, if any)."""
        out = dict(params) if params is not None else None
        if self._era == "modern" or progress_token is not None:
            out = out or {}
            meta = dict(out.get("_meta") or {})
            if self._era == "modern":
                meta.update(modern_meta(self._version or p.LATEST, self._modern_capabilities(), self.client_info))
            if progress_token is not None:
                meta[p.META_PROGRESS_TOKEN] = progress_token
            out["_meta"] = meta
        return out

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Send any request (``_meta`` added in the modern era) and return its raw result."""
        await self.connect()
        return await self._session.request(method, self._params(params), timeouts=self._timeouts(timeout))

    async def ping(self) -> None:
        """Liveness check: ``ping`` (legacy) or ``server/discover`` (2026, which has no ping)."""
        await self.connect()
        if self._era == "modern":
            await self._handshake().discover(self._version or p.LATEST, self._timeouts())
        else:
            await self._session.request("ping", None, timeouts=self._timeouts())

    # -- server -> client messages ---------------------------------------------------------

    def invalidate_tools_cache(self) -> None:
        """Forget cached ``tools/list`` pages (also done on ``notifications/tools/list_changed``)."""
        self._tools_cache.clear()

    async def _session_renewed(self, result: dict[str, Any]) -> None:
        """A new legacy session replaced a lost one (HTTP 404, ``client/http/legacy.py``)."""
        agreed = legacy_outcome(self._version or p.LATEST_LEGACY, result)
        self._server_capabilities, self._server_identity = agreed.capabilities, agreed.server_info
        self._instructions = agreed.instructions
        await self._on_notification("notifications/tools/list_changed", None)

    async def _fulfil(
        self, method: str, params: Any, tool: str | None, key: str | None, tool_def: ToolDef | None
    ) -> dict[str, Any]:
        """Answer one elicitation / sampling / roots request with the user's handler."""
        return await answer_input(
            method,
            params,
            tool=tool,
            key=key,
            tool_def=tool_def,
            elicitation=self.elicitation_handler,
            sampling=self.sampling_handler,
            roots=self.roots_handler,
        )

    async def _on_server_request(self, method: str, params: Any) -> Any:
        """Legacy era: the server's JSON-RPC requests to the client."""
        if method == "ping":
            return {}
        tool = None
        tool_def = None
        if len(self._inflight) == 1:  # the request can only belong to that call
            tool = self._inflight[0]
            tool_def = self._by_name.get(tool)
        return await self._fulfil(method, params, tool, None, tool_def)

    async def _on_notification(self, method: str, params: Any) -> None:
        route_change(self._subscriptions, method, params)
        self.task_notices.offer(method, params)
        if method == "notifications/tools/list_changed":
            self.invalidate_tools_cache()
            if self.on_tools_changed is not None:
                out = self.on_tools_changed()
                if inspect.isawaitable(out):
                    await out
        elif method == "notifications/message" and isinstance(params, dict):
            level = _LOG_LEVELS.get(str(params.get("level")), logging.INFO)
            server_log.log(level, "%s: %s", params.get("logger") or "server", params.get("data"))
