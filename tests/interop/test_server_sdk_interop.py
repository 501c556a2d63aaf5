"""The official ``mcp`` SDK client against ``python -m weather --stdio``, both eras.

``mode="legacy"`` makes the SDK do the initialize handshake (2025-11-25, elicitation as a
real server->client request); ``mode="2026-07-28"`` makes it stateless (elicitation via
an ``input_required`` result and a retry); ``mode="auto"`` probes ``server/discover``.
"""

from __future__ import annotations

import sys
from typing import Any

import mcp_types as types
import pytest
from common_support import list_tool_pages, run_sdk_client
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_codegen_runtime.wire import protocol as p
from support_server import EXAMPLES, server_env

MODES = ["legacy", "2026-07-28"]


def _params(*args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "weather", "--stdio", *args], cwd=str(EXAMPLES), env=server_env()
    )


def _run(mode: str, body: Any, *, elicit: Any = None, page_size: int = 1) -> None:
    run_sdk_client(_params("--page-size", str(page_size)), mode, body, elicit=elicit, read_timeout=20, timeout=60)


@pytest.mark.parametrize("mode", MODES + ["auto"])
def test_list_and_call_every_tool(mode: str) -> None:
    async def body(client: Client) -> None:
        expected = p.LATEST_LEGACY if mode == "legacy" else p.V2026_07_28
        assert client.protocol_version == expected
        pages = await list_tool_pages(client)
        assert pages == [["get_weather"], ["get_forecast"]]
        weather = await client.call_tool("get_weather", {"location": "Paris", "unit": "celsius"})
        assert not weather.is_error
        assert weather.structured_content == {"temperature": 18.0, "conditions": "sunny", "unit": "celsius"}
        hot = await client.call_tool("get_weather", {"location": "London", "unit": "fahrenheit"})
        assert hot.structured_content == {"temperature": 54.5, "conditions": "rain", "unit": "fahrenheit"}
        forecast = await client.call_tool("get_forecast", {"location": "tokyo", "days": 2})
        assert not forecast.is_error
        assert isinstance(forecast.content[0], types.TextContent)
        assert forecast.content[0].text == "day 1: cloudy, 22.0 C\nday 2: cloudy, 23.0 C"
        assert forecast.structured_content is None

    _run(mode, body)


@pytest.mark.parametrize("mode", MODES)
def test_declared_error_is_tool_error(mode: str) -> None:
    async def body(client: Client) -> None:
        res = await client.call_tool("get_weather", {"location": "Atlantis", "unit": "celsius"})
        assert res.is_error
        assert isinstance(res.content[0], types.TextContent)
        assert res.content[0].text == "unknown location: Atlantis"
        assert res.meta is not None
        assert res.meta[p.META_TOOL_ERROR] == {"code": "unknown_location", "data": {"location": "Atlantis"}}
        forecast = await client.call_tool("get_forecast", {"location": "Nowhere"})
        assert forecast.is_error and forecast.meta is not None
        assert forecast.meta[p.META_TOOL_ERROR]["code"] == "unknown_location"

    _run(mode, body)


@pytest.mark.parametrize("mode", MODES)
def test_invalid_arguments_and_unknown_tool(mode: str) -> None:
    async def body(client: Client) -> None:
        # 2025-11-25 and 2026-07-28: invalid arguments are isError results with a precise message
        for args, needle in (
            ({"location": ""}, "location"),
            ({"location": "Paris", "unit": "kelvin"}, "unit"),
            ({"location": 42}, "location"),
            ({}, "location"),
        ):
            res = await client.call_tool("get_weather", args)
            assert res.is_error, args
            assert isinstance(res.content[0], types.TextContent)
            assert res.content[0].text.startswith("Invalid arguments for tool get_weather:")
            assert needle in res.content[0].text
            assert res.meta is not None and res.meta[p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_INVALID_ARGUMENTS
        days = await client.call_tool("get_forecast", {"location": "Paris", "days": 9})
        assert days.is_error and "days" in days.content[0].text  # type: ignore[union-attr]
        with pytest.raises(MCPError) as info:
            await client.call_tool("no_such_tool", {})
        assert info.value.error.code == p.INVALID_PARAMS
        assert info.value.error.data == {"tool": "no_such_tool"}

    _run(mode, body)


@pytest.mark.parametrize("mode", MODES)
def test_unit_elicitation_through_sdk_callback(mode: str) -> None:
    seen: list[types.ElicitRequestParams] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        return types.ElicitResult(action="accept", content={"unit": "fahrenheit"})

    async def body(client: Client) -> None:
        res = await client.call_tool("get_weather", {"location": "Paris"})
        assert not res.is_error, res
        assert res.structured_content == {"temperature": 64.4, "conditions": "sunny", "unit": "fahrenheit"}

    _run(mode, body, elicit=elicit)
    assert len(seen) == 1
    assert isinstance(seen[0], types.ElicitRequestFormParams)
    assert seen[0].message == "Which temperature unit?"
    assert seen[0].requested_schema["required"] == ["unit"]


@pytest.mark.parametrize("mode", MODES)
def test_elicitation_declined_falls_back(mode: str) -> None:
    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def body(client: Client) -> None:
        res = await client.call_tool("get_weather", {"location": "Tokyo"})
        assert res.structured_content == {"temperature": 22.0, "conditions": "cloudy", "unit": "celsius"}

    _run(mode, body, elicit=elicit)


def test_elicitation_without_client_capability() -> None:
    async def legacy(client: Client) -> None:
        res = await client.call_tool("get_weather", {"location": "Paris"})
        assert res.is_error and res.meta is not None
        assert res.meta[p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_INPUT_UNAVAILABLE

    async def modern(client: Client) -> None:
        with pytest.raises(MCPError) as info:
            await client.call_tool("get_weather", {"location": "Paris"})
        assert info.value.error.code == p.MISSING_CAPABILITY
        assert info.value.error.data == {"requiredCapabilities": {"elicitation": {}}}

    _run("legacy", legacy)
    _run("2026-07-28", modern)
