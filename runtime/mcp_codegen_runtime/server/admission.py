"""Admission of requests that run user handlers: the per-client rate limit and the cap on
handlers running at once (``tools/call``, ``resources/read``, ``prompts/get``, completions).

:class:`Limits` keeps one token bucket per client key (at most :data:`MAX_CLIENTS`, least
recently used dropped first), or shares them in Redis (``ServerSettings.redis_url``), and one
counter of ``max_concurrent_calls`` slots per event loop (:class:`~server.slots.Slots`: a
semaphore whose free slot is taken without awaiting).  A network client (an HTTP client,
keyed by its principal or address) holds at most ``calls_per_client`` of those slots at once, so
one client flooding the server leaves the rest to the others; its further calls wait in its own
queue, not in front of theirs.  A stdio or in-process connection is the server's only client and
may use every slot.

A plain ``def`` handler runs in a thread of the server's own pool (``max_concurrent_calls``
threads, started as needed), never in the event loop's small default executor, and its slots
are held until its thread ends: a call cancelled by the client (or timed out) while its thread
still runs keeps counting against its client's share.  So a client that starts and cancels
blocking calls, or tasks, holds at most its ``calls_per_client`` threads, and another client's
admitted call finds a thread at once.  The handler sees the cancellation as ``ctx.cancelled``.
A plain ``def`` marked :func:`nonblocking` (generated code's upstream-bound handlers, which only
build the awaitable of the call) runs on the event loop as an ``async def`` does.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from .connection import is_network_client
from .replicas import RedisRateLimit
from .settings import ServerSettings
from .slots import Slots

#: Client keys whose buckets are remembered (memory stays bounded under many clients).
MAX_CLIENTS = 10_000



class TokenBucket:
    """Classic token bucket: ``rate`` tokens per second, at most ``burst`` stored."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._tokens = float(burst)
        self._stamp = time.monotonic()

    def take(self) -> bool:
        """Consume one token; False when the bucket is empty (rate limited)."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class Limits:
    """Rate limit and concurrency cap of one server (see the module docstring)."""

    def __init__(self, settings: ServerSettings, shared: RedisRateLimit | None = None) -> None:
        self._settings = settings
        self._shared = shared
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()
        self._slots: tuple[asyncio.AbstractEventLoop, Slots] | None = None
        #: per network client: (its slots, how many calls hold or wait for them)
        self._per_client: dict[str, tuple[Slots, int]] = {}
        #: The threads of plain ``def`` handlers (made on first use).
        self._pool: ThreadPoolExecutor | None = None

    async def admit(self, client_key: str) -> bool:
        """Take one token from the client's bucket; False when it is empty (rate limited).
        With Redis (:mod:`server.replicas`) the bucket is shared by every replica."""
        if self._shared is not None:
            shared = await self._shared.admit(client_key)
            if shared is not None:
                return shared  # else Redis is down: this process's bucket decides
        return self._admit_here(client_key)

    def admit_now(self, client_key: str) -> bool | None:
        """:meth:`admit` without awaiting when the bucket is this process's (no Redis); None
        when it is shared (then await :meth:`admit`)."""
        return None if self._shared is not None else self._admit_here(client_key)

    def _admit_here(self, client_key: str) -> bool:
        bucket = self._buckets.get(client_key)
        if bucket is None:
            bucket = TokenBucket(self._settings.rate_limit_per_second, self._settings.rate_limit_burst)
            self._buckets[client_key] = bucket
            if len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(client_key)
        return bucket.take()

    async def aclose(self) -> None:
        """Release the Redis connection of a shared rate limit and the handler threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        if self._shared is not None:
            await self._shared.aclose()

    def _threads(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self._settings.max_concurrent_calls,
                                            thread_name_prefix="mcp-handler")
        return self._pool

    async def run(self, handler: Callable[..., Any], *args: Any, client_key: str | None = None) -> Any:
        """Run a user handler in one of the ``max_concurrent_calls`` slots (waiting for one);
        a network client's calls first wait for one of its own ``calls_per_client`` slots.
        A plain function's slots are given back when its thread ends (module docstring)."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots[0] is not loop:
            self._slots = (loop, Slots(self._settings.max_concurrent_calls))
            self._per_client.clear()
        slots = self._slots[1]
        key = client_key if client_key is not None and is_network_client(client_key) else None
        own = self._enter(key) if key is not None else None
        holds_own = False
        try:  # each Slots.take's first step inline: no coroutine while a slot is free
            if own is not None:
                if not own.take_now():
                    await own.take()
                holds_own = True
            if not slots.take_now():
                await slots.take()
        except BaseException:
            if own is not None:
                self._leave(key, own if holds_own else None)
            raise
        if not _is_async(handler):
            return await self._in_thread(handler, args, lambda: self._done(slots, key, own))
        try:  # call_handler's steps for an async handler, one coroutine fewer
            value = handler(*args)
            while _awaitable(value):
                value = await value
            return value
        finally:
            self._done(slots, key, own)

    def _enter(self, key: str) -> Slots:
        """One more call of network client ``key``: its own slots (made with its first call)."""
        own, users = self._per_client.get(key, (None, 0))
        if own is None:
            own = Slots(self._settings.calls_per_client())
        self._per_client[key] = (own, users + 1)
        return own

    def _leave(self, key: str | None, held: Slots | None) -> None:
        """One call of client ``key`` less, giving back its slot ``held`` (the client's entry
        is dropped with its last call)."""
        if held is not None:
            held.release()
        if key is None:
            return
        own, users = self._per_client[key]
        if users <= 1:
            del self._per_client[key]
        else:
            self._per_client[key] = (own, users - 1)

    def _done(self, slots: Slots, key: str | None, own: Slots | None) -> None:
        """A call's end: its server-wide slot, and its client's slot and entry, given back."""
        slots.release()
        self._leave(key, own)

    async def _in_thread(self, handler: Callable[..., Any], args: tuple[Any, ...], done: Callable[[], None]) -> Any:
        """``handler(*args)`` in a pool thread; ``done`` runs when the thread ends, even when the
        caller was cancelled before (the thread cannot be stopped: its slots stay taken)."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._threads(), functools.partial(contextvars.copy_context().run, handler, *args))

        def ended(f: asyncio.Future[Any]) -> None:
            if not f.cancelled():
                f.exception()  # retrieved: a cancelled caller never reads it
            done()

        future.add_done_callback(ended)
        value = await asyncio.shield(future)
        while _awaitable(value):
            value = await value
        return value


