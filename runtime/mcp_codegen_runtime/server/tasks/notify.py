"""Status notifications of the tasks extension (SEP-2663): ``notifications/tasks`` on the
``subscriptions/listen`` streams of the task's owner.

Every change of a task's record goes through :meth:`TaskNotifier.update`, which stores it and then
sends the task as ``tasks/get`` would return it (``taskId``, ``status``, ``statusMessage``,
``createdAt``, ``lastUpdatedAt``, ``ttlMs``, ``pollIntervalMs``, ``inputRequests`` while
``input_required``, ``result`` or ``error`` once terminal).  The creation sends the first one
(``working``).  A change that only sets the ``statusMessage`` (``ctx.progress``) is sent at most
once per :data:`MESSAGE_INTERVAL` per task; a message within the interval is sent when it ends
(the latest one, unless a notification sent meanwhile already carried it).  The changes of one task are sent
in the order they were stored (one lock per task while storing and publishing).

Who hears it: the listen streams whose request declared the extension in its
``clientCapabilities`` and comes from the task's owner (:func:`task_owner`: the same principal,
else the same client key, that ``tasks/get`` requires).  The core ``SubscriptionFilter`` has no
key for tasks: declaring the extension on the listen request is the opt-in.  The server hands the
notification to ``publish`` (``Notifications.publish_task``: through the Redis change bus to every
replica when there is one, else to this process's streams).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ..extensions import TASK_NOTIFICATION as NOTIFICATION
from ..extensions import task_owner
from .store import TERMINAL, TaskStore

logger = logging.getLogger("mcp_codegen.server")
JsonObject = dict[str, Any]

#: Least time between two notifications of one task that only change its ``statusMessage`` (s).
MESSAGE_INTERVAL = 0.1
#: The record fields that are the server's own (never sent to the client).
_PRIVATE = ("owner", "tool")

Publish = Callable[[str, JsonObject], Awaitable[None]]


def public(record: JsonObject) -> JsonObject:
    """A stored record as the client sees it (``tasks/get``, ``notifications/tasks``)."""
    return {k: v for k, v in record.items() if k not in _PRIVATE}


class TaskNotifier:
    """Stores the changes of tasks and announces them (see the module docstring).

    Args:
        store: the task store.
        interval: :data:`MESSAGE_INTERVAL`.
    """

    def __init__(self, store: TaskStore, interval: float = MESSAGE_INTERVAL) -> None:
        self.store = store
        #: Sends one task's notification params to its owner's streams (set by the server).
        self.publish: Publish | None = None
        self._interval = interval
        self._locks: dict[str, asyncio.Lock] = {}
        self._sent_at: dict[str, float] = {}
        self._sent_key: dict[str, tuple[Any, Any]] = {}
        self._later: dict[str, asyncio.Task[None]] = {}

    def _lock(self, task_id: str) -> asyncio.Lock:
        lock = self._locks.get(task_id)
        if lock is None:
            lock = self._locks[task_id] = asyncio.Lock()
        return lock

    async def created(self, task_id: str) -> None:
        """Announce a task just stored (status ``working``)."""
        async with self._lock(task_id):
            await self._send(task_id)

    async def update(self, task_id: str, fields: JsonObject, *, message_only: bool = False) -> bool:
        """Merge ``fields`` into a non-terminal task and announce the change; False when the
        task is unknown or terminal (nothing stored, nothing sent).

        Args:
            task_id: the task.
            fields: what changes.
            message_only: only the ``statusMessage`` changes (rate-bounded, see the module docstring).
        """
        async with self._lock(task_id):
            if not await self.store.update(task_id, fields):
                return False
            if self.publish is None:
                return True
            loop = asyncio.get_running_loop()
            wait = self._sent_at.get(task_id, float("-inf")) + self._interval - loop.time()
            if message_only and wait > 0:
                if task_id not in self._later:
                    self._later[task_id] = loop.create_task(self._send_later(task_id, wait))
                return True
            await self._send(task_id)
        return True

    async def _send_later(self, task_id: str, wait: float) -> None:
        await asyncio.sleep(wait)
        async with self._lock(task_id):
            self._later.pop(task_id, None)
            await self._send(task_id, held=True)

    async def _send(self, task_id: str, *, held: bool = False) -> None:
        """Publish the task as stored now; ``held``: a message held back by the pace, sent only
        if the task is not terminal and its status or message differ from the last one sent."""
        publish = self.publish
        if publish is None:
            return
        try:
            record = await self.store.get(task_id)
            if record is None:
                return
            key = (record.get("status"), record.get("statusMessage"))
            if held and (key[0] in TERMINAL or self._sent_key.get(task_id) == key):
                return
            self._sent_at[task_id] = asyncio.get_running_loop().time()
            self._sent_key[task_id] = key
            await publish(str(record.get("owner", "")), public(record))
        except Exception:  # a broken stream or Redis: the task goes on, clients can still poll
            logger.warning("task %s: could not send its status notification", task_id, exc_info=True)

    def forget(self, task_id: str) -> None:
        """The task ended here: drop what was kept to pace and order its notifications."""
        self._sent_at.pop(task_id, None)
        self._sent_key.pop(task_id, None)
        later = self._later.pop(task_id, None)
        if later is not None:
            later.cancel()
        lock = self._locks.get(task_id)
        if lock is not None and not lock.locked():
            del self._locks[task_id]


__all__ = ["MESSAGE_INTERVAL", "NOTIFICATION", "TaskNotifier", "public", "task_owner"]
