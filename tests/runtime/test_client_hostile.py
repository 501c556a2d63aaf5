"""The client survives hostile servers: an unreadable response (nested 200,000 deep, a lone
surrogate, broken JSON) fails that one call with a clear error, and the connection stays
usable.  The hostile peer is a small stdio script written here (no real server misbehaves
on purpose)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from common_support import free_port, stop_pid, wait_port
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.wire import errors as E

SCRIPT = r'''
import json, sys
BAD = {
    "deep": lambda rid: '{"jsonrpc":"2.0","id":%s,"result":{"x":%s%s}}' % (json.dumps(rid), "[" * 200000, "]" * 200000),
    "surrogate": lambda rid: '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"\\ud800"}]}}' % json.dumps(rid),
    "broken": lambda rid: '{"jsonrpc":"2.0","id":%s,"result":{"content":[' % json.dumps(rid),
}
for line in sys.stdin:
    msg = json.loads(line)
    rid, method = msg.get("id"), msg.get("method")
    if rid is None:
        continue
    if method == "initialize":
        out = {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                                        "serverInfo": {"name": "hostile", "version": "1"}}}
    elif method == "tools/call" and msg["params"]["name"] in BAD:
        sys.stdout.write(BAD[msg["params"]["name"]](rid) + "\n")
        sys.stdout.flush()
        continue
    elif method == "tools/call":
        out = {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "fine"}]}}
    elif method == "tools/list":
        out = {"jsonrpc": "2.0", "id": rid, "result": {"tools": []}}
    else:
        out = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
'''


@pytest.mark.parametrize("kind", ["deep", "surrogate", "broken"])
def test_unreadable_response_fails_one_call_and_the_connection_lives(tmp_path: Path, kind: str) -> None:
    script = tmp_path / "hostile.py"
    script.write_text(SCRIPT, "utf-8")

    async def main() -> None:
        async with ClientBase.stdio(sys.executable, [str(script)], era="legacy", audit=None, timeout=20) as c:
            started = time.monotonic()
            with pytest.raises(E.ParseError, match="unreadable response"):
                await c.call_raw(kind, {})
            assert time.monotonic() - started < 10  # failed at once, not after the call's timeout
            assert (await c.call_raw("ok", {})).text() == "fine"  # the same connection still works
            assert await c.list_tools(refresh=True) == []

    asyncio.run(asyncio.wait_for(main(), 60))


APP = r'''
import json, sys
import uvicorn

BAD = {
    "deep": lambda rid: ('{"jsonrpc":"2.0","id":%s,"result":{"x":%s%s}}' % (json.dumps(rid), "[" * 200000, "]" * 200000)).encode(),
    "surrogate": lambda rid: ('{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"\\ud800"}]}}' % json.dumps(rid)).encode(),
    "broken": lambda rid: ('{"jsonrpc":"2.0","id":%s,"result":{"content":[' % json.dumps(rid)).encode(),
    # the id after the result, where a reader of the message's start cannot see it
    "deep_id_last": lambda rid: ('{"jsonrpc":"2.0","result":{"x":%s%s},"id":%s}' % ("[" * 200000, "]" * 200000, json.dumps(rid))).encode(),
    "surrogate_id_last": lambda rid: ('{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"%s\\ud800"}]},"id":%s}' % ("a" * 8000, json.dumps(rid))).encode(),
    "broken_no_id": lambda rid: b'{"jsonrpc":"2.0","result":{"content":[',
}

async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = b""
    while True:
        event = await receive()
        body += event.get("body", b"")
        if not event.get("more_body"):
            break
    msg = json.loads(body) if body else {}
    rid, method = msg.get("id"), msg.get("method")
    if scope["method"] != "POST" or rid is None:
        await send({"type": "http.response.start", "status": 202 if scope["method"] == "POST" else 405, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    if method == "initialize":
        out = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-11-25",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile-http", "version": "1"}}}).encode()
    elif method == "tools/call" and msg["params"]["name"].removeprefix("sse_") in BAD:
        name = msg["params"]["name"]
        out = BAD[name.removeprefix("sse_")](rid)
        if name.startswith("sse_"):  # the answer on an SSE stream: a priming event, then the message
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
            await send({"type": "http.response.body", "body": b"id: 1\ndata: \n\n", "more_body": True})
            await send({"type": "http.response.body", "body": b"id: 2\ndata: " + out + b"\n\n"})
            return
    elif method == "tools/call":
        out = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "fine"}]}}).encode()
    elif method == "tools/list":
        out = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"tools": []}}).encode()
    else:
        out = json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": out})

uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
'''


@pytest.fixture(scope="module")
def hostile_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    script = tmp_path_factory.mktemp("hostile") / "app.py"
    script.write_text(APP, "utf-8")
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_port(port, proc=proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_pid(proc)


KINDS = ["deep", "surrogate", "broken", "deep_id_last", "surrogate_id_last", "broken_no_id"]


@pytest.mark.parametrize("kind", KINDS + [f"sse_{k}" for k in KINDS])
def test_unreadable_http_response_fails_one_call(hostile_http: str, kind: str) -> None:
    async def main() -> None:
        async with ClientBase.http(hostile_http, era="legacy", audit=None, timeout=20) as c:
            started = time.monotonic()
            with pytest.raises(E.ParseError, match="unreadable"):
                await c.call_raw(kind, {})
            assert time.monotonic() - started < 10
            assert (await c.call_raw("ok", {})).text() == "fine"
            assert await c.list_tools(refresh=True) == []

    asyncio.run(asyncio.wait_for(main(), 60))


def test_salvage_finds_the_top_level_id_wherever_it_is() -> None:
    from mcp_codegen_runtime.wire import jsonrpc

    deep = '{"jsonrpc":"2.0","result":{"x":' + "[" * 50000 + "]" * 50000 + '},"id":7}'
    assert jsonrpc.salvage_response_id(deep) == 7
    assert jsonrpc.salvage_response_id('{"result":{"id":1,"t":"' + "a" * 5000 + '\\ud800"},"id":"r-2"}') == "r-2"
    assert jsonrpc.salvage_response_id('{"result":{"id":1,"x":[' + "a" * 5000) is None  # only a nested id
    request = '{"jsonrpc":"2.0","params":{"x":"' + "a" * 5000 + '\\ud800"},"method":"sampling/createMessage","id":3}'
    assert jsonrpc.salvage_response_id(request) is None and jsonrpc.unreadable_is_request(request)
    assert not jsonrpc.unreadable_is_request('{"result":{"method":"x"},"id":4' + "[" * 10)
