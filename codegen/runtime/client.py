"""Client half of the runtime: ``ClientBase`` (async) and ``SyncClientBase`` (blocking).

The generated ``client.py`` subclasses both and adds one typed method per tool, calling
:meth:`ClientBase._call_structured` (tools with an ``outputSchema``) or
:meth:`ClientBase._call_content` (the others).  Everything else is here:

Connecting
    ``Client.stdio(command, args, env=..., cwd=..., stderr="passthrough"|"capture"|"discard")``
    spawns the server; ``Client.http(url, bearer_token=..., headers=...)`` speaks
    Streamable HTTP (``client_http``); ``Client.in_process(server)`` serves a server object in the same
    event loop; ``Client(transport)`` takes any :class:`~.client_transports.ClientTransport`
    (HTTP plugs in there).  Use ``async with``; :meth:`ClientBase.aclose` shuts down
    cleanly (stdio: close stdin, wait, SIGTERM, SIGKILL).

Eras
    By default the client probes ``server/discover`` (2026-07-28).  A DiscoverResult
    means the modern era; a recognised modern error (-32022 with a common version:
    retry; -32020/-32021: raise) keeps it modern; any other error or a timeout falls
    back to the legacy ``initialize`` handshake.  ``era="modern"|"legacy"`` or
    ``protocol_version="2025-06-18"`` (etc.) force one.  In the modern era every
    request carries ``_meta`` (protocolVersion, clientCapabilities, clientInfo);
    capabilities are declared only for the handlers given.

Results and errors
    :meth:`ClientBase.call_raw` returns the full result as a :class:`~.content.ToolResult`
    (unknown fields kept; ``isError`` results are returned, not raised).
    :meth:`ClientBase.call_tool` and the typed methods raise instead:

    * ``isError`` with ``_meta["mcp-codegen/error"] = {"code": c, "data": d}``: the
      tool's declared error class for ``c`` (from ``ToolDef.errors``, carrying ``.data``
      and ``.result``); ``c == "mcp-codegen.invalid_arguments"``
      (``protocol.TOOL_ERROR_INVALID_ARGUMENTS``): :class:`InvalidArgumentsError`;
    * ``isError`` without the marker: :class:`InvalidArgumentsError` when the text is
      recognisably an argument-validation failure of the official SDKs, the
      SDK's ``Unknown tool: <name>`` text: :class:`UnknownToolError`, anything else:
      :class:`ToolExecutionError`;
    * JSON-RPC errors: the class of ``errors.from_wire``; on ``tools/call`` a -32602
      naming an unknown tool is :class:`UnknownToolError`, one about the arguments
      (or whose arguments fail the local input model) :class:`InvalidArgumentsError`;
    * :class:`McpTimeoutError`, :class:`TransportClosedError`,
      :class:`OutputValidationError` (``structuredContent`` breaks the output model),
      :class:`InputRequiredLoopError`, :class:`ConfirmationDeniedError`.

Client input
    ``elicitation=``, ``sampling=``, ``roots=`` handlers (see ``client_types``) answer
    legacy server requests (no handler: -32601) and 2026 ``input_required`` rounds
    (a new JSON-RPC id per round, ``requestState`` echoed unchanged, at most
    ``max_input_rounds`` rounds).

Hooks
    ``confirm=`` is asked before any tool that is not read-only (or is destructive, or
    is not one of the generated tools); a refusal raises
    :class:`ConfirmationDeniedError` and nothing is sent.  ``audit=`` receives an
    :class:`~.client_types.AuditRecord` per call (default: a log line on the
    ``mcp_codegen.client.audit`` logger; ``audit=None`` disables it).  ``progress=``
    receives progress notifications.  ``on_tools_changed=`` is called on
    ``notifications/tools/list_changed`` (which also empties the ``tools/list`` cache);
    in the 2026 era the client then keeps a ``subscriptions/listen`` stream open to get
    them (``watch_tools=True`` does so without a callback).  ``timeout=`` is the idle timeout (restarted by
    progress), ``max_timeout=`` the hard maximum per request.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import logging
import os
import re
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, ClassVar, Generic, Literal, Self, TypeVar, cast

from pydantic import BaseModel, RootModel, ValidationError

from . import protocol as p
from .client_session import JsonRpcSession, Timeouts
from .client_transports import ClientTransport, InProcessTransport, StderrMode, StdioTransport
from .client_types import (
    AuditHook,
    AuditRecord,
    CompatReport,
    ConfirmHook,
    ElicitationHandler,
    ElicitationRequest,
    ElicitationResponse,
    Progress,
    ProgressCallback,
    Root,
    RootsHandler,
    SamplingHandler,
    SamplingRequest,
    SamplingResponse,
    ToolCallInfo,
    ToolChange,
)
from .content import TextContent, ToolResult
from .errors import (
    ConfirmationDeniedError,
    DeclaredToolError,
    HeaderMismatchError,
    InputRequiredLoopError,
    InvalidArgumentsError,
    InvalidParamsError,
    McpError,
    McpTimeoutError,
    MethodNotFoundError,
    MissingCapabilityError,
    OutputValidationError,
    ProtocolError,
    ToolError,
    ToolExecutionError,
    TransportClosedError,
    UnknownToolError,
    UnsupportedProtocolVersionError,
)
from .tools import ServerInfo, ToolDef, canonical_json, tool_fingerprint

__all__ = ["ClientBase", "Era", "SyncClientBase", "default_audit_hook"]

logger = logging.getLogger("mcp_codegen.client")
audit_logger = logging.getLogger("mcp_codegen.client.audit")
server_log = logging.getLogger("mcp_codegen.client.server_log")

Era = Literal["modern", "legacy"]
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

#: Marker code for invalid arguments inside ``_meta["mcp-codegen/error"]``.
INVALID_ARGUMENTS_CODE: str = getattr(p, "TOOL_ERROR_INVALID_ARGUMENTS", "mcp-codegen.invalid_arguments")

_UNKNOWN_TOOL_RE = re.compile(r"unknown tool|no such tool|tool\b.{0,80}\bnot found|not found.{0,20}\btool", re.I | re.S)
_INVALID_ARGS_RE = re.compile(
    r"invalid arguments?|argument validation|input validation error|validation errors? for"
    r"|does not match (the )?(input )?schema|required (property|argument)",
    re.I,
)
#: isError texts of the official SDKs that mean "the arguments failed validation".
_SDK_INVALID_ARGS_TEXT = (
    re.compile(r"^Error executing tool \S+: \d+ validation errors? for ", re.S),  # Python SDK
    re.compile(r"Input validation error", re.I),  # TypeScript SDK
    re.compile(r"^Invalid arguments for tool ", re.I),
)
_LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}


def default_audit_hook(record: AuditRecord) -> None:
    """Log one line per tool call on ``mcp_codegen.client.audit`` (INFO, WARNING if not ok)."""
    level = logging.INFO if record.outcome in ("ok", "tool_error") else logging.WARNING
    audit_logger.log(
        level,
        "tool=%s outcome=%s error=%s duration=%.3fs args_sha256=%s era=%s version=%s rounds=%d",
        record.tool,
        record.outcome,
        record.error or "-",
        record.duration_s,
        record.arguments_sha256,
        record.era or "-",
        record.protocol_version or "-",
        record.rounds,
    )


def arguments_digest(arguments: Mapping[str, Any] | None) -> str:
    """sha256 of the canonical JSON of tool arguments (what the audit hook records)."""
    return hashlib.sha256(canonical_json(dict(arguments or {})).encode("utf-8")).hexdigest()


async def _call_user(fn: Callable[..., Any], *args: Any) -> Any:
    """Call a user hook: coroutine functions are awaited, plain ones run in a thread."""
    if inspect.iscoroutinefunction(fn):
        out = await fn(*args)
    else:
        out = await asyncio.to_thread(fn, *args)
    if inspect.isawaitable(out):
        out = await out
    return out


def _dump_model(value: Any) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        dumped: dict[str, Any] = value.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"handler returned {type(value).__name__}, expected a model or a mapping")


class ClientBase:
    """Async MCP client bound to one server connection (see the module docstring).

    Class attributes (filled by the generated subclass): ``server_info`` (the spec's
    server identity; the client's own ``clientInfo`` defaults to
    ``{name: "<server>-client", version: <spec version>}``) and ``tool_defs``.
    ``ClientBase`` itself is usable as an untyped client of any server.
    """

    server_info: ClassVar[ServerInfo] = ServerInfo(name="mcp", version="0")
    tool_defs: ClassVar[tuple[ToolDef, ...]] = ()

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
    ) -> None:
        if era not in (None, "modern", "legacy"):
            raise ValueError(f"era must be 'modern' or 'legacy', not {era!r}")
        if protocol_version is not None:
            if protocol_version not in p.ALL_VERSIONS:
                raise ValueError(f"unsupported protocol version {protocol_version!r}")
            version_era: Era = "modern" if protocol_version in p.MODERN_VERSIONS else "legacy"
            if era is not None and era != version_era:
                raise ValueError(f"protocol version {protocol_version} is not of the {era} era")
            era = version_era
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

        self._session = JsonRpcSession(transport, on_request=self._on_server_request, on_notification=self._on_notification)
        self._era: Era | None = None
        self._version: str | None = None
        self._server_capabilities: dict[str, Any] = {}
        self._server_identity: dict[str, Any] = {}
        self._instructions: str | None = None
        self._connected = False
        self._connect_lock: asyncio.Lock | None = None
        self._tools_cache: dict[str | None, tuple[float, dict[str, Any]]] = {}
        self._live_tools: dict[str, dict[str, Any]] = {}
        self._tokens = 0
        self._inflight: list[str] = []
        self._listen_task: asyncio.Task[None] | None = None
        self._by_name: dict[str, ToolDef] = {td.name: td for td in self.tool_defs}

    # -- constructors ----------------------------------------------------------------

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: StderrMode = "passthrough",
        inherit_env: bool = True,
        shutdown_timeout: float = 2.0,
        **options: Any,
    ) -> Self:
        """Spawn ``command args...`` and connect over stdio (connect with ``async with``).

        ``options`` are the keyword arguments of the constructor (handlers, hooks,
        timeouts, era).  ``env`` is laid over the current environment.
        """
        transport = StdioTransport(
            command,
            args,
            env=env,
            cwd=cwd,
            stderr=stderr,
            inherit_env=inherit_env,
            shutdown_timeout=shutdown_timeout,
        )
        return cls(transport, **options)

    @classmethod
    def in_process(cls, server: object, *, principal: Any = None, **options: Any) -> Self:
        """Connect to a server object in this event loop (no subprocess, no socket).

        ``server`` is an instance of a generated server class (or anything
        ``InProcessTransport`` accepts); ``principal`` is the identity it sees.
        """
        return cls(InProcessTransport(server, principal=principal), **options)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        bearer_token: str | None = None,
        http_timeout: float = 30.0,
        listen: bool | None = None,
        http_client: Any = None,
        **options: Any,
    ) -> Self:
        """Connect to a Streamable HTTP endpoint (needs ``httpx``; see :mod:`.client_http`).

        ``headers`` go with every request, ``bearer_token`` as ``Authorization``;
        ``http_timeout`` bounds connecting and writing; ``listen`` keeps the legacy GET
        stream open for messages not tied to a request: ``tools/list_changed``, and server
        requests that some servers send there (the TypeScript SDK sends ``elicitation/create``
        there when the tool does not relate it to its call).  By default (None) it is open
        when the client watches the tool list or has an elicitation, sampling or roots
        handler.  ``http_client`` is an ``httpx.AsyncClient`` to reuse.  ``options`` are
        the constructor's keyword arguments.
        """
        from .client_http import HttpTransport

        watches = options.get("on_tools_changed") is not None or bool(options.get("watch_tools"))
        answers = any(options.get(k) is not None for k in ("elicitation", "sampling", "roots"))

        transport = HttpTransport(
            url,
            headers=headers,
            bearer_token=bearer_token,
            timeout=http_timeout,
            tools=[td.wire for td in cls.tool_defs],
            listen=bool(listen) or watches or (listen is None and answers),
            client=http_client,
        )
        return cls(transport, **options)

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

    async def _listen(self) -> None:
        """2026-07-28: keep a ``subscriptions/listen`` open for ``toolsListChanged``."""
        params = self._params({"notifications": {"toolsListChanged": True}})
        try:
            await self._session.request("subscriptions/listen", params, timeouts=Timeouts(idle=None, hard=None))
        except McpError as exc:
            logger.debug("subscriptions/listen ended: %s", exc)

    async def aclose(self) -> None:
        """Close the connection (stdio: close stdin, wait, terminate, kill)."""
        task, self._listen_task = self._listen_task, None
        if task is not None and not task.done():
            task.cancel()  # sends notifications/cancelled for the listen request
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        await self._session.aclose()

    @property
    def era(self) -> Era | None:
        """``"modern"`` (2026-07-28) or ``"legacy"`` once connected."""
        return self._era

    @property
    def protocol_version(self) -> str | None:
        return self._version

    @property
    def server_capabilities(self) -> dict[str, Any]:
        return self._server_capabilities

    @property
    def server_identity(self) -> dict[str, Any]:
        """The live ``serverInfo`` (self-reported; for display and logging only)."""
        return self._server_identity

    @property
    def instructions(self) -> str | None:
        return self._instructions

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
        return caps

    # -- era negotiation -----------------------------------------------------------------

    async def _negotiate(self) -> None:
        forced = self.requested_era
        if forced == "legacy":
            await self._initialize(self.requested_version or p.LATEST_LEGACY)
            return
        version = self.requested_version or p.LATEST
        probe = Timeouts(idle=self.probe_timeout, hard=self.probe_timeout) if forced is None else self._timeouts()
        try:
            result = await self._discover(version, probe)
        except UnsupportedProtocolVersionError as exc:
            supported = exc.data.get("supported") if isinstance(exc.data, dict) else None
            supported = [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []
            modern = [v for v in p.MODERN_VERSIONS if v in supported]
            legacy = [v for v in p.LEGACY_VERSIONS if v in supported]
            if modern:
                version = modern[-1]
                result = await self._discover(version, self._timeouts())
            elif legacy and forced is None:
                await self._initialize(legacy[-1])
                return
            else:
                raise
        except (HeaderMismatchError, MissingCapabilityError):
            raise  # recognised modern errors: never fall back
        except TransportClosedError:
            raise
        except (McpError, McpTimeoutError) as exc:
            if forced == "modern":
                raise
            logger.debug("server/discover failed (%s); falling back to initialize", exc)
            await self._initialize(p.LATEST_LEGACY)
            return
        if not isinstance(result, dict):
            raise ProtocolError("malformed server/discover result", data=result)
        supported_versions = result.get("supportedVersions")
        if isinstance(supported_versions, list) and version not in supported_versions:
            common = [v for v in p.MODERN_VERSIONS if v in supported_versions]
            if not common:
                raise UnsupportedProtocolVersionError(
                    f"server supports none of {list(p.MODERN_VERSIONS)}",
                    data={"supported": supported_versions, "requested": version},
                )
            version = common[-1]
        self._era = "modern"
        self._version = version
        caps = result.get("capabilities")
        self._server_capabilities = caps if isinstance(caps, dict) else {}
        meta = result.get("_meta")
        info = meta.get(p.META_SERVER_INFO) if isinstance(meta, dict) else None
        self._server_identity = info if isinstance(info, dict) else {}
        instr = result.get("instructions")
        self._instructions = instr if isinstance(instr, str) else None
        self.transport.set_protocol("modern", version)

    async def _discover(self, version: str, timeouts: Timeouts) -> Any:
        params = {"_meta": self._modern_meta(version)}
        return await self._session.request("server/discover", params, timeouts=timeouts)

    async def _initialize(self, version: str) -> None:
        params = {
            "protocolVersion": version,
            "capabilities": self.client_capabilities,
            "clientInfo": self.client_info,
        }
        result = await self._session.request("initialize", params, timeouts=self._timeouts())
        if not isinstance(result, dict):
            raise ProtocolError("malformed initialize result", data=result)
        agreed = result.get("protocolVersion")
        if agreed not in p.LEGACY_VERSIONS:
            raise UnsupportedProtocolVersionError(
                f"server answered initialize with protocol version {agreed!r}",
                data={"supported": list(p.LEGACY_VERSIONS), "requested": version},
            )
        self._era = "legacy"
        self._version = cast(str, agreed)
        caps = result.get("capabilities")
        self._server_capabilities = caps if isinstance(caps, dict) else {}
        info = result.get("serverInfo")
        self._server_identity = info if isinstance(info, dict) else {}
        instr = result.get("instructions")
        self._instructions = instr if isinstance(instr, str) else None
        self.transport.set_protocol("legacy", self._version)
        await self._session.notify("notifications/initialized")

    # -- requests --------------------------------------------------------------------------

    def _modern_meta(self, version: str | None = None) -> dict[str, Any]:
        return {
            p.META_PROTOCOL_VERSION: version or self._version or p.LATEST,
            p.META_CLIENT_CAPABILITIES: self.client_capabilities,
            p.META_CLIENT_INFO: self.client_info,
        }

    def _timeouts(self, timeout: float | None = None) -> Timeouts:
        idle = self.timeout if timeout is None else timeout
        hard = self.max_timeout
        if idle is not None and hard is not None:
            idle = min(idle, hard)
        return Timeouts(idle=idle, hard=hard)

    def _params(self, params: Mapping[str, Any] | None, progress_token: str | None = None) -> dict[str, Any] | None:
        out = dict(params) if params is not None else None
        if self._era == "modern":
            out = out or {}
            meta = dict(out.get("_meta") or {})
            meta.update(self._modern_meta())
            if progress_token is not None:
                meta[p.META_PROGRESS_TOKEN] = progress_token
            out["_meta"] = meta
        elif progress_token is not None:
            out = out or {}
            meta = dict(out.get("_meta") or {})
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
            await self._discover(self._version or p.LATEST, self._timeouts())
        else:
            await self._session.request("ping", None, timeouts=self._timeouts())

    # -- tools/list --------------------------------------------------------------------------

    def invalidate_tools_cache(self) -> None:
        """Forget cached ``tools/list`` pages (also done on ``notifications/tools/list_changed``)."""
        self._tools_cache.clear()

    async def list_tools(self, *, refresh: bool = False, max_pages: int = 1000) -> list[dict[str, Any]]:
        """Every tool of the server, as wire ``Tool`` dicts, following every ``nextCursor``.

        2026-07-28: pages are cached for their ``ttlMs`` (``refresh=True`` bypasses the
        cache); any ``notifications/tools/list_changed`` empties the cache.
        """
        await self.connect()
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(max_pages):
            page = await self._list_page(cursor, refresh)
            for tool in page.get("tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    tools.append(tool)
                else:
                    logger.warning("ignoring a malformed tool in tools/list: %.200r", tool)
            nxt = page.get("nextCursor")
            if nxt is None or (nxt == "" and self._era != "modern"):
                break
            if not isinstance(nxt, str):
                raise ProtocolError("tools/list returned a non-string nextCursor", data=nxt)
            if nxt in seen:
                raise ProtocolError("tools/list pagination repeats a cursor", data=nxt)
            seen.add(nxt)
            cursor = nxt
        else:
            raise ProtocolError(f"tools/list has more than {max_pages} pages")
        self._live_tools = {t["name"]: t for t in tools}
        return tools

    async def _list_page(self, cursor: str | None, refresh: bool) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        if not refresh and self._era == "modern":
            hit = self._tools_cache.get(cursor)
            if hit is not None and hit[0] > loop.time():
                return hit[1]
        params = {"cursor": cursor} if cursor is not None else None
        result = await self._session.request("tools/list", self._params(params), timeouts=self._timeouts())
        if not isinstance(result, dict):
            raise ProtocolError("malformed tools/list result", data=result)
        rtype = result.get("resultType", p.RESULT_COMPLETE)
        if rtype != p.RESULT_COMPLETE:
            raise ProtocolError(f"tools/list answered with resultType {rtype!r}", data=result)
        if self._era == "modern":
            ttl = result.get("ttlMs")
            ttl_ms = ttl if isinstance(ttl, (int, float)) and not isinstance(ttl, bool) and ttl > 0 else 0
            if ttl_ms > 0:
                self._tools_cache[cursor] = (loop.time() + ttl_ms / 1000.0, result)
            else:
                self._tools_cache.pop(cursor, None)
        return result

    async def check_compat(self) -> CompatReport:
        """Compare the generated tool table with the live ``tools/list`` (by fingerprint)."""
        live = {t["name"]: t for t in await self.list_tools(refresh=True)}
        expected = {td.name: td for td in self.tool_defs}
        changed: list[ToolChange] = []
        unchanged: list[str] = []
        for name, td in expected.items():
            if name not in live:
                continue
            want = _expected_fingerprint(td)
            got = tool_fingerprint(live[name])
            if want == got:
                unchanged.append(name)
                continue
            fields = tuple(
                key
                for key in ("inputSchema", "outputSchema")
                if canonical_json(td.wire.get(key)) != canonical_json(live[name].get(key))
            )
            changed.append(ToolChange(name=name, expected_fingerprint=want, live_fingerprint=got, fields=fields))
        return CompatReport(
            added=tuple(sorted(set(live) - set(expected))),
            removed=tuple(sorted(set(expected) - set(live))),
            changed=tuple(changed),
            unchanged=tuple(unchanged),
        )

    # -- tools/call ----------------------------------------------------------------------------

    async def call_raw(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
    ) -> ToolResult:
        """Call a tool and return the full result; ``isError`` results are returned, not raised.

        The result is a :class:`ToolResult` (``content``, ``structuredContent``,
        ``isError``, ``meta`` = ``_meta``; unknown fields such as ``resultType`` are kept
        as extras; ``result.model_dump(by_alias=True)`` gives the wire dict back).
        Protocol errors, timeouts, transport loss and a confirm refusal still raise.
        """
        result, _ = await self._invoke(name, dict(arguments or {}), self._by_name.get(name), False, timeout, progress)
        return result

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
    ) -> ToolResult:
        """Like :meth:`call_raw` but an ``isError`` result raises its mapped :class:`ToolError`."""
        result, _ = await self._invoke(name, dict(arguments or {}), self._by_name.get(name), True, timeout, progress)
        return result

    async def _call_content(self, tool: ToolDef, args: BaseModel) -> ToolResult:
        """Typed call of a tool without ``outputSchema``: the result (errors raised)."""
        result, _ = await self._invoke(tool.name, _dump_args(args), tool, True, None, None)
        return result

    async def _call_structured(self, tool: ToolDef, args: BaseModel, output_model: type[M]) -> M:
        """Typed call of a tool with ``outputSchema``: ``structuredContent`` parsed into ``output_model``.

        Accepts the ``{"result": value}`` wrapping some SDKs use for non-object outputs;
        without ``structuredContent`` the JSON text block is parsed instead.  A value
        that breaks the model raises :class:`OutputValidationError`.
        """
        result, raw = await self._invoke(tool.name, _dump_args(args), tool, True, None, None)
        return self._parse_output(tool, result, raw, output_model)

    def _parse_output(self, tool: ToolDef, result: ToolResult, raw: dict[str, Any], model: type[M]) -> M:
        candidates: list[Any] = []
        if "structuredContent" in raw and raw["structuredContent"] is not None:
            candidates.append(raw["structuredContent"])
        else:
            for block in result.content:
                if isinstance(block, TextContent):
                    try:
                        candidates.append(json.loads(block.text))
                    except ValueError:
                        continue
        if not candidates:
            raise OutputValidationError(
                f"{tool.name}: the result has neither structuredContent nor a JSON text block",
                data={"tool": tool.name},
            )
        errors: list[Any] = []
        for value in candidates:
            attempts = [value]
            if isinstance(value, dict) and set(value) == {"result"}:
                attempts.append(value["result"])
            for attempt in attempts:
                try:
                    parsed = model.model_validate(attempt)
                except ValidationError as exc:
                    errors.append(exc.errors(include_url=False, include_context=False))
                    continue
                if tool.schema_checked and self.validate_output:
                    self._check_schema(tool, attempt)
                return parsed
        raise OutputValidationError(
            f"{tool.name}: the result does not match the output model {model.__name__}",
            data={"tool": tool.name, "errors": errors[0] if errors else None, "structuredContent": candidates[0]},
        )

    def _check_schema(self, tool: ToolDef, value: Any) -> None:
        schema = tool.wire.get("outputSchema")
        if not isinstance(schema, dict):
            return
        try:
            import jsonschema  # type: ignore[import-untyped]
            from referencing import Registry
        except ImportError:  # pragma: no cover - optional dependency
            logger.warning("jsonschema is not installed; %s output checked by the model only", tool.name)
            return

        def no_retrieve(uri: str) -> Any:
            raise OutputValidationError(f"refusing to dereference a non-local $ref: {uri}")

        validator = jsonschema.Draft202012Validator(schema, registry=Registry(retrieve=no_retrieve))  # type: ignore[call-arg]
        problems = [e.message for e in validator.iter_errors(value)]
        if problems:
            raise OutputValidationError(
                f"{tool.name}: the result does not match the output schema",
                data={"tool": tool.name, "errors": problems[:20]},
            )

    async def _invoke(
        self,
        name: str,
        arguments: dict[str, Any],
        tool_def: ToolDef | None,
        raise_on_error: bool,
        timeout: float | None,
        progress: ProgressCallback | None,
    ) -> tuple[ToolResult, dict[str, Any]]:
        started = time.perf_counter()
        outcome, error, code, rounds = "ok", None, None, 0
        try:
            await self.connect()
            await self._confirm(name, arguments, tool_def)
            raw, rounds = await self._call_rounds(name, arguments, tool_def, timeout, progress)
            try:
                result = ToolResult.model_validate(raw)
            except ValidationError as exc:
                raise ProtocolError(
                    f"{name}: malformed CallToolResult",
                    data={"errors": exc.errors(include_url=False, include_context=False)},
                ) from None
            if result.isError:
                outcome = "tool_error"
                exc_ = self._tool_error(name, tool_def, result, raw)
                error, code = type(exc_).__name__, _error_code(exc_)
                if raise_on_error:
                    raise exc_
            return result, raw
        except BaseException as exc:
            if outcome != "tool_error":
                outcome = _outcome_of(exc)
                error, code = type(exc).__name__, _error_code(exc)
            raise
        finally:
            await self._audit(
                AuditRecord(
                    tool=name,
                    arguments_sha256=arguments_digest(arguments),
                    outcome=outcome,
                    duration_s=time.perf_counter() - started,
                    era=self._era,
                    protocol_version=self._version,
                    error=error,
                    error_code=code,
                    rounds=rounds,
                    server=self._server_identity.get("name") if self._server_identity else None,
                )
            )

    async def _audit(self, record: AuditRecord) -> None:
        if self.audit_hook is None:
            return
        try:
            out = self.audit_hook(record)
            if inspect.isawaitable(out):
                await out
        except Exception:  # noqa: BLE001 - auditing must not change the call's outcome
            logger.exception("audit hook failed")

    async def _confirm(self, name: str, arguments: Mapping[str, Any], tool_def: ToolDef | None) -> None:
        if self.confirm_hook is None:
            return
        if tool_def is None:
            reason: str | None = "unknown tool"
        elif tool_def.destructive:
            reason = "destructive"
        elif not tool_def.read_only:
            reason = "not read-only"
        else:
            reason = None
        if reason is None:
            return
        wire: Mapping[str, Any] = tool_def.wire if tool_def is not None else self._live_tools.get(name, {})
        ann = wire.get("annotations")
        info = ToolCallInfo(
            tool=name,
            arguments=arguments,
            reason=reason,
            tool_def=tool_def,
            annotations=ann if isinstance(ann, Mapping) else {},
            title=wire.get("title") if isinstance(wire.get("title"), str) else None,
            description=wire.get("description") if isinstance(wire.get("description"), str) else None,
        )
        if not await _call_user(self.confirm_hook, info):
            raise ConfirmationDeniedError(f"call of {name} refused by the confirm hook", data={"tool": name})

    async def _call_rounds(
        self,
        name: str,
        arguments: dict[str, Any],
        tool_def: ToolDef | None,
        timeout: float | None,
        progress: ProgressCallback | None,
    ) -> tuple[dict[str, Any], int]:
        callback = progress or self.progress_callback
        on_progress = None
        if callback is not None:
            cb = callback

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                out = cb(Progress(value, total, message))
                if inspect.isawaitable(out):
                    await out

        extra: dict[str, Any] = {}
        for round_no in range(1, self.max_input_rounds + 1):
            params: dict[str, Any] = {"name": name, "arguments": arguments, **extra}
            self._tokens += 1
            token = f"mcp-codegen-{self._tokens}"
            self._inflight.append(name)
            try:
                result = await self._session.request(
                    "tools/call",
                    self._params(params, token),
                    timeouts=self._timeouts(timeout),
                    progress_token=token,
                    on_progress=on_progress,
                )
            except InvalidParamsError as exc:
                raise self._classify_invalid_params(exc, name, arguments, tool_def) from None
            finally:
                self._inflight.remove(name)
            if not isinstance(result, dict):
                raise ProtocolError(f"{name}: malformed tools/call result", data=result)
            rtype = result.get("resultType", p.RESULT_COMPLETE)
            if rtype == p.RESULT_COMPLETE:
                return result, round_no
            if rtype != p.RESULT_INPUT_REQUIRED:
                raise ProtocolError(f"{name}: unknown resultType {rtype!r}", data=result)
            requests = result.get("inputRequests")
            state = result.get("requestState")
            if requests is None and state is None:
                raise ProtocolError(f"{name}: input_required without inputRequests or requestState", data=result)
            if requests is not None and not isinstance(requests, dict):
                raise ProtocolError(f"{name}: inputRequests is not an object", data=result)
            if state is not None and not isinstance(state, str):
                raise ProtocolError(f"{name}: requestState is not a string", data=result)
            responses: dict[str, Any] = {}
            for key, req in (requests or {}).items():
                if not isinstance(req, dict) or not isinstance(req.get("method"), str):
                    raise ProtocolError(f"{name}: malformed input request {key!r}", data=req)
                responses[key] = await self._fulfil(req["method"], req.get("params"), name, key, tool_def)
            extra = {}
            if responses:
                extra["inputResponses"] = responses
            if state is not None:
                extra["requestState"] = state
        raise InputRequiredLoopError(
            f"{name}: the server still asked for input after {self.max_input_rounds} rounds",
            data={"tool": name, "rounds": self.max_input_rounds},
        )

    def _classify_invalid_params(
        self, exc: InvalidParamsError, name: str, arguments: dict[str, Any], tool_def: ToolDef | None
    ) -> McpError:
        if isinstance(exc, UnknownToolError):
            return exc
        text = exc.message + " " + json.dumps(exc.data, default=str)
        if _UNKNOWN_TOOL_RE.search(text):
            return UnknownToolError(exc.message, code=exc.code, data=exc.data)
        locally_invalid = False
        if tool_def is not None:
            try:
                tool_def.input_model.model_validate(arguments)
            except ValidationError:
                locally_invalid = True
        if locally_invalid or _INVALID_ARGS_RE.search(text):
            return InvalidArgumentsError(exc.message, code=exc.code, data=exc.data)
        return exc

    def _tool_error(self, name: str, tool_def: ToolDef | None, result: ToolResult, raw: dict[str, Any]) -> McpError:
        message = result.text() or f"tool {name} failed"
        meta = result.meta or {}
        marker = meta.get(p.META_TOOL_ERROR)
        if isinstance(marker, dict) and isinstance(marker.get("code"), str):
            code = marker["code"]
            data = marker.get("data")
            if code == INVALID_ARGUMENTS_CODE:
                return InvalidArgumentsError(message, data=data, result=raw)
            cls = _declared_error(code, tool_def, self.tool_defs)
            if cls is not None:
                return cls(message, data=data, result=raw)
            return ToolExecutionError(message, data=marker, result=raw)
        if message == f"Unknown tool: {name}":  # the Python SDK's unknown-tool result
            return UnknownToolError(message, data={"name": name})
        if any(rx.search(message) for rx in _SDK_INVALID_ARGS_TEXT):
            return InvalidArgumentsError(message, result=raw)
        return ToolExecutionError(message, result=raw)

    # -- client input (both eras) ------------------------------------------------------------

    async def _fulfil(
        self, method: str, params: Any, tool: str | None, key: str | None, tool_def: ToolDef | None
    ) -> dict[str, Any]:
        """Answer one elicitation / sampling / roots request with the user's handler."""
        params = params if isinstance(params, dict) else {}
        if method == "elicitation/create":
            if self.elicitation_handler is None:
                raise MethodNotFoundError("elicitation is not supported by this client", data=method)
            input_def = tool_def.inputs.get(key) if (tool_def is not None and key is not None) else None
            if input_def is None and tool_def is not None and key is None:
                for cand in tool_def.inputs.values():
                    if cand.method == method and cand.params.get("message") == params.get("message"):
                        input_def, key = cand, cand.key
                        break
            try:
                request = ElicitationRequest.model_validate(params)
            except ValidationError as exc:
                raise InvalidParamsError("malformed elicitation/create params", data=str(exc)) from None
            request.tool, request.key, request.input_def = tool, key, input_def
            answer = await _call_user(self.elicitation_handler, request)
            if isinstance(answer, Mapping):
                answer = ElicitationResponse.model_validate(answer)
            return _dump_model(answer)
        if method == "sampling/createMessage":
            if self.sampling_handler is None:
                raise MethodNotFoundError("sampling is not supported by this client", data=method)
            try:
                sreq = SamplingRequest.model_validate(params)
            except ValidationError as exc:
                raise InvalidParamsError("malformed sampling/createMessage params", data=str(exc)) from None
            sreq.tool, sreq.key = tool, key
            sanswer = await _call_user(self.sampling_handler, sreq)
            if isinstance(sanswer, Mapping):
                sanswer = SamplingResponse.model_validate(sanswer)
            return _dump_model(sanswer)
        if method == "roots/list":
            if self.roots_handler is None:
                raise MethodNotFoundError("roots are not supported by this client", data=method)
            if callable(self.roots_handler):
                roots = await _call_user(self.roots_handler)
            else:
                roots = list(self.roots_handler)
            return {"roots": [_dump_model(r) for r in roots]}
        raise MethodNotFoundError(f"unsupported client request {method}", data=method)

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
        if method == "notifications/tools/list_changed":
            self.invalidate_tools_cache()
            if self.on_tools_changed is not None:
                out = self.on_tools_changed()
                if inspect.isawaitable(out):
                    await out
        elif method == "notifications/message" and isinstance(params, dict):
            level = _LOG_LEVELS.get(str(params.get("level")), logging.INFO)
            server_log.log(level, "%s: %s", params.get("logger") or "server", params.get("data"))


