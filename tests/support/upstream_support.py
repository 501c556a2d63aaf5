"""Helpers of the upstream-bound tool tests (tests/runtime/test_upstream_*.py).

* :func:`start_app`: :mod:`rest_upstream_app` under uvicorn in a subprocess on 127.0.0.1,
  stopped by its PID; :func:`stats` reads its hit counters.
* :func:`tool`: a hand-built :class:`ToolDef` (a permissive input model keyed by the
  inputSchema property names, an optional output model and declared errors) and its
  :class:`HttpBinding` from the binding's JSON, as generated code would make them.
* :func:`server_class`: a ``ServerBase`` + ``UpstreamServer`` class with one handler per tool
  returning ``self.call_upstream(...)`` (marked ``nonblocking``), like a generated base class.
* :func:`call` / :func:`call_many`: ``tools/call`` (2026 era) through the in-process peer, so the
  full dispatch path runs (argument validation, output validation, error mapping).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any

import httpx
from common_support import free_port
from http_support import ServerProcess
from mcp_codegen_runtime.server.base import ServerBase
from mcp_codegen_runtime.server.context import Context
from mcp_codegen_runtime.server.gencode import nonblocking
from mcp_codegen_runtime.server.upstream import HttpBinding, UpstreamDef, UpstreamServer
from mcp_codegen_runtime.wire.content import ToolResult
from mcp_codegen_runtime.wire.errors import DeclaredToolError
from mcp_codegen_runtime.wire.tools import ServerInfo, ToolDef
from pydantic import BaseModel, ConfigDict, Field, create_model
from support_server import modern, req

SUPPORT = Path(__file__).resolve().parent
#: The credentials the app expects (environment of the app process) and the tools send.
API_KEY = "ak-7f3c9e1d5b2a8640"
BEARER = "bt-91c2e7a4d06f53b8"
BASIC_USER, BASIC_PASSWORD = "alice", "pw-3e8d1c7b9a2f6045"
CLIENT_SECRET = "cs-0a9b8c7d6e5f4321"
SECRETS = (API_KEY, BEARER, BASIC_PASSWORD, CLIENT_SECRET)


@contextlib.contextmanager
def start_app() -> Iterator[str]:
    """The REST app on a free port; yields its base URL (``http://127.0.0.1:PORT``)."""
    port = free_port()
    env: dict[str, str | None] = {
        "APP_API_KEY": API_KEY, "APP_BEARER": BEARER, "APP_BASIC": f"{BASIC_USER}:{BASIC_PASSWORD}",
        "APP_CLIENT_SECRET": CLIENT_SECRET,
    }
    proc = ServerProcess(["-m", "uvicorn", "rest_upstream_app:app", "--host", "127.0.0.1", "--port", str(port),
                          "--log-level", "warning"], port=port, env=env, cwd=SUPPORT)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.stop()


def stats(base: str) -> dict[str, int]:
    data: dict[str, int] = httpx.get(f"{base}/_stats", timeout=5).json()
    return data


class DeclaredNotFound(DeclaredToolError):
    error_code = "not_found"


class DeclaredServerError(DeclaredToolError):
    error_code = "server_error"


def tool(name: str, binding: dict[str, Any], props: dict[str, Any] | None = None, *,
         required: list[str] | None = None, output: type[BaseModel] | None = None,
         output_schema: dict[str, Any] | None = None,
         errors: dict[str, type[DeclaredToolError]] | None = None) -> tuple[ToolDef, HttpBinding]:
    """A tool whose arguments ``props`` (property name -> JSON schema) go where ``binding`` says."""
    props = props or {}
    required = required or []
    fields: dict[str, Any] = {}
    for i, (prop, _schema) in enumerate(props.items()):
        default = ... if prop in required else None
        fields[f"f{i}"] = (Any, Field(default, alias=prop))
    model = create_model(f"{name}_In", __config__=ConfigDict(populate_by_name=False, extra="forbid"), **fields)
    wire: dict[str, Any] = {"name": name, "description": f"{name} tool",
                            "inputSchema": {"type": "object", "properties": props, "required": required}}
    if output is not None:
        wire["outputSchema"] = output_schema or output.model_json_schema()
    definition = ToolDef(name=name, method=name, wire=wire, input_model=model, output_model=output,
                         errors=errors or {})
    return definition, HttpBinding.from_spec(binding)


def server_class(upstream: dict[str, Any], tools: list[tuple[ToolDef, HttpBinding]], *,
                 name: str = "pets") -> type[ServerBase]:
    """A server base class like the generated one: every tool's handler calls the upstream."""
    namespace: dict[str, Any] = {
        "server_info": ServerInfo(name=name, version="1.0"),
        "tool_defs": tuple(t for t, _ in tools),
        "upstream": UpstreamDef.from_spec(upstream),
    }
    for definition, binding in tools:
        def handler(self: Any, args: BaseModel, ctx: Context, _t: ToolDef = definition,
                    _b: HttpBinding = binding) -> Awaitable[ToolResult]:
            result: Awaitable[ToolResult] = self.call_upstream(_t, _b, args, ctx)
            return result
        namespace[definition.method] = nonblocking(handler)  # as generated code marks it
    return type(f"{name.title()}Server", (UpstreamServer, ServerBase), namespace)


async def call_many(server: ServerBase, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The ``tools/call`` results (or JSON-RPC errors) of ``calls``, one after the other."""
    out: list[dict[str, Any]] = []
    async with server.connect_in_process() as peer:
        for rid, (name, args) in enumerate(calls, 1):
            await peer.send(req(rid, "tools/call", modern({"name": name, "arguments": args})))
            while True:
                msg = await asyncio.wait_for(peer.receive(), 30)
                if msg.get("id") == rid:
                    break
            out.append(msg.get("result", msg))
    await server.close_shared()
    return out


def call(server: ServerBase, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """One ``tools/call`` result (a JSON-RPC error object when there is no result)."""
    return asyncio.run(call_many(server, [(name, args or {})]))[0]


def echoed(result: dict[str, Any]) -> dict[str, Any]:
    """What the app's ``/echo`` received, from a tool result without output schema."""
    assert not result.get("isError"), result
    data: dict[str, Any] = json.loads(result["content"][0]["text"])
    return data


def header(echo: dict[str, Any], name: str) -> list[str]:
    """Every value the app received for header ``name`` (lower case)."""
    return [v for k, v in echo["headers"] if k == name]


def error_of(result: dict[str, Any]) -> tuple[str, str | None, Any]:
    """(message, code, data) of an ``isError`` result."""
    assert result.get("isError") is True, result
    info = result.get("_meta", {}).get("mcp-codegen/error", {})
    return result["content"][0]["text"], info.get("code"), info.get("data")
