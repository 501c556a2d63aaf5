"""Memory held by finished task results (issue 44, attack 6): one client ends 90 tasks whose
results are 1 MB each, as the server stores them (``content`` text plus ``structuredContent``:
a structured tool's result carries its data twice), in the memory task store; ``tracemalloc``
measures what the store holds once they all ended, without a byte budget (as before) and with the
default budget of ``ServerSettings`` (128 MiB in total, 16 MiB per client).

Usage::

    .venv/bin/python bench/bench_task_results.py [--tasks 90] [--size 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import tracemalloc

from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.server.tasks.store import MemoryTaskStore, ResultBudget


def result(i: int, size: int) -> dict[str, object]:
    data = {"rows": f"{i:08d}" + "x" * (size // 2 - 40)}  # structured output of about size / 2 bytes
    return {"content": [{"type": "text", "text": json.dumps(data)}], "structuredContent": data}


async def held(budget: ResultBudget | None, tasks: int, size: int) -> tuple[int, int]:
    """(bytes traced as held by the store, tasks still stored) after ``tasks`` ended."""
    gc.collect()
    tracemalloc.start()
    store = MemoryTaskStore(budget)
    for i in range(tasks):
        record = {"taskId": f"t{i}", "owner": "flooder", "status": "working", "ttlMs": 3_600_000,
                  "createdAt": "x", "lastUpdatedAt": "x", "pollIntervalMs": 500, "tool": "t"}
        assert await store.create(record, 1000, 100)
        await store.update(f"t{i}", {"status": "completed", "result": result(i, size)})
    gc.collect()
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    kept = sum([await store.get(f"t{i}") is not None for i in range(tasks)])
    return current, kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=90)
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes of one result (its JSON)")
    args = parser.parse_args()
    settings = ServerSettings()
    default = ResultBudget(settings.max_task_result_bytes, settings.task_result_bytes_per_client())
    for name, budget in (("no budget (before)", None), ("default budget", default)):
        current, kept = asyncio.run(held(budget, args.tasks, args.size))
        print(f"{name:20} {current / 1e6:8.1f} MB held by {kept} stored results of {args.tasks}")


if __name__ == "__main__":
    main()
