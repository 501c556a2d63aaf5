"""A client's answer to a server->client request that cannot be read (issue 44, attack 7a): a
sampling result holding a lone UTF-16 surrogate (``"\\ud800"``: valid JSON, not Unicode) is
refused, and the call that asked gets an error at once on its own stream, as on the 2026 path,
instead of waiting for an answer that never comes.  Over legacy HTTP (SSE) and over stdio."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from http_support import NoArgs, _def, serve_app
from mcp_codegen_runtime.server.base import ServerBase
from mcp_codegen_runtime.server.context import Context
from mcp_codegen_runtime.server.http import HttpApp
from mcp_codegen_runtime.wire import protocol as p
from mcp_codegen_runtime.wire.content import TextContent, ToolResult
from mcp_codegen_runtime.wire.tools import ServerInfo

#: The sampling answer, as raw JSON text (json.dumps would refuse to write the surrogate).
BAD_ANSWER = '{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":"\\ud800"},"model":"m"}}'


class Sampler(ServerBase):
    server_info = ServerInfo(name="sampler", version="1.0")
    tool_defs = (_def("ask", NoArgs),)

    async def ask(self, args: NoArgs, ctx: Context) -> ToolResult:
        answer = await ctx.sample([{"role": "user", "content": {"type": "text", "text": "hi"}}], 10)
        return ToolResult(content=[TextContent(text=f"answered {answer['content']['text']!r}")])


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve_app(HttpApp(Sampler())) as served:
        yield served


def _events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    data: list[str] = []
    for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line and data:
            text = "".join(data)
            data = []
            if text:
                yield json.loads(text)


def test_a_lone_surrogate_in_a_legacy_sampling_answer_fails_the_call_at_once(url: str) -> None:
    base = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": p.V2025_11_25, "capabilities": {"sampling": {}},
                       "clientInfo": {"name": "raw", "version": "0"}}}
    with httpx.Client(timeout=httpx.Timeout(10.0, read=10.0)) as http:
        res = http.post(url, json=init, headers=base)
        session = {**base, "mcp-session-id": res.headers["mcp-session-id"], "mcp-protocol-version": p.V2025_11_25}
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
        call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "ask", "arguments": {}}}
        started = time.monotonic()
        with httpx.Client(timeout=httpx.Timeout(10.0, read=10.0)) as streaming, \
                streaming.stream("POST", url, json=call, headers=session) as stream:
            events = _events(stream.iter_lines())
            asked = next(events)
            assert asked["method"] == "sampling/createMessage"
            refused = http.post(url, content=(BAD_ANSWER % json.dumps(asked["id"])).encode(), headers=session)
            assert refused.status_code == 400 and refused.json()["error"]["code"] == p.PARSE_ERROR
            try:
                final = next(e for e in events if e.get("id") == 5)
            except httpx.ReadTimeout:
                pytest.fail("the call was lost: no answer on its stream after the refused sampling answer")
        assert time.monotonic() - started < 5
        result = final["result"]
        assert result["isError"] is True and "sampling/createMessage" in result["content"][0]["text"]
        again = http.post(url, json={"jsonrpc": "2.0", "id": 6, "method": "ping"}, headers=session)
        assert again.status_code == 200  # the session goes on


STDIO_SERVER = """
    import sys
    sys.path[:0] = {paths!r}
    from test_legacy_unreadable_answers import Sampler
    from mcp_codegen_runtime.server.stdio.transport import serve_stdio
    import asyncio
    asyncio.run(serve_stdio(Sampler()))
"""


def test_a_lone_surrogate_in_a_stdio_sampling_answer_fails_the_call_at_once() -> None:
    from pathlib import Path

    here = Path(__file__).resolve().parent
    code = textwrap.dedent(STDIO_SERVER.format(paths=[str(here), str(here.parent / "support")]))
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
    assert proc.stdin is not None and proc.stdout is not None

    def send(text: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(text + "\n")
        proc.stdin.flush()

    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout or ()], daemon=True).start()

    def receive() -> Any:
        try:
            return json.loads(lines.get(timeout=10))
        except queue.Empty:
            pytest.fail("the call was lost: no answer after the refused sampling answer")

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": p.V2025_11_25, "capabilities": {"sampling": {}},
                                    "clientInfo": {"name": "raw", "version": "0"}}}))
        assert receive()["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "ask", "arguments": {}}}))
        asked = receive()
        assert asked["method"] == "sampling/createMessage"
        started = time.monotonic()
        send(BAD_ANSWER % json.dumps(asked["id"]))
        seen = []
        while True:
            seen.append(receive())
            if seen[-1].get("id") == 5:
                break
            assert time.monotonic() - started < 5, seen
        assert time.monotonic() - started < 5
        assert seen[-1]["result"]["isError"] is True
    finally:
        proc.kill()
        proc.wait(10)
