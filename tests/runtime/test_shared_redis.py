"""State shared between replicas through a real redis-server (server/replicas.py): list changes and
resource updates reach the listeners of every replica, the rate limit holds across them, and a
server whose Redis is down still serves (alone).  Replicas are real ``python -m everything``
processes on 127.0.0.1 (and, for resource updates, two server objects in one process)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
from common_support import free_port, run_async
from everything import EverythingClient
from everything_impl import EverythingService
from http_support import ServerProcess, serve_app
from mcp_codegen_runtime.server.settings import ServerSettings
from redis_support import redis_server

IMPL = ["--impl", "everything_impl:EverythingService"]


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


def replica(*extra: str, key: str) -> ServerProcess:
    port = free_port()
    return ServerProcess(["-m", "everything", "--http", "--port", str(port), *IMPL, *extra], port=port,
                         env={"MCP_CODEGEN_STATE_KEY": key, "MCP_CODEGEN_REDIS_URL": None})


@pytest.fixture()
def replicas(redis_url: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    key = secrets.token_hex(32)
    a = replica("--redis-url", redis_url, key=key)
    b = replica("--redis-url", redis_url, key=key)
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_tool_list_change_on_one_replica_reaches_listeners_of_the_other(
        replicas: tuple[ServerProcess, ServerProcess], era: str) -> None:
    a, b = replicas

    async def main() -> float:
        async with EverythingClient.http(a.url, era=era, audit=None) as on_a, \
                EverythingClient.http(b.url, era=era, audit=None) as on_b:
            async with on_a.subscribe(tools=True) as changes:
                started = time.monotonic()
                await on_b.test_trigger_tool_change()  # disables and enables a tool on B: two changes
                change = await asyncio.wait_for(changes.__anext__(), 5)
                elapsed = time.monotonic() - started
                assert change.kind == "tools"
                return elapsed

    elapsed = run_async(main())
    assert elapsed < 1.0, f"the change took {elapsed:.3f} s to reach the other replica"


def test_without_redis_a_change_stays_on_its_replica() -> None:
    key = secrets.token_hex(32)
    a, b = replica(key=key), replica(key=key)

    async def main() -> None:
        async with EverythingClient.http(a.url, audit=None) as on_a, EverythingClient.http(b.url, audit=None) as on_b:
            async with on_a.subscribe(tools=True) as changes:
                await on_b.test_trigger_tool_change()
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(changes.__anext__(), 1.5)

    try:
        run_async(main())
    finally:
        a.stop()
        b.stop()


def _admitted(urls: list[str], calls: int) -> int:
    """Tool calls admitted out of ``calls`` sent round-robin to ``urls`` (the others are rate limited)."""
    async def main() -> int:
        admitted = 0
        clients = [EverythingClient.http(u, audit=None) for u in urls]
        try:
            for i in range(calls):
                result = await clients[i % len(clients)].call_raw("test_simple_text", {})
                admitted += not result.isError
        finally:
            for c in clients:
                await c.aclose()
        return admitted

    return int(run_async(main(), timeout=60))


def test_the_rate_limit_holds_across_replicas(redis_url: str) -> None:
    """A burst of 10 with no refill: two replicas sharing Redis admit 10 calls, not 20."""
    key = secrets.token_hex(32)
    limit = ["--rate-limit", "0.001", "--rate-burst", "10"]
    shared = [replica(*limit, "--redis-url", redis_url, key=key), replica(*limit, "--redis-url", redis_url, key=key)]
    alone = [replica(*limit, key=key), replica(*limit, key=key)]
    try:
        assert _admitted([s.url for s in shared], 30) == 10
        assert _admitted([s.url for s in alone], 30) == 20  # without Redis each process has its bucket
    finally:
        for s in (*shared, *alone):
            s.stop()


def test_resource_updates_reach_subscribers_on_another_replica(redis_url: str) -> None:
    key = bytes.fromhex(secrets.token_hex(32))
    settings = ServerSettings(redis_url=redis_url)
    a, b = EverythingService(settings=settings, state_keys=[key]), EverythingService(settings=settings, state_keys=[key])
    with serve_app(a.asgi_app()) as url_a, serve_app(b.asgi_app()):
        async def main() -> None:
            for era in ("modern", "legacy"):
                async with EverythingClient.http(url_a, era=era, audit=None) as on_a:
                    async with on_a.subscribe("test://watched-resource") as changes:
                        b.resource_updated("test://watched-resource")  # B has no subscriber of its own
                        change = await asyncio.wait_for(changes.__anext__(), 5)
                        assert (change.kind, change.uri) == ("updated", "test://watched-resource")

        run_async(main(), timeout=60)


def test_a_server_whose_redis_is_down_still_serves() -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    server = replica("--redis-url", dead, key=secrets.token_hex(32))

    async def main() -> Any:
        async with EverythingClient.http(server.url, audit=None) as c:
            return await c.call_raw("test_simple_text", {})

    try:
        result = run_async(main(), timeout=60)
        assert not result.isError
    finally:
        server.stop()
