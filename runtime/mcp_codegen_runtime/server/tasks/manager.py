"""The ``io.modelcontextprotocol/tasks`` extension (SEP-2663) on the server: tools that run as tasks.

A tool whose spec says ``task: optional`` or ``task: required`` (``ToolDef.task_support``) is run
as a task for a 2026-07-28 request whose ``clientCapabilities.extensions`` names the extension:

1. its declared ``inputs`` (spec ``inputs:``) not answered yet are asked first, synchronously, by
   an ordinary ``input_required`` round (MRTR, ``requestState``); no task exists yet;
2. then the task is stored (:mod:`server.tasks.store`) and the call answers at once with a flat
   ``CreateTaskResult``: ``resultType: "task"``, ``taskId``, ``status: "working"``,
   ``createdAt``, ``lastUpdatedAt``, ``ttlMs``, ``pollIntervalMs``;
3. the handler runs in the background.  Its ``ctx.progress`` sets the task's ``statusMessage``;
   any further input it asks for (``ctx.elicit``/``sample``/``list_roots``, several at once
   allowed) parks the task in ``input_required`` with those ``inputRequests`` until the client
   answers them through ``tasks/update``;
4. a returned result (``isError`` ones too) makes it ``completed`` with ``result`` inlined on
   ``tasks/get``; a protocol error makes it ``failed`` with ``error`` ``{code, message, data?}``;
   ``tasks/cancel`` makes it ``cancelled`` (the handler is cancelled).

Other clients (no extension declared, or a legacy 2025 session) never get a task: an
``optional`` tool runs synchronously, a ``required`` one is refused with -32021 and
``data.requiredCapabilities.extensions`` naming the extension.  So are ``tasks/get``,
``tasks/update`` and ``tasks/cancel`` from such requests; ``tasks/result`` and ``tasks/list``
(the 2025-11-25 core surface, removed by the extension) stay -32601.

A task belongs to the client that created it (its verified principal, else its connection's
client key): another client's ``tasks/*`` get -32602 "unknown task", like an expired one.  A
running task never expires; records are kept ``ServerSettings.task_ttl`` seconds after the task
ended, within a byte budget of finished results (``max_task_result_bytes``, per client and in
total: the oldest are dropped first, see :mod:`server.tasks.store`); at most
``max_tasks`` are stored, ``max_tasks_per_client`` per client (over the cap the call is an
``isError`` result, code ``mcp-codegen.rate_limited``).  With Redis (``--redis-url``) the replicas
share the tasks: any replica answers ``tasks/*``; the one running the handler polls the store for
answers and for a cancellation made elsewhere.

Every change of a task (its creation, each status, ``statusMessage`` changes rate-bounded) is
also sent as ``notifications/tasks`` to the owner's ``subscriptions/listen`` streams that declared
the extension (:mod:`server.tasks.notify`; with Redis through the change bus, to every replica).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Coroutine, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from ...wire import protocol as p
from ...wire.errors import InvalidParamsError, ProtocolError
from ...wire.tools import ToolDef
from ..context import Context, InputRequired
from ..extensions import TASK_METHODS, TASKS_EXTENSION, declares_tasks, missing_tasks_extension, task_request_id, unknown_task
from ..results import build_result, error_result
from ..settings import ServerSettings
from .notify import TaskNotifier, public, task_owner
from .store import LEASE, TERMINAL, MemoryTaskStore, RedisTaskStore, ResultBudget, TaskStore

if TYPE_CHECKING:
    from ..connection import Connection


class RequestEnv(Protocol):
    """What the manager reads of a request (``server.calls.RequestEnv``)."""

    version: str
    caps: dict[str, Any]
    modern: bool


class ToolCalls(Protocol):
    """The parts of the ``tools/call`` mixin (``server.calls.ToolCalls``) a task runs through."""

    def _run_handler(self, tool: ToolDef, model: BaseModel, ctx: Context, client_key: str | None = None) -> Coroutine[Any, Any, Any]: ...

    def _error_for(self, tool: ToolDef, exc: BaseException, env: Any) -> JsonObject: ...

    def _finish(self, result: JsonObject, env: Any) -> JsonObject: ...

logger = logging.getLogger("mcp_codegen.server")
JsonObject = dict[str, Any]

#: The extension's identifier (``capabilities.extensions`` key).
EXTENSION = TASKS_EXTENSION
_CAPABILITY = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}


def _iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TaskContext(Context):
    """The ``ctx`` of a handler running as a task: input waits for ``tasks/update``, progress
    becomes the task's ``statusMessage``, log messages have no channel and are dropped."""

    manager: TaskManager
    task_id: str

    async def request_input(self, method: str, params: Mapping[str, Any] | None = None, *, key: str | None = None) -> Any:
        while True:
            try:
                return await super().request_input(method, params, key=key)
            except InputRequired:
                key, entry = self.missing.popitem()  # the request just asked (no await in between)
                self.answers[key] = await self.manager.wait_input(self.task_id, key, entry)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        text = message if message is not None else (f"{progress:g}/{total:g}" if total is not None else f"{progress:g}")
        await self.manager.notices.update(self.task_id, {"statusMessage": text, "lastUpdatedAt": _iso_now()},
                                          message_only=True)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        if level not in p.LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}")


