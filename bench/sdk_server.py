"""The runtime benchmark's reference server: the same two tools with the official ``mcp`` SDK.

``add(a, b) -> {sum}`` and ``ingest(orders) -> {orders, lines, total}`` with pydantic
models mirroring ``bench/specs/bench.yaml`` (structured output, like the generated server).

Run: ``python bench/sdk_server.py --stdio`` or ``--http --port N`` (127.0.0.1 only);
``build()`` returns the server object for in-process use.
"""

from __future__ import annotations

import argparse
import enum
from typing import Annotated

from pydantic import BaseModel, Field


class Country(str, enum.Enum):
    FR = "FR"
    DE = "DE"
    GB = "GB"
    US = "US"
    JP = "JP"


class Priority(str, enum.Enum):
    low = "low"
    normal = "normal"
    high = "high"


class Address(BaseModel):
    street: Annotated[str, Field(max_length=200)] | None = None
    city: Annotated[str, Field(min_length=1)]
    country: Country


class Customer(BaseModel):
    name: str
    email: str | None = None
    address: Address


class Line(BaseModel):
    sku: Annotated[str, Field(pattern=r"^[A-Z]{3}-[0-9]{4}$")]
    quantity: Annotated[int, Field(ge=1, le=1000)]
    unit_price: Annotated[float, Field(ge=0)]


class Order(BaseModel):
    id: Annotated[str, Field(min_length=1)]
    customer: Customer
    lines: Annotated[list[Line], Field(min_length=1)]
    priority: Priority = Priority.normal
    tags: list[str] | None = None


class AddOutput(BaseModel):
    sum: float


class IngestOutput(BaseModel):
    orders: int
    lines: int
    total: float


def build():  # type: ignore[no-untyped-def]
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("benchsrv", version="1.0.0", log_level="WARNING")  # our servers log at WARNING too

    @mcp.tool(description="Add two numbers.")
    async def add(a: float, b: float) -> AddOutput:
        return AddOutput(sum=a + b)

    @mcp.tool(description="Validate a batch of orders and return totals.")
    async def ingest(orders: list[Order]) -> IngestOutput:
        lines = sum(len(o.lines) for o in orders)
        total = sum(line.quantity * line.unit_price for o in orders for line in o.lines)
        return IngestOutput(orders=len(orders), lines=lines, total=total)

    return mcp


def main() -> None:
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true")
    mode.add_argument("--http", action="store_true")
    ap.add_argument("--port", type=int, default=0)
    opts = ap.parse_args()
    mcp = build()
    if opts.stdio:
        import anyio

        anyio.run(mcp.run_stdio_async)
    else:
        import uvicorn

        uvicorn.run(mcp.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=opts.port, log_level="warning")


if __name__ == "__main__":
    main()
