"""The tasks extension (io.modelcontextprotocol/tasks) end to end: real ``python -m everything --http``
processes and the generated typed clients (async and sync), both eras, cancellation, TTL expiry,
the caps per client and in total, and two replicas sharing their tasks through a real redis-server."""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from common_support import free_port, run_async
from everything import (
    EverythingClient,
    EverythingSyncClient,
    McpError,
    TaskCancelledError,
    TaskStatus,
)
from everything.errors import InternalError, InvalidParamsError, JobFailedError, MissingCapabilityError
from everything.models import SlowComputeOutput
from http_support import EXAMPLES, ServerProcess
from mcp_codegen_runtime.server.tasks.store import RedisTaskStore, ResultBudget
from mcp_codegen_runtime.wire import protocol as p
from redis_support import redis_server
from tasks_support import exercise_budget, exercise_store

IMPL = ["--impl", "everything_impl:EverythingService"]
TASKS = "io.modelcontextprotocol/tasks"


def everything(*extra: str, env: dict[str, str | None] | None = None) -> ServerProcess:
    port = free_port()
    return ServerProcess(["-m", "everything", "--http", "--port", str(port), *IMPL, *extra], port=port,
                         env={"MCP_CODEGEN_REDIS_URL": None, **(env or {})}, start_timeout=120)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    proc = everything()
    try:
        yield proc
    finally:
        proc.stop()


