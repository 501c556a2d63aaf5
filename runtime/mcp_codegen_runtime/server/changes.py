"""Change notifications on the server: list changes and resource updates (a mixin of
:class:`~server.dispatch.ServerCore`, declaring every attribute it reads).

What changes: the tool, prompt and resource lists (``enable_*`` / ``disable_*``, or
:meth:`Notifications.list_changed` when a handler's answers change) and single resources
(:meth:`Notifications.resource_updated`).  Who hears it:

* legacy sessions, unsolicited: every initialized session gets ``notifications/<kind>/list_changed``;
  ``notifications/resources/updated`` only goes to sessions that sent ``resources/subscribe``
  for that URI;
* 2026-07-28 ``subscriptions/listen`` streams: only what the stream asked for
  (``toolsListChanged``, ``promptsListChanged``, ``resourcesListChanged``,
  ``resourceSubscriptions``), each notification tagged with the stream's subscription id.  The
  acknowledgement names the subset honoured: list kinds the server declares, and the requested
  URIs it knows (fixed resources, or matching a template) when it offers subscriptions.
  At most ``ServerSettings.max_listen_streams`` streams are open at once, server-wide: one more
  is refused with ``-32603`` before its acknowledgement (each open stream holds a connection,
  a task and its buffers: about 28 KB over HTTP, bench/bench_memory.py).

The tasks extension's ``notifications/tasks`` go to the listen streams of the task's owner whose
request declared the extension (:mod:`server.tasks.notify`), through :meth:`Notifications.publish_task`.

Every change goes through :meth:`Notifications.publish_change`, which delivers it to this
process's listeners (:meth:`Notifications.deliver_change`), or with a change bus
(:mod:`server.replicas`, Redis) to the listeners of every replica.  Both entry points may be
called from handlers and other threads.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..wire import jsonrpc
from ..wire import protocol as p
from ..wire.errors import InternalError, InvalidParamsError
from ..wire.resources import PromptDef, ResourceDef, ResourceTemplateDef
from ..wire.tools import ToolDef
from .connection import Connection, is_network_client
from .extensions import TASK_NOTIFICATION, declares_tasks, task_owner
from .replicas import ChangeBus
from .settings import ServerSettings

JsonObject = dict[str, Any]

#: The lists that can change, and the notification announcing it.
LIST_CHANGED: dict[str, str] = {
    "tools": "notifications/tools/list_changed",
    "prompts": "notifications/prompts/list_changed",
    "resources": "notifications/resources/list_changed",
}
#: ``subscriptions/listen`` filter field of each list.
_FILTER_KEYS = {"tools": "toolsListChanged", "prompts": "promptsListChanged", "resources": "resourcesListChanged"}
#: The change-bus kind of a task notification (its ``uri`` slot carries ``{"owner", "task"}`` as JSON).
TASK_CHANGE = "task"
#: Resource URIs one session or listen stream may follow at once (bounded memory).
MAX_SUBSCRIPTIONS = 1000


@dataclass(frozen=True)
class Change:
    """One change: ``kind`` is a list (``tools``/``prompts``/``resources``), or ``updated`` with the
    resource ``uri``."""

    kind: str
    uri: str | None = None


@dataclass(eq=False)
class _Listener:
    """One open ``subscriptions/listen`` stream: what it asked for, and its end signal."""

    lists: frozenset[str]
    uris: frozenset[str]
    #: The owner whose task notifications it gets (None: the request did not declare the tasks extension).
    tasks_owner: str | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)


class Notifications:
    """The change-notification half of the server (see the module docstring)."""

    tool_defs: ClassVar[tuple[ToolDef, ...]]
    resource_defs: ClassVar[tuple[ResourceDef, ...]]
    resource_template_defs: ClassVar[tuple[ResourceTemplateDef, ...]]
    prompt_defs: ClassVar[tuple[PromptDef, ...]]
    resource_subscribe: ClassVar[bool]
    settings: ServerSettings

    def _init_notifications(self, bus: ChangeBus | None = None) -> None:
        #: Carries changes to the other replicas (None: this process only; :mod:`server.replicas`).
        self._bus = bus
        self._bus_started = False
        #: Names switched off per list (``tools`` / ``prompts`` / ``resources``).
        self._disabled: dict[str, set[str]] = {kind: set() for kind in LIST_CHANGED}
        self._connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        self._listeners: dict[tuple[Connection, jsonrpc.RequestId], _Listener] = {}
        self._listening_closed = False
        #: listen requests past the cap check whose acknowledgement is being sent (they count too)
        self._listen_opening = 0
        self._listen_opening_by: dict[str, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._background: set[asyncio.Task[Any]] = set()

    # -- what is offered ---------------------------------------------------------------------
    def _names(self, kind: str) -> set[str]:
        if kind == "tools":
            return {t.name for t in self.tool_defs}
        if kind == "prompts":
            return {d.name for d in self.prompt_defs}
        return {d.name for d in self.resource_defs} | {d.name for d in self.resource_template_defs}

    def _switch(self, kind: str, name: str, on: bool) -> None:
        if name not in self._names(kind):
            raise KeyError(name)
        off = self._disabled[kind]
        if (name in off) == on:  # a real change
            (off.discard if on else off.add)(name)
            self.list_changed(kind)

    def enable_tool(self, name: str) -> None:
        """Offer tool ``name`` again (emits ``notifications/tools/list_changed``)."""
        self._switch("tools", name, True)

    def disable_tool(self, name: str) -> None:
        """Stop offering tool ``name`` (emits ``notifications/tools/list_changed``)."""
        self._switch("tools", name, False)

    def enable_prompt(self, name: str) -> None:
        """Offer prompt ``name`` again (emits ``notifications/prompts/list_changed``)."""
        self._switch("prompts", name, True)

    def disable_prompt(self, name: str) -> None:
        """Stop offering prompt ``name`` (emits ``notifications/prompts/list_changed``)."""
        self._switch("prompts", name, False)

    def enable_resource(self, name: str) -> None:
        """Offer resource or resource template ``name`` again (``notifications/resources/list_changed``)."""
        self._switch("resources", name, True)

    def disable_resource(self, name: str) -> None:
        """Stop offering resource or resource template ``name`` (``notifications/resources/list_changed``)."""
        self._switch("resources", name, False)

    def enabled(self, kind: str, name: str) -> bool:
        """Whether ``name`` of list ``kind`` is offered (not disabled)."""
        return name not in self._disabled[kind]

    def knows_resource(self, uri: str) -> bool:
        """Whether ``uri`` is an offered resource, or matches an offered template."""
        return any(r.uri == uri and self.enabled("resources", r.name) for r in self.resource_defs) or any(
            self.enabled("resources", t.name) and t.match(uri) is not None for t in self.resource_template_defs)

    # -- announcing changes ------------------------------------------------------------------
    def list_changed(self, kind: str) -> None:
        """Announce that list ``kind`` (``tools``, ``prompts`` or ``resources``) changed."""
        if kind not in LIST_CHANGED:
            raise ValueError(f"unknown list {kind!r}; one of {', '.join(LIST_CHANGED)}")
        self._soon(self.publish_change, Change(kind))

    def resource_updated(self, uri: str) -> None:
        """Tell the clients following ``uri`` that it changed (``notifications/resources/updated``)."""
        self._soon(self.publish_change, Change("updated", uri))

    async def publish_change(self, change: Change) -> None:
        """Send ``change`` to everyone concerned: through the change bus to every replica when
        there is one, else to this process's listeners."""
        if self._bus is None:
            await self.deliver_change(change)
            return
        await self.start_bus()
        await self._bus.publish(change.kind, change.uri)

    async def start_bus(self) -> None:
        """Start receiving the other replicas' changes (once; done on start-up and first use)."""
        if self._bus is not None and not self._bus_started:
            self._bus_started = True
            await self._bus.start(self._from_bus)

    async def _from_bus(self, kind: str, uri: str | None) -> None:
        if kind in LIST_CHANGED or (kind == "updated" and uri is not None):
            await self.deliver_change(Change(kind, uri))
        elif kind == TASK_CHANGE and uri is not None:
            try:
                carried = json.loads(uri)
                owner, task = carried["owner"], carried["task"]
            except (ValueError, TypeError, KeyError):
                return
            if isinstance(owner, str) and isinstance(task, dict):
                await self.deliver_task(owner, task)

    async def publish_task(self, owner: str, task: JsonObject) -> None:
        """Send a task's ``notifications/tasks`` (``task``: its ``tasks/get`` shape) to the
        streams of ``owner``: through the change bus to every replica, else to this process's."""
        if self._bus is None:
            await self.deliver_task(owner, task)
            return
        await self.start_bus()
        await self._bus.publish(TASK_CHANGE, json.dumps({"owner": owner, "task": task}))

    async def deliver_task(self, owner: str, task: JsonObject) -> None:
        """Notify this process's listen streams of ``owner`` that declared the tasks extension."""
        for (conn, rid), listener in list(self._listeners.items()):
            if listener.tasks_owner == owner and not conn.closed:
                await conn.notify(TASK_NOTIFICATION, {**task, "_meta": {p.META_SUBSCRIPTION_ID: rid}}, related_to=rid)

    async def close_bus(self) -> None:
        """Stop the change bus (on shutdown)."""
        if self._bus is not None and self._bus_started:
            self._bus_started = False
            await self._bus.aclose()

    async def deliver_change(self, change: Change) -> None:
        """Notify this process's legacy sessions and listen streams concerned by ``change``."""
        if change.kind == "updated":
            method, params = "notifications/resources/updated", {"uri": change.uri}
        else:
            method, params = LIST_CHANGED[change.kind], {}
        shared = jsonrpc.notification(method, params or None)  # one message object for every session
        for conn in list(self._connections):
            if conn.closed or conn.legacy_version is None or not conn.initialized:
                continue
            if change.kind != "updated" or change.uri in conn.resource_subscriptions:
                await conn.send_notification(shared)
        for (conn, rid), listener in list(self._listeners.items()):
            wanted = change.uri in listener.uris if change.kind == "updated" else change.kind in listener.lists
            if wanted and not conn.closed:
                await conn.notify(method, {**params, "_meta": {p.META_SUBSCRIPTION_ID: rid}}, related_to=rid)

    def _soon(self, func: Any, change: Change) -> None:
        """Run ``func(change)`` as a task of the server's loop (from any thread)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self._soon, func, change)
            return
        coro: Coroutine[Any, Any, None] = func(change)
        task = loop.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- 2026: subscriptions/listen ----------------------------------------------------------
    def listen_capabilities(self) -> frozenset[str]:
        """The lists this server can announce changes of."""
        kinds = {"tools"}
        if self.prompt_defs:
            kinds.add("prompts")
        if self.resource_defs or self.resource_template_defs:
            kinds.add("resources")
        return frozenset(kinds)

    async def listen(self, params: JsonObject, rid: jsonrpc.RequestId, conn: Connection,
                     caps: Mapping[str, Any] | None = None) -> JsonObject:
        """Serve one ``subscriptions/listen``: acknowledge, stream what was asked, end with a result
        when the server closes it (:meth:`close_subscriptions`).  ``caps``: the request's client
        capabilities (naming the tasks extension opts the stream in to ``notifications/tasks``).

        Raises:
            InvalidParamsError: a malformed filter.
            InternalError: ``max_listen_streams`` streams are already open (nothing was sent).
        """
        wanted = params.get("notifications", {})
        if not isinstance(wanted, dict):
            raise InvalidParamsError("Invalid params: notifications must be an object")
        lists = frozenset(k for k in self.listen_capabilities() if wanted.get(_FILTER_KEYS[k]) is True)
        honoured: JsonObject = {_FILTER_KEYS[k]: True for k in sorted(lists)}
        uris: frozenset[str] = frozenset()
        asked = wanted.get("resourceSubscriptions")
        if asked is not None:
            if not isinstance(asked, list) or not all(isinstance(u, str) for u in asked):
                raise InvalidParamsError("Invalid params: resourceSubscriptions must be a list of URIs")
            if len(asked) > MAX_SUBSCRIPTIONS:
                raise InvalidParamsError(f"Invalid params: at most {MAX_SUBSCRIPTIONS} resource subscriptions")
            if self.resource_subscribe:
                uris = frozenset(u for u in asked if self.knows_resource(u))
                honoured["resourceSubscriptions"] = [u for u in dict.fromkeys(asked) if u in uris]
        cap = self.settings.max_listen_streams
        if len(self._listeners) + self._listen_opening >= cap:
            raise InternalError(f"Too many subscriptions/listen streams open (at most {cap}); retry later")
        if is_network_client(conn.client_key):
            mine = self.settings.listen_streams_per_client()
            held = sum(1 for c, _ in self._listeners if c.client_key == conn.client_key)
            if held + self._listen_opening_by.get(conn.client_key, 0) >= mine:
                raise InternalError(f"Too many subscriptions/listen streams open for this client (at most {mine}); "
                                    "close one first")
        self._listen_opening += 1
        self._listen_opening_by[conn.client_key] = self._listen_opening_by.get(conn.client_key, 0) + 1
        try:
            await conn.notify(
                "notifications/subscriptions/acknowledged",
                {"_meta": {p.META_SUBSCRIPTION_ID: rid}, "notifications": honoured},
                related_to=rid,
            )
        finally:
            self._listen_opening -= 1
            left = self._listen_opening_by.pop(conn.client_key) - 1
            if left:
                self._listen_opening_by[conn.client_key] = left
        listener = _Listener(lists, uris, task_owner(conn) if caps is not None and declares_tasks(caps) else None)
        if self._listening_closed:
            listener.done.set()
        self._listeners[(conn, rid)] = listener
        try:
            await listener.done.wait()
        finally:
            self._listeners.pop((conn, rid), None)
        return {"_meta": {p.META_SUBSCRIPTION_ID: rid}}

    def close_subscriptions(self) -> None:
        """End every ``subscriptions/listen`` stream with its final result (graceful close);
        a listen request arriving afterwards ends at once (the server is shutting down)."""
        self._listening_closed = True
        for listener in self._listeners.values():
            listener.done.set()


__all__ = ["Change", "LIST_CHANGED", "MAX_SUBSCRIPTIONS", "TASK_CHANGE", "Notifications"]
