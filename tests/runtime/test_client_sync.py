"""The blocking facade (``WeatherSyncClient``): plain scripts, threads beside a running loop."""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest
from client_fakes import GENERATED, SDK_SERVER
from mcp_codegen_runtime.client.types import ElicitationRequest, ElicitationResponse
from mcp_codegen_runtime.wire import errors as E
from weather.client import WeatherClient, WeatherSyncClient
from weather.errors import UnknownLocationError
from weather.models import GetWeatherOutput, Unit

weather_impl = pytest.importorskip("weather_impl")


def answer_fahrenheit(req: ElicitationRequest) -> ElicitationResponse:
    return ElicitationResponse(action="accept", content={"unit": "fahrenheit"})


def test_sync_plain_call_in_process() -> None:
    with WeatherSyncClient.in_process(weather_impl.WeatherService(), elicitation=answer_fahrenheit, audit=None) as c:
        assert isinstance(c.client, WeatherClient)
        out = c.get_weather(location="Paris", unit=Unit.celsius)
        assert out == GetWeatherOutput(temperature=18.0, conditions="sunny", unit=Unit.celsius)
        assert c.get_weather(location="Paris").temperature == 64.4  # elicitation through the facade
        assert c.get_forecast(location="London", days=1).text() == "day 1: rain, 12.5 C"
        assert [t.name for t in c.list_tools()] == ["get_weather", "get_forecast"]
        assert c.check_compat().compatible
        with pytest.raises(UnknownLocationError):
            c.get_weather(location="Atlantis", unit=Unit.celsius)
        assert c.era == "modern"


def test_sync_stdio_against_sdk_server_legacy() -> None:
    with WeatherSyncClient.stdio(
        sys.executable, [str(SDK_SERVER), "--legacy-only"], stderr="capture", elicitation=answer_fahrenheit, audit=None
    ) as c:
        assert c.era == "legacy"
        assert c.get_weather(location="Tokyo").temperature == 71.6
        raw = c.call_raw("get_forecast", {"location": "Tokyo", "days": 1})
        assert raw.text() == "day 1: cloudy, 22.0 C"
        proc = c.client.transport.process  # type: ignore[attr-defined]
    assert proc.returncode is not None  # closed: the server process is gone


def test_sync_from_threads_beside_a_running_loop() -> None:
    def work() -> float:
        with WeatherSyncClient.stdio(
            sys.executable, ["-m", "weather", "--stdio"], cwd=GENERATED, stderr="capture", audit=None
        ) as c:
            return c.get_weather(location="London", unit=Unit.celsius).temperature

    async def main() -> tuple[float, float, str]:
        loop_thread = threading.current_thread().name
        # 1. from a worker thread while this loop keeps running
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        t = asyncio.create_task(ticker())
        from_thread = await asyncio.to_thread(work)
        t.cancel()
        assert ticks > 0  # the caller's loop was not blocked
        # 2. straight from a coroutine (blocks this loop, but the private loop serves it)
        with WeatherSyncClient.in_process(weather_impl.WeatherService(), audit=None) as c:
            inline = c.get_weather(location="Paris", unit=Unit.fahrenheit).temperature
        return from_thread, inline, loop_thread

    from_thread, inline, _ = asyncio.run(main())
    assert (from_thread, inline) == (12.5, 64.4)


def test_sync_errors_and_closed() -> None:
    c = WeatherSyncClient.in_process(weather_impl.WeatherService(), audit=None)
    c.connect()
    try:
        with pytest.raises(E.UnknownToolError):
            c.call_tool("nope", {})
    finally:
        c.close()
    threads = [t.name for t in threading.enumerate()]
    assert "mcp-sync-client" not in threads
