"""The parts of the tasks extension's status notifications: the server's pacing and ordering
(``server.tasks.notify.TaskNotifier`` on the memory store) and the client's notice box
(``client.tasks.notify.TaskNotices``: which streams count as open, what is kept, waiting)."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp_codegen_runtime.client.tasks.notify import MAX_QUEUED, MAX_TASKS, TaskNotices, newer, quiet_period
from mcp_codegen_runtime.server.tasks.notify import TaskNotifier
from mcp_codegen_runtime.server.tasks.store import MemoryTaskStore
from mcp_codegen_runtime.wire import protocol as p


def _record(task_id: str) -> dict[str, Any]:
    return {"taskId": task_id, "status": "working", "createdAt": "2026-01-01T00:00:00.000Z",
            "lastUpdatedAt": "2026-01-01T00:00:00.000Z", "ttlMs": 60_000, "pollIntervalMs": 500,
            "owner": "alice", "tool": "build"}


def test_messages_are_paced_statuses_are_not_and_nothing_follows_the_end() -> None:
    async def main() -> None:
        store = MemoryTaskStore()
        assert await store.create(_record("t1"), 10, 10)
        sent: list[tuple[str, str, Any]] = []

        async def publish(owner: str, task: dict[str, Any]) -> None:
            assert "owner" not in task and "tool" not in task
            sent.append((owner, task["status"], task.get("statusMessage")))

        notifier = TaskNotifier(store, interval=0.5)
        notifier.publish = publish
        await notifier.created("t1")
        for i in range(20):  # a burst inside the interval of the creation notice
            assert await notifier.update("t1", {"statusMessage": f"m{i}"}, message_only=True)
        assert sent == [("alice", "working", None)]
        await asyncio.sleep(0.7)
        assert sent == [("alice", "working", None), ("alice", "working", "m19")]  # only the latest, once
        # held back, then overtaken by a status change that carries it: not sent twice
        assert await notifier.update("t1", {"statusMessage": "m20"}, message_only=True)
        assert await notifier.update("t1", {"status": "input_required"})
        assert sent[-1] == ("alice", "input_required", "m20")
        await asyncio.sleep(0.7)
        assert len(sent) == 3
        # a message held back when the task ends is dropped; nothing is stored or sent afterwards
        assert await notifier.update("t1", {"status": "working"})
        assert await notifier.update("t1", {"statusMessage": "m21"}, message_only=True)
        assert await notifier.update("t1", {"status": "completed", "result": {"content": []}})
        await asyncio.sleep(0.7)
        assert [s[1] for s in sent] == ["working", "working", "input_required", "working", "completed"]
        assert sent[-1][2] == "m21"
        assert not await notifier.update("t1", {"statusMessage": "late"}, message_only=True)
        assert len(sent) == 5
        notifier.forget("t1")

    asyncio.run(main())


def _ack(sid: Any) -> dict[str, Any]:
    return {"_meta": {p.META_SUBSCRIPTION_ID: sid}, "notifications": {}}


def test_the_client_counts_only_its_acknowledged_streams_and_keeps_notices_bounded() -> None:
    async def main() -> None:
        notices = TaskNotices()
        notices.offer("notifications/subscriptions/acknowledged", _ack(7))  # not one it opened
        assert not notices.listening
        notices.opening(8)
        assert not notices.listening  # sent, not acknowledged yet
        notices.offer("notifications/subscriptions/acknowledged", _ack(8))
        assert notices.listening
        assert not notices.server_sends
        notices.offer("notifications/tasks", {"taskId": "t", "status": "working", "_meta": {}})
        notices.offer("notifications/tasks", {"taskId": "t"})  # malformed: ignored
        assert notices.server_sends
        assert notices.take("t") == {"taskId": "t", "status": "working"}
        assert notices.take("t") is None
        assert await notices.wait("t", 0.05) is None

        async def later() -> None:
            await asyncio.sleep(0.05)
            notices.offer("notifications/tasks", {"taskId": "t", "status": "completed"})

        pending = asyncio.ensure_future(later())
        assert (await notices.wait("t", 5))["status"] == "completed"  # type: ignore[index]
        await pending
        for i in range(MAX_QUEUED + 5):
            notices.offer("notifications/tasks", {"taskId": "q", "status": "working", "statusMessage": str(i)})
        kept = [notices.take("q") for _ in range(MAX_QUEUED + 5)]
        assert [k["statusMessage"] for k in kept if k] == [str(i) for i in range(5, MAX_QUEUED + 5)]
        for i in range(MAX_TASKS + 1):
            notices.offer("notifications/tasks", {"taskId": f"x{i}", "status": "working"})
        assert notices.take("x0") is None and notices.take(f"x{MAX_TASKS}") is not None
        notices.closed(8)
        assert not notices.listening

    asyncio.run(main())


def test_stale_notices_and_the_quiet_period() -> None:
    assert newer({"lastUpdatedAt": "2026-01-01T00:00:01.000Z"}, "2026-01-01T00:00:00.500Z")
    assert not newer({"lastUpdatedAt": "2026-01-01T00:00:00.100Z"}, "2026-01-01T00:00:00.500Z")
    assert newer({}, "2026-01-01T00:00:00.500Z") and newer({"lastUpdatedAt": "x"}, None)
    assert quiet_period(0.5) == 5.0 and quiet_period(2.0) == 20.0 and quiet_period(30.0) == 60.0
