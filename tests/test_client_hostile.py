"""The client survives hostile servers: an unreadable response (nested 200,000 deep, a lone
surrogate, broken JSON) fails that one call with a clear error, and the connection stays
usable.  The hostile peer is a small stdio script written here (no real server misbehaves
on purpose)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from codegen.runtime import errors as E
from codegen.runtime.client import ClientBase

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