class TaskManager:
    """Creates, runs and answers for the tasks of one server (see the module docstring)."""

    def __init__(self, settings: ServerSettings, redis_url: str | None, audience: str) -> None:
        self.settings = settings
        budget = ResultBudget(settings.max_task_result_bytes, settings.task_result_bytes_per_client())
        lease = max(LEASE, 4 * settings.task_poll_interval)  # renewed every poll interval by _watch
        self.store: TaskStore = (RedisTaskStore(redis_url, audience, budget, lease) if redis_url
                                 else MemoryTaskStore(budget))
        #: Stores every change and sends ``notifications/tasks`` (:mod:`server.tasks.notify`).
        self.notices = TaskNotifier(self.store)
        self._shared = redis_url is not None
        self._running: dict[str, asyncio.Task[None]] = {}
        self._waiting: dict[str, set[str]] = {}
        self._inbox: dict[str, JsonObject] = {}

    # ------------------------------------------------------------- tools/call
    def as_task(self, tool: ToolDef, env: RequestEnv) -> bool:
        """Whether this call runs as a task.

        Raises:
            MissingCapabilityError: a ``required`` tool, and the client cannot take a task (-32021).
        """
        if tool.task_support == "forbidden":
            return False
        if env.modern and declares_tasks(env.caps):
            return True
        if tool.task_support == "required":
            raise missing_tasks_extension(f"tool {tool.name}")
        return False

    @staticmethod
    def owner(conn: Connection) -> str:
        """Whose tasks these are: the verified principal, else the connection's client key."""
        return task_owner(conn)

    def declared_inputs_missing(self, tool: ToolDef, env: RequestEnv, answers: Mapping[str, Any]) -> JsonObject:
        """The declared inputs to ask before the task exists (those the client can answer)."""
        missing: JsonObject = {}
        for key, idef in tool.inputs.items():
            if isinstance(answers.get(key), dict) or not isinstance(env.caps.get(_CAPABILITY.get(idef.method, "")), dict):
                continue
            entry: JsonObject = {"method": idef.method}
            if idef.params:
                entry["params"] = dict(idef.params)
            missing[key] = entry
        return missing

    async def start(self, core: ToolCalls, tool: ToolDef, model: BaseModel, ctx: TaskContext, env: RequestEnv,
                    conn: Connection) -> JsonObject:
        """Store the task, start its handler, return the ``CreateTaskResult``."""
        s = self.settings
        now = _iso_now()
        task_id = secrets.token_urlsafe(18)
        record: JsonObject = {
            "taskId": task_id, "status": "working", "createdAt": now, "lastUpdatedAt": now,
            "ttlMs": int(s.task_ttl * 1000), "pollIntervalMs": max(1, int(s.task_poll_interval * 1000)),
            "owner": self.owner(conn), "tool": tool.name,
        }
        if not await self.store.create(record, s.max_tasks, s.tasks_per_client()):
            return error_result("Too many tasks; retry later", p.TOOL_ERROR_RATE_LIMITED)
        ctx.manager, ctx.task_id = self, task_id
        await self.notices.created(task_id)
        runner = asyncio.get_running_loop().create_task(self._run(core, task_id, tool, model, ctx, env, conn.client_key))
        self._running[task_id] = runner
        runner.add_done_callback(lambda _t: self._running.pop(task_id, None))
        return {"resultType": "task", **public(record)}

    async def _run(self, core: ToolCalls, task_id: str, tool: ToolDef, model: BaseModel, ctx: TaskContext,
                   env: RequestEnv, client_key: str) -> None:
        watch = asyncio.get_running_loop().create_task(self._watch(task_id)) if self._shared else None
        fields: JsonObject
        try:
            async with asyncio.timeout(self.settings.task_timeout):
                value = await core._run_handler(tool, model, ctx, client_key)
            fields = {"status": "completed", "result": core._finish(build_result(tool, value), env)}
        except asyncio.CancelledError:
            ctx.cancelled_by_peer = True  # a plain ``def`` handler still running sees ctx.cancelled
            fields = {"status": "cancelled"}
        except InputRequired:
            fields = self._failed(InvalidParamsError("Invalid params: a malformed answer to an input request"))
        except ProtocolError as exc:
            fields = self._failed(exc)
        except BaseException as exc:  # what the handler raised: a tool error, a timeout, a bug
            if isinstance(exc, TimeoutError):
                ctx.cancelled_by_peer = True
            try:
                fields = {"status": "completed", "result": core._finish(core._error_for(tool, exc, env), env)}
            except ProtocolError as protocol:
                fields = self._failed(protocol)
            except BaseException:
                logger.exception("task %s of tool %s failed", task_id, tool.name)
                fields = self._failed(ProtocolError("Internal error"))
        finally:
            if watch is not None:
                watch.cancel()
            self._waiting.pop(task_id, None)
            self._inbox.pop(task_id, None)
        fields["lastUpdatedAt"] = _iso_now()
        try:
            await self.notices.update(task_id, fields)
        except Exception:  # the store is gone (shutdown, Redis down): the task expires unfinished
            logger.warning("task %s: could not store its end (%s)", task_id, fields["status"], exc_info=True)
        finally:
            self.notices.forget(task_id)

    @staticmethod
    def _failed(exc: ProtocolError) -> JsonObject:
        error: JsonObject = {"code": exc.code if isinstance(exc.code, int) else p.INTERNAL_ERROR, "message": exc.message}
        if exc.data is not None:
            error["data"] = exc.data
        return {"status": "failed", "error": error}

    async def _watch(self, task_id: str) -> None:
        """Shared store: renew the running task's lease, and cancel the local run when another
        replica cancelled the task."""
        while True:
            await asyncio.sleep(self.settings.task_poll_interval)
            try:
                status = await self.store.keep(task_id)
            except Exception:  # Redis unreachable for a moment: keep running, look again
                logger.warning("task %s: cannot read the task store", task_id, exc_info=True)
                continue
            if status is None or status == "cancelled":
                runner = self._running.get(task_id)
                if runner is not None:
                    runner.cancel()
                return

    async def wait_input(self, task_id: str, key: str, entry: JsonObject) -> Any:
        """Park the task until ``tasks/update`` answers ``key`` (the task's other waiters share it)."""
        waiting = self._waiting.setdefault(task_id, set())
        waiting.add(key)
        await self.store.ask(task_id, key, entry)
        await self.notices.update(task_id, {"status": "input_required", "lastUpdatedAt": _iso_now()})
        inbox = self._inbox.setdefault(task_id, {})
        pause = min(self.settings.task_poll_interval, 0.05 if not self._shared else 0.1)
        while key not in inbox:
            inbox.update(await self.store.take_answers(task_id))
            if key not in inbox:
                await asyncio.sleep(pause)
        waiting.discard(key)
        if not waiting:
            await self.notices.update(task_id, {"status": "working", "lastUpdatedAt": _iso_now()})
        return inbox.pop(key)

    # ------------------------------------------------------------- tasks/*
    async def serve(self, method: str, params: JsonObject, env: RequestEnv, conn: Connection) -> JsonObject:
        """``tasks/get``, ``tasks/update`` or ``tasks/cancel`` (a 2026-07-28 request)."""
        task_id = task_request_id(method, params, env.caps)
        record = await self.store.get(task_id)
        if record is None or record.get("owner") != self.owner(conn):
            raise unknown_task(task_id)
        if method == "tasks/get":
            return public(record)
        if method == "tasks/update":
            responses = params.get("inputResponses")
            if not isinstance(responses, dict):
                raise InvalidParamsError("Invalid params: tasks/update needs an inputResponses object")
            if record["status"] not in TERMINAL:
                await self.store.answer(task_id, responses)
            return {}
        if record["status"] not in TERMINAL:
            await self.notices.update(task_id, {"status": "cancelled", "statusMessage": "Cancelled by the client",
                                                "lastUpdatedAt": _iso_now()})
            self.notices.forget(task_id)
            runner = self._running.get(task_id)
            if runner is not None:
                runner.cancel()
        return {}

    async def aclose(self) -> None:
        """Cancel the tasks running here and release the store."""
        for runner in list(self._running.values()):
            runner.cancel()
        await self.store.aclose()


__all__ = ["EXTENSION", "TASK_METHODS", "TaskContext", "TaskManager", "declares_tasks"]
