"""Eager timeouts: run a coroutine's first step at once, arming its timeout only if it suspends.

``asyncio.timeout`` costs a timer per call (a handle on the loop's heap, cancelled
afterwards), and most tool calls never suspend: they finish in their first step.
:func:`within` runs that step in the calling task; if the coroutine finished, nothing was
armed; if it suspended, the rest runs under ``asyncio.timeout_at`` with the deadline counted
from the start of the call, in the same task (``current_task()`` is the request's, so
``notifications/cancelled`` and the timeout still cancel the handler).  A timeout cannot
interrupt synchronous code in either case, so the result is the same as
``async with asyncio.timeout(seconds): return await coro``.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Coroutine, Generator
from typing import Any


@types.coroutine
def resume(coro: Coroutine[Any, Any, Any], yielded: Any) -> Generator[Any, Any, Any]:
    """Drive the started ``coro`` from the caller's task: what it yields goes to the task,
    what the task sends or throws goes back to it."""
    while True:
        try:
            sent = yield yielded
        except GeneratorExit:
            coro.close()
            raise
        except BaseException as exc:  # cancellation, or an exception thrown by the task
            try:
                yielded = coro.throw(exc)
            except StopIteration as done:
                return done.value
        else:
            try:
                yielded = coro.send(sent)
            except StopIteration as done:
                return done.value


async def within(seconds: float | None, coro: Coroutine[Any, Any, Any]) -> Any:
    """``await coro`` with a timeout of ``seconds`` (None: none), armed only if it suspends.

    Raises:
        TimeoutError: ``coro`` still ran ``seconds`` after the call started.
    """
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        yielded = coro.send(None)
    except StopIteration as done:
        return done.value
    async with asyncio.timeout_at(None if seconds is None else start + seconds):
        return await resume(coro, yielded)


__all__ = ["resume", "within"]
