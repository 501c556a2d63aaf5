"""Operations tests (tests/runtime/test_http_ops.py): a small server run as real processes.

* :class:`OpsServer`: tools ``pid`` (the serving process id: tells workers apart),
  ``sleep`` (sleeps, reporting progress every 50 ms, so a client sees it is in flight) and
  ``frozen`` (how many objects the serving process moved out of the garbage collector);
* :func:`start_ops`: ``python -m``-style serving of it (``server.main.main``) on 127.0.0.1;
* :func:`call` / :func:`tool_body`: a 2026 ``tools/call`` over HTTP;
* :func:`refused`: whether a new connection to a port is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import socket
from typing import Any

import httpx
from common_support import free_port
from http_support import ROOT, ServerProcess, modern_headers, modern_request
from mcp_codegen_runtime.server.base import ServerBase
from mcp_codegen_runtime.server.context import Context
from mcp_codegen_runtime.wire.content import TextContent, ToolResult
from mcp_codegen_runtime.wire.tools import ServerInfo, ToolDef
from pydantic import BaseModel, Field

SUPPORT = ROOT / "tests" / "support"


class NoArgs(BaseModel):
    pass


class SleepIn(BaseModel):
    seconds: float = Field(1.0, ge=0, le=30)
    note: str | None = None


def _def(name: str, model: type[BaseModel]) -> ToolDef:
    wire = {"name": name, "description": f"{name} tool", "inputSchema": {"type": "object", **model.model_json_schema()}}
    return ToolDef(name=name, method=name, wire=wire, input_model=model)


class OpsServer(ServerBase):
    server_info = ServerInfo(name="ops", version="1.0", implementation="ops_support:OpsServer")
    tool_defs = (_def("pid", NoArgs), _def("sleep", SleepIn), _def("frozen", NoArgs))

    async def pid(self, args: NoArgs, ctx: Context) -> ToolResult:
        return ToolResult(content=[TextContent(text=str(os.getpid()))])

    async def frozen(self, args: NoArgs, ctx: Context) -> ToolResult:
        return ToolResult(content=[TextContent(text=str(gc.get_freeze_count()))])

    async def sleep(self, args: SleepIn, ctx: Context) -> ToolResult:
        steps = max(1, int(args.seconds / 0.05))
        for i in range(steps):
            await ctx.progress(i + 1, steps, "sleeping")
            await asyncio.sleep(args.seconds / steps)
        return ToolResult(content=[TextContent(text="slept")])


OPS_MAIN = "from mcp_codegen_runtime.server.main import main; from ops_support import OpsServer; main(OpsServer, prog='ops')"


def ops_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(SUPPORT), str(ROOT)]), **extra}


def start_ops(*flags: str, env: dict[str, str] | None = None) -> ServerProcess:
    """``OpsServer`` served by ``server.main.main`` (what ``python -m <pkg>`` runs) with ``flags``."""
    port = free_port()
    full_env = {"PYTHONPATH": os.pathsep.join([str(SUPPORT), str(ROOT)]), **(env or {})}
    return ServerProcess(["-c", OPS_MAIN, "--http", "--port", str(port), *flags], port=port, env=full_env, cwd=ROOT)


def tool_body(name: str, arguments: dict[str, Any] | None = None, rid: Any = 1) -> dict[str, Any]:
    return modern_request(rid, "tools/call", {"name": name, "arguments": arguments or {}})


def call(client: httpx.Client, url: str, name: str, arguments: dict[str, Any] | None = None, **headers: str) -> Any:
    """A 2026 ``tools/call``; the text of its first content block (JSON answer expected)."""
    response = client.post(url, json=tool_body(name, arguments), headers=modern_headers("tools/call", name, **headers))
    response.raise_for_status()
    return response.json()["result"]["content"][0]["text"]


def refused(port: int) -> bool:
    """True when a new connection to 127.0.0.1:``port`` is refused."""
    try:
        with socket.create_connection(("127.0.0.1", port), 1.0):
            return False
    except ConnectionRefusedError:
        return True
    except OSError:
        return False


def probe(port: int, path: str) -> int:
    """HTTP status of GET ``path`` on a new connection (0 when the connection is refused)."""
    with contextlib.suppress(httpx.ConnectError):
        return httpx.get(f"http://127.0.0.1:{port}{path}", timeout=5).status_code
    return 0
