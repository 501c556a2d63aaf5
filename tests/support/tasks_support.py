"""What every task store must do (``server.tasks.store``), run against the memory store
(tests/runtime/test_tasks_parts.py) and a real redis-server (tests/runtime/test_tasks.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp_codegen_runtime.server.tasks.store import TaskStore


def _record(task_id: str, owner: str, ttl_ms: int = 60_000) -> dict[str, Any]:
    return {"taskId": task_id, "owner": owner, "status": "working", "ttlMs": ttl_ms, "createdAt": "x",
            "lastUpdatedAt": "x", "pollIntervalMs": 100, "tool": "t"}


async def exercise_store(store: TaskStore) -> None:
    """The behaviour every TaskStore must have (also run against Redis by the functional tests)."""
    assert await store.create(_record("a1", "alice"), 3, 2)
    assert await store.create(_record("a2", "alice"), 3, 2)
    assert not await store.create(_record("a3", "alice"), 3, 2)  # alice's cap
    assert await store.create(_record("b1", "bob"), 3, 2)
    assert not await store.create(_record("c1", "carol"), 3, 2)  # the total cap
    assert await store.get("c1") is None and await store.get("a3") is None
    # input: pending requests are listed, answers move once, unknown keys are ignored
    await store.ask("a1", "k1", {"method": "elicitation/create"})
    await store.ask("a1", "k2", {"method": "roots/list"})
    assert set((await store.get("a1") or {})["inputRequests"]) == {"k1", "k2"}
    await store.answer("a1", {"k1": {"action": "accept"}, "nope": {"x": 1}})
    assert set((await store.get("a1") or {})["inputRequests"]) == {"k2"}
    assert await store.take_answers("a1") == {"k1": {"action": "accept"}}
    assert await store.take_answers("a1") == {}
    await store.answer("a1", {"k1": {"action": "decline"}})  # no longer pending: ignored
    assert await store.take_answers("a1") == {}
    # a terminal record never changes again
    assert await store.update("a2", {"status": "cancelled"})
    assert not await store.update("a2", {"status": "completed", "result": {}})
    got = await store.get("a2") or {}
    assert got["status"] == "cancelled" and "result" not in got
    # expiry: gone after ttlMs, and no longer counted
    assert await store.create(_record("b2", "bob", ttl_ms=300), 10, 10)
    await asyncio.sleep(0.6)
    assert await store.get("b2") is None
    assert await store.create(_record("b3", "bob"), 10, 2)  # b1 and b3: b2 no longer counts
