"""The generated weather client against the generated weather server (``weather_impl``).

Over stdio (``python -m weather --stdio``, cwd ``generated_examples``) and in-process
(``WeatherClient.in_process(WeatherService())``), in both eras.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from client_fakes import GENERATED, run
from mcp_codegen_runtime.client.types import AuditRecord, ElicitationRequest, ElicitationResponse
from mcp_codegen_runtime.wire import errors as E
from weather.client import WeatherClient
from weather.errors import UnknownLocationError
from weather.models import Unit

weather_impl = pytest.importorskip("weather_impl")
settings_mod = pytest.importorskip("mcp_codegen_runtime.server.settings")


def stdio_client(**options: Any) -> WeatherClient:
    return WeatherClient.stdio(sys.executable, ["-m", "weather", "--stdio"], cwd=GENERATED, stderr="capture", **options)


def in_process_client(**options: Any) -> WeatherClient:
    service = weather_impl.WeatherService(settings_mod.ServerSettings(page_size=1))
    return WeatherClient.in_process(service, **options)


CONNECT = {"stdio": stdio_client, "in_process": in_process_client}
ERAS: dict[str, tuple[dict[str, Any], str, str]] = {
    "auto": ({}, "modern", "2026-07-28"),
    "legacy": ({"era": "legacy"}, "legacy", "2025-11-25"),
    "legacy-2025-06-18": ({"protocol_version": "2025-06-18"}, "legacy", "2025-06-18"),
}


@pytest.mark.parametrize("era", list(ERAS))
@pytest.mark.parametrize("how", list(CONNECT))
def test_generated_client_against_generated_server(how: str, era: str) -> None:
    options, want_era, want_version = ERAS[era]
    asked: list[ElicitationRequest] = []

    def elicit(req: ElicitationRequest) -> ElicitationResponse:  # a plain function: runs in a thread
        asked.append(req)
        return ElicitationResponse(action="accept", content={"unit": "fahrenheit"})

    records: list[AuditRecord] = []

    async def main() -> None:
        async with CONNECT[how](elicitation=elicit, audit=records.append, **options) as c:
            assert (c.era, c.protocol_version) == (want_era, want_version)
            assert c.server_identity["name"] == "weather"

            out = await c.get_weather(location="Paris", unit=Unit.celsius)
            assert (out.temperature, out.conditions, out.unit) == (18.0, "sunny", Unit.celsius)

            out = await c.get_weather(location="London")  # asks for the unit
            assert (out.temperature, out.unit) == (54.5, Unit.fahrenheit)
            assert len(asked) == 1 and asked[0].key == "unit" and asked[0].tool == "get_weather"
            assert asked[0].requestedSchema is not None and "unit" in asked[0].requestedSchema["properties"]

            text = await c.get_forecast(location="Tokyo", days=2)
            assert text.text() == "day 1: cloudy, 22.0 C\nday 2: cloudy, 23.0 C"

            with pytest.raises(UnknownLocationError) as declared:
                await c.get_weather(location="Atlantis", unit=Unit.celsius)
            assert declared.value.data == {"location": "Atlantis"}

            with pytest.raises(E.UnknownToolError):
                await c.call_tool("no_such_tool", {})

            with pytest.raises(E.InvalidArgumentsError):
                await c.call_tool("get_weather", {"location": 5})

            tools = await c.list_tools()
            assert [t.name for t in tools] == ["get_weather", "get_forecast"]
            report = await c.check_compat()
            assert report.compatible and report.unchanged == ("get_weather", "get_forecast")

    run(main())
    # unknown tool is a JSON-RPC error here (-32602): a protocol error, not an isError result
    assert [r.outcome for r in records] == ["ok", "ok", "ok", "tool_error", "error", "tool_error"]


def test_in_process_declines_elicitation() -> None:
    async def main() -> None:
        async with in_process_client(elicitation=lambda r: ElicitationResponse(action="decline"), audit=None) as c:
            out = await c.get_weather(location="Paris")  # declined: the implementation falls back to celsius
            assert out.unit is Unit.celsius

    run(main())


@pytest.mark.parametrize(
    ("era", "error"), [(None, E.MissingCapabilityError), ("legacy", E.ToolExecutionError)]
)
def test_in_process_without_elicitation_handler(era: str | None, error: type[E.McpError]) -> None:
    """No handler: no elicitation capability declared (only MCP Apps, for get_forecast's view), so the
    server cannot ask (its error, not a hang)."""

    async def main() -> None:
        async with in_process_client(audit=None, era=era) as c:
            assert c.client_capabilities == {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [
                "text/html;profile=mcp-app"]}}}
            with pytest.raises(error):
                await c.get_weather(location="Paris")

    run(main())


@pytest.mark.parametrize("era", [None, "legacy"])
def test_tools_list_changed_invalidates_cache(era: str | None) -> None:
    """2026: via a subscriptions/listen stream the client opens; legacy: unsolicited."""
    service = weather_impl.WeatherService(settings_mod.ServerSettings(list_ttl_ms=60_000))
    changed: list[int] = []

    async def main() -> None:
        event = asyncio.Event()

        def on_changed() -> None:
            changed.append(1)
            event.set()

        async with WeatherClient.in_process(service, audit=None, era=era, on_tools_changed=on_changed) as c:
            assert [t.name for t in await c.list_tools()] == ["get_weather", "get_forecast"]
            await asyncio.sleep(0.05)  # let the listen stream be acknowledged
            service.disable_tool("get_forecast")
            await asyncio.wait_for(event.wait(), 5)
            assert [t.name for t in await c.list_tools()] == ["get_weather"]
            report = await c.check_compat()
            assert report.removed == ("get_forecast",) and not report.compatible

    run(main())
    assert changed == [1]
