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
    # expiry: a running task never expires; a finished one is gone ttlMs after its end, and no longer counted
    assert await store.create(_record("b2", "bob", ttl_ms=300), 10, 10)
    await asyncio.sleep(0.6)
    assert (await store.get("b2") or {}).get("status") == "working"
    assert await store.keep("b2") == "working"
    assert await store.update("b2", {"status": "completed", "result": {"content": []}})
    assert (await store.get("b2") or {}).get("result") == {"content": []}
    await asyncio.sleep(0.6)
    assert await store.get("b2") is None and await store.keep("b2") is None
    assert await store.create(_record("b3", "bob"), 10, 2)  # b1 and b3: b2 no longer counts


async def exercise_budget(store: TaskStore, per_owner: int, total: int) -> None:
    """A store made with ``ResultBudget(total, per_owner)``: the oldest finished results make
    room for new ones, per owner then in total, and a result larger than the budget fails its task."""
    def result(size: int) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "x" * (size - 50)}]}  # ``size`` bytes as stored

    for i in range(4):
        assert await store.create(_record(f"r{i}", "rich"), 100, 100)
    for i in range(4):  # each about a third of the owner's budget: the fourth pushes the first out
        assert await store.update(f"r{i}", {"status": "completed", "result": result(per_owner // 3)})
    assert await store.get("r0") is None
    assert [await store.get(f"r{i}") is not None for i in (1, 2, 3)] == [True, True, True]
    assert await store.create(_record("huge", "rich"), 100, 100)
    assert await store.update("huge", {"status": "completed", "result": result(per_owner + 100)})
    huge = await store.get("huge") or {}
    assert huge["status"] == "failed" and "result" not in huge and "larger than" in huge["error"]["message"]
    # other owners fill the total: the oldest finished results of anyone go first
    others = total // (per_owner // 3) + 1
    for i in range(others):
        owner = f"o{i}"
        assert await store.create(_record(owner, owner), 100, 100)
        assert await store.update(owner, {"status": "completed", "result": result(per_owner // 3)})
    assert await store.get("r2") is None  # the oldest finished results of all went first
    assert await store.get(f"o{others - 1}") is not None