def _dump_args(args: BaseModel) -> dict[str, Any]:
    dumped = args.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not isinstance(dumped, dict):  # pragma: no cover - input models are objects
        raise TypeError("tool arguments must be an object")
    return dumped


def _declared_error(
    code: str, tool_def: ToolDef | None, all_defs: Sequence[ToolDef]
) -> type[DeclaredToolError] | None:
    if tool_def is not None and code in tool_def.errors:
        return tool_def.errors[code]
    for td in all_defs:  # a code declared by another tool of the same server
        if code in td.errors:
            return td.errors[code]
    return None


def _expected_fingerprint(td: ToolDef) -> str:
    fp = td.fingerprint
    if len(fp) == 64 and all(c in "0123456789abcdef" for c in fp):
        return fp
    return tool_fingerprint(td.wire)


def _error_code(exc: BaseException) -> int | str | None:
    if isinstance(exc, DeclaredToolError):
        return exc.error_code or None
    if isinstance(exc, McpError):
        return exc.code
    return None


def _outcome_of(exc: BaseException) -> str:
    if isinstance(exc, ConfirmationDeniedError):
        return "denied"
    if isinstance(exc, McpTimeoutError):
        return "timeout"
    if isinstance(exc, TransportClosedError):
        return "transport_closed"
    if isinstance(exc, ToolError):
        return "tool_error"
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled"
    return "error"


