"""Status notifications of the tasks extension (``notifications/tasks`` on ``subscriptions/listen``
streams) end to end: real ``python -m everything --http`` processes with two bearer-token
principals, the generated typed clients (async and sync), and two replicas sharing a real
redis-server.  Who gets them (the owner's streams that declared the extension, nobody else),
their order and shape (``tasks/get``'s, the result inline when terminal), and the handle's
iterator following them without ``tasks/get`` (counted on the wire by an httpx event hook)."""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from common_support import free_port, run_async
from everything import EverythingClient, EverythingSyncClient
from everything.models import SlowComputeOutput
from http_support import EXAMPLES, ServerProcess
from mcp_codegen_runtime.wire import protocol as p
from redis_support import redis_server

IMPL = ["--impl", "everything_impl:EverythingService"]
ALICE, BOB = "alice-" + "a" * 32, "bob-" + "b" * 32
TOKENS = f"alice={ALICE},bob={BOB}"


def everything(*extra: str, env: dict[str, str | None] | None = None) -> ServerProcess:
    port = free_port()
    return ServerProcess(["-m", "everything", "--http", "--port", str(port), *IMPL, *extra], port=port,
                         env={"MCP_CODEGEN_REDIS_URL": None, "MCP_CODEGEN_HTTP_TOKENS": TOKENS, **(env or {})},
                         start_timeout=120)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    proc = everything()
    try:
        yield proc
    finally:
        proc.stop()


