"""The blocking client: :class:`SyncClientBase` runs an async client on a private event loop.

The loop runs in a daemon thread (:class:`_LoopThread`), so the blocking client works
from plain scripts and from any thread, including one whose own event loop is running
(the call blocks that thread, not the private loop).  The generated ``XSyncClient``
subclasses :class:`SyncClientBase`, sets ``client_class`` and wraps each typed method
of the async client with ``self._run``.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar, cast

from ..wire.apps import McpUiToolMeta, UiResource
from ..wire.content import ToolResult
from ..wire.resources import PromptResult
from .async_client import ClientBase
from .catalog import Completion, ResourceContents
from .handshake import Era
from .listing import Prompt, Resource, ResourceTemplate, Tool
from .subscriptions import Change, Subscription
from .transports import StderrMode
from .types import CompatReport

if TYPE_CHECKING:  # the optional Skills feature (client/features.py): mypy of a copy without it sees Any
    from .skills.calls import LoadedSkill, SkillEntry, SkillFile  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

T = TypeVar("T")
_C = TypeVar("_C", bound=ClientBase)


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
        """Run ``coro`` on the private loop (started on first use) and wait for its result."""
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
        """Stop the loop and join its thread (unless called from it)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            if threading.current_thread() is not thread:
                thread.join(timeout=10)


