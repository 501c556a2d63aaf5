"""The client's side of ``notifications/tasks`` (tasks extension, SEP-2663): a server may send a
task's status on the client's open ``subscriptions/listen`` streams instead of being polled.

:class:`TaskNotices` (one per client) keeps

* which listen streams are open (it extends :class:`~client.subscriptions.ListenStreams`, the
  record of a client that does not declare the extension): acknowledged by the server and not
  ended.  The streams are the client's own: ``client.subscribe(...)`` blocks and the
  ``watch_tools`` stream; a 2026-07-28 request of a client declaring the extension names it in
  its ``clientCapabilities``, which is what opts a stream in;
* whether this server sent any ``notifications/tasks`` yet (:attr:`TaskNotices.server_sends`);
* the latest notices of each task (at most :data:`MAX_TASKS` tasks, :data:`MAX_QUEUED` notices
  each), so that one arriving before its handle exists (the call's answer and the stream race)
  is not lost.

:meth:`~client.tasks.handle.TaskHandle.watch` waits on them while a stream is open: without polling once
the server is known to send them (a ``tasks/get`` only after :func:`quiet_period` without
news, in case one was lost), at the usual poll interval until then.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Mapping
from typing import Any

from ..subscriptions import ListenStreams

JsonObject = dict[str, Any]

#: The notification method.
NOTIFICATION = "notifications/tasks"
#: Tasks whose notices are kept, and notices kept per task (the oldest go first).
MAX_TASKS, MAX_QUEUED = 256, 64
#: Bounds of the wait for news before a safety ``tasks/get`` (seconds).
MIN_QUIET, MAX_QUIET = 5.0, 60.0


def quiet_period(pause: float) -> float:
    """How long a watcher waits for a notification before asking ``tasks/get`` once (seconds):
    ten poll intervals, within [:data:`MIN_QUIET`, :data:`MAX_QUIET`]."""
    return min(MAX_QUIET, max(MIN_QUIET, 10 * pause))


class TaskNotices(ListenStreams):
    """The task notifications of one client, and its listen streams (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        #: True once the server sent a ``notifications/tasks``.
        self.server_sends = False
        self._boxes: collections.OrderedDict[str, collections.deque[JsonObject]] = collections.OrderedDict()
        self._news: dict[str, asyncio.Event] = {}

    @classmethod
    def over(cls, streams: ListenStreams) -> TaskNotices:
        """Notices kept from now on, over the streams ``streams`` knows of (the record of the
        client before it declared the extension: ``ClientConnection._modern_capabilities``)."""
        notices = cls()
        notices._pending, notices._open = streams._pending, streams._open
        return notices

    def offer(self, method: str, params: Any) -> None:
        """Take a notification: an acknowledgement of one of the streams, or a task's status."""
        super().offer(method, params)
        if method != NOTIFICATION or not isinstance(params, dict) or not isinstance(params.get("taskId"), str):
            return
        if not isinstance(params.get("status"), str):
            return
        self.server_sends = True
        task_id: str = params["taskId"]
        box = self._boxes.get(task_id)
        if box is None:
            box = self._boxes[task_id] = collections.deque(maxlen=MAX_QUEUED)
            while len(self._boxes) > MAX_TASKS:
                old, _ = self._boxes.popitem(last=False)
                self._news.pop(old, None)
        else:
            self._boxes.move_to_end(task_id)
        box.append({k: v for k, v in params.items() if k != "_meta"})
        news = self._news.get(task_id)
        if news is not None:
            news.set()

    def take(self, task_id: str) -> JsonObject | None:
        """The oldest notice of ``task_id`` not taken yet (None: none)."""
        box = self._boxes.get(task_id)
        return box.popleft() if box else None

    async def wait(self, task_id: str, timeout: float) -> JsonObject | None:
        """The next notice of ``task_id``, waiting at most ``timeout`` seconds (None: none came)."""
        notice = self.take(task_id)
        if notice is not None:
            return notice
        news = self._news.setdefault(task_id, asyncio.Event())
        news.clear()
        try:
            await asyncio.wait_for(news.wait(), timeout)
        except TimeoutError:
            return None
        return self.take(task_id)

    def forget(self, task_id: str) -> None:
        """The handle of ``task_id`` is done with it."""
        self._boxes.pop(task_id, None)
        self._news.pop(task_id, None)


def newer(notice: Mapping[str, Any], last_updated_at: str | None) -> bool:
    """Whether ``notice`` is not older than the latest status seen (ISO timestamps of one
    server compare as text; a notice without one counts as new)."""
    stamp = notice.get("lastUpdatedAt")
    return not isinstance(stamp, str) or last_updated_at is None or stamp >= last_updated_at


__all__ = ["MAX_QUEUED", "MAX_TASKS", "NOTIFICATION", "TaskNotices", "newer", "quiet_period"]