_C = TypeVar("_C", bound=ClientBase)


# -- blocking facade ----------------------------------------------------------------------------


class _LoopThread:
    """A private event loop running in a daemon thread."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def main() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()
                    try:
                        tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
                        for t in tasks:
                            t.cancel()
                        if tasks:
                            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
                        loop.run_until_complete(loop.shutdown_asyncgens())
                    finally:
                        loop.close()

                thread = threading.Thread(target=main, name="mcp-sync-client", daemon=True)
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._thread is not None and threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("a sync client cannot be used from its own event loop thread")
        loop = self._ensure()
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def stop(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            if threading.current_thread() is not thread:
                thread.join(timeout=10)


class SyncClientBase(Generic[_C]):
    """Blocking facade: runs an async client on a private event loop in a background thread.

    Works from plain scripts and from any thread, including one whose own event loop
    is running (the call blocks that thread, not the private loop).  The generated
    subclass sets ``client_class`` and wraps each typed method with ``self._run``.
    Handlers and hooks given to the constructors run on the private loop (plain
    functions in worker threads).
    """

    client_class: ClassVar[type[ClientBase]] = ClientBase

    def __init__(self, client: _C) -> None:
        self.client: _C = client
        self._loop = _LoopThread()

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: StderrMode = "passthrough",
        **options: Any,
    ) -> Self:
        """Blocking twin of ``ClientBase.stdio`` (connect with ``with`` or :meth:`connect`)."""
        return cls(cast(Any, cls.client_class.stdio(command, args, env=env, cwd=cwd, stderr=stderr, **options)))

    @classmethod
    def in_process(cls, server: object, *, principal: Any = None, **options: Any) -> Self:
        """Blocking twin of ``ClientBase.in_process`` (the server runs on the private loop)."""
        return cls(cast(Any, cls.client_class.in_process(server, principal=principal, **options)))

    @classmethod
    def http(cls, url: str, **options: Any) -> Self:
        """Blocking twin of ``ClientBase.http`` (same keyword arguments)."""
        return cls(cast(Any, cls.client_class.http(url, **options)))

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._loop.run(coro)

    def connect(self) -> None:
        self._run(self.client.connect())

    def close(self) -> None:
        try:
            self._run(self.client.aclose())
        finally:
            self._loop.stop()

    def __enter__(self) -> Self:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def list_tools(self, *, refresh: bool = False) -> list[dict[str, Any]]:
        return self._run(self.client.list_tools(refresh=refresh))

    def call_raw(self, name: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> ToolResult:
        return self._run(self.client.call_raw(name, arguments, timeout=timeout))

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> ToolResult:
        return self._run(self.client.call_tool(name, arguments, timeout=timeout))

    def check_compat(self) -> CompatReport:
        return self._run(self.client.check_compat())

    def ping(self) -> None:
        self._run(self.client.ping())

    @property
    def era(self) -> Era | None:
        return self.client.era

    @property
    def protocol_version(self) -> str | None:
        return self.client.protocol_version

