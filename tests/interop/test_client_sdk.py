"""The generated weather client against a server written with the official ``mcp`` SDK (stdio).

``tests/support/sdk_weather_server.py`` runs the SDK's dual-era loop (the client's probe opens a
2026-07-28 connection) or, with ``--legacy-only``, its handshake-only loop (the probe
fails with -32601 and the client falls back to ``initialize``).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from client_fakes import SDK_SERVER, run
from mcp_codegen_runtime.client.types import AuditRecord, ElicitationRequest, ElicitationResponse, Progress
from mcp_codegen_runtime.wire import errors as E
from mcp_codegen_runtime.wire.tools import ToolDef
from pydantic import BaseModel, ConfigDict, RootModel
from weather.client import WeatherClient
from weather.errors import UnknownLocationError
from weather.models import GetWeatherOutput, Unit

MODES = {
    # name: (server args, client options, expected era, expected version)
    "modern": ([], {}, "modern", "2026-07-28"),
    "legacy-fallback": (["--legacy-only"], {}, "legacy", "2025-11-25"),
    "legacy-forced": ([], {"era": "legacy"}, "legacy", "2025-11-25"),
}


def sdk_client(server_args: list[str], **options: Any) -> WeatherClient:
    options.setdefault("audit", None)
    return WeatherClient.stdio(sys.executable, [str(SDK_SERVER), *server_args], stderr="capture", **options)


@pytest.mark.parametrize("mode", list(MODES))
def test_weather_client_against_sdk_server(mode: str) -> None:
    server_args, options, era, version = MODES[mode]
    asked: list[ElicitationRequest] = []

    async def elicit(req: ElicitationRequest) -> ElicitationResponse:
        asked.append(req)
        return ElicitationResponse(action="accept", content={"unit": "fahrenheit"})

    records: list[AuditRecord] = []

    async def main() -> None:
        async with sdk_client(server_args, elicitation=elicit, audit=records.append, **options) as c:
            assert (c.era, c.protocol_version) == (era, version)
            assert c.server_identity["version"] == "9.9.9-sdk"

            # typed call with structured output
            out = await c.get_weather(location="Paris", unit=Unit.celsius)
            assert isinstance(out, GetWeatherOutput)
            assert (out.temperature, out.conditions, out.unit) == (18.0, "sunny", Unit.celsius)
            assert not asked

            # elicitation: legacy = server->client request, 2026 = input_required round trip
            out = await c.get_weather(location="London")
            assert (out.temperature, out.unit) == (54.5, Unit.fahrenheit)
            assert len(asked) == 1 and asked[0].message == "Which temperature unit?"
            assert asked[0].tool == "get_weather"
            assert records[-1].rounds == (2 if era == "modern" else 1)

            # text-only tool
            forecast = await c.get_forecast(location="Tokyo", days=2)
            assert forecast.text() == "day 1: cloudy, 22.0 C\nday 2: cloudy, 23.0 C"

            # declared error, carrying data and the raw result
            with pytest.raises(UnknownLocationError) as declared:
                await c.get_weather(location="Atlantis", unit=Unit.celsius)
            assert declared.value.data == {"location": "Atlantis"}
            assert declared.value.result is not None and declared.value.result["isError"] is True

            # unknown tool (the SDK answers with an isError result "Unknown tool: x")
            with pytest.raises(E.UnknownToolError):
                await c.call_tool("no_such_tool", {})

            # invalid arguments (SDK: isError with a pydantic validation message)
            with pytest.raises(E.InvalidArgumentsError):
                await c.call_tool("get_weather", {"location": 5, "unit": "celsius"})

            # call_raw returns isError results instead of raising
            raw = await c.call_raw("get_weather", {"location": "Atlantis", "unit": "celsius"})
            assert raw.isError and "Atlantis" in raw.text()

            # pagination: the SDK server serves one tool per page
            tools = await c.list_tools()
            assert [t.name for t in tools] == ["get_weather", "get_forecast", "slow", "count"]

            report = await c.check_compat()
            assert report.added == ("count", "slow") and report.removed == ()

    run(main())
    assert [r.outcome for r in records] == ["ok", "ok", "ok", "tool_error", "tool_error", "tool_error", "tool_error"]


class AnyArgs(BaseModel):
    model_config = ConfigDict(extra="allow")


class Counts(RootModel[list[int]]):
    pass


COUNT = ToolDef(
    name="count",
    method="count",
    wire={"name": "count", "inputSchema": {"type": "object"}},
    input_model=AnyArgs,
    output_model=Counts,
)


def test_sdk_wrapped_non_object_output_and_progress() -> None:
    seen: list[Progress] = []

    async def main() -> None:
        async with sdk_client([]) as c:
            counts = await c._call_structured(COUNT, {"n": 3}, Counts)
            assert counts.root == [1, 2, 3]
            result = await c.call_tool("slow", {"seconds": 0.3, "step": 0.1}, progress=seen.append)
            assert result.text() == "done"

    run(main())
    assert len(seen) >= 2 and seen[-1].total == 0.3 and seen[-1].message == "sleeping"


def test_sdk_timeouts_idle_and_hard() -> None:
    async def main() -> None:
        async with sdk_client([], timeout=0.3, max_timeout=0.9) as c:
            loop = asyncio.get_running_loop()
            # no progress for 2 s: the idle timeout fires
            with pytest.raises(E.McpTimeoutError) as idle:
                await c.call_tool("slow", {"seconds": 2, "step": 2})
            assert idle.value.data["hard"] is False
            # progress every 0.1 s keeps it alive, but not past the hard maximum
            start = loop.time()
            with pytest.raises(E.McpTimeoutError) as hard:
                await c.call_tool("slow", {"seconds": 5, "step": 0.1})
            assert hard.value.data["hard"] is True and 0.8 <= loop.time() - start < 2.0
            # the connection is still usable
            out = await c.get_weather(location="Paris", unit=Unit.celsius)
            assert out.temperature == 18.0

    run(main())


def test_sdk_server_killed_transport_closed() -> None:
    async def main() -> None:
        async with sdk_client([]) as c:
            pending = asyncio.create_task(c.call_tool("slow", {"seconds": 10, "step": 0.5}))
            await asyncio.sleep(0.3)
            proc = c.transport.process  # type: ignore[attr-defined]
            proc.kill()
            with pytest.raises(E.TransportClosedError) as info:
                await pending
            assert "exited" in info.value.message or "closed" in info.value.message
            with pytest.raises(E.TransportClosedError):
                await c.get_weather(location="Paris", unit=Unit.celsius)

    run(main())


def test_stdio_spawn_failure_is_transport_closed() -> None:
    async def main() -> None:
        with pytest.raises(E.TransportClosedError):
            async with WeatherClient.stdio("/nonexistent/mcp-server-binary"):
                pass

    run(main())


def test_a_slow_starting_sdk_server_is_reached_in_2026_after_the_probe_timed_out() -> None:
    """The probe times out while the server is still starting; the SDK server then reads it,
    serves 2026-07-28 on that connection and refuses the fallback ``initialize``: the client asks
    ``server/discover`` again instead of failing (seen with PyPI mcp-server-time under load)."""

    async def main() -> None:
        slow = f"sleep 2; exec {sys.executable} {SDK_SERVER}"
        async with WeatherClient.stdio("bash", ["-c", slow], stderr="capture", audit=None, probe_timeout=0.5) as c:
            assert (c.era, c.protocol_version) == ("modern", "2026-07-28")
            out = await c.get_weather(location="Paris", unit=Unit.celsius)
            assert (out.temperature, out.conditions) == (18.0, "sunny")

    run(main())