#: Whether a handler's function is ``async def`` (:func:`inspect.iscoroutinefunction`), per
#: function: a bound method is a new object at every call, its ``__func__`` is not.
_IS_ASYNC: dict[Any, bool] = {}
#: Types whose instances are never awaitable (what handlers return most): no ABC check for them.
_PLAIN = (str, bytes, int, float, bool, dict, list, tuple, type(None))


#: The attribute :func:`nonblocking` sets on a function.
_NONBLOCKING = "__mcp_codegen_nonblocking__"
_F = TypeVar("_F", bound=Callable[..., Any])


def nonblocking(func: _F) -> _F:
    """Mark a plain ``def`` handler that never blocks (it returns an awaitable, or its value,
    at once) to run on the event loop like an ``async def``, not in a worker thread.  A subclass
    overriding the method with a plain ``def`` of its own runs in a thread again."""
    setattr(func, _NONBLOCKING, True)
    return func


def _runs_on_loop(handler: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(handler) or getattr(handler, _NONBLOCKING, False) is True


def _is_async(handler: Callable[..., Any]) -> bool:
    func = getattr(handler, "__func__", None)
    if func is None or getattr(handler, "__self__", None) is None:
        return _runs_on_loop(handler)
    known = _IS_ASYNC.get(func)
    if known is None:
        if len(_IS_ASYNC) >= 4096:  # handlers made on the fly: stay bounded
            _IS_ASYNC.clear()
        known = _IS_ASYNC[func] = _runs_on_loop(handler)
    return known


def _awaitable(value: Any) -> bool:
    return type(value) not in _PLAIN and inspect.isawaitable(value)


def _invoke(handler: Callable[..., Any], args: tuple[Any, ...]) -> Awaitable[Any]:
    """``handler(*args)`` to await: ``async def`` called directly, a plain function in a worker thread."""
    return handler(*args) if _is_async(handler) else asyncio.to_thread(handler, *args)


async def call_handler(handler: Callable[..., Any], *args: Any) -> Any:
    """Run a user handler: ``async def`` directly, a plain function in a worker thread (so it
    may block); an awaitable it returns is awaited too."""
    value = await _invoke(handler, args)
    while _awaitable(value):
        value = await value
    return value


__all__ = ["Limits", "MAX_CLIENTS", "TokenBucket", "call_handler", "nonblocking"]
