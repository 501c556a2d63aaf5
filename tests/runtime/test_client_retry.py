"""Safe retries of the generated client (``retry=``, ``_runtime/client/retry_policy.py``) against real
server processes that are killed mid-call and restarted.

The server is ``python -m weather --impl http_stress_impl:StressWeather`` (stdio, and ``--http``
on 127.0.0.1 in both eras): ``get_forecast(location="sleep:<s>")`` sleeps, and the spec marks it
``readOnlyHint: true``.  :class:`UnmarkedClient` is the same client with a tool table that
marks nothing, so the very same call counts as one that must not run twice.  Checked:

* killed mid-call: a repeatable call is sent again to the respawned (stdio) or restarted
  (HTTP) server and completes; an unmarked one raises :class:`CallMayHaveRunError` and is not
  sent again; without a policy the old behaviour stays (the call fails, nothing reconnects);
* killed while idle, or down when the call starts: the request never reached a server, so
  even the unmarked call is sent, once the server is back;
* HTTP 503 (a front that refuses the first calls): the unmarked call is retried and runs once;
* a server that stays down: :class:`RetriesExhaustedError` once the deadline is reached;
* the policy itself: backoff bounds with jitter, validation, what counts as delivered.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from common_support import free_port, run_async
from flaky_front import FlakyFront
from http_stress_support import HttpServer
from mcp_codegen_runtime.client.retry_policy import (
    CallMayHaveRunError,
    RetriesExhaustedError,
    RetryPolicy,
    delivery,
    is_repeatable,
    resolve_policy,
)
from mcp_codegen_runtime.wire.errors import InternalError, McpTimeoutError, ProtocolError, TransportClosedError
from weather.client import WeatherClient

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "generated_examples"
SUPPORT = ROOT / "tests" / "support"
#: Generous: the machine is shared; nothing here is a timed assertion.
POLICY = RetryPolicy(deadline=40.0, max_attempts=60, initial_delay=0.1, max_delay=0.5)
ERAS = ("modern", "legacy")


class UnmarkedClient(WeatherClient):
    """The weather client with a tool table that marks no tool read-only or idempotent."""

    tool_defs = tuple(replace(td, wire={**td.wire, "annotations": {}}) for td in WeatherClient.tool_defs)


def _stdio(cls: type[WeatherClient], **options: Any) -> WeatherClient:
    env = {"PYTHONPATH": os.pathsep.join([str(EXAMPLES), str(SUPPORT), str(ROOT)])}
    return cls.stdio(sys.executable, ["-m", "weather", "--impl", "http_stress_impl:StressWeather"], env=env,
                     cwd=EXAMPLES, stderr="discard", audit=None, **options)


def _pid(client: WeatherClient) -> int:
    proc = client.transport.process  # type: ignore[attr-defined]
    assert proc is not None
    return int(proc.pid)


async def _text(client: WeatherClient, where: str) -> str:
    result = await client.call_tool("get_forecast", {"location": where, "days": 1})
    return result.text()


# ------------------------------------------------------------------ stdio
def test_stdio_repeatable_call_survives_a_server_killed_mid_call() -> None:
    async def main() -> None:
        async with _stdio(WeatherClient, retry=POLICY) as client:
            first = _pid(client)
            call = asyncio.create_task(_text(client, "sleep:2"))
            await asyncio.sleep(0.8)
            os.kill(first, signal.SIGKILL)
            assert await call == "done sleep:2"
            assert _pid(client) != first  # sent again to a respawned server
            assert '"finished": 1' in await _text(client, "stats")  # ran there once

    run_async(main(), 90)


def test_stdio_unmarked_call_killed_mid_call_may_have_run() -> None:
    async def main() -> None:
        async with _stdio(UnmarkedClient, retry=POLICY) as client:
            first = _pid(client)
            call = asyncio.create_task(_text(client, "sleep:5"))
            await asyncio.sleep(0.8)
            os.kill(first, signal.SIGKILL)
            with pytest.raises(CallMayHaveRunError) as info:
                await call
            assert "may have run" in info.value.message and "get_forecast" in info.value.message
            assert isinstance(info.value, TransportClosedError)  # what callers caught before
            assert info.value.data["requestSent"] is True
            # the client still works: the next call is a new one and reconnects
            assert '"started": 0' in await _text(client, "stats")  # the respawned server ran nothing
            assert _pid(client) != first

    run_async(main(), 90)


def test_stdio_unmarked_call_to_a_server_that_died_idle_is_sent_once_reconnected() -> None:
    async def main() -> None:
        async with _stdio(UnmarkedClient, retry=POLICY) as client:
            first = _pid(client)
            os.kill(first, signal.SIGKILL)
            await asyncio.sleep(1.0)  # the client sees its stdout close
            stats = await _text(client, "stats")  # never reached the dead server: safe to send
            assert '"started": 0' in stats  # the new process ran nothing before
            assert _pid(client) != first

    run_async(main(), 90)


def test_the_blocking_client_takes_the_same_option() -> None:
    from weather.client import WeatherSyncClient

    env = {"PYTHONPATH": os.pathsep.join([str(EXAMPLES), str(SUPPORT), str(ROOT)])}
    with WeatherSyncClient.stdio(sys.executable, ["-m", "weather", "--impl", "http_stress_impl:StressWeather"],
                                 env=env, cwd=EXAMPLES, stderr="discard", audit=None, retry="safe") as client:
        first = _pid(client.client)
        os.kill(first, signal.SIGKILL)
        time.sleep(1.0)  # the client's loop sees stdout close
        assert client.call_tool("get_forecast", {"location": "sleep:0.1", "days": 1}).text() == "done sleep:0.1"
        assert _pid(client.client) != first


def test_stdio_without_a_policy_nothing_is_retried() -> None:
    async def main() -> None:
        async with _stdio(WeatherClient) as client:
            first = _pid(client)
            call = asyncio.create_task(_text(client, "sleep:5"))
            await asyncio.sleep(0.8)
            os.kill(first, signal.SIGKILL)
            with pytest.raises(TransportClosedError) as info:
                await call
            assert not isinstance(info.value, CallMayHaveRunError)
            with pytest.raises(TransportClosedError):
                await _text(client, "stats")
            assert _pid(client) == first

    run_async(main(), 60)


# ------------------------------------------------------------------ HTTP, both eras
def _restart_later(port: int, delay: float, started: list[HttpServer]) -> asyncio.Task[None]:
    async def later() -> None:
        await asyncio.sleep(delay)
        started.append(await asyncio.to_thread(HttpServer, port=port))

    return asyncio.create_task(later())


@pytest.mark.parametrize("era", ERAS)
def test_http_repeatable_call_survives_a_killed_and_restarted_server(era: str) -> None:
    server = HttpServer()
    restarted: list[HttpServer] = []

    async def main() -> None:
        async with WeatherClient.http(server.url, era=era, retry=POLICY, audit=None) as client:
            assert "started" in await _text(client, "stats")
            call = asyncio.create_task(_text(client, "sleep:2"))
            await asyncio.sleep(0.8)
            server.proc.kill()
            server.proc.wait(10)
            restart = _restart_later(server.port, 1.0, restarted)
            assert await call == "done sleep:2"  # sent again to the restarted server
            await restart
            stats = await _text(client, "stats")
            assert '"finished": 1' in stats, stats  # it ran there, once
            assert client.era == era

    try:
        run_async(main(), 120)
    finally:
        server.stop()
        for s in restarted:
            s.stop()


@pytest.mark.parametrize("era", ERAS)
def test_http_unmarked_call_killed_mid_call_may_have_run(era: str) -> None:
    server = HttpServer()
    restarted: list[HttpServer] = []

    async def main() -> None:
        async with UnmarkedClient.http(server.url, era=era, retry=POLICY, audit=None) as client:
            await _text(client, "stats")
            call = asyncio.create_task(_text(client, "sleep:5"))
            await asyncio.sleep(0.8)
            server.proc.kill()
            server.proc.wait(10)
            restart = _restart_later(server.port, 0.5, restarted)
            with pytest.raises(CallMayHaveRunError) as info:
                await call
            assert "may have run" in info.value.message
            await restart
            stats = await _text(client, "stats")  # a new call: reaches the restarted server
            assert '"started": 0' in stats, stats  # the unmarked call was not sent again

    try:
        run_async(main(), 120)
    finally:
        server.stop()
        for s in restarted:
            s.stop()


@pytest.mark.parametrize("era", ERAS)
def test_http_unmarked_call_while_the_server_is_down_runs_once_it_is_back(era: str) -> None:
    server = HttpServer()
    restarted: list[HttpServer] = []

    async def main() -> None:
        async with UnmarkedClient.http(server.url, era=era, retry=POLICY, audit=None) as client:
            await _text(client, "stats")
            server.proc.kill()
            server.proc.wait(10)
            restart = _restart_later(server.port, 1.5, restarted)
            assert '"started": 0' in await _text(client, "stats")  # refused connections: never sent
            await _text(client, "sleep:0.1")
            await restart
            assert '"finished": 1' in await _text(client, "stats")  # ran exactly once

    try:
        run_async(main(), 120)
    finally:
        server.stop()
        for s in restarted:
            s.stop()


@pytest.mark.parametrize("era", ERAS)
def test_http_503_is_retried_even_for_an_unmarked_tool(era: str) -> None:
    with HttpServer() as server, FlakyFront(server.port, refuse=2) as front:
        async def main() -> None:
            async with UnmarkedClient.http(front.url, era=era, retry=POLICY, audit=None) as client:
                await _text(client, "sleep:0.1")
                assert front.refused == 2 and front.calls_forwarded == 1
                assert '"finished": 1' in await _text(client, "stats")

        run_async(main(), 90)


def test_http_503_without_a_policy_is_the_error() -> None:
    with HttpServer() as server, FlakyFront(server.port, refuse=1) as front:
        async def main() -> None:
            async with UnmarkedClient.http(front.url, era="modern", audit=None) as client:
                with pytest.raises(ProtocolError) as info:
                    await _text(client, "sleep:0.1")
                assert info.value.data["httpStatus"] == 503

        run_async(main(), 60)


def test_a_server_that_stays_down_exhausts_the_deadline() -> None:
    server = HttpServer()
    policy = RetryPolicy(deadline=2.0, max_attempts=100, initial_delay=0.05, max_delay=0.3)

    async def main() -> None:
        async with UnmarkedClient.http(server.url, era="modern", retry=policy, audit=None) as client:
            await _text(client, "stats")
            server.stop()
            with pytest.raises(RetriesExhaustedError) as info:
                await _text(client, "stats")
            assert info.value.data["attempts"] >= 3 and info.value.data["mayHaveRun"] is False
            assert "no attempt reached the server" in info.value.message
            assert isinstance(info.value.__cause__, TransportClosedError)

    run_async(main(), 60)


def test_a_port_nobody_listens_on_is_retried_from_the_first_connect() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    policy = RetryPolicy(deadline=1.5, initial_delay=0.05, max_delay=0.2, max_attempts=50)

    async def main() -> None:
        client = UnmarkedClient.http(url, era="modern", retry=policy, audit=None)
        try:
            with pytest.raises(RetriesExhaustedError) as info:
                await _text(client, "stats")
            assert info.value.data["attempts"] >= 2
        finally:
            await client.aclose()

    run_async(main(), 60)


# ------------------------------------------------------------------ the policy
def test_backoff_grows_is_capped_and_jittered() -> None:
    policy = RetryPolicy(initial_delay=0.1, multiplier=2.0, max_delay=1.0, jitter=0.5)
    rng = random.Random(7)
    for attempt, base in ((1, 0.1), (2, 0.2), (3, 0.4), (4, 0.8), (5, 1.0), (9, 1.0)):
        draws = [policy.delay(attempt, rng) for _ in range(200)]
        assert all(base * 0.5 <= d <= base for d in draws), (attempt, min(draws), max(draws))
        assert max(draws) - min(draws) > base * 0.3  # really jittered
    fixed = RetryPolicy(initial_delay=0.3, max_delay=0.3, jitter=0.0)
    assert {fixed.delay(n) for n in range(1, 6)} == {0.3}


@pytest.mark.parametrize("bad", [dict(deadline=0), dict(max_attempts=0), dict(initial_delay=-1),
                                 dict(initial_delay=2, max_delay=1), dict(multiplier=0.5), dict(jitter=1.5)])
def test_bad_policies_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        RetryPolicy(**bad)


def test_the_setting_is_a_policy_safe_or_none() -> None:
    assert resolve_policy(None) is None
    assert resolve_policy("safe") == RetryPolicy()
    with pytest.raises(ValueError):
        resolve_policy("always")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        WeatherClient.stdio(sys.executable, retry="yes")  # type: ignore[arg-type]  # refused before spawning


def test_what_counts_as_delivered() -> None:
    assert delivery(TransportClosedError("x", data={"requestSent": False})) == "not_sent"
    assert delivery(InternalError("x", data={"requestSent": False})) == "not_sent"
    assert delivery(ProtocolError("x", data={"httpStatus": 503})) == "not_sent"
    assert delivery(ProtocolError("x", data={"httpStatus": 404, "sessionLost": True})) == "not_sent"
    assert delivery(TransportClosedError("x")) == "may_have_run"
    assert delivery(InternalError("x", data={"requestSent": True})) == "may_have_run"
    assert delivery(ProtocolError("x", data={"httpStatus": 503, "requestSent": True})) == "may_have_run"
    # the server's own answers and timeouts are final
    assert delivery(InternalError("handler failed")) is None
    assert delivery(ProtocolError("x", data={"httpStatus": 500})) is None
    assert delivery(McpTimeoutError("slow")) is None
    assert delivery(CallMayHaveRunError("x")) is None


def test_what_is_repeatable() -> None:
    policy = RetryPolicy(repeat_tools=frozenset({"charge"}))
    assert is_repeatable("a", {"annotations": {"readOnlyHint": True}}, policy)
    assert is_repeatable("a", {"annotations": {"idempotentHint": True, "readOnlyHint": False}}, policy)
    assert is_repeatable("charge", {}, policy)
    assert not is_repeatable("a", {"annotations": {"readOnlyHint": "true"}}, policy)
    assert not is_repeatable("a", {"annotations": {"destructiveHint": False}}, policy)
    assert not is_repeatable("a", None, policy)
