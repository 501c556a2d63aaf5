"""Fairness for plain ``def`` handlers (issue 44, attack 4): one client starting and cancelling
blocking calls cannot hold every thread; another client's admitted call is answered at once;
the cancelled calls keep their slots until their threads end, and see ``ctx.cancelled``."""

from __future__ import annotations

from sync_fairness_support import scenario, summary


def test_a_flood_of_cancelled_blocking_calls_does_not_delay_another_client() -> None:
    latencies, server = scenario(max_concurrent_calls=8, waves=6, per_wave=8, seconds=3.0)
    assert max(latencies) < 1.0, summary(latencies)
    # the flooder's share of the 8 slots is 6: the threads of its cancelled calls counted against it
    assert server.most <= 6, server.most
    assert server.saw_cancel >= 1  # the cancelled handlers saw ctx.cancelled


def test_a_cancelled_plain_handler_keeps_its_slots_until_its_thread_ends() -> None:
    """The admission itself (calls and tasks share it): cancelling the caller of a plain ``def``
    handler does not free its client's slot nor the server's while the thread still runs."""
    import asyncio
    import threading

    from mcp_codegen_runtime.server.admission import Limits
    from mcp_codegen_runtime.server.settings import ServerSettings

    release = threading.Event()
    finished = threading.Event()

    def blocking() -> str:
        release.wait(10)
        finished.set()
        return "done"

    async def main() -> None:
        limits = Limits(ServerSettings(max_concurrent_calls=2, max_concurrent_calls_per_client=1))
        key = "ip:127.0.0.9"
        first = asyncio.ensure_future(limits.run(blocking, client_key=key))
        await asyncio.sleep(0.1)
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        second = asyncio.ensure_future(limits.run(lambda: "second", client_key=key))
        await asyncio.sleep(0.3)
        assert not second.done()  # the client's one slot is still held by the running thread
        assert await limits.run(lambda: "other", client_key="ip:127.0.0.10") == "other"  # others go on
        release.set()
        assert await asyncio.wait_for(second, 5) == "second"
        assert finished.is_set()
        await limits.aclose()

    asyncio.run(main())
