"""server.slots.Slots: the concurrency cap's counter keeps asyncio.Semaphore's semantics
(limit exact, FIFO, no overtaking, a cancelled waiter passes its slot on), checked against
asyncio.Semaphore itself on random schedules, and through Limits.run."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from mcp_codegen_runtime.server.admission import Limits
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.server.slots import Slots


async def _schedule(make: Any, limit: int, seed: int) -> list[tuple[Any, ...]]:
    """Run a random schedule of takers, releases and cancellations, letting the loop settle
    after each step; per step: the action, who took a slot, who was cancelled, the holders."""
    rng = random.Random(seed)
    slots = make(limit)
    log: list[tuple[Any, ...]] = []
    holding: list[int] = []
    tasks: dict[int, asyncio.Task[None]] = {}
    took: list[int] = []
    cancelled: list[int] = []

    async def taker(i: int) -> None:
        try:
            await slots.take()
        except asyncio.CancelledError:
            cancelled.append(i)
            raise
        took.append(i)
        holding.append(i)

    for step in range(300):
        action = rng.random()
        if action < 0.45:
            tasks[step] = asyncio.get_running_loop().create_task(taker(step))
            what: tuple[Any, ...] = ("start", step)
        elif action < 0.8 and holding:
            holding.sort()
            i = holding.pop(rng.randrange(len(holding)))
            slots.release()
            what = ("release", i)
        elif action < 0.9 and (waiting := sorted(i for i, t in tasks.items() if not t.done())):
            victim = rng.choice(waiting)
            tasks[victim].cancel()
            what = ("cancel", victim)
        else:
            what = ("idle",)
        for _ in range(2 * limit + 4):  # settle: every wake-up chain has run
            await asyncio.sleep(0)
        log.append((what, sorted(took), sorted(cancelled), len(holding)))
        took.clear()
        cancelled.clear()
        assert len(holding) <= limit
        if any(not t.done() for t in tasks.values()):
            assert len(holding) == limit  # nobody waits while a slot is free
    for t in tasks.values():
        t.cancel()
    await asyncio.gather(*tasks.values(), return_exceptions=True)
    return log


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("limit", [1, 2, 5])
def test_same_schedule_as_asyncio_semaphore(seed: int, limit: int) -> None:
    ours = asyncio.run(_schedule(Slots, limit, seed))
    reference = asyncio.run(_schedule(_Reference, limit, seed))
    assert ours == reference


class _Reference:
    def __init__(self, limit: int) -> None:
        self._sem = asyncio.Semaphore(limit)

    async def take(self) -> None:
        await self._sem.acquire()

    def release(self) -> None:
        self._sem.release()


def test_fifo_and_no_overtaking() -> None:
    async def main() -> list[str]:
        slots = Slots(1)
        order: list[str] = []
        assert slots.take_now()
        assert not slots.take_now()

        async def wait(name: str) -> None:
            await slots.take()
            order.append(name)

        a = asyncio.create_task(wait("a"))
        await asyncio.sleep(0)
        b = asyncio.create_task(wait("b"))
        await asyncio.sleep(0)
        slots.release()  # handed to a, not free: a newcomer cannot take it
        assert not slots.take_now()
        await a
        slots.release()
        await b
        slots.release()
        assert slots.free == 1
        return order

    assert asyncio.run(main()) == ["a", "b"]


def test_cancelled_after_handover_passes_the_slot_on() -> None:
    async def main() -> None:
        slots = Slots(1)
        assert slots.take_now()
        first = asyncio.create_task(slots.take())
        second = asyncio.create_task(slots.take())
        await asyncio.sleep(0)
        slots.release()  # first is handed the slot ...
        first.cancel()  # ... and cancelled before it runs: second gets it
        with pytest.raises(asyncio.CancelledError):
            await first
        await asyncio.wait_for(second, 1)
        assert slots.free == 0
        slots.release()
        assert slots.free == 1

    asyncio.run(main())


def test_cancelled_waiter_leaves_the_queue() -> None:
    async def main() -> None:
        slots = Slots(1)
        assert slots.take_now()
        waiter = asyncio.create_task(slots.take())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        slots.release()
        assert slots.free == 1 and slots.take_now()

    asyncio.run(main())


@pytest.mark.parametrize("client_key", [None, "conn-1", "ip:10.0.0.1"])
def test_limits_run_caps_concurrency_exactly(client_key: str | None) -> None:
    settings = ServerSettings(max_concurrent_calls=3)
    limits = Limits(settings)
    running = [0, 0]  # now, most at once
    gate = asyncio.Event

    async def main() -> None:
        release = gate()

        async def handler(i: int) -> int:
            running[0] += 1
            running[1] = max(running[1], running[0])
            await release.wait()
            running[0] -= 1
            return i

        calls = [asyncio.create_task(limits.run(handler, i, client_key=client_key)) for i in range(10)]
        for _ in range(5):
            await asyncio.sleep(0)
        assert running[0] == min(3, settings.calls_per_client() if client_key == "ip:10.0.0.1" else 3)
        release.set()
        assert await asyncio.gather(*calls) == list(range(10))
        assert running[0] == 0

    asyncio.run(main())
    assert 1 <= running[1] <= 3


def test_limits_run_releases_on_error() -> None:
    limits = Limits(ServerSettings(max_concurrent_calls=1))

    async def boom() -> None:
        raise RuntimeError("x")

    async def ok() -> str:
        return "ok"

    async def main() -> str:
        with pytest.raises(RuntimeError):
            await limits.run(boom)
        return await asyncio.wait_for(limits.run(ok), 1)  # the slot came back

    assert asyncio.run(main()) == "ok"


@pytest.mark.parametrize("client_key", [None, "ip:10.0.0.1"])
def test_limits_run_calls_handlers_like_call_handler(client_key: str | None) -> None:
    """Plain functions run in a worker thread, awaitables they return are awaited (the
    stdio path inlines call_handler's steps)."""
    import threading as th

    limits = Limits(ServerSettings(max_concurrent_calls=1))

    def plain(x: int) -> tuple[int, bool]:
        return x, th.current_thread() is th.main_thread()

    async def inner() -> str:
        return "awaited"

    def returns_awaitable() -> Any:
        return inner()

    async def nested() -> Any:
        return inner()

    async def main() -> list[Any]:
        return [await limits.run(plain, 3, client_key=client_key),
                await limits.run(returns_awaitable, client_key=client_key),
                await limits.run(nested, client_key=client_key)]

    assert asyncio.run(main()) == [(3, False), "awaited", "awaited"]


def test_admit_now_is_admit_without_redis() -> None:
    settings = ServerSettings(rate_limit_per_second=0.001, rate_limit_burst=2)
    now, later = Limits(settings), Limits(settings)

    async def main() -> list[bool]:
        return [await later.admit("k") for _ in range(4)]

    assert [now.admit_now("k") for _ in range(4)] == asyncio.run(main()) == [True, True, False, False]
