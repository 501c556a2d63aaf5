"""Helpers for the Streamable HTTP tests (tests/test_http_*.py).

* :func:`free_port`, :class:`ServerProcess`: ``python -m weather --http`` (or any command)
  as a subprocess on 127.0.0.1 (``env`` values of None unset a variable), waited for and
  stopped by its PID;
* :func:`serve_app`: an ASGI app under uvicorn in a background thread (127.0.0.1);
* :class:`DemoHttpServer`: a small server on ``mcp_codegen_runtime`` with an ``x-mcp-header``
  tool, a slow tool reporting progress (records cancellations), a legacy polling tool
  that closes its SSE stream (SEP-1699) and ``whoami`` (the principal);
* :class:`Recorder`: ASGI middleware keeping the method and headers of every request;
* :func:`modern_headers` / :func:`modern_request`: a conformant 2026 POST.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from common_support import free_port, stop_pid, wait_port
from mcp_codegen_runtime.server.base import ServerBase
from mcp_codegen_runtime.server.context import Context
from mcp_codegen_runtime.server.http import close_sse_stream
from mcp_codegen_runtime.wire import protocol as p
from mcp_codegen_runtime.wire.content import TextContent, ToolResult
from mcp_codegen_runtime.wire.tools import ServerInfo, ToolDef
from pydantic import BaseModel, Field

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "generated_examples"


class ServerProcess:
    """A server subprocess listening on 127.0.0.1:``port``; :meth:`stop` ends it by PID."""

    def __init__(self, args: list[str], *, port: int, env: dict[str, str | None] | None = None, cwd: Path = EXAMPLES,
                 start_timeout: float = 15.0) -> None:
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = os.pathsep.join([str(EXAMPLES), str(ROOT)])
        for name, value in (env or {}).items():  # None: unset
            if value is None:
                full_env.pop(name, None)
            else:
                full_env[name] = value
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.stderr_text = ""
        self.proc = subprocess.Popen(
            [sys.executable, *args], cwd=cwd, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            wait_port(port, start_timeout, proc=self.proc)
        except Exception:
            self.stop()
            raise

    @classmethod
    def weather(cls, *extra: str, env: dict[str, str | None] | None = None) -> ServerProcess:
        port = free_port()
        return cls(["-m", "weather", "--http", "--port", str(port), *extra], port=port, env=env)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        """Stop the process by PID; what it wrote to stderr is kept in :attr:`stderr_text`."""
        stop_pid(self.proc, 5)
        if self.proc.stderr is not None and not self.proc.stderr.closed:
            self.stderr_text = self.proc.stderr.read().decode("utf-8", "replace")
            self.proc.stderr.close()


@contextlib.contextmanager
def serve_app(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 in a thread; yields the /mcp URL."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(5)


class Recorder:
    """ASGI middleware recording ``(method, headers, monotonic time)`` of every HTTP request."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.requests: list[tuple[str, dict[str, str], float]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            self.requests.append((scope["method"], headers, time.monotonic()))
        await self.app(scope, receive, send)


# ------------------------------------------------------------------ demo server
class RouteIn(BaseModel):
    region: str
    priority: int | None = None
    verbose: bool | None = None
    query: str | None = None


class SlowIn(BaseModel):
    seconds: float = Field(1.0, ge=0, le=30)


class NoArgs(BaseModel):
    pass


ROUTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "priority": {"type": "integer", "x-mcp-header": "Priority"},
        "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
        "query": {"type": "string"},
    },
    "required": ["region"],
}
BAD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "string", "x-mcp-header": "Dup"}, "b": {"type": "string", "x-mcp-header": "dup"}},
}


def _def(name: str, model: type[BaseModel], schema: dict[str, Any] | None = None) -> ToolDef:
    wire = {
        "name": name,
        "description": f"{name} tool",
        "inputSchema": schema or {"type": "object", **model.model_json_schema()},
        "annotations": {"readOnlyHint": True},
    }
    return ToolDef(name=name, method=name, wire=wire, input_model=model)


class DemoHttpServer(ServerBase):
    server_info = ServerInfo(name="demo-http", version="1.0")
    tool_defs = (
        _def("route", RouteIn, ROUTE_SCHEMA),
        _def("bad_headers", NoArgs, BAD_SCHEMA),
        _def("slow", SlowIn),
        _def("poll", NoArgs),
        _def("whoami", NoArgs),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.cancelled: list[float] = []
        self.finished: list[float] = []

    async def route(self, args: RouteIn, ctx: Context) -> ToolResult:
        return ToolResult(content=[TextContent(text=f"{args.region}|{args.priority}|{args.verbose}")])

    async def bad_headers(self, args: NoArgs, ctx: Context) -> ToolResult:
        return ToolResult(content=[TextContent(text="should not be callable over HTTP")])

    async def slow(self, args: SlowIn, ctx: Context) -> ToolResult:
        steps = max(1, int(args.seconds / 0.05))
        try:
            for i in range(steps):
                await ctx.progress(i + 1, steps, "working")
                await asyncio.sleep(args.seconds / steps)
        except asyncio.CancelledError:
            self.cancelled.append(time.monotonic())
            raise
        self.finished.append(time.monotonic())
        return ToolResult(content=[TextContent(text="slept")])

    async def poll(self, args: NoArgs, ctx: Context) -> ToolResult:
        closed = close_sse_stream()
        await ctx.progress(1, 2, "before the pause")
        await asyncio.sleep(0.3)
        return ToolResult(content=[TextContent(text=f"polled closed={closed}")])

    async def whoami(self, args: NoArgs, ctx: Context) -> ToolResult:
        return ToolResult(content=[TextContent(text=repr(ctx.principal))])


def modern_meta(caps: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        p.META_PROTOCOL_VERSION: p.V2026_07_28,
        p.META_CLIENT_CAPABILITIES: caps or {},
        p.META_CLIENT_INFO: {"name": "raw-http", "version": "0"},
    }


def modern_request(rid: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    body = dict(params or {})
    body["_meta"] = modern_meta()
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": body}


def modern_headers(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": p.V2026_07_28,
        "mcp-method": method,
    }
    if name is not None:
        headers["mcp-name"] = name
    headers.update(extra)
    return headers


def post(url: str, body: Any, headers: dict[str, str], **kw: Any) -> httpx.Response:
    return httpx.post(url, json=body, headers=headers, timeout=10, **kw)
