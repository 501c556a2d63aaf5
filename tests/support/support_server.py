"""Helpers for the server runtime tests (imported by tests/test_server_*.py).

* ``EXAMPLES``: generated_examples/, the cwd/PYTHONPATH of spawned weather servers;
* :class:`RawServer`: ``python -m weather --stdio`` driven line by line;
* :func:`modern_meta` / :func:`modern`: 2026-07-28 request ``_meta``;
* :func:`assert_wire`: validate a result against the official JSON schema of a version;
* ``DemoServer``: a small server built directly on ``mcp_codegen_runtime`` (no generator),
  exercising every kind of handler, for in-process core tests.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
import time
from functools import cache
from pathlib import Path
from typing import Any

from mcp_codegen_runtime.server.base import ServerBase
from mcp_codegen_runtime.server.context import Context
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.wire import protocol as p
from mcp_codegen_runtime.wire.content import TextContent, ToolResult
from mcp_codegen_runtime.wire.errors import DeclaredToolError
from mcp_codegen_runtime.wire.tools import InputDef, ServerInfo, ToolDef
from pydantic import BaseModel, Field

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "generated_examples"
SPEC_DIR = Path("/work/shared/mcp-spec")


def server_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(EXAMPLES)
    env.update(extra)
    return env


def modern_meta(caps: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {
        p.META_PROTOCOL_VERSION: p.V2026_07_28,
        p.META_CLIENT_CAPABILITIES: caps if caps is not None else {},
        p.META_CLIENT_INFO: {"name": "test", "version": "0"},
    }
    meta.update(extra)
    return meta


def modern(params: dict[str, Any] | None = None, caps: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    """2026 params: ``params`` plus a complete ``_meta``."""
    out = dict(params or {})
    out["_meta"] = modern_meta(caps, **meta)
    return out


def req(id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


# ----------------------------------------------------------------- official schemas
@cache
def _schema(version: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SPEC_DIR / f"schema-{version}.json").read_text())
    return data


def assert_wire(version: str, definition: str, instance: Any) -> None:
    """Fail unless ``instance`` matches ``definition`` of the official schema of ``version``."""
    import jsonschema

    schema = _schema(version)
    key = "definitions" if "definitions" in schema else "$defs"
    root = {**schema, "$ref": f"#/{key}/{definition}"}
    cls = jsonschema.Draft7Validator if key == "definitions" else jsonschema.Draft202012Validator
    errors = sorted(cls(root).iter_errors(instance), key=str)
    assert not errors, f"{definition} ({version}): {errors[0].message}"


# ------------------------------------------------------------------ raw stdio
class RawServer:
    """A spawned ``python -m weather --stdio`` with line-level access."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "weather", "--stdio", *args],
            cwd=EXAMPLES,
            env=env or server_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[Any] = queue.Queue()
        self.stderr = b""
        self.others: list[Any] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def recv(self, timeout: float = 10.0) -> Any:
        msg = self.lines.get(timeout=timeout)
        assert msg is not None, "server closed stdout"
        return msg

    def response(self, id: Any, timeout: float = 10.0) -> dict[str, Any]:
        """Wait for the response with ``id``; other messages go to ``self.others``."""
        deadline = time.monotonic() + timeout
        while True:
            msg = self.recv(max(0.01, deadline - time.monotonic()))
            if msg.get("id") == id and "method" not in msg:
                return dict(msg)
            self.others.append(msg)

    def call(self, id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.send(req(id, method, params))
        return self.response(id)

    def initialize(self, version: str = p.V2025_11_25, caps: dict[str, Any] | None = None) -> dict[str, Any]:
        params = {"protocolVersion": version, "capabilities": caps or {}, "clientInfo": {"name": "raw", "version": "0"}}
        res = self.call("init", "initialize", params)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return res

    def close(self, timeout: float = 10.0) -> int:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


# -------------------------------------------------------------- demo server
class EchoIn(BaseModel):
    text: str = Field(..., max_length=50)
    times: int = Field(1, ge=1, le=5)


class EchoOut(BaseModel):
    text: str
    count: int


class Empty(BaseModel):
    pass


class NameAnswer(BaseModel):
    name: str


class Boom(DeclaredToolError):
    error_code = "boom"


def _tool(name: str, input_model: type[BaseModel], output: type[BaseModel] | None = None, **kw: Any) -> ToolDef:
    wire: dict[str, Any] = {
        "name": name,
        "title": name.title(),
        "description": f"{name} tool",
        "inputSchema": {"type": "object", **input_model.model_json_schema()},
        "icons": [{"src": "https://example.com/i.png"}],
        "execution": {"taskSupport": "forbidden"},
        "_meta": {"x": 1},
    }
    if output is not None:
        wire["outputSchema"] = output.model_json_schema()
    return ToolDef(name=name, method=name, wire=wire, input_model=input_model, output_model=output, **kw)


ASK_NAME = InputDef(
    key="name",
    method="elicitation/create",
    params={
        "message": "Your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    },
    response_model=NameAnswer,
)

DEMO_TOOLS = (
    _tool("echo", EchoIn, EchoOut, errors={"boom": Boom}),
    _tool("sync_echo", EchoIn, EchoOut),
    _tool("blocks", Empty),
    _tool("bad_output", Empty, EchoOut),
    _tool("crash", Empty),
    _tool("missing", Empty),
    _tool("greet", Empty, inputs={"name": ASK_NAME}),
    _tool("two_questions", Empty),
    _tool("slow", Empty),
    _tool("chatty", Empty),
    _tool("roots", Empty),
    _tool("schema_checked", EchoIn, schema_checked=True),
    _tool("ask_llm", Empty),
)


class DemoServer(ServerBase):
    server_info = ServerInfo(name="demo", version="0.1", title="Demo", instructions="Test server.")
    tool_defs = DEMO_TOOLS

    def __init__(self, settings: ServerSettings | None = None, **kw: Any) -> None:
        super().__init__(settings, **kw)
        self.slow_started = asyncio.Event()
        self.slow_cancelled = False
        self.runs: dict[str, int] = {}
        self.deny: set[str] = set()

    def authorize(self, principal: Any, tool: ToolDef, args: BaseModel) -> bool:
        return tool.name not in self.deny

    async def echo(self, args: EchoIn, ctx: Context) -> EchoOut:
        if args.text == "boom":
            raise Boom("it went boom", data={"why": "asked"})
        return EchoOut(text=args.text * args.times, count=args.times)

    def sync_echo(self, args: EchoIn, ctx: Context) -> EchoOut:
        ctx.run(ctx.progress(1, 2, "half"))
        return EchoOut(text=args.text, count=1)

    async def blocks(self, args: Empty, ctx: Context) -> list[TextContent]:
        return [TextContent(text="a"), TextContent(text="b")]

    async def bad_output(self, args: Empty, ctx: Context) -> Any:
        return {"text": 5}

    async def crash(self, args: Empty, ctx: Context) -> Any:
        raise RuntimeError("/secret/path/db.sqlite exploded")

    async def greet(self, args: Empty, ctx: Context) -> ToolResult:
        self.runs["greet"] = self.runs.get("greet", 0) + 1
        answer = await ctx.elicit_declared(ASK_NAME, NameAnswer)
        who = answer.content.name if answer.content else "nobody"
        return ToolResult(content=[TextContent(text=f"hello {who} ({answer.action})")])

    async def two_questions(self, args: Empty, ctx: Context) -> str:
        first = await ctx.elicit("First?", {"type": "object", "properties": {"a": {"type": "string"}}})
        second = await ctx.elicit("Second?", {"type": "object", "properties": {"b": {"type": "string"}}})
        return f"{(first.content or {}).get('a')}+{(second.content or {}).get('b')}"

    async def slow(self, args: Empty, ctx: Context) -> str:
        self.slow_started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            self.slow_cancelled = True
            raise
        return "done"

    async def chatty(self, args: Empty, ctx: Context) -> str:
        await ctx.progress(1, 3, "one")
        await ctx.progress(1, 3, "again")  # not increasing: dropped
        await ctx.progress(2, 3)
        await ctx.log("debug", "dbg")
        await ctx.log("error", {"msg": "err"})
        return "ok"

    async def roots(self, args: Empty, ctx: Context) -> str:
        roots = await ctx.list_roots()
        return ",".join(r["uri"] for r in roots)

    async def ask_llm(self, args: Empty, ctx: Context) -> str:
        reply = await ctx.sample([{"role": "user", "content": {"type": "text", "text": "2+2?"}}], 10)
        return str(reply["content"]["text"])

    async def schema_checked(self, args: EchoIn, ctx: Context) -> str:
        return args.text
