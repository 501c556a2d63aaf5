"""The blocking twin of :class:`~client.tasks.handle.TaskHandle`, returned by the sync client's
``start_<tool>`` (every method runs on the sync client's private event loop)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator
from typing import Any, Generic, TypeVar

from .handle import TaskHandle, TaskStatus

T = TypeVar("T")
R = TypeVar("R")


class SyncTaskHandle(Generic[T]):
    """A task started by a sync client: ``status()``, ``result()``, ``cancel()``, and
    ``for status in handle`` (each change until terminal)."""

    def __init__(self, run: Callable[[Coroutine[Any, Any, Any]], Any], handle: TaskHandle[T]) -> None:
        self._run = run
        self.handle = handle

    def _call(self, coro: Coroutine[Any, Any, R]) -> R:
        value: R = self._run(coro)
        return value

    @property
    def task_id(self) -> str | None:
        """The server's task id (None when the call completed without a task)."""
        return self.handle.task_id

    def status(self) -> TaskStatus:
        """Ask the server for the task's status now."""
        return self._call(self.handle.status())

    def result(self) -> T:
        """Wait for the end; the result (see :meth:`TaskHandle.result`)."""
        return self._call(self.handle.result())

    def cancel(self) -> None:
        """Ask the server to cancel the task."""
        self._call(self.handle.cancel())

    def __iter__(self) -> Iterator[TaskStatus]:
        changes = self.handle.watch()

        async def step() -> TaskStatus | None:
            try:
                return await changes.__anext__()
            except StopAsyncIteration:
                return None

        while True:
            status = self._call(step())
            if status is None:
                return
            yield status


__all__ = ["SyncTaskHandle"]
