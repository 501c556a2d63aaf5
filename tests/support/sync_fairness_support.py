"""Plain ``def`` handlers under a flood (issue 44, attack 4): a server whose tools block a thread,
served over HTTP in this process (uvicorn in a thread), one client flooding it with blocking calls
(started and cancelled in waves, so that cancelled calls leave their threads running) while
another client, admitted by the per-client limits, times a quick call.  Used by
tests/runtime/test_sync_fairness.py and bench/bench_sync_fairness.py."""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from typing import Any

import httpx
from http_support import NoArgs, SlowIn, _def, modern_headers, modern_request, serve_app
from mcp_codegen_runtime.server.base import ServerBase
from mcp_codegen_runtime.server.context import Context
from mcp_codegen_runtime.server.http import HttpApp
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.wire.content import TextContent, ToolResult
from mcp_codegen_runtime.wire.tools import ServerInfo

TOKENS = {"tok-flood": "flooder", "tok-other": "other"}


class Blocking(ServerBase):
    """Two plain ``def`` tools: ``block`` sleeps in its thread (watching ``ctx.cancelled``
    when asked to), ``quick`` answers at once."""

    server_info = ServerInfo(name="blocking", version="1.0")
    tool_defs = (_def("block", SlowIn), _def("quick", NoArgs))

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.running = 0
        self.most = 0
        self.saw_cancel = 0
        self._lock = threading.Lock()

    def block(self, args: SlowIn, ctx: Context) -> ToolResult:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            end = time.monotonic() + args.seconds
            while time.monotonic() < end:
                time.sleep(0.02)
            if ctx.cancelled:
                with self._lock:
                    self.saw_cancel += 1
        finally:
            with self._lock:
                self.running -= 1
        return ToolResult(content=[TextContent(text="slept")])

    def quick(self, args: NoArgs, ctx: Context) -> ToolResult:
        return ToolResult(content=[TextContent(text="quick")])


def _call(rid: int, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    return modern_request(rid, "tools/call", {"name": name, "arguments": arguments}), modern_headers("tools/call", name)


async def flood(url: str, waves: int, per_wave: int, seconds: float, hold: float) -> None:
    """The flooder: ``waves`` times, start ``per_wave`` blocking calls, cancel them (close their
    connections) after ``hold`` seconds."""
    auth = {"authorization": "Bearer tok-flood"}
    rid = 1000
    for _ in range(waves):
        async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=per_wave)) as http:
            calls = []
            for _ in range(per_wave):
                rid += 1
                body, headers = _call(rid, "block", {"seconds": seconds})
                calls.append(asyncio.ensure_future(http.post(url, json=body, headers={**headers, **auth})))
            await asyncio.sleep(hold)
            for call in calls:
                call.cancel()
            await asyncio.gather(*calls, return_exceptions=True)


def quick_latencies(url: str, rounds: int, pause: float) -> list[float]:
    """The other client: seconds each of ``rounds`` quick calls took, one every ``pause`` s."""
    auth = {"authorization": "Bearer tok-other"}
    out = []
    with httpx.Client(timeout=60) as http:
        for i in range(rounds):
            body, headers = _call(i + 1, "quick", {})
            started = time.monotonic()
            res = http.post(url, json=body, headers={**headers, **auth})
            out.append(time.monotonic() - started)
            assert res.status_code == 200 and res.json()["result"]["content"][0]["text"] == "quick", res.text
            time.sleep(pause)
    return out


def scenario(*, max_concurrent_calls: int = 8, waves: int = 6, per_wave: int = 8, seconds: float = 3.0,
             hold: float = 0.2, rounds: int = 10, pause: float = 0.1) -> tuple[list[float], Blocking]:
    """Run the flood and the other client's quick calls at once; the quick calls' latencies
    (seconds) and the server (its counters)."""
    server = Blocking(settings=ServerSettings(max_concurrent_calls=max_concurrent_calls))
    with serve_app(HttpApp(server, tokens=TOKENS)) as url:
        quick_latencies(url, 2, 0)  # warm: connections, first-call costs
        flooding = threading.Thread(target=lambda: asyncio.run(flood(url, waves, per_wave, seconds, hold)))
        flooding.start()
        time.sleep(hold + 0.1)  # the first wave holds its threads
        latencies = quick_latencies(url, rounds, pause)
        flooding.join()
        deadline = time.monotonic() + seconds * waves + 10
        while server.running and time.monotonic() < deadline:  # let the blocked threads end
            time.sleep(0.05)
    return latencies, server


def summary(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    return (f"median {statistics.median(ordered) * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms "
            f"over {len(ordered)} calls")
