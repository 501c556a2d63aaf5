"""The official ``mcp`` SDK client against ``python -m weather --http``, both eras.

``mode="legacy"`` (initialize, session, elicitation as a server->client request inside the
POST's SSE stream, answered by a new POST), ``mode="2026-07-28"`` (stateless, elicitation via
``input_required`` and a retry) and ``mode="auto"`` (probe).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from common_support import list_tool_pages, run_sdk_client
from http_support import ServerProcess
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_codegen_runtime.wire import protocol as p

MODES = ["legacy", "2026-07-28"]


@pytest.fixture(scope="module")
def weather() -> Iterator[ServerProcess]:
    server = ServerProcess.weather("--page-size", "1")
    try:
        yield server
    finally:
        server.stop()


def _run(url: str, mode: str, body: Any, *, elicit: Any = None) -> None:
    run_sdk_client(url, mode, body, elicit=elicit, read_timeout=15, timeout=30)


@pytest.mark.parametrize("mode", MODES + ["auto"])
def test_list_calls_and_errors(weather: ServerProcess, mode: str) -> None:
    async def body(client: Client) -> None:
        assert client.protocol_version == (p.LATEST_LEGACY if mode == "legacy" else p.V2026_07_28)
        pages = await list_tool_pages(client)
        assert pages == [["get_weather"], ["get_forecast"]]
        res = await client.call_tool("get_weather", {"location": "London", "unit": "fahrenheit"})
        assert not res.is_error
        assert res.structured_content == {"temperature": 54.5, "conditions": "rain", "unit": "fahrenheit"}
        forecast = await client.call_tool("get_forecast", {"location": "tokyo", "days": 2})
        assert isinstance(forecast.content[0], types.TextContent)
        assert forecast.content[0].text == "day 1: cloudy, 22.0 C\nday 2: cloudy, 23.0 C"
        # declared error
        err = await client.call_tool("get_weather", {"location": "Atlantis", "unit": "celsius"})
        assert err.is_error and err.meta is not None
        assert err.meta[p.META_TOOL_ERROR] == {"code": "unknown_location", "data": {"location": "Atlantis"}}
        # invalid arguments: isError with a precise message (2025-11-25 and 2026-07-28)
        bad = await client.call_tool("get_weather", {"location": "Paris", "unit": "kelvin"})
        assert bad.is_error and isinstance(bad.content[0], types.TextContent)
        assert bad.content[0].text.startswith("Invalid arguments for tool get_weather:")
        assert bad.meta is not None and bad.meta[p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_INVALID_ARGUMENTS
        # unknown tool: JSON-RPC -32602
        with pytest.raises(MCPError) as info:
            await client.call_tool("no_such_tool", {})
        assert info.value.error.code == p.INVALID_PARAMS
        assert info.value.error.data == {"tool": "no_such_tool"}

    _run(weather.url, mode, body)


@pytest.mark.parametrize("mode", MODES)
def test_elicitation(weather: ServerProcess, mode: str) -> None:
    seen: list[types.ElicitRequestParams] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        return types.ElicitResult(action="accept", content={"unit": "fahrenheit"})

    async def body(client: Client) -> None:
        res = await client.call_tool("get_weather", {"location": "Paris"})
        assert not res.is_error, res
        assert res.structured_content == {"temperature": 64.4, "conditions": "sunny", "unit": "fahrenheit"}

    _run(weather.url, mode, body, elicit=elicit)
    assert len(seen) == 1 and seen[0].message == "Which temperature unit?"


def test_missing_elicitation_capability(weather: ServerProcess) -> None:
    async def legacy(client: Client) -> None:
        res = await client.call_tool("get_weather", {"location": "Paris"})
        assert res.is_error and res.meta is not None
        assert res.meta[p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_INPUT_UNAVAILABLE

    async def modern(client: Client) -> None:
        with pytest.raises(MCPError) as info:
            await client.call_tool("get_weather", {"location": "Paris"})
        assert info.value.error.code == p.MISSING_CAPABILITY
        assert info.value.error.data == {"requiredCapabilities": {"elicitation": {}}}

    _run(weather.url, "legacy", legacy)
    _run(weather.url, "2026-07-28", modern)
    assert weather.alive()
