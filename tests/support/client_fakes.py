"""Test support for the client runtime tests: paths, a scripted in-memory MCP server.

``FakeServer`` implements the ``InMemoryServer`` interface of
``client/inprocess.py`` (``serve_messages(receive, send)``), records every message the
client sends, and lets each test script the answers (``on_call``) precisely — including
things a well-behaved server never does (timeouts, crashes, endless input_required).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from common_support import run_async as run  # noqa: F401  (re-exported for the client tests)
from mcp_codegen_runtime.wire import protocol as p

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated_examples"
SDK_SERVER = ROOT / "tests" / "support" / "sdk_weather_server.py"

MODERN_KEYS = (p.META_PROTOCOL_VERSION, p.META_CLIENT_CAPABILITIES, p.META_CLIENT_INFO)


class RpcError(Exception):
    """Raise from a FakeServer hook to answer with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class NoAnswer(Exception):
    """Raise from a FakeServer hook to never answer the request."""


class Ctx:
    """What a FakeServer hook gets: the request, plus notify / server->client request."""

    def __init__(self, server: FakeServer, message: dict[str, Any]) -> None:
        self.server = server
        self.message = message
        self.params: dict[str, Any] = message.get("params") or {}

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        await self.server.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Legacy server->client request; returns the whole response message."""
        return await self.server.request(method, params)


Hook = Callable[[Ctx], Awaitable[dict[str, Any]]]


class FakeServer:
    """Scripted MCP server (see module docstring).

    Args:
        modern: answer ``server/discover`` (else -32601, like a legacy server).
        discover: custom hook for ``server/discover`` (e.g. raise RpcError(-32022, ...)).
        silent_discover: never answer ``server/discover`` (legacy server ignoring it).
        tools: the tool list; ``page_size`` splits it into pages; ``ttl_ms`` for 2026.
        on_call: hook for ``tools/call``.
        legacy_version: what ``initialize`` answers.
    """

    def __init__(
        self,
        *,
        modern: bool = True,
        discover: Hook | None = None,
        silent_discover: bool = False,
        tools: list[dict[str, Any]] | None = None,
        page_size: int = 100,
        ttl_ms: int = 0,
        on_call: Hook | None = None,
        legacy_version: str | None = None,
    ) -> None:
        self.modern = modern
        self.discover_hook = discover
        self.silent_discover = silent_discover
        self.tools = tools if tools is not None else [
            {"name": "echo", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
        ]
        self.page_size = page_size
        self.ttl_ms = ttl_ms
        self.on_call = on_call
        self.legacy_version = legacy_version
        self.received: list[dict[str, Any]] = []
        self._send: Callable[[Any], Awaitable[None]] | None = None
        self._pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._ids = 1000
        self.crash = asyncio.Event()

    # -- inspection ------------------------------------------------------------------------

    def requests(self, method: str | None = None) -> list[dict[str, Any]]:
        return [
            m for m in self.received if "id" in m and "method" in m and (method is None or m["method"] == method)
        ]

    def notifications(self, method: str | None = None) -> list[dict[str, Any]]:
        return [
            m for m in self.received if "id" not in m and "method" in m and (method is None or m["method"] == method)
        ]

    # -- plumbing --------------------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> None:
        assert self._send is not None
        await self._send(message)

    async def request(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        self._ids += 1
        rid = self._ids
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        await self.send(msg)
        return await fut

    async def serve_messages(
        self, receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
    ) -> None:
        self._send = send
        tasks: set[asyncio.Task[None]] = set()
        crash = asyncio.ensure_future(self.crash.wait())
        try:
            while True:
                nxt = asyncio.ensure_future(receive())
                done, _ = await asyncio.wait({nxt, crash}, return_when=asyncio.FIRST_COMPLETED)
                if crash in done:
                    nxt.cancel()
                    return  # the "process" dies: the connection ends
                msg = nxt.result()
                if msg is None:
                    return
                self.received.append(msg)
                if "method" in msg and "id" in msg:
                    task = asyncio.create_task(self._answer(msg))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                elif "id" in msg and msg["id"] in self._pending:
                    self._pending.pop(msg["id"]).set_result(msg)
        finally:
            crash.cancel()
            for t in tasks:
                t.cancel()

    async def _answer(self, msg: dict[str, Any]) -> None:
        ctx = Ctx(self, msg)
        try:
            result = await self._dispatch(msg["method"], ctx)
        except NoAnswer:
            return
        except RpcError as exc:
            err: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                err["data"] = exc.data
            await self.send({"jsonrpc": "2.0", "id": msg["id"], "error": err})
            return
        await self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    async def _dispatch(self, method: str, ctx: Ctx) -> dict[str, Any]:
        if method == "server/discover":
            if self.silent_discover:
                raise NoAnswer
            if self.discover_hook is not None:
                return await self.discover_hook(ctx)
            if not self.modern:
                raise RpcError(-32601, "Method not found")
            return {
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {"listChanged": True}},
                "ttlMs": 0,
                "cacheScope": "public",
                "instructions": "fake",
                "_meta": {p.META_SERVER_INFO: {"name": "fake", "version": "1"}},
            }
        if method == "initialize":
            return {
                "protocolVersion": self.legacy_version or ctx.params.get("protocolVersion"),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "fake-legacy", "version": "1"},
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            start = int(ctx.params.get("cursor") or 0)
            page = self.tools[start : start + self.page_size]
            result: dict[str, Any] = {"tools": page}
            if start + self.page_size < len(self.tools):
                result["nextCursor"] = str(start + self.page_size)
            if self.modern:
                result.update(resultType="complete", ttlMs=self.ttl_ms, cacheScope="private")
            return result
        if method == "tools/call":
            if self.on_call is None:
                return {"content": [{"type": "text", "text": "ok"}], "isError": False}
            return await self.on_call(ctx)
        raise RpcError(-32601, "Method not found", method)
