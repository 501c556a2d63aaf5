"""The README's weather tool (``get_weather``) written with the official ``mcp`` SDK or with
FastMCP, served over Streamable HTTP the way each documents a stateless server answering
JSON, for ``bench_http_floor.py``.  The tool is trivial (a fixed answer), as the generated
server's implementation is there.

Run: ``python bench/http_peers.py sdk PORT`` (the project's ``.venv``) or
``.venv-bench/bin/python bench/http_peers.py fastmcp PORT`` (127.0.0.1 only).
"""

from __future__ import annotations

import enum
import sys

from pydantic import BaseModel


class Unit(str, enum.Enum):
    celsius = "celsius"
    fahrenheit = "fahrenheit"


class GetWeatherOutput(BaseModel):
    temperature: float
    conditions: str
    unit: Unit


async def get_weather(location: str, unit: Unit | None = None) -> GetWeatherOutput:
    """Current weather for a location."""
    return GetWeatherOutput(temperature=18.0, conditions="sunny", unit=unit or Unit.celsius)


def main() -> None:
    import uvicorn

    kind, port = sys.argv[1], int(sys.argv[2])
    if kind == "sdk":
        from mcp.server.mcpserver import MCPServer

        sdk = MCPServer("weather", version="1.2.0", log_level="WARNING")
        sdk.tool(description="Current weather for a location.")(get_weather)
        app = sdk.streamable_http_app(host="127.0.0.1", stateless_http=True, json_response=True)
    else:
        from fastmcp import FastMCP

        fast = FastMCP("weather", version="1.2.0")
        fast.tool(description="Current weather for a location.")(get_weather)
        app = fast.http_app(stateless_http=True, json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
