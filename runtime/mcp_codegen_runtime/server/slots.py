"""A counter of free slots with a FIFO queue of waiters: what ``asyncio.Semaphore`` does for
the concurrency cap (:mod:`server.admission`), with a synchronous fast path.

``async with semaphore`` costs two coroutine frames and an ``__aexit__`` per call even when a
slot is free, which is nearly always; :meth:`Slots.take_now` takes a free slot without
awaiting anything.  Semantics kept from ``asyncio.Semaphore``: at most ``limit`` holders at
once, and waiters served in arrival order, none overtaken by a newcomer while one waits (a
released slot goes straight to the first waiter).  A waiter cancelled after it was handed a
slot passes it on.  One instance serves one event loop (the futures belong to it).
"""

from __future__ import annotations

import asyncio
from collections import deque


class Slots:
    """``limit`` slots (see the module docstring)."""

    __slots__ = ("_free", "_waiters")

    def __init__(self, limit: int) -> None:
        self._free = limit
        self._waiters: deque[asyncio.Future[None]] = deque()

    def take_now(self) -> bool:
        """Take a slot if one is free; False otherwise (then :meth:`take` waits for it).  A
        free slot means nobody waits: a released slot goes to a waiter when there is one."""
        if self._free > 0:
            self._free -= 1
            return True
        return False

    async def take(self) -> None:
        """Take a slot, waiting for one in arrival order."""
        if self.take_now():
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # a slot was handed over before the cancellation: pass it on
            else:
                try:
                    self._waiters.remove(waiter)
                except ValueError:
                    pass
            raise

    def release(self) -> None:
        """Give a slot back: to the first waiter still waiting, else to the free count."""
        waiters = self._waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._free += 1

    @property
    def free(self) -> int:
        """Slots neither held nor handed to a waiter."""
        return self._free


__all__ = ["Slots"]
