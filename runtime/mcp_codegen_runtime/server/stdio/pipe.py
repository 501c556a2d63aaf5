"""stdin as an event-loop pipe whose requests start as they arrive (for :mod:`server.stdio`).

The protocol splits and parses lines in ``data_received`` and starts each request's task at
once (``ServerSession.start``), instead of waking a reader task that then starts it: one
event-loop pass per request fewer.  Everything that must be handled in order by the reader
(``initialize``, notifications, responses, parse errors, oversized lines) goes to the
backlog, and so does every line after it until the reader has caught up, so messages keep
their order.  While the client does not read our output (``busy()``), lines go to the
backlog too and reading stops until the reader has drained it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from ...wire import jsonrpc
from ...wire.errors import ParseError

#: A backlog item: ("message", decoded) or ("line", raw line or OVERSIZE).
Item = tuple[str, Any]


class LinePipe(asyncio.Protocol):
    """The read side of stdio (see the module docstring).

    Args:
        lines: the line splitter (it enforces the line size limit).
        start: starts a decoded message's own task; False when it must be handled in order.
        busy: whether the output side is blocked (or broken).
    """

    def __init__(self, lines: jsonrpc.LineBuffer, start: Callable[[Any, bytes | None], bool],
                 busy: Callable[[], bool]) -> None:
        self._lines = lines
        self._start = start
        self._busy = busy
        self._backlog: deque[Item] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._transport: asyncio.ReadTransport | None = None
        self._paused = False
        self._holding = False  # the reader is handling a backlog item: later lines wait behind it
        self.eof = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        backlog = self._backlog
        for line in self._lines.feed(data):
            if backlog or self._holding or not isinstance(line, bytes) or self._busy():
                self._queue(("line", line))
                continue
            try:
                message, text = jsonrpc.decode_measured(line)
            except ParseError:
                self._queue(("line", line))
                continue
            if not self._start(message, text):
                self._queue(("message", message))
        if backlog and self._busy() and not self._paused and self._transport is not None:
            self._paused = True
            self._transport.pause_reading()

    def eof_received(self) -> bool:
        self._end()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    def _end(self) -> None:
        if self.eof:
            return
        for line in self._lines.flush():
            self._queue(("line", line))
        self.eof = True
        self._wake()

    def _queue(self, item: Item) -> None:
        self._backlog.append(item)
        self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def close(self) -> None:
        """Stop reading stdin."""
        if self._transport is not None:
            self._transport.close()

    async def next_item(self) -> Item | None:
        """The next backlog item, in order; None after end of input (backlog drained).  Until
        the reader asks again, it is handling that item, and new lines queue behind it."""
        self._holding = False
        while not self._backlog:
            if self.eof:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        item = self._backlog.popleft()
        self._holding = True
        if not self._backlog and self._paused and self._transport is not None:
            self._paused = False
            self._transport.resume_reading()
        return item


__all__ = ["LinePipe"]
