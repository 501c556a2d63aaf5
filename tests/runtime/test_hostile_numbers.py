"""Values JSON allows but Python does not hold: a number that overflows a double
(``1e999999999``), an integer of a million digits, nesting 100,000 deep.  Each is answered at
once with an error (the connection lives on), and the server logs no traceback; the same over
stdio, HTTP in both eras, and for Python values handed over in process."""

from __future__ import annotations

import asyncio
import json
import math
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from http_support import ServerProcess, modern_headers, modern_request
from mcp_codegen_runtime.wire import errors as E
from mcp_codegen_runtime.wire import jsonrpc
from mcp_codegen_runtime.wire import protocol as p

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "generated_examples"
CALL = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":%s}}}'
HOSTILE = {
    "overflowing float": "1e999999999",
    "negative overflow": "-1.5e400",
    "many-digit float": "9" * 400 + ".5",
    "million-digit integer": "7" * 1_000_000,
    "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
}


def test_decode_refuses_what_python_cannot_hold_and_keeps_the_rest() -> None:
    for text in HOSTILE.values():
        with pytest.raises(E.ParseError):
            jsonrpc.decode('{"x":' + text + '}')
    assert jsonrpc.decode('{"x":1e308,"y":-1e-400,"z":%s}' % ("9" * 400)) == {"x": 1e308, "y": -0.0, "z": int("9" * 400)}


def _line(proc: subprocess.Popen[bytes], timeout: float) -> dict[str, object]:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no answer in time"
    return json.loads(proc.stdout.readline())


@pytest.mark.parametrize("accelerator", ["off", "on"])  # the fast extra (orjson, jsonschema-rs) off and on
def test_stdio_answers_each_at_once_without_a_traceback(accelerator: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES), "MCP_CODEGEN_ACCELERATOR": accelerator}
    proc = subprocess.Popen([sys.executable, "-m", "weather", "--stdio"], cwd=EXAMPLES, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None
    try:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": p.V2025_11_25,
                "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
        proc.stdin.write((json.dumps(init) + "\n").encode())
        proc.stdin.flush()
        assert "result" in _line(proc, 20)
        for i, text in enumerate(HOSTILE.values(), start=1):
            started = time.monotonic()
            proc.stdin.write((CALL % (i, text) + "\n").encode())
            proc.stdin.flush()
            answer = _line(proc, 10)
            assert answer["error"]["code"] == p.PARSE_ERROR, answer  # type: ignore[index]
            assert time.monotonic() - started < 5
        proc.stdin.write((CALL % (99, '"Paris","unit":"celsius"') + "\n").encode())
        proc.stdin.flush()
        assert _line(proc, 20)["id"] == 99  # the connection lives on
    finally:
        proc.stdin.close()
        proc.wait(10)
    assert proc.stderr is not None
    stderr = proc.stderr.read().decode()
    assert "Traceback" not in stderr, stderr


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_http_answers_each_at_once_without_a_traceback(era: str) -> None:
    import httpx

    server = ServerProcess.weather()
    try:
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if era == "legacy":
            init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": p.V2025_11_25,
                    "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
            res = httpx.post(server.url, json=init, headers=headers, timeout=10)
            headers |= {"mcp-session-id": res.headers["mcp-session-id"], "mcp-protocol-version": p.V2025_11_25}
        else:
            headers = modern_headers("tools/call", "get_weather")
        for i, text in enumerate(HOSTILE.values(), start=1):
            body = CALL % (i, text)
            if era == "modern":
                meta = json.dumps(modern_request(i, "tools/call")["params"]["_meta"])
                body = body[:-2] + ',"_meta":' + meta + "}}"
            started = time.monotonic()
            res = httpx.post(server.url, content=body.encode(), headers=headers, timeout=10)
            assert res.status_code == 400 and res.json()["error"]["code"] == p.PARSE_ERROR, res.text[:300]
            assert time.monotonic() - started < 5
        ok = modern_request(99, "tools/call", {"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}) \
            if era == "modern" else json.loads(CALL % (99, '"Paris","unit":"celsius"'))
        res = httpx.post(server.url, json=ok, headers=headers, timeout=10)
        assert res.status_code == 200, res.text[:500]
    finally:
        server.stop()
    assert "Traceback" not in server.stderr_text, server.stderr_text


def test_in_process_values_json_cannot_carry_are_invalid_params_not_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    sys.path.insert(0, str(EXAMPLES))
    try:
        from weather import WeatherClient
        from weather.errors import McpError
        from weather_impl import WeatherService
    finally:
        sys.path.remove(str(EXAMPLES))

    async def main() -> None:
        async with WeatherClient.in_process(WeatherService(), zero_copy=True, era="modern", audit=None) as c:
            for bad in (math.inf, -math.inf, math.nan):
                with pytest.raises(McpError, match="not JSON data") as refused:
                    await c.call_raw("get_weather", {"location": "Paris", "unit": bad})
                assert refused.value.code == p.INVALID_PARAMS
            assert (await c.call_raw("get_weather", {"location": "Paris", "unit": "celsius"})).structuredContent["conditions"] == "sunny"

    asyncio.run(asyncio.wait_for(main(), 30))
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]
