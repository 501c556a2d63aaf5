"""Tasks (the ``io.modelcontextprotocol/tasks`` extension, SEP-2663) on the client.

A generated client whose spec marks tools ``task: optional|required`` declares the extension in
its 2026-07-28 ``clientCapabilities``.  A server may then answer ``tools/call`` with a
``CreateTaskResult`` (``resultType: "task"``) instead of the result; two ways to use that:

* the plain typed call (``await client.slow_compute(seconds=30)``) still returns the result: it
  polls ``tasks/get`` every ``pollIntervalMs`` until the task is terminal, answers the task's
  ``inputRequests`` with the client's elicitation / sampling / roots handlers (``tasks/update``),
  and cancels the task (``tasks/cancel``) when the awaiting coroutine is cancelled;
* ``start_<tool>(...)`` returns a :class:`TaskHandle` at once: ``await handle.status()`` (one
  ``tasks/get``), ``await handle.result()`` (the tool's output model, or its ``ToolResult``),
  ``await handle.cancel()``, and ``async for status in handle`` (each change of status or
  status message, until terminal).  The sync client's ``start_<tool>`` returns a
  :class:`~client.tasks.sync.SyncTaskHandle` with the same methods, blocking.

Both wait on the server's ``notifications/tasks`` while one of the client's ``subscriptions/listen``
streams is open (``async with client.subscribe():``, or ``watch_tools``), instead of polling: a
terminal notice ends the wait at once (its inline ``result``/``error``; one ``tasks/get`` when it
has none), an ``input_required`` one is answered like a polled one.  Without a stream, or from a
server that sends none, they poll ``tasks/get`` (:mod:`client.tasks.notify`).

A server that answers the call directly (no extension, a legacy session, a fast task) gives a
handle that is already ``completed`` (``task_id`` is None).  A ``failed`` task raises its
protocol error (:func:`~wire.errors.from_wire`); a ``cancelled`` one :class:`TaskCancelledError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from ...wire import protocol as p
from ...wire.errors import McpError, ProtocolError, from_wire
from .notify import TaskNotices, newer, quiet_period

T = TypeVar("T")
JsonObject = dict[str, Any]

#: The extension's identifier (``capabilities.extensions`` key).
EXTENSION = p.TASKS_EXTENSION
TERMINAL = frozenset({"completed", "failed", "cancelled"})
#: Poll interval when the server suggests none, and the bounds applied to its suggestion (seconds).
DEFAULT_POLL = 0.5
MIN_POLL, MAX_POLL = 0.05, 30.0


class TaskCancelledError(McpError):
    """The task was cancelled (by ``cancel()`` or by the server) before it produced a result."""


@dataclass(frozen=True)
class TaskStatus:
    """One observation of a task (the fields of ``tasks/get`` / ``CreateTaskResult``)."""

    task_id: str | None
    status: str
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    input_requests: Mapping[str, Any] = field(default_factory=dict)

    @property
    def terminal(self) -> bool:
        """True for ``completed``, ``failed`` and ``cancelled``."""
        return self.status in TERMINAL


def status_of(raw: Mapping[str, Any]) -> TaskStatus:
    """Read a ``CreateTaskResult`` or a ``tasks/get`` result.

    Raises:
        ProtocolError: no string ``taskId`` or ``status``.
    """
    task_id, status = raw.get("taskId"), raw.get("status")
    if not isinstance(task_id, str) or not isinstance(status, str):
        raise ProtocolError("malformed task: taskId and status must be strings", data=dict(raw))

    def _int(key: str) -> int | None:
        value = raw.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def _str(key: str) -> str | None:
        value = raw.get(key)
        return value if isinstance(value, str) else None

    requests = raw.get("inputRequests")
    return TaskStatus(task_id, status, _str("statusMessage"), _str("createdAt"), _str("lastUpdatedAt"),
                      _int("ttlMs"), _int("pollIntervalMs"), dict(requests) if isinstance(requests, dict) else {})


class TaskClient(Protocol):
    """What a handle needs of the client (``ClientBase``; its ``task_notices``, a
    :class:`~client.tasks.notify.TaskNotices`, is optional: without it the handle polls)."""

    async def request(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        ...

    async def _fulfil(self, method: str, params: Any, tool: str | None, key: str | None, tool_def: Any) -> JsonObject:
        ...


class TaskHandle(Generic[T]):
    """A tool call running as a task on the server (see the module docstring).

    Args:
        client: the client that started it.
        tool: the tool's name.
        tool_def: its definition (for answering declared inputs), if known.
        first: the call's answer: a ``CreateTaskResult`` or an already complete result.
        finish: turns the complete ``CallToolResult`` into what :meth:`result` returns
            (raising for ``isError`` results, parsing the output model).
    """

    def __init__(self, client: TaskClient, tool: str, tool_def: Any, first: JsonObject,
                 finish: Callable[[JsonObject], T]) -> None:
        self._client = client
        self._tool = tool
        self._tool_def = tool_def
        self._finish = finish
        self._answered: set[str] = set()
        self._final: JsonObject | None = None
        if first.get("resultType") == "task":
            self._last = status_of(first)
        else:
            self._last = TaskStatus(None, "completed")
            self._final = {"status": "completed", "result": first}

    @property
    def task_id(self) -> str | None:
        """The server's task id (None when the call completed without a task)."""
        return self._last.task_id

    @property
    def last_status(self) -> TaskStatus:
        """The latest status observed (no request)."""
        return self._last

    async def status(self) -> TaskStatus:
        """Ask the server for the task's status now (answering pending input requests)."""
        if self._last.task_id is None or self._final is not None:
            return self._last
        raw = await self._client.request("tasks/get", {"taskId": self._last.task_id})
        if not isinstance(raw, dict):
            raise ProtocolError("malformed tasks/get result", data=raw)
        current = status_of(raw)
        self._last = current
        if current.terminal:
            self._final = raw
        elif current.input_requests:
            await self._answer(current.input_requests)
        return current

    async def _answer(self, requests: Mapping[str, Any]) -> None:
        responses: JsonObject = {}
        for key, req in requests.items():
            if key in self._answered:
                continue
            if not isinstance(req, dict) or not isinstance(req.get("method"), str):
                raise ProtocolError(f"{self._tool}: malformed input request {key!r}", data=req)
            responses[key] = await self._client._fulfil(req["method"], req.get("params"), self._tool, key, self._tool_def)
            self._answered.add(key)
        if responses:
            await self._client.request("tasks/update", {"taskId": self._last.task_id, "inputResponses": responses})

    def _pause(self) -> float:
        ms = self._last.poll_interval_ms
        return DEFAULT_POLL if ms is None else min(MAX_POLL, max(MIN_POLL, ms / 1000))

    async def watch(self) -> AsyncIterator[TaskStatus]:
        """Each change of status or status message, starting with the current one, until terminal
        (from ``notifications/tasks`` while a listen stream is open, else by polling)."""
        seen = (self._last.status, self._last.status_message)
        yield self._last
        try:
            while not self._last.terminal and self._final is None:
                current = await self._next()
                if (current.status, current.status_message) != seen:
                    seen = (current.status, current.status_message)
                    yield current
        finally:
            notices = self._notices()
            if notices is not None and self._final is not None and self._last.task_id is not None:
                notices.forget(self._last.task_id)

    def _notices(self) -> TaskNotices | None:
        notices = getattr(self._client, "task_notices", None)
        return notices if isinstance(notices, TaskNotices) else None

    async def _next(self) -> TaskStatus:
        """The next observation: a notification, else (no stream, or no news) a ``tasks/get``."""
        notices, task_id = self._notices(), self._last.task_id
        if notices is None or task_id is None or not notices.listening:
            await asyncio.sleep(self._pause())
            return await self.status()
        pause = self._pause()
        notice = await notices.wait(task_id, quiet_period(pause) if notices.server_sends else pause)
        if notice is None:
            return await self.status()
        return await self._apply(notice)

    async def _apply(self, notice: JsonObject) -> TaskStatus:
        """Take a ``notifications/tasks`` (an older one than the latest status seen is ignored)."""
        if not newer(notice, self._last.last_updated_at):
            return self._last
        try:
            current = status_of(notice)
        except ProtocolError:
            return self._last
        if current.task_id != self._last.task_id:
            return self._last
        if current.terminal:
            inline = {"completed": "result", "failed": "error"}.get(current.status)
            if inline is not None and not isinstance(notice.get(inline), dict):
                return await self.status()  # no inline result: tasks/get has it
            self._last, self._final = current, notice
            return current
        self._last = current
        if current.input_requests:
            await self._answer(current.input_requests)
        return current

    def __aiter__(self) -> AsyncIterator[TaskStatus]:
        return self.watch()

    async def result(self) -> T:
        """Wait for the task to end and return its result.

        Raises:
            TaskCancelledError: the task was cancelled.
            ProtocolError: the task failed (its error), or a malformed answer.
            ToolError: the tool reported an error (the typed call's mapping).
        """
        return self._finish(await self.raw_result())

    async def raw_result(self) -> JsonObject:
        """Wait for the end; the complete ``CallToolResult`` dict (no ``isError`` mapping)."""
        async for _ in self.watch():
            pass
        final = self._final or {}
        status = final.get("status")
        if status == "completed" and isinstance(final.get("result"), dict):
            result: JsonObject = final["result"]
            return result
        if status == "failed":
            raise from_wire(final.get("error"))
        if status == "cancelled":
            raise TaskCancelledError(f"{self._tool}: the task was cancelled", data={"taskId": self.task_id})
        raise ProtocolError(f"{self._tool}: the task ended without a result", data=final)

    async def cancel(self) -> None:
        """Ask the server to cancel the task (``tasks/cancel``; a no-op once it ended)."""
        if self._last.task_id is not None and self._final is None:
            await self._client.request("tasks/cancel", {"taskId": self._last.task_id})


async def wait_for_task(client: TaskClient, tool: str, tool_def: Any, created: JsonObject) -> JsonObject:
    """The plain call's wait: poll the task to its end; its ``CallToolResult``.  Cancelling the
    awaiting coroutine cancels the task on the server (best effort)."""
    handle: TaskHandle[JsonObject] = TaskHandle(client, tool, tool_def, created, lambda raw: raw)
    try:
        return await handle.raw_result()
    except asyncio.CancelledError:
        await _cancel_quietly(handle.cancel())
        raise


async def _cancel_quietly(cancel: Awaitable[None]) -> None:
    try:
        await asyncio.wait_for(asyncio.shield(asyncio.ensure_future(cancel)), 5)
    except (TimeoutError, McpError, OSError, asyncio.CancelledError):
        pass


__all__ = ["EXTENSION", "TaskCancelledError", "TaskHandle", "TaskStatus", "status_of", "wait_for_task"]