async def _accept(request: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Alice", "confirm": True}}


async def _decline(request: Any) -> dict[str, Any]:
    return {"action": "decline"}


class NoTasksClient(EverythingClient):
    """The same typed client, not declaring the extension."""

    declare_tasks = False


def test_plain_typed_call_waits_for_the_task(server: ServerProcess) -> None:
    async def main() -> None:
        async with EverythingClient.http(server.url, era="modern", audit=None, elicitation=_accept) as client:
            assert TASKS in client.server_capabilities["extensions"]
            assert await client.slow_compute(seconds=0.5, label="plain") == SlowComputeOutput(label="plain", seconds=0.5)
            # input inside the task (tasks/update), two pending at once, then MRTR before the task
            deleted = await client.confirm_delete(filename="x.txt")
            assert deleted.content[0].model_dump()["text"] == "x.txt deleted"
            both = await client.multi_input()
            assert both.content[0].model_dump()["text"] == "name=Alice confirm=True"
            greeted = await client.test_tool_with_task()
            assert greeted.content[0].model_dump()["text"] == "Hello from the task, Alice!"
            with pytest.raises(JobFailedError):  # completed with isError: the declared error
                await client.failing_job()
            with pytest.raises(InternalError):  # failed: the protocol error
                await client.protocol_error_job()

    run_async(main(), 90)


def test_task_handle_status_changes_result_and_cancel(server: ServerProcess) -> None:
    async def main() -> None:
        async with EverythingClient.http(server.url, era="modern", audit=None) as client:
            handle = await client.start_slow_compute(seconds=1.0, label="handle")
            assert handle.task_id is not None
            first = await handle.status()
            assert first.status == "working" and first.task_id == handle.task_id
            assert first.ttl_ms == 3_600_000 and first.poll_interval_ms == 500
            seen = [s async for s in handle]
            assert [s.status for s in seen][-1] == "completed"
            assert all(isinstance(s, TaskStatus) for s in seen)
            assert await handle.result() == SlowComputeOutput(label="handle", seconds=1.0)
            long = await client.start_slow_compute(seconds=600)
            await long.cancel()
            with pytest.raises(TaskCancelledError):
                await long.result()
            assert (await client.request("tasks/get", {"taskId": long.task_id}))["status"] == "cancelled"

    run_async(main(), 90)


def test_cancelling_the_plain_call_cancels_the_task(server: ServerProcess) -> None:
    async def main() -> None:
        async with EverythingClient.http(server.url, era="modern", audit=None) as client:
            call = asyncio.ensure_future(client.slow_compute(seconds=600, label="abandoned"))
            await asyncio.sleep(1.0)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            handle = await client.start_slow_compute(seconds=0)  # the server is still fine
            assert (await handle.result()).seconds == 0

    run_async(main(), 60)


def test_tasks_over_stdio() -> None:
    """The same tasks over a stdio connection (one long-lived connection, one client key)."""
    async def main() -> None:
        async with EverythingClient.stdio(sys.executable, ["-m", "everything", "--stdio", *IMPL], cwd=EXAMPLES,
                                          era="modern", audit=None, elicitation=_accept) as client:
            handle = await client.start_confirm_delete(filename="z.txt")
            assert handle.task_id is not None
            result = await handle.result()
            assert result.content[0].model_dump()["text"] == "z.txt deleted"
            assert await client.slow_compute(seconds=0.2, label="stdio") == SlowComputeOutput(label="stdio", seconds=0.2)

    run_async(main(), 60)


def test_sync_client_task_handle(server: ServerProcess) -> None:
    with EverythingSyncClient.http(server.url, era="modern", audit=None) as client:
        handle = client.start_slow_compute(seconds=0.5, label="sync")
        statuses = [s.status for s in handle]
        assert statuses[0] == "working" and statuses[-1] == "completed"
        assert handle.result() == SlowComputeOutput(label="sync", seconds=0.5)
        assert client.slow_compute(seconds=0, label="direct").label == "direct"


def test_clients_without_the_extension_never_get_a_task(server: ServerProcess) -> None:
    async def main() -> None:
        for era in ("legacy", "modern"):
            async with NoTasksClient.http(server.url, era=era, audit=None) as client:
                raw = await client.request("tools/call", {"name": "slow_compute", "arguments": {"seconds": 0.2}})
                assert "taskId" not in raw and raw.get("resultType", "complete") == "complete"
                assert raw["structuredContent"] == {"label": "", "seconds": 0.2}
                with pytest.raises(MissingCapabilityError) as info:
                    await client.request("tools/call", {"name": "failing_job", "arguments": {}})
                assert info.value.data == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
                if era == "legacy":  # no tasks/* in a 2025 session
                    with pytest.raises(McpError) as gone:
                        await client.request("tasks/get", {"taskId": "x"})
                    assert gone.value.code == p.METHOD_NOT_FOUND
                else:
                    with pytest.raises(MissingCapabilityError):
                        await client.request("tasks/get", {"taskId": "x"})

    run_async(main(), 60)


def test_ttl_expiry_and_caps_per_client_and_total() -> None:
    proc = everything("--task-ttl", "1.5", "--max-tasks", "3", "--max-tasks-per-client", "2")
    try:
        async def main() -> None:
            async with EverythingClient.http(proc.url, era="modern", audit=None) as client:
                done = await client.start_slow_compute(seconds=0)
                assert (await done.result()).seconds == 0
                assert (await done.status()).ttl_ms == 1500
                await asyncio.sleep(2.0)
                with pytest.raises(InvalidParamsError):  # expired: unknown
                    await client.request("tasks/get", {"taskId": done.task_id})
                a = await client.start_slow_compute(seconds=600)
                b = await client.start_slow_compute(seconds=600)
                assert a.task_id and b.task_id
                over = await client.call_raw("slow_compute", {"seconds": 600})  # the third of this client
                assert over.isError and over.meta is not None
                assert over.meta[p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_RATE_LIMITED
                await a.cancel()  # a cancelled task still counts until it expires
                over = await client.call_raw("slow_compute", {"seconds": 600})
                assert over.isError

        run_async(main(), 60)
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


def test_the_redis_store_keeps_the_store_contract(redis_url: str) -> None:
    async def main() -> None:
        store = RedisTaskStore(redis_url, f"test-{secrets.token_hex(4)}")
        try:
            await exercise_store(store)
        finally:
            await store.aclose()

    asyncio.run(main())


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_a_task_running_longer_than_its_ttl_does_not_expire(store: str, redis_url: str) -> None:
    """Issue 44, attack 5: the TTL counts from the task's end; the record stays while the
    handler runs, the result is delivered, and only then does the record expire."""
    shared = ["--redis-url", redis_url] if store == "redis" else []
    proc = everything("--task-ttl", "0.5", "--max-tasks-per-client", "1", *shared,
                      env={"MCP_CODEGEN_STATE_KEY": secrets.token_hex(32)} if shared else None)
    try:
        async def main() -> None:
            async with EverythingClient.http(proc.url, era="modern", audit=None) as client:
                handle = await client.start_slow_compute(seconds=2.0, label="long")
                await asyncio.sleep(1.2)  # past the TTL, still running
                state = await client.request("tasks/get", {"taskId": handle.task_id})
                assert state["status"] == "working"
                over = await client.call_raw("slow_compute", {"seconds": 0})  # it still counts
                assert over.isError
                assert await handle.result() == SlowComputeOutput(label="long", seconds=2.0)
                await asyncio.sleep(1.0)  # now the TTL after its end has passed
                with pytest.raises(InvalidParamsError):
                    await client.request("tasks/get", {"taskId": handle.task_id})

        run_async(main(), 60)
    finally:
        proc.stop()


def test_the_redis_store_keeps_the_result_budget(redis_url: str) -> None:
    async def main() -> None:
        store = RedisTaskStore(redis_url, f"test-{secrets.token_hex(4)}", ResultBudget(total=9000, per_owner=3000))
        try:
            await exercise_budget(store, 3000, 9000)
        finally:
            await store.aclose()

    asyncio.run(main())


def test_two_replicas_share_tasks_through_redis(redis_url: str) -> None:
    key = secrets.token_hex(32)
    a = everything("--redis-url", redis_url, env={"MCP_CODEGEN_STATE_KEY": key})
    b = everything("--redis-url", redis_url, env={"MCP_CODEGEN_STATE_KEY": key})
    try:
        async def main() -> None:
            async with EverythingClient.http(a.url, era="modern", audit=None, elicitation=_decline) as on_a, \
                    EverythingClient.http(b.url, era="modern", audit=None, elicitation=_accept) as on_b:
                # started on A, finished there, read from B
                handle = await on_a.start_slow_compute(seconds=0.5, label="shared")
                assert handle.task_id is not None
                while (await on_b.request("tasks/get", {"taskId": handle.task_id}))["status"] != "completed":
                    await asyncio.sleep(0.1)
                got = await on_b.request("tasks/get", {"taskId": handle.task_id})
                assert got["result"]["structuredContent"] == {"label": "shared", "seconds": 0.5}
                # running on A, cancelled through B: A's runner stops and the task stays cancelled
                long = await on_a.start_slow_compute(seconds=600)
                await on_b.request("tasks/cancel", {"taskId": long.task_id})
                with pytest.raises(TaskCancelledError):
                    await long.result()
                # input asked on A, answered through B (tasks/update), result seen on A
                ask = await on_a.start_confirm_delete(filename="y.txt")
                while True:
                    state = await on_b.request("tasks/get", {"taskId": ask.task_id})
                    if state["status"] == "input_required":
                        break
                    await asyncio.sleep(0.1)
                assert list(state["inputRequests"]) == ["confirm"]
                await on_b.request("tasks/update", {"taskId": ask.task_id,
                                                    "inputResponses": {"confirm": {"action": "decline"}}})
                result = await ask.result()
                assert result.content[0].model_dump()["text"] == "y.txt kept"

        run_async(main(), 90)
    finally:
        a.stop()
        b.stop()