class Recorder(EverythingClient):
    """The typed client, keeping every ``notifications/tasks`` it receives."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.task_notes: list[dict[str, Any]] = []

    async def _on_notification(self, method: str, params: Any) -> None:
        if method == "notifications/tasks":
            self.task_notes.append(params)
        await super()._on_notification(method, params)


class NoTasksRecorder(Recorder):
    """Same principal, but its requests do not declare the tasks extension."""

    declare_tasks = False


async def _accept(request: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Alice", "confirm": True}}


def _counting() -> tuple[httpx.AsyncClient, dict[str, int]]:
    """An httpx client counting the POSTs of each ``Mcp-Method``."""
    counts: dict[str, int] = {}

    async def seen(request: httpx.Request) -> None:
        method = request.headers.get("mcp-method", "")
        counts[method] = counts.get(method, 0) + 1

    return httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None), event_hooks={"request": [seen]}), counts


def _of(notes: list[dict[str, Any]], task_id: str | None) -> list[dict[str, Any]]:
    return [n for n in notes if n.get("taskId") == task_id]


def _statuses(notes: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for n in notes:
        if not out or out[-1] != n["status"]:
            out.append(n["status"])
    return out


def test_the_owners_listen_stream_gets_the_status_sequence_and_nobody_else(server: ServerProcess) -> None:
    async def main() -> None:
        http, counts = _counting()
        async with http, \
                Recorder.http(server.url, bearer_token=ALICE, era="modern", audit=None, elicitation=_accept,
                              http_client=http) as alice, \
                Recorder.http(server.url, bearer_token=BOB, era="modern", audit=None) as bob, \
                NoTasksRecorder.http(server.url, bearer_token=ALICE, era="modern", audit=None) as undeclared:
            async with alice.subscribe() as sub, bob.subscribe(), undeclared.subscribe():
                assert sub.honoured == {}  # the core filter has no tasks key: nothing else was asked
                handle = await alice.start_confirm_delete(filename="n.txt")
                assert handle.task_id is not None
                seen = [s.status async for s in handle]
                result = await handle.result()
                assert result.content[0].model_dump()["text"] == "n.txt deleted"
                # the iterator followed the notifications: no tasks/get at all, one tasks/update
                assert counts.get("tasks/get", 0) == 0, counts
                assert counts.get("tasks/update") == 1, counts
                assert seen == ["working", "input_required", "working", "completed"]

                notes = _of(alice.task_notes, handle.task_id)
                assert _statuses(notes) == ["working", "input_required", "working", "completed"]
                asked = next(n for n in notes if n["status"] == "input_required")
                assert asked["inputRequests"]["confirm"]["method"] == "elicitation/create"
                final = notes[-1]
                assert final["result"]["content"][0]["text"] == "n.txt deleted"
                assert {"createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} <= set(final)
                assert "owner" not in final and "tool" not in final
                assert all(n["_meta"][p.META_SUBSCRIPTION_ID] == sub.listen_id for n in notes)
                stamps = [n["lastUpdatedAt"] for n in notes]
                assert stamps == sorted(stamps)

                # Bob's own task: his stream hears it, Alice's does not
                theirs = await bob.start_slow_compute(seconds=0.3, label="bob")
                assert await theirs.result() == SlowComputeOutput(label="bob", seconds=0.3)
                assert _statuses(_of(bob.task_notes, theirs.task_id)) == ["working", "completed"]
            assert bob.task_notes and all(n["taskId"] == theirs.task_id for n in bob.task_notes)
            assert not _of(alice.task_notes, theirs.task_id)
            assert undeclared.task_notes == []  # same principal, no extension declared: not opted in

    run_async(main(), 90)


def test_progress_messages_and_the_polling_fallback(server: ServerProcess) -> None:
    async def main() -> None:
        http, counts = _counting()
        async with http, Recorder.http(server.url, bearer_token=ALICE, era="modern", audit=None,
                                       http_client=http) as alice:
            async with alice.subscribe():
                handle = await alice.start_slow_compute(seconds=0.6, label="msg")
                seen = [(s.status, s.status_message) async for s in handle]
                assert seen == [("working", None), ("working", "working for 0.6s"), ("completed", "working for 0.6s")]
                assert await handle.result() == SlowComputeOutput(label="msg", seconds=0.6)
                assert counts.get("tasks/get", 0) == 0, counts
                final = _of(alice.task_notes, handle.task_id)[-1]
                assert final["status"] == "completed"
                assert final["result"]["structuredContent"] == {"label": "msg", "seconds": 0.6}
            # no listen stream open any more: the handle polls tasks/get
            polled = await alice.start_slow_compute(seconds=0.6, label="poll")
            assert await polled.result() == SlowComputeOutput(label="poll", seconds=0.6)
            assert counts.get("tasks/get", 0) >= 1, counts
            assert not _of(alice.task_notes, polled.task_id)

    run_async(main(), 90)


def test_sync_handle_follows_the_notifications(server: ServerProcess) -> None:
    with EverythingSyncClient.http(server.url, bearer_token=ALICE, era="modern", audit=None) as client:
        gets: list[str] = []
        request = client.client.request

        async def counted(method: str, params: Any = None, **kwargs: Any) -> Any:
            gets.append(method)
            return await request(method, params, **kwargs)

        client.client.request = counted  # type: ignore[method-assign]  # the handle's requests, counted
        with client.subscribe():
            handle = client.start_slow_compute(seconds=0.5, label="sync")
            statuses = [s.status for s in handle]
            assert statuses == ["working", "working", "completed"]
            assert handle.result() == SlowComputeOutput(label="sync", seconds=0.5)
        assert "tasks/get" not in gets, gets


def test_over_stdio_the_listen_stream_carries_them_too() -> None:
    """stdio: one connection, so the listen stream and the task share its client key."""
    async def main() -> None:
        async with Recorder.stdio(sys.executable, ["-m", "everything", "--stdio", *IMPL], cwd=EXAMPLES,
                                  era="modern", audit=None, elicitation=_accept) as client:
            gets: list[str] = []
            request = client.request

            async def counted(method: str, params: Any = None, **kwargs: Any) -> Any:
                gets.append(method)
                return await request(method, params, **kwargs)

            client.request = counted  # type: ignore[method-assign]  # the handle's requests, counted
            async with client.subscribe():
                handle = await client.start_confirm_delete(filename="s.txt")
                assert [s.status async for s in handle] == ["working", "input_required", "working", "completed"]
                assert (await handle.result()).content[0].model_dump()["text"] == "s.txt deleted"
                # the plain call waits the same way; two questions pending at once, each answered once
                both = await client.multi_input()
                assert both.content[0].model_dump()["text"] == "name=Alice confirm=True"
            assert "tasks/get" not in gets, gets
            assert 2 <= gets.count("tasks/update") <= 3, gets
            assert _statuses(_of(client.task_notes, handle.task_id)) == ["working", "input_required", "working",
                                                                          "completed"]

    run_async(main(), 60)


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


def test_notifications_cross_replicas_through_redis(redis_url: str) -> None:
    key = secrets.token_hex(32)
    a = everything("--redis-url", redis_url, env={"MCP_CODEGEN_STATE_KEY": key})
    b = everything("--redis-url", redis_url, env={"MCP_CODEGEN_STATE_KEY": key})
    try:
        async def main() -> None:
            async with Recorder.http(a.url, bearer_token=ALICE, era="modern", audit=None) as on_a, \
                    Recorder.http(b.url, bearer_token=ALICE, era="modern", audit=None) as on_b, \
                    Recorder.http(b.url, bearer_token=BOB, era="modern", audit=None) as bob_b:
                async with on_b.subscribe(), bob_b.subscribe():
                    # run on A (polled there: no stream on A), heard on B's stream
                    handle = await on_a.start_slow_compute(seconds=0.5, label="shared")
                    assert await handle.result() == SlowComputeOutput(label="shared", seconds=0.5)
                    for _ in range(50):  # the last one may still be on its way through Redis
                        if _statuses(_of(on_b.task_notes, handle.task_id))[-1:] == ["completed"]:
                            break
                        await asyncio.sleep(0.1)
                    notes = _of(on_b.task_notes, handle.task_id)
                    assert _statuses(notes) == ["working", "completed"]
                    assert [n.get("statusMessage") for n in notes][-1] == "working for 0.5s"
                    assert notes[-1]["result"]["structuredContent"] == {"label": "shared", "seconds": 0.5}
                    # cancelled through B while running on A: B's stream hears the cancellation
                    long = await on_a.start_slow_compute(seconds=600)
                    await on_b.request("tasks/cancel", {"taskId": long.task_id})
                    for _ in range(50):
                        if _statuses(_of(on_b.task_notes, long.task_id))[-1:] == ["cancelled"]:
                            break
                        await asyncio.sleep(0.1)
                    assert _statuses(_of(on_b.task_notes, long.task_id)) == ["working", "cancelled"]
                    assert bob_b.task_notes == []
                    assert on_a.task_notes == []  # A's client has no stream open

        run_async(main(), 90)
    finally:
        a.stop()
        b.stop()
