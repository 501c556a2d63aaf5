"""The 50 tools of ``pull_server.py`` served by the official ``mcp`` SDK (its low-level
``Server`` over stdio): a 50-tool server with a real Python server's start-up (the SDK,
pydantic and anyio imported), for ``bench_pull.py``.

Usage::

    python bench/pull_server_sdk.py [--tools 50]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pull_server import tool


def main() -> None:
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    n = int(sys.argv[sys.argv.index("--tools") + 1]) if "--tools" in sys.argv else 50
    tools = [types.Tool.model_validate(tool(i)) for i in range(n)]

    async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    server = Server("synthetic-50-sdk", version="1.0.0", on_list_tools=list_tools)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
