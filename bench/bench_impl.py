"""Hand-written implementation of the benchmark server generated from ``bench/specs/bench.yaml``.

Copied beside the generated ``benchsrv`` package by ``bench_runtime.py``.  The per-client
rate limit is lifted (the SDK server it is compared with has none); every other setting
keeps its default.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from benchsrv import Context, ServerSettings
from benchsrv.models import AddInput, AddOutput, IngestInput, IngestOutput
from benchsrv.server import BenchsrvServerBase


class BenchService(BenchsrvServerBase):
    def __init__(self, settings: ServerSettings | None = None, **options: Any) -> None:
        settings = dataclasses.replace(settings or ServerSettings(), rate_limit_per_second=1e9, rate_limit_burst=10**9)
        super().__init__(settings, **options)

    async def add(self, args: AddInput, ctx: Context) -> AddOutput:
        return AddOutput(sum=args.a + args.b)

    async def ingest(self, args: IngestInput, ctx: Context) -> IngestOutput:
        lines = sum(len(o.lines) for o in args.orders)
        total = sum(line.quantity * line.unit_price for o in args.orders for line in o.lines)
        return IngestOutput(orders=len(args.orders), lines=lines, total=total)
