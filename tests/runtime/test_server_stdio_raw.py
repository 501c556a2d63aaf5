"""Raw line-level tests of ``python -m weather --stdio``: bad input never kills the server."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from common_support import stop_pid, wait_until
from mcp_codegen_runtime.wire import protocol as p
from support_server import EXAMPLES, RawServer, assert_wire, modern, req, server_env


@pytest.fixture
def srv() -> Iterator[RawServer]:
    server = RawServer()
    yield server
    server.close()


def _alive(srv: RawServer, id: str = "alive") -> None:
    """The server still answers a legacy-free stateless request."""
    res = srv.call(id, "tools/list", modern())
    assert [t["name"] for t in res["result"]["tools"]] == ["get_weather", "get_forecast"]


def test_framing_errors_keep_serving(srv: RawServer) -> None:
    srv.send_raw(b"{not json\n")
    assert srv.recv() == {"jsonrpc": "2.0", "id": None, "error": {"code": p.PARSE_ERROR, "message": "Parse error"}}
    srv.send_raw(b"\xff\xfe garbage\n")
    assert srv.recv()["error"]["code"] == p.PARSE_ERROR
    for value in (b"42", b'"str"', b"null", b"[]", b"[1,2]"):
        srv.send_raw(value + b"\n")
        msg = srv.recv()
        assert msg["id"] is None and msg["error"]["code"] == p.INVALID_REQUEST, value
    srv.send_raw(b"\n\n   \n")  # blank lines are ignored
    srv.send(req(1, "no/such/method", modern()))
    assert srv.response(1)["error"]["code"] == p.METHOD_NOT_FOUND
    srv.send(req(2, "tools/list", None) | {"jsonrpc": "1.0"})
    assert srv.response(2)["error"]["code"] == p.INVALID_REQUEST
    _alive(srv)


def test_lone_surrogates_are_refused_not_fatal(srv: RawServer) -> None:
    """A lone UTF-16 surrogate is not Unicode: the message is refused (-32700) and the server
    goes on; a surrogate pair is an ordinary character."""
    bad = json.dumps(req(7, "tools/call", modern({"name": "get_weather", "arguments": {"location": "\ud800"}})))
    srv.send_raw(bad.encode("ascii") + b"\n")
    assert srv.recv()["error"]["code"] == p.PARSE_ERROR
    good = json.dumps(req(8, "tools/call", modern({"name": "get_weather", "arguments": {"location": "\ud83d\ude00"}})))
    srv.send_raw(good.encode("ascii") + b"\n")
    assert "error" not in srv.response(8)  # a pair is fine (an unknown-location tool error at most)
    _alive(srv)


def test_oversize_line_rejected_without_dying(srv: RawServer) -> None:
    huge = json.dumps(req(9, "tools/call", modern({"name": "get_weather", "arguments": {"location": "x" * (5 * 1024 * 1024)}})))
    srv.send_raw(huge.encode()[: 3 * 1024 * 1024])
    srv.send_raw(huge.encode()[3 * 1024 * 1024 :] + b"\n")
    msg = srv.recv(timeout=20)
    assert msg["id"] is None and msg["error"]["code"] == p.INVALID_REQUEST
    assert "too large" in msg["error"]["message"]
    _alive(srv)


def test_wrong_types_in_params(srv: RawServer) -> None:
    cases = [
        {"name": 5, "arguments": {}},
        {"name": "get_weather", "arguments": "Paris"},
        {"name": "get_weather", "arguments": [1]},
    ]
    for i, params in enumerate(cases):
        res = srv.call(f"w{i}", "tools/call", modern(params))
        assert res["error"]["code"] == p.INVALID_PARAMS, params
    srv.send({"jsonrpc": "2.0", "id": "w9", "method": "tools/call", "params": "oops"})
    assert srv.response("w9")["error"]["code"] == p.INVALID_REQUEST
    bad = srv.call("w10", "tools/call", modern({"name": "get_weather", "arguments": {"location": ["Paris"], "unit": 3}}))
    result = bad["result"]
    assert_wire(p.V2026_07_28, "CallToolResult", result)
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert "location" in text and "unit" in text
    _alive(srv)


def test_legacy_session_2025_03_26_on_stdio(srv: RawServer) -> None:
    init = srv.initialize(p.V2025_03_26)
    assert init["result"]["protocolVersion"] == p.V2025_03_26
    assert init["result"]["serverInfo"] == {"name": "weather", "version": "1.2.0"}
    listed = srv.call(1, "tools/list")["result"]
    assert_wire(p.V2025_03_26, "ListToolsResult", listed)
    assert "outputSchema" not in listed["tools"][0] and "title" not in listed["tools"][0]
    bad = srv.call(2, "tools/call", {"name": "get_weather", "arguments": {"location": ""}})
    assert bad["error"]["code"] == p.INVALID_PARAMS
    srv.send([req(3, "ping"), req(4, "tools/call", {"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}})])
    batch = srv.recv()
    assert isinstance(batch, list) and {m["id"] for m in batch} == {3, 4}
    weather = next(m for m in batch if m["id"] == 4)["result"]
    assert_wire(p.V2025_03_26, "CallToolResult", weather)
    assert "structuredContent" not in weather
    assert json.loads(weather["content"][0]["text"])["temperature"] == 18.0


def test_tampered_request_state(srv: RawServer) -> None:
    caps = {"elicitation": {}}
    first = srv.call(1, "tools/call", modern({"name": "get_weather", "arguments": {"location": "Paris"}}, caps))["result"]
    assert first["resultType"] == "input_required"
    assert first["inputRequests"]["unit"]["method"] == "elicitation/create"
    state = first["requestState"]
    answer = {"unit": {"action": "accept", "content": {"unit": "fahrenheit"}}}
    body, sig = state.split(".")
    for i, bad in enumerate([state + "x", body + "." + sig[::-1], "A" + state[1:], "", 12]):
        res = srv.call(f"t{i}", "tools/call", modern({"name": "get_weather", "arguments": {"location": "Paris"}, "inputResponses": answer, "requestState": bad}, caps))
        assert res["error"]["code"] == p.INVALID_PARAMS, bad
    other = srv.call("o", "tools/call", modern({"name": "get_weather", "arguments": {"location": "London"}, "inputResponses": answer, "requestState": state}, caps))
    assert other["error"]["code"] == p.INVALID_PARAMS
    good = srv.call("g", "tools/call", modern({"name": "get_weather", "arguments": {"location": "Paris"}, "inputResponses": answer, "requestState": state}, caps))
    assert good["result"]["structuredContent"] == {"temperature": 64.4, "conditions": "sunny", "unit": "fahrenheit"}


def test_state_key_from_environment_is_shared_between_processes() -> None:
    from common_support import state_key_hex
    from support_server import server_env

    env = server_env(MCP_CODEGEN_STATE_KEY=state_key_hex("new", "old"))
    a, b = RawServer(env=env), RawServer(env=env)
    c = RawServer(env=server_env(MCP_CODEGEN_STATE_KEY=state_key_hex("something-else")))
    try:
        caps = {"elicitation": {}}
        call = {"name": "get_weather", "arguments": {"location": "Tokyo"}}
        state = a.call(1, "tools/call", modern(call, caps))["result"]["requestState"]
        answer = {"unit": {"action": "accept", "content": {"unit": "celsius"}}}
        retry = modern(call | {"inputResponses": answer, "requestState": state}, caps)
        assert b.call(2, "tools/call", retry)["result"]["structuredContent"]["temperature"] == 22.0
        assert c.call(3, "tools/call", retry)["error"]["code"] == p.INVALID_PARAMS
    finally:
        for s in (a, b, c):
            s.close()


def test_concurrent_requests_while_waiting_for_client(srv: RawServer) -> None:
    srv.initialize(caps={"elicitation": {}})
    srv.send(req("slow", "tools/call", {"name": "get_weather", "arguments": {"location": "Paris"}}))
    ask = srv.recv()
    assert ask["method"] == "elicitation/create" and ask["params"]["message"] == "Which temperature unit?"
    assert srv.call("p", "ping")["result"] == {}  # served while get_weather waits
    srv.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"unit": "celsius"}}})
    assert srv.response("slow")["result"]["structuredContent"]["unit"] == "celsius"
    # a cancelled call gets no response, and the server goes on
    srv.send(req("c", "tools/call", {"name": "get_weather", "arguments": {"location": "Paris"}}))
    ask = srv.recv()
    srv.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "c", "reason": "user"}})
    assert srv.call("p2", "ping")["result"] == {}
    time.sleep(0.2)
    assert srv.call("p2b", "ping")["result"] == {}
    assert {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": ask["id"], "reason": "request cancelled"}} in srv.others
    srv.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}})  # late answer: ignored
    assert srv.call("p3", "ping")["result"] == {}
    assert not [m for m in srv.others if m.get("id") == "c"]


def test_client_vanishing_mid_call_exits_cleanly() -> None:
    srv = RawServer()
    srv.initialize(caps={"elicitation": {}})
    srv.send(req(1, "tools/call", {"name": "get_weather", "arguments": {"location": "Paris"}}))
    assert srv.recv()["method"] == "elicitation/create"
    start = time.monotonic()
    assert srv.close(timeout=10) == 0
    assert time.monotonic() - start < 5
    assert b"Traceback" not in srv.stderr


def test_eof_after_requests_still_answers() -> None:
    srv = RawServer()
    srv.send_raw(
        json.dumps(req(1, "tools/call", modern({"name": "get_forecast", "arguments": {"location": "paris", "days": 1}}))).encode()
        + b"\n"
    )
    assert srv.close() == 0
    msg = srv.recv()
    assert msg["id"] == 1 and msg["result"]["content"][0]["text"] == "day 1: sunny, 18.0 C"


def test_modern_removed_methods_and_envelope(srv: RawServer) -> None:
    for i, method in enumerate(["initialize", "ping", "logging/setLevel"]):
        params = modern({"level": "info"})
        if method == "initialize":
            continue  # initialize always starts a legacy session (dual-era server)
        assert srv.call(i, method, params)["error"]["code"] == p.METHOD_NOT_FOUND
    missing = srv.call("m", "tools/call", {"name": "get_weather", "arguments": {"location": "Paris"}})
    assert missing["error"]["code"] == p.INVALID_PARAMS
    version = srv.call("v", "server/discover", {"_meta": {p.META_PROTOCOL_VERSION: "2025-11-25", p.META_CLIENT_CAPABILITIES: {}}})
    assert version["error"]["code"] == p.UNSUPPORTED_VERSION
    assert version["error"]["data"]["requested"] == "2025-11-25"


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_stdout_backpressure_bounds_memory() -> None:
    """A client that sends 40,000 requests and never reads stdout: the server stops reading
    stdin once ~4 MiB of output wait (the client's writes block), so its memory stays
    bounded; once the client reads, every request is answered."""
    proc = subprocess.Popen([sys.executable, "-m", "weather", "--stdio"], cwd=EXAMPLES, env=server_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    total = 40_000
    line = (json.dumps(req("ID", "tools/list", modern())) + "\n").encode()
    sent = [0]

    def write_all() -> None:
        try:
            for i in range(total):
                proc.stdin.write(line.replace(b'"ID"', str(i).encode()))  # type: ignore[union-attr]
                sent[0] += 1
            proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=write_all, daemon=True)
    try:
        proc.stdin.write((json.dumps(req("up", "tools/list", modern())) + "\n").encode())  # the server is up
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == "up"
        base = _rss_kib(proc.pid)
        writer.start()
        # the writer stalls once the server stops reading: no progress for a whole second
        progress: list[int] = []

        def stalled() -> bool:
            progress.append(sent[0])
            return len(progress) > 10 and progress[-1] == progress[-11] and progress[-1] > 0

        wait_until(stalled, 30, "the server to stop reading", interval=0.1)
        assert writer.is_alive() and sent[0] < total, "the server kept reading although nobody read its output"
        grown = _rss_kib(proc.pid) - base
        assert grown < 120 * 1024, f"server grew by {grown} KiB while its output was not read"
        got = 0
        for _ in proc.stdout:
            got += 1
            if got == total:
                break
        writer.join(30)
        assert got == total and sent[0] == total
    finally:
        stop_pid(proc)
