"""stdio keeps message order although requests start from the read protocol
(``server/stdio/pipe.py``): ``initialize``, ``notifications/initialized`` and the calls of a
legacy session arriving in ONE chunk are handled in that order (a call started before the
session was initialized would fail), a parse error in the middle is answered in its place,
and a chunk of 60 calls after the handshake is answered in full (within the default rate limit); both with the fast extra
off and on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_codegen_runtime.wire import protocol as p

EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"


def _call(rid: int) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": {"name": "get_forecast", "arguments": {"location": "paris", "days": 1}}})


@pytest.mark.parametrize("accelerator", ["off", "on"])
def test_one_chunk_handshake_then_calls_in_order(accelerator: str) -> None:
    init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": p.V2025_11_25, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    lines = [init, '{"jsonrpc":"2.0","method":"notifications/initialized"}', _call(1), "{not json", _call(2)]
    lines += [_call(i) for i in range(3, 63)]
    data = ("\n".join(lines) + "\n").encode()
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES), "MCP_CODEGEN_ACCELERATOR": accelerator}
    proc = subprocess.run([sys.executable, "-m", "weather", "--stdio"], cwd=EXAMPLES, env=env, input=data,
                          capture_output=True, timeout=120)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert answers[0]["id"] == 0 and "result" in answers[0]
    errors = [i for i, a in enumerate(answers) if a.get("id") is None]
    assert len(errors) == 1 and answers[errors[0]]["error"]["code"] == p.PARSE_ERROR and errors[0] > 0
    by_id = {a["id"]: a for a in answers if a.get("id") is not None}
    assert sorted(by_id) == list(range(0, 63))
    for rid in range(1, 63):
        assert by_id[rid]["result"]["content"][0]["text"] == "day 1: sunny, 18.0 C", by_id[rid]
    assert "Traceback" not in proc.stderr.decode()


def _id(item: tuple[str, object]) -> object:
    message = item[1] if item[0] == "message" else json.loads(item[1])  # type: ignore[arg-type]
    return message.get("id", "notification")  # type: ignore[union-attr]


def test_line_pipe_queues_everything_behind_an_inline_message() -> None:
    import asyncio

    from mcp_codegen_runtime.server.stdio.pipe import LinePipe
    from mcp_codegen_runtime.wire import jsonrpc

    started: list[object] = []

    def start(message: object, text: bytes | None = None) -> bool:
        if isinstance(message, dict) and "id" in message and message.get("method") != "initialize":
            started.append(message["id"])
            return True
        return False

    async def run() -> list[object]:
        pipe = LinePipe(jsonrpc.LineBuffer(1 << 20), start, lambda: False)
        pipe.data_received((_call(1) + "\n").encode())  # nothing ahead of it: started at once
        assert started == [1]
        pipe.data_received(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n' + (_call(2) + "\n").encode())
        assert started == [1]  # behind the notification: the reader handles both, in order
        order = []
        for _ in range(2):
            item = await pipe.next_item()
            assert item is not None
            order.append(_id(item))
        pipe.data_received((_call(3) + "\n").encode())  # the reader still holds call 2
        assert started == [1]
        item = await pipe.next_item()
        assert item is not None and _id(item) == 3
        waiting = asyncio.ensure_future(pipe.next_item())  # the reader is done with call 3, asks again
        await asyncio.sleep(0)
        pipe.data_received((_call(4) + "\n").encode())  # nothing ahead of it any more
        assert started == [1, 4]
        pipe.eof_received()
        assert await waiting is None
        return order

    assert asyncio.run(run()) == ["notification", 2]
