"""The same two tools with FastMCP (``fastmcp`` on PyPI), served over stdio.

Run with the bench environment's interpreter (``scripts/bench-env``: FastMCP is not a
dependency of mcp-codegen or of its tests): ``.venv-bench/bin/python bench/fastmcp_server.py``.
The models are ``sdk_server``'s (pydantic only), so the three servers check the same shapes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sdk_server import AddOutput, IngestOutput, Order


def build():  # type: ignore[no-untyped-def]
    from fastmcp import FastMCP

    mcp = FastMCP("benchsrv", version="1.0.0")

    @mcp.tool(description="Add two numbers.")
    async def add(a: float, b: float) -> AddOutput:
        return AddOutput(sum=a + b)

    @mcp.tool(description="Validate a batch of orders and return totals.")
    async def ingest(orders: list[Order]) -> IngestOutput:
        lines = sum(len(o.lines) for o in orders)
        total = sum(line.quantity * line.unit_price for o in orders for line in o.lines)
        return IngestOutput(orders=len(orders), lines=lines, total=total)

    return mcp


if __name__ == "__main__":
    build().run("stdio", show_banner=False, log_level="WARNING")
