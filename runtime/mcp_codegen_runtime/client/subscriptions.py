"""Following a server's changes: resource updates and list changes as an async iterator.

``client.subscribe(*uris, tools=…, prompts=…, resources=…)`` returns a :class:`Subscription`::

    async with client.subscribe("file:///notes.txt", resources=True) as changes:
        async for change in changes:          # Change(kind="updated", uri=...) / Change(kind="resources")
            ...

Legacy era: ``resources/subscribe`` per URI on entry (``resources/unsubscribe`` on exit); the
updates and list changes arrive unsolicited (over HTTP on the GET stream, which is opened for
it).  2026-07-28: one ``subscriptions/listen`` request carrying the filter, open while the
block runs; entering waits for the server's acknowledgement (:attr:`Subscription.honoured`),
leaving cancels the request.  A server that ends the stream (shutdown) ends the iteration.

Changes are queued (at most ``max_queued``; older ones are dropped first and counted in
:attr:`Subscription.dropped`), so a slow consumer never blocks the connection.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..wire import protocol as p

logger = logging.getLogger("mcp_codegen.client")

ChangeKind = Literal["updated", "tools", "prompts", "resources"]
#: Notification method -> the kind of change it announces.
_KINDS: dict[str, ChangeKind] = {
    "notifications/resources/updated": "updated",
    "notifications/tools/list_changed": "tools",
    "notifications/prompts/list_changed": "prompts",
    "notifications/resources/list_changed": "resources",
}
_FILTER_KEYS = {"tools": "toolsListChanged", "prompts": "promptsListChanged", "resources": "resourcesListChanged"}
_END = object()


@dataclass(frozen=True)
class Change:
    """One change the server announced: a resource ``uri`` was ``updated``, or a list changed."""

    kind: ChangeKind
    uri: str | None = None


def change_of(method: str, params: Any) -> Change | None:
    """The :class:`Change` a notification announces (None for other notifications)."""
    kind = _KINDS.get(method)
    if kind is None:
        return None
    if kind == "updated":
        uri = params.get("uri") if isinstance(params, dict) else None
        return Change("updated", uri) if isinstance(uri, str) else None
    return Change(kind)


def subscription_id(params: Any) -> Any:
    """The ``subscriptions/listen`` id a 2026 notification belongs to (None: unsolicited)."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get(p.META_SUBSCRIPTION_ID) if isinstance(meta, dict) else None


class Subscription:
    """An open subscription: an async context manager and an async iterator of :class:`Change`.

    Args:
        opener: coroutine function run on entry; it sets up the subscription on the wire and
            returns the coroutine function that undoes it.
        uris: resource URIs followed.
        lists: list kinds followed (``tools``, ``prompts``, ``resources``).
        max_queued: changes kept for the consumer before the oldest are dropped.
    """

    def __init__(
        self,
        opener: Callable[[Subscription], Awaitable[Callable[[], Awaitable[None]]]],
        uris: tuple[str, ...],
        lists: frozenset[str],
        max_queued: int = 1000,
    ) -> None:
        self.uris = uris
        self.lists = lists
        #: What the server agreed to (2026: its acknowledgement; legacy: what was asked).
        self.honoured: dict[str, Any] = {}
        #: Changes dropped because the consumer was too slow.
        self.dropped = 0
        #: 2026: the id of the ``subscriptions/listen`` request.
        self.listen_id: int | None = None
        self._opener = opener
        self._closer: Callable[[], Awaitable[None]] | None = None
        self._queue: collections.deque[Any] = collections.deque(maxlen=max_queued)
        self._ready = asyncio.Event()
        self._ended = False
        #: 2026: set once the server acknowledged the ``subscriptions/listen``.
        self.acknowledged = asyncio.Event()

    def acknowledge(self, notifications: Any) -> None:
        """The server's ``notifications/subscriptions/acknowledged`` for this subscription."""
        self.honoured = dict(notifications) if isinstance(notifications, dict) else {}
        self.acknowledged.set()

    def wants(self, change: Change) -> bool:
        """Whether this subscription asked for ``change``."""
        return change.uri in self.uris if change.kind == "updated" else change.kind in self.lists

    def filter(self) -> dict[str, Any]:
        """The 2026 ``subscriptions/listen`` filter of this subscription."""
        out: dict[str, Any] = {_FILTER_KEYS[k]: True for k in sorted(self.lists)}
        if self.uris:
            out["resourceSubscriptions"] = list(self.uris)
        return out

    def offer(self, change: Change) -> None:
        """Queue a change for the consumer (the oldest is dropped when the queue is full)."""
        if self._ended or not self.wants(change):
            return
        if len(self._queue) == self._queue.maxlen:
            self.dropped += 1
        self._queue.append(change)
        self._ready.set()

    def end(self) -> None:
        """The server ended the subscription: the iteration stops after the queued changes."""
        if not self._ended:
            self._ended = True
            self._queue.append(_END)
            self._ready.set()

    async def __aenter__(self) -> Subscription:
        self._closer = await self._opener(self)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._ended = True
        closer, self._closer = self._closer, None
        if closer is not None:
            try:
                await closer()
            except Exception as err:  # the connection may be gone already
                logger.debug("closing a subscription failed: %r", err)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Change:
        while not self._queue:
            if self._ended:
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        item = self._queue.popleft()
        if item is _END:
            raise StopAsyncIteration
        assert isinstance(item, Change)
        return item


def route_change(subscriptions: set[Subscription], method: str, params: Any) -> None:
    """Hand a notification to the subscriptions it concerns: an acknowledgement to its own, a
    change to those that asked for it (2026: only the one whose ``subscriptions/listen`` it came on)."""
    sid = subscription_id(params)
    if method == "notifications/subscriptions/acknowledged":
        for sub in subscriptions:
            if sub.listen_id is not None and sub.listen_id == sid:
                sub.acknowledge(params.get("notifications"))
        return
    change = change_of(method, params)
    if change is not None:
        for sub in list(subscriptions):
            if sid is None or sub.listen_id == sid:
                sub.offer(change)


class ListenStreams:
    """Which of the client's ``subscriptions/listen`` streams are open: sent, acknowledged by the
    server (``notifications/subscriptions/acknowledged``) and not ended.  The streams are the
    client's own (``client.subscribe(...)`` blocks, the ``watch_tools`` stream); a 2026 server
    sends the notifications a stream asked for on it, and a task's status too (the tasks
    extension: :class:`~client.tasks.notify.TaskNotices` extends this with those notices)."""

    def __init__(self) -> None:
        self._pending: set[Any] = set()
        self._open: set[Any] = set()

    def opening(self, listen_id: Any) -> None:
        """A ``subscriptions/listen`` with this id was sent (open once acknowledged)."""
        self._pending.add(listen_id)

    def closed(self, listen_id: Any) -> None:
        """The listen request ended (cancelled, or the server ended it)."""
        self._pending.discard(listen_id)
        self._open.discard(listen_id)

    @property
    def listening(self) -> bool:
        """Whether a listen stream is open (acknowledged and not ended)."""
        return bool(self._open)

    def offer(self, method: str, params: Any) -> None:
        """Take a notification: the acknowledgement of one of the streams opens it."""
        if method == "notifications/subscriptions/acknowledged":
            sid = subscription_id(params)
            if sid in self._pending:
                self._pending.discard(sid)
                self._open.add(sid)


__all__ = ["Change", "ChangeKind", "ListenStreams", "Subscription", "change_of", "route_change", "subscription_id"]
