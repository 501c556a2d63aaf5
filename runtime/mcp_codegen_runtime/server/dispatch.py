"""The transport-neutral protocol core of a server (both eras): message dispatch in :class:`ServerCore`.

A generated ``<Name>ServerBase`` subclasses :class:`~server.base.ServerBase` (this core plus
``connect_in_process`` and ``asgi_app``) and sets ``server_info``
and ``tool_defs``; the user subclasses that and implements one method per tool
(``ToolDef.method``), taking ``(args: <Input model>, ctx: Context)``, ``async`` or plain.

Transports call one coroutine per incoming message::

    response = await server.handle(message, conn)   # dict | list | None

``message`` is a decoded JSON value; ``conn`` a :class:`~server.connection.Connection` (per
connection state plus the outgoing channel for notifications and server->client
requests).  ``handle`` returns the response (a list for a 2025-03-26 batch), or None for
notifications, responses and cancelled requests.  It never raises for bad input; it raises
``CancelledError`` only when the transport itself cancels it.  Requests should run
concurrently (a task per request) so a handler awaiting client input does not block the
reading of that input; :class:`~server.session.ServerSession` does this for stream transports.

In-process use (tests, the generated client's in-memory transport)::

    async with server.connect_in_process() as peer:   # a session.InProcessPeer
        await peer.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {...}})
        message = await peer.receive()                # responses, notifications, requests

Era routing (TOOLS-PROTOCOL §2.3): a request whose ``params._meta`` names
``io.modelcontextprotocol/protocolVersion`` is served statelessly under 2026-07-28 rules;
``initialize`` starts a legacy session on that connection; other requests belong to the
connection's legacy session, or fail with ``-32602`` (missing ``_meta``) without one.

Policy choices: a call refused by :meth:`ServerBase.authorize`, or over the client's rate
limit, is an ``isError`` result (codes ``mcp-codegen.forbidden`` / ``.rate_limited`` in
``_meta["mcp-codegen/error"]``), not a protocol error, so a model can see why.

Every ``tools/call``, ``resources/read`` and ``prompts/get`` runs under
:func:`server.telemetry.observe` (an OpenTelemetry span and metrics when the API is installed).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, ClassVar

from ..wire import jsonrpc
from ..wire import protocol as p
from ..wire.apps import UI_EXTENSION, UI_MIME_TYPE, declares_ui, model_visible, tool_ui, without_ui
from ..wire.errors import (
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    McpError,
    MethodNotFoundError,
    ProtocolError,
    UnsupportedProtocolVersionError,
)
from ..wire.resources import PromptDef, ResourceDef, ResourceTemplateDef
from ..wire.skills import SkillDef
from ..wire.tools import ServerInfo, ToolDef
from ..wire.versions import implementation, tool_for_version
from .admission import Limits
from .calls import RequestEnv, ToolCalls
from .catalog import CATALOG_METHODS, SUBSCRIBE_METHODS, Catalog
from .connection import Connection
from .extensions import SKILL_METHODS, TASK_METHODS, TASKS_EXTENSION, task_request_id, unknown_task
from .features import missing
from .input_required import RequestStateCodec
from .replicas import REDIS_URL_ENV, RedisChangeBus, RedisRateLimit
from .settings import ServerSettings
from .signing import Signer, load_keys, resolve_audience
from .sizelimits import exceeds_limits, measured_within
from .telemetry import active as observed
from .telemetry import observe

if TYPE_CHECKING:
    from .skills import SkillService  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    from .tasks.manager import TaskManager  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

logger = logging.getLogger("mcp_codegen.server")
JsonObject = dict[str, Any]

#: Every version served, newest first (legacy ones need ``initialize``; named in the
#: ``-32022`` message).
SUPPORTED_VERSIONS: tuple[str, ...] = tuple(reversed(p.ALL_VERSIONS))
#: ``data.supported`` of ``-32022`` errors: the versions a ``_meta`` request may name, the
#: same list ``server/discover`` advertises (a client must be able to pick one of them).
MODERN_SUPPORTED: tuple[str, ...] = tuple(reversed(p.MODERN_VERSIONS))
_MODERN_METHODS = (frozenset({"server/discover", "tools/list", "tools/call", "subscriptions/listen"}) | CATALOG_METHODS
                   | TASK_METHODS | SKILL_METHODS)


class ServerCore(ToolCalls, Catalog):
    """The protocol core of every server (see the module docstring); :class:`~server.base.ServerBase`
    adds the ways to serve it.  It knows no transport: they reach it through
    :class:`~server.interface.ServedServer`."""

    server_info: ClassVar[ServerInfo]
    tool_defs: ClassVar[tuple[ToolDef, ...]] = ()
    resource_defs: ClassVar[tuple[ResourceDef, ...]] = ()
    resource_template_defs: ClassVar[tuple[ResourceTemplateDef, ...]] = ()
    prompt_defs: ClassVar[tuple[PromptDef, ...]] = ()
    skill_defs: ClassVar[tuple[SkillDef, ...]] = ()
    #: The folder holding ``<name>/<path>`` of every skill (an ``importlib.resources`` Traversable).
    skill_root: ClassVar[Any] = None
    #: Every handler the class declares is generated (a spec whose tools all call an upstream REST
    #: API and which has no resources, templates or prompts): ``python -m <package>`` serves the
    #: generated base itself when no implementation is named (:func:`server.main.default_implementation`).
    base_complete: ClassVar[bool] = False

    def __init__(self, settings: ServerSettings | None = None, *, state_keys: list[bytes] | None = None) -> None:
        self.settings = settings or ServerSettings()
        self._ui_links = any(tool_ui(t.wire) is not None for t in self.tool_defs)  # MCP Apps (wire/apps.py)
        keys = state_keys if state_keys is not None else load_keys(self.settings.state_key_file)
        info = getattr(self, "server_info", None)
        audience = resolve_audience(self.settings.state_audience, info.name if info is not None else "")
        self._cursors = Signer("tools/list cursor", keys, audience)  # every list's cursors
        self._states = RequestStateCodec(Signer("mrtr requestState", keys, audience), self.settings.request_state_ttl)
        self._tools: dict[str, ToolDef] = {t.name: t for t in self.tool_defs}
        redis_url = self.settings.redis_url or os.environ.get(REDIS_URL_ENV) or None
        s = self.settings
        self._init_notifications(RedisChangeBus(redis_url, audience) if redis_url else None)
        self._limits = Limits(s, RedisRateLimit(redis_url, audience, s.rate_limit_per_second, s.rate_limit_burst)
                              if redis_url else None)
        self._task_store = (redis_url, audience)  # the tasks extension (server.tasks), made on first use
        self._task_manager: TaskManager | None = None
        self._closers: list[Callable[[], Awaitable[None]]] = []  # on_close
        self._load_skills()  # packaged skill files, checked against the build's digests

    # ------------------------------------------------------------- tasks (server.tasks)
    def _tasks(self) -> TaskManager:
        """The tasks extension, made on first use: a private runtime copy of a server without
        task tools holds no ``server/tasks/`` (``server/features.py``)."""
        if self._task_manager is None:
            try:
                from .tasks.manager import TaskManager  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
            except ImportError as exc:
                missing("tasks", "a task (tasks extension)", exc)
            self._task_manager = TaskManager(self.settings, *self._task_store)
            self._task_manager.notices.publish = self.publish_task  # notifications/tasks (server.tasks.notify)
        return self._task_manager

    # ------------------------------------------------------------- tool set
    def enabled_tools(self) -> tuple[ToolDef, ...]:
        """The tools currently offered, in ``tool_defs`` order."""
        return tuple(t for t in self.tool_defs if t.name not in self._disabled["tools"])

    async def close_shared(self) -> None:
        """Release the Redis connections of the change bus and the rate limit, and what
        :meth:`on_close` registered (on shutdown: HTTP lifespan, end of stdio)."""
        await self.close_bus()
        await self._limits.aclose()
        if self._task_manager is not None:
            await self._task_manager.aclose()
        closers, self._closers = self._closers, []
        for close in closers:
            try:
                await close()
            except Exception:
                logger.warning("a resource of the server failed to close", exc_info=True)

    def on_close(self, close: Callable[[], Awaitable[None]]) -> None:
        """Have :meth:`close_shared` await ``close()`` (a feature's pooled connections, e.g.
        the upstream client of ``server.upstream``)."""
        self._closers.append(close)

    # ------------------------------------------------------------- skills (server.skills)
    def _load_skills(self) -> None:
        """Read and check the packaged skill files (:meth:`~server.skills.SkillService.load`); a
        server without skills loads no ``server/skills.py`` (optional: ``server/features.py``)."""
        self._skills: SkillService | None = None
        self._skill_bytes: dict[str, bytes] = {}
        if self.skill_defs:
            self._skill_bytes = self._skill_service().load(self.skill_defs, self.skill_root)

    def _skill_service(self) -> SkillService:
        if self._skills is None:
            try:
                from .skills import SkillService  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
            except ImportError as exc:
                missing("skills", "serving skills (Skills extension)", exc)
            self._skills = SkillService(self.settings, self._cursors)
        return self._skills

    def add_skill_capabilities(self, caps: JsonObject, modern: bool) -> None:
        """Declare the Skills extension (2026-07-28) in ``caps`` when the server has skills."""
        if self.skill_defs:
            self._skill_service().add_capabilities(caps, modern, self.skill_defs)

    def skill_resources(self) -> list[JsonObject]:
        """The ``resources/list`` entries of the skills: one per ``SKILL.md``."""
        return self._skill_service().resources(self.skill_defs) if self.skill_defs else []

    def is_skill_file(self, uri: Any) -> bool:
        """True when ``uri`` names a packaged skill file."""
        return self._skills is not None and self._skills.is_file(uri)

    def read_skill_file(self, uri: str, env: RequestEnv) -> JsonObject:
        """The ``resources/read`` result of a packaged skill file (``uri`` must be one)."""
        result: JsonObject = self._skill_service().read(uri, env)
        return result

    def serve_skills(self, method: str, params: JsonObject, env: RequestEnv) -> JsonObject:
        """Answer a ``skills/*`` or ``resources/directory/read`` request (-32601 without skills)."""
        if not self.skill_defs:
            raise MethodNotFoundError(f"Method not found: {method}")
        result: JsonObject = self._skill_service().serve(method, params, env, self.skill_defs)
        return result

    # ------------------------------------------------------------- the core
    def handle(self, message: Any, conn: Connection,
               text: bytes | None = None) -> Coroutine[Any, Any, JsonObject | list[JsonObject] | None]:
        """Process one incoming message; the response (or None).  See module docstring.

        ``text``: the JSON text ``message`` was decoded from (``jsonrpc.decode_measured``),
        when known: the size limits are then read on it if it proves them
        (:func:`~server.sizelimits.measured_within`), else checked on the value.

        Returns the coroutine to await: a single message's own (:meth:`_handle_one`), with
        no coroutine around it once the change bus has started."""
        if isinstance(message, list) or (self._bus is not None and not self._bus_started):
            return self._handle_first(message, conn, text)
        return self._handle_one(message, conn, in_batch=False, text=text)

    async def _handle_first(self, message: Any, conn: Connection, text: bytes | None) -> JsonObject | list[JsonObject] | None:
        """:meth:`handle` of a batch, or of a message before the change bus has started."""
        if self._bus is not None and not self._bus_started:
            await self.start_bus()
        if isinstance(message, list):
            return await self._handle_batch(message, conn)
        return await self._handle_one(message, conn, in_batch=False, text=text)

    async def _handle_batch(self, batch: list[Any], conn: Connection) -> JsonObject | list[JsonObject] | None:
        if conn.legacy_version != p.V2025_03_26:
            return jsonrpc.error(None, p.INVALID_REQUEST, "Invalid Request: batches are not supported")
        if not batch:
            return jsonrpc.error(None, p.INVALID_REQUEST, "Invalid Request: empty batch")
        answers = await asyncio.gather(*(self._handle_one(m, conn, in_batch=True) for m in batch))
        out = [a for a in answers if a is not None]
        return out or None

    async def _handle_one(self, message: Any, conn: Connection, *, in_batch: bool,
                          text: bytes | None = None) -> JsonObject | None:
        self._loop = asyncio.get_running_loop()
        kind = jsonrpc.kind(message)
        if kind == "invalid":
            mid = message.get("id") if isinstance(message, dict) else None
            return jsonrpc.error(mid if jsonrpc.is_valid_id(mid) else None, p.INVALID_REQUEST, "Invalid Request")
        s = self.settings
        if kind == "response":
            if not measured_within(text, s.max_string_length, s.max_depth) \
                    and exceeds_limits(message, s.max_string_length, s.max_depth) is not None:
                message = jsonrpc.error(message["id"], p.INVALID_REQUEST, "Response exceeds the size limits")
            conn.receive_response(message)
            return None
        too_big = None if measured_within(text, s.max_string_length, s.max_depth, member=True) \
            else exceeds_limits(message.get("params"), s.max_string_length, s.max_depth)
        if kind == "notification":
            if too_big is None:
                self._notification(message["method"], message.get("params") or {}, conn)
            return None
        rid: jsonrpc.RequestId = message["id"]
        if too_big is not None:
            return jsonrpc.error(rid, p.INVALID_REQUEST, f"Invalid Request: {too_big}")
        if in_batch and message["method"] == "initialize":
            return jsonrpc.error(rid, p.INVALID_REQUEST, "Invalid Request: initialize must not be batched")
        task = asyncio.current_task()
        if task is not None:
            conn.inflight[rid] = task
        try:
            result = await self._dispatch(message["method"], message.get("params"), rid, conn)
            return jsonrpc.result(rid, result)
        except McpError as exc:
            return jsonrpc.error_from(rid, exc if isinstance(exc, ProtocolError) else InternalError(exc.message))
        except asyncio.CancelledError:
            if rid in conn.cancelled_ids and task is not None:
                task.uncancel()
                return None
            raise
        except Exception:
            logger.exception("unexpected error handling %s", message["method"])
            return jsonrpc.error(rid, p.INTERNAL_ERROR, "Internal error")
        finally:
            if conn.inflight.get(rid) is task:
                conn.inflight.pop(rid, None)
            conn.cancelled_ids.discard(rid)

    def _notification(self, method: str, params: JsonObject, conn: Connection) -> None:
        if method == "notifications/initialized":
            if conn.legacy_version is not None:
                conn.initialized = True
        elif method == "notifications/cancelled":
            conn.cancel_request(params.get("requestId"))
        # everything else (roots/list_changed, progress, unknown) is ignored

    async def _dispatch(self, method: str, params: JsonObject | None, rid: jsonrpc.RequestId, conn: Connection) -> Any:
        meta = params.get("_meta") if params is not None else None
        if method == "initialize":
            return self._initialize(params or {}, conn)
        if isinstance(meta, dict) and p.META_PROTOCOL_VERSION in meta:  # 2026-07-28: stateless, its _meta says who asks
            env = self._modern_env(meta)
            if method not in _MODERN_METHODS:
                raise MethodNotFoundError(f"Method not found: {method}")
            return self._modern_result(await self._serve(method, params or {}, rid, conn, env), env)
        if conn.legacy_version is not None:
            return await self._dispatch_legacy(method, params or {}, rid, conn, meta if isinstance(meta, dict) else {})
        if method == "ping":
            return {}
        if method in _MODERN_METHODS:
            raise InvalidParamsError(
                f"Invalid params: _meta must carry {p.META_PROTOCOL_VERSION} and "
                f"{p.META_CLIENT_CAPABILITIES} (or call initialize first)"
            )
        raise MethodNotFoundError(f"Method not found: {method}")

    def _modern_result(self, result: JsonObject, env: RequestEnv) -> JsonObject:
        """A 2026 result: its ``resultType`` (complete by default) and the server's info in ``_meta``."""
        if result.get("resultType") is None:
            result["resultType"] = p.RESULT_COMPLETE
        result_meta = dict(result.get("_meta") or {})
        result_meta[p.META_SERVER_INFO] = implementation(self.server_info, env.version)
        result["_meta"] = result_meta
        return result

    async def _dispatch_legacy(self, method: str, params: JsonObject, rid: jsonrpc.RequestId, conn: Connection,
                               meta: JsonObject) -> Any:
        """A request of the connection's initialized (2025) session."""
        assert conn.legacy_version is not None
        env = RequestEnv(conn.legacy_version, conn.client_capabilities, conn.client_info,
                         conn.log_level or self.settings.default_log_level, meta)
        if method == "ping":
            return {}
        if method == "logging/setLevel":
            level = params.get("level")
            if level not in p.LOG_LEVELS:
                raise InvalidParamsError("Invalid params: unknown log level")
            conn.log_level = level
            return {}
        if method in ("tools/list", "tools/call") or method in CATALOG_METHODS or method in SKILL_METHODS:
            return await self._serve(method, params, rid, conn, env)
        if method in SUBSCRIBE_METHODS:
            return self.subscription(method, params, conn)
        raise MethodNotFoundError(f"Method not found: {method}")

    def _modern_env(self, meta: JsonObject) -> RequestEnv:
        version = meta.get(p.META_PROTOCOL_VERSION)
        if not isinstance(version, str) or version not in p.MODERN_VERSIONS:
            raise UnsupportedProtocolVersionError(
                f"Unsupported protocol version {version!r}; supported: {', '.join(SUPPORTED_VERSIONS)}",
                data={"supported": list(MODERN_SUPPORTED), "requested": version},
            )
        caps = meta.get(p.META_CLIENT_CAPABILITIES)
        if not isinstance(caps, dict):
            raise InvalidParamsError(f"Invalid params: _meta lacks {p.META_CLIENT_CAPABILITIES}")
        info = meta.get(p.META_CLIENT_INFO)
        level = meta.get(p.META_LOG_LEVEL)
        if level is not None and level not in p.LOG_LEVELS:
            raise InvalidParamsError(f"Invalid params: bad {p.META_LOG_LEVEL}")
        return RequestEnv(version, caps, info if isinstance(info, dict) else None, level, meta)

    def _initialize(self, params: JsonObject, conn: Connection) -> JsonObject:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise InvalidParamsError("Invalid params: initialize needs protocolVersion")
        version = requested if requested in p.LEGACY_VERSIONS else p.LATEST_LEGACY
        caps = params.get("capabilities")
        info = params.get("clientInfo")
        conn.legacy_version = version
        conn.initialized = False
        self._connections.add(conn)  # a legacy session: it hears list changes and resource updates
        conn.client_capabilities = caps if isinstance(caps, dict) else {}
        conn.client_info = info if isinstance(info, dict) else None
        result: JsonObject = {
            "protocolVersion": version,
            "capabilities": self._capabilities(),
            "serverInfo": implementation(self.server_info, version),
        }
        if self.server_info.instructions:
            result["instructions"] = self.server_info.instructions
        return result

    async def _serve(self, method: str, params: JsonObject, rid: jsonrpc.RequestId, conn: Connection, env: RequestEnv) -> Any:
        if method == "tools/list":
            return self._list_tools(params, env)
        if method == "tools/call":
            if not observed():  # no span, no metrics: no observe() frame either
                return await self._call_tool(params, rid, conn, env)
            name = params.get("name")
            return await observe(method, name if name in self._tools else None, lambda: self._call_tool(params, rid, conn, env))
        if method == "server/discover":
            return self._discover()
        if method in TASK_METHODS:
            if self._task_manager is None and not any(t.task_support != "forbidden" for t in self.tool_defs):
                # no task tool, so no task of this server can exist: the answers of an unknown task,
                # without loading the tasks feature (a private runtime copy may not hold it)
                raise unknown_task(task_request_id(method, params, env.caps))
            return await self._tasks().serve(method, params, env, conn)
        if method in SKILL_METHODS:
            return self.serve_skills(method, params, env)
        if method == "resources/read" and self.is_skill_file(params.get("uri")):
            await self._admit(conn, method, params["uri"], None)
            return self.read_skill_file(params["uri"], env)
        if method in CATALOG_METHODS:
            name = params.get("name") if method == "prompts/get" else None
            known = name if any(d.name == name for d in self.prompt_defs) else None
            return await observe(method, known, lambda: self.serve_catalog(method, params, rid, conn, env))
        return await self.listen(params, rid, conn, env.caps)

    def _capabilities(self, modern: bool = False) -> JsonObject:
        """What the server offers: tools and logging always, the rest as declared (extensions:
        2026-07-28 only, ``modern``)."""
        caps: JsonObject = {"tools": {"listChanged": True}, "logging": {}, **self.catalog_capabilities()}
        self.add_skill_capabilities(caps, modern)
        if self.ui_resource_defs or self._ui_links:  # MCP Apps, both eras (hosts declare it in initialize too)
            caps["extensions"] = {**caps.get("extensions", {}), UI_EXTENSION: {"mimeTypes": [UI_MIME_TYPE]}}
        if modern and any(t.task_support != "forbidden" for t in self.tool_defs):
            caps["extensions"] = {**caps.get("extensions", {}), TASKS_EXTENSION: {}}
        return caps

    def _discover(self) -> JsonObject:
        result: JsonObject = {
            "supportedVersions": list(MODERN_SUPPORTED),
            "capabilities": self._capabilities(modern=True),
            "ttlMs": self.settings.list_ttl_ms,
            "cacheScope": self.settings.cache_scope,
        }
        if self.server_info.instructions:
            result["instructions"] = self.server_info.instructions
        return result

    def _list_tools(self, params: JsonObject, env: RequestEnv) -> JsonObject:
        tools = self.enabled_tools()
        plain = self._ui_links and not declares_ui(env.caps)  # MCP Apps: a client without the extension
        if plain:  # sees the text-only server (wire/apps.py): no app-only tool, no _meta.ui
            tools = tuple(t for t in tools if model_visible(t.wire))
        start = 0
        cursor = params.get("cursor")
        if cursor is not None:
            offset = self._cursors.verify(cursor, "cursor").get("o")
            if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
                raise InvalidParamsError("Invalid cursor")
            start = offset
        end = start + self.settings.page_size
        result: JsonObject = {"tools": [tool_for_version(without_ui(t.wire) if plain else t.wire, env.version)
                                        for t in tools[start:end]]}
        if end < len(tools):
            result["nextCursor"] = self._cursors.sign({"o": end})
        if env.modern:
            result["ttlMs"] = self.settings.list_ttl_ms
            result["cacheScope"] = self.settings.cache_scope
        return result


__all__ = ["InvalidRequestError", "ServerCore", "SUPPORTED_VERSIONS"]