class SyncSubscription:
    """Blocking twin of :class:`~client.subscriptions.Subscription` (a context manager and an
    iterator of :class:`~client.subscriptions.Change`)."""

    def __init__(self, sub: Subscription, run: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
        self.subscription = sub
        self._run = run

    def __enter__(self) -> SyncSubscription:
        self._run(self.subscription.__aenter__())
        return self

    def __exit__(self, *exc: object) -> None:
        self._run(self.subscription.__aexit__(None, None, None))

    def __iter__(self) -> SyncSubscription:
        return self

    def __next__(self) -> Change:
        try:
            change: Change = self._run(self.subscription.__anext__())
        except StopAsyncIteration:
            raise StopIteration from None
        return change

    def next(self, timeout: float | None = None) -> Change | None:
        """The next change, or None when none came within ``timeout`` seconds or the server
        ended the subscription."""
        async def wait() -> Change | None:
            try:
                return await asyncio.wait_for(self.subscription.__anext__(), timeout)
            except (TimeoutError, StopAsyncIteration):
                return None

        result: Change | None = self._run(wait())
        return result


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

    # The constructors take exactly the arguments of their ``ClientBase`` twins.

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: StderrMode = "capture",
        inherit_env: bool = True,
        shutdown_timeout: float = 2.0,
        **options: Any,
    ) -> Self:
        """Blocking twin of ``ClientBase.stdio`` (connect with ``with`` or :meth:`connect`)."""
        return cls._wrap(cls.client_class.stdio(command, args, env=env, cwd=cwd, stderr=stderr, inherit_env=inherit_env,
                                                shutdown_timeout=shutdown_timeout, **options))

    @classmethod
    def in_process(cls, server: object, *, principal: Any = None, zero_copy: bool = False, **options: Any) -> Self:
        """Blocking twin of ``ClientBase.in_process`` (the server runs on the private loop)."""
        return cls._wrap(cls.client_class.in_process(server, principal=principal, zero_copy=zero_copy, **options))

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
        auth: Any = None,
        **options: Any,
    ) -> Self:
        """Blocking twin of ``ClientBase.http`` (same keyword arguments)."""
        return cls._wrap(cls.client_class.http(url, headers=headers, bearer_token=bearer_token, http_timeout=http_timeout,
                                               listen=listen, http_client=http_client, auth=auth, **options))

    @classmethod
    def _wrap(cls, client: ClientBase) -> Self:
        return cls(cast(Any, client))

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._loop.run(coro)

    def connect(self) -> None:
        """Start the transport and negotiate the era (idempotent)."""
        self._run(self.client.connect())

    def close(self) -> None:
        """Close the connection, then stop the private loop."""
        try:
            self._run(self.client.aclose())
        finally:
            self._loop.stop()

    def __enter__(self) -> Self:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        """Blocking :meth:`ClientBase.list_tools`."""
        return self._run(self.client.list_tools(refresh=refresh))

    def call_raw(self, name: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> ToolResult:
        """Blocking :meth:`ClientBase.call_raw` (``isError`` results are returned)."""
        return self._run(self.client.call_raw(name, arguments, timeout=timeout))

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> ToolResult:
        """Blocking :meth:`ClientBase.call_tool` (``isError`` results raise)."""
        return self._run(self.client.call_tool(name, arguments, timeout=timeout))

    def list_resources(self) -> list[Resource]:
        """See :meth:`ClientBase.list_resources`."""
        return self._run(self.client.list_resources())

    def list_resource_templates(self) -> list[ResourceTemplate]:
        """See :meth:`ClientBase.list_resource_templates`."""
        return self._run(self.client.list_resource_templates())

    def list_prompts(self) -> list[Prompt]:
        """See :meth:`ClientBase.list_prompts`."""
        return self._run(self.client.list_prompts())

    def read_resource(self, uri: str, *, timeout: float | None = None) -> list[ResourceContents]:
        """See :meth:`ClientBase.read_resource`."""
        return self._run(self.client.read_resource(uri, timeout=timeout))

    def tool_ui(self, tool: str) -> McpUiToolMeta | None:
        """See :meth:`ClientBase.tool_ui` (no request)."""
        return self.client.tool_ui(tool)

    def ui_resource(self, tool: str, *, timeout: float | None = None) -> UiResource:
        """Blocking :meth:`ClientBase.ui_resource`: the tool's MCP Apps UI resource, read and checked."""
        return self._run(self.client.ui_resource(tool, timeout=timeout))

    def read_ui_resource(self, uri: str, *, timeout: float | None = None) -> UiResource:
        """Blocking :meth:`ClientBase.read_ui_resource`."""
        return self._run(self.client.read_ui_resource(uri, timeout=timeout))

    def get_prompt(self, name: str, arguments: Mapping[str, str] | None = None, *, timeout: float | None = None) -> PromptResult:
        """See :meth:`ClientBase.get_prompt`."""
        return self._run(self.client.get_prompt(name, arguments, timeout=timeout))

    def complete(self, ref: Mapping[str, Any], argument: str, value: str, context: Mapping[str, str] | None = None,
                 *, timeout: float | None = None) -> Completion:
        """See :meth:`ClientBase.complete`."""
        return self._run(self.client.complete(ref, argument, value, context, timeout=timeout))

    def subscribe(self, *uris: str, tools: bool = False, prompts: bool = False, resources: bool = False,
                  max_queued: int = 1000) -> SyncSubscription:
        """Blocking :meth:`ClientBase.subscribe`: ``with client.subscribe(uri) as changes:
        for change in changes: ...`` (or ``changes.next(timeout=…)``)."""
        sub = self.client.subscribe(*uris, tools=tools, prompts=prompts, resources=resources, max_queued=max_queued)
        return SyncSubscription(sub, self._run)

    def check_compat(self) -> CompatReport:
        """Blocking :meth:`ClientBase.check_compat`."""
        return self._run(self.client.check_compat())

    def ping(self) -> None:
        """Blocking :meth:`ClientBase.ping`."""
        self._run(self.client.ping())

    @property
    def era(self) -> Era | None:
        """``"modern"`` (2026-07-28) or ``"legacy"`` once connected."""
        return self.client.era

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol version once connected."""
        return self.client.protocol_version

    @property
    def is_closed(self) -> bool:
        """True once the connection is gone (closed or lost)."""
        return self.client.is_closed

    # -- skills (blocking twins; client/skills/calls.py is imported by the async client's calls) --

    @property
    def supports_skills(self) -> bool:
        """True when the server declared the Skills extension (connect first)."""
        return self.client.supports_skills

    def list_skills(self, *, max_pages: int = 1000, timeout: float | None = None) -> list[SkillEntry]:
        """Blocking :meth:`ClientBase.list_skills` (reads no file)."""
        return self._run(self.client.list_skills(max_pages=max_pages, timeout=timeout))

    def get_skill(self, uri: str, *, timeout: float | None = None) -> SkillEntry:
        """Blocking :meth:`ClientBase.get_skill` (reads no file)."""
        return self._run(self.client.get_skill(uri, timeout=timeout))

    def load_skill(self, skill: SkillEntry | str, *, timeout: float | None = None) -> LoadedSkill:
        """Blocking :meth:`ClientBase.load_skill`: ``SKILL.md`` read and verified."""
        return self._run(self.client.load_skill(skill, timeout=timeout))

    def read_skill_file(self, skill: SkillEntry, path_or_uri: str, *, timeout: float | None = None) -> SkillFile:
        """Blocking :meth:`ClientBase.read_skill_file`: one file, read and verified."""
        return self._run(self.client.read_skill_file(skill, path_or_uri, timeout=timeout))
