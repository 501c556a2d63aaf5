"""A weather-compatible MCP server written with the official ``mcp`` Python SDK (interop tests).

Run: ``python tests/support/sdk_weather_server.py [--legacy-only] [--page-size N]``.

* default: the SDK's dual-era stdio loop (the client's first request decides: a
  ``server/discover`` with the 2026 ``_meta`` envelope opens a 2026-07-28 connection,
  ``initialize`` a legacy one);
* ``--legacy-only``: the SDK's handshake-only loop (what a pre-2026 server looks like).

Tools mirror ``specs/weather.yaml``: ``get_weather`` (structured output; asks for the
unit through elicitation when none is given; declared error ``unknown_location`` sent as
``isError`` with ``_meta["mcp-codegen/error"]``), ``get_forecast`` (text only), plus
``slow`` (sleeps, reports progress) and ``count`` (non-object output, wrapped by the SDK
as ``{"result": ...}``).  ``tools/list`` is paginated (``--page-size``, default 1).
"""

from __future__ import annotations

import argparse
import asyncio
import enum
import sys
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, ListToolsResult, PaginatedRequestParams, TextContent
from pydantic import BaseModel

CITIES: dict[str, tuple[float, str]] = {
    "paris": (18.0, "sunny"),
    "london": (12.5, "rain"),
    "tokyo": (22.0, "cloudy"),
}


class Unit(str, enum.Enum):
    celsius = "celsius"
    fahrenheit = "fahrenheit"


class UnitAnswer(BaseModel):
    unit: Literal["celsius", "fahrenheit"]


class GetWeatherOutput(BaseModel):
    temperature: float
    conditions: str
    unit: Unit


def pick_unit(unit: Unit | None) -> UnitAnswer | Elicit[UnitAnswer]:
    """Resolver: the unit argument when given, otherwise ask the client (both eras)."""
    if unit is not None:
        return UnitAnswer(unit=unit.value)
    return Elicit("Which temperature unit?", UnitAnswer)


def unknown_location(location: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=f"unknown location: {location}")],
        is_error=True,
        _meta={"mcp-codegen/error": {"code": "unknown_location", "data": {"location": location}}},
    )


def build(page_size: int) -> MCPServer:
    mcp = MCPServer("weather", version="9.9.9-sdk", instructions="SDK weather server for interop tests.")

    @mcp.tool(title="Get weather", description="Current weather for a location.")
    def get_weather(
        location: str,
        chosen: Annotated[UnitAnswer, Resolve(pick_unit)],
        unit: Unit | None = None,
    ) -> GetWeatherOutput:
        if location.strip().lower() not in CITIES:
            return unknown_location(location)  # type: ignore[return-value]
        celsius, conditions = CITIES[location.strip().lower()]
        temp = celsius if chosen.unit == "celsius" else round(celsius * 9 / 5 + 32, 1)
        return GetWeatherOutput(temperature=temp, conditions=conditions, unit=Unit(chosen.unit))

    @mcp.tool(title="Forecast", description="A plain-text forecast for the next days.")
    def get_forecast(location: str, days: int = 3) -> str:
        if location.strip().lower() not in CITIES:
            return unknown_location(location)  # type: ignore[return-value]
        celsius, conditions = CITIES[location.strip().lower()]
        return "\n".join(f"day {i + 1}: {conditions}, {celsius + i:.1f} C" for i in range(days))

    @mcp.tool(description="Sleep, reporting progress every `step` seconds.")
    async def slow(seconds: float, ctx: Context, step: float = 0.1) -> str:
        elapsed = 0.0
        while elapsed < seconds:
            await asyncio.sleep(step)
            elapsed += step
            await ctx.report_progress(elapsed, seconds, "sleeping")
        return "done"

    @mcp.tool(description="Count to n (non-object structured output).", structured_output=True)
    def count(n: int) -> list[int]:
        return list(range(1, n + 1))

    async def list_tools_paged(ctx: Any, params: PaginatedRequestParams) -> ListToolsResult:
        tools = await mcp.list_tools()
        start = int(params.cursor) if params.cursor else 0
        page = tools[start : start + page_size]
        nxt = start + page_size
        return ListToolsResult(tools=page, next_cursor=str(nxt) if nxt < len(tools) else None)

    mcp._lowlevel_server.add_request_handler("tools/list", PaginatedRequestParams, list_tools_paged)
    return mcp


async def serve_legacy_only(mcp: MCPServer) -> None:
    low = mcp._lowlevel_server
    async with low.lifespan(low) as state, stdio_server() as (read, write):
        await serve_loop(low, read, write, lifespan_state=state, init_options=low.create_initialization_options())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--legacy-only", action="store_true")
    ap.add_argument("--page-size", type=int, default=1)
    opts = ap.parse_args()
    mcp = build(opts.page_size)
    if opts.legacy_only:
        anyio.run(serve_legacy_only, mcp)
    else:
        anyio.run(mcp.run_stdio_async)


if __name__ == "__main__":
    sys.exit(main())
