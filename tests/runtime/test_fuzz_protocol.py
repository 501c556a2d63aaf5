"""Protocol fuzzing: random and mutated JSON-RPC never crashes or wedges a generated server.

In process (hypothesis, ``DemoServer``): any JSON value, and requests with random ids,
methods, params and ``_meta`` in both eras.  Every request with a usable id is answered
exactly once with that id; everything else gets at most an error with id null; no answer
leaks a traceback or a file path; the server still works afterwards.

Over stdio (``python -m weather``): random bytes, truncated and mutated lines, huge ids and
numbers, deep nesting, nested batches, oversized lines, many concurrent calls cancelled at
once, and a client that disconnects mid-line.  The process keeps answering, other
clients are not held up, and its memory stays bounded.

``MCP_CODEGEN_FUZZ=long`` runs more examples and rounds.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import pytest
from adversarial_support import LONG, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.wire import accelerator
from mcp_codegen_runtime.wire import protocol as p
from support_server import DemoServer, RawServer, modern, modern_meta, req


@pytest.fixture(scope="module", autouse=True, params=["off", "on"])
def argument_path(request: pytest.FixtureRequest) -> Any:
    """Every test here on both paths: the fast extra off and on (in process, and for the
    ``python -m weather`` processes through ``MCP_CODEGEN_ACCELERATOR``)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_CODEGEN_ACCELERATOR", request.param)
    assert accelerator.set_enabled(request.param == "on") is (request.param == "on")
    yield request.param
    mp.undo()
    accelerator.set_enabled(True)

SAFE_TOOLS = ["echo", "sync_echo", "blocks", "bad_output", "crash", "missing", "schema_checked", "nope", ""]
METHODS = ["initialize", "ping", "tools/list", "tools/call", "server/discover", "logging/setLevel",
           "notifications/cancelled", "notifications/initialized", "resources/list", "", "x" * 300]

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                      st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=30))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                          max_leaves=20)
ids = st.one_of(st.integers(min_value=-(2**63), max_value=2**63), st.text(max_size=20),
                st.just(10**300), st.just(""), st.just(0))
bad_ids = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False), st.lists(st.integers(), max_size=2),
                    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@st.composite
def params(draw: st.DrawFn) -> Any:
    out: dict[str, Any] = draw(st.dictionaries(st.sampled_from(["name", "arguments", "cursor", "requestState", "inputResponses",
                                                                   "protocolVersion", "capabilities", "level", "requestId"]),
                                               json_value, max_size=3))
    if draw(st.booleans()):
        out["name"] = draw(st.sampled_from(SAFE_TOOLS))
        out["arguments"] = draw(st.one_of(st.fixed_dictionaries({"text": st.text(max_size=60), "times": st.integers(-2, 8)}), json_value))
    era = draw(st.sampled_from(["modern", "broken-meta", "none"]))
    if era == "modern":
        out["_meta"] = modern_meta(draw(st.one_of(st.just({}), st.just({"elicitation": {}}))))
    elif era == "broken-meta":
        out["_meta"] = draw(st.one_of(json_value, st.fixed_dictionaries({p.META_PROTOCOL_VERSION: json_value})))
    return out


@st.composite
def messages(draw: st.DrawFn, counter: list[int]) -> tuple[Any, Any]:
    """(message, the id a response must carry or None when no answer is owed)."""
    kind = draw(st.sampled_from(["junk", "request", "request", "request", "notification", "bad-id", "response", "batch"]))
    if kind == "junk":
        return draw(json_value), None
    counter[0] += 1
    if kind == "request":
        rid = draw(ids)
        rid = f"{rid}-{counter[0]}" if isinstance(rid, str) else (rid * 1000 + counter[0] if abs(rid) < 2**50 else rid + counter[0])
        return req(rid, draw(st.sampled_from(METHODS)), draw(st.one_of(params(), st.none()))), rid
    if kind == "notification":
        return {"jsonrpc": "2.0", "method": draw(st.sampled_from(METHODS)), "params": draw(params())}, None
    if kind == "bad-id":
        return {"jsonrpc": "2.0", "id": draw(bad_ids), "method": draw(st.sampled_from(METHODS))}, None
    if kind == "response":
        return {"jsonrpc": "2.0", "id": draw(st.one_of(ids, bad_ids)), draw(st.sampled_from(["result", "error"])): draw(json_value)}, None
    return draw(st.lists(st.one_of(json_value, st.lists(json_value, max_size=2)), max_size=3)), None


def _no_leaks(msg: Any) -> None:
    text = json.dumps(msg)
    assert "Traceback" not in text and "/secret/" not in text and 'File \\"' not in text and ".py\\\", line" not in text, text


async def _exchange(batch: list[tuple[Any, Any]]) -> None:
    server = DemoServer(ServerSettings(call_timeout=5, shutdown_grace=0.1))
    async with server.connect_in_process() as peer:
        owed: dict[Any, int] = {}
        for message, rid in batch:
            await peer.send(message)
            if rid is not None:
                owed[json.dumps(rid)] = 0
        await peer.send(req("sentinel", "ping"))
        owed[json.dumps("sentinel")] = 0
        deadline = time.monotonic() + 10
        extra_wait = None
        while True:
            timeout = (extra_wait or deadline) - time.monotonic()
            if timeout <= 0:
                break
            try:
                msg = await asyncio.wait_for(peer.receive(), timeout)
            except TimeoutError:
                break
            _no_leaks(msg)
            for one in msg if isinstance(msg, list) else [msg]:
                if "method" in one:
                    continue  # server->client notification or request
                key = json.dumps(one.get("id"))
                if key in owed:
                    owed[key] += 1
                else:
                    assert one.get("id") is None and "error" in one, one
            if all(owed.values()) and extra_wait is None:
                extra_wait = time.monotonic() + 0.05  # catch duplicates
        assert {k: v for k, v in owed.items() if v != 1} == {}, "every request answered exactly once"
        # still serving normally
        await peer.send(req("after", "tools/call", modern({"name": "echo", "arguments": {"text": "ok"}})))
        while True:
            msg = await asyncio.wait_for(peer.receive(), 5)
            if isinstance(msg, dict) and msg.get("id") == "after":
                assert msg["result"]["structuredContent"] == {"text": "ok", "count": 1}
                break


@settings(max_examples=examples(60, 600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_messages_in_process(data: st.DataObject) -> None:
    counter = [0]
    batch = data.draw(st.lists(messages(counter), min_size=1, max_size=6))
    asyncio.run(_exchange(batch))


def test_legacy_session_with_random_batches() -> None:
    """2025-03-26 allows batches: nested, empty and mixed batches get per-element answers."""
    async def main() -> None:
        server = DemoServer()
        async with server.connect_in_process() as peer:
            await peer.send(req(0, "initialize", {"protocolVersion": p.V2025_03_26, "capabilities": {}, "clientInfo": {"name": "f", "version": "0"}}))
            assert (await peer.receive())["result"]["protocolVersion"] == p.V2025_03_26
            await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            await peer.send([[req(1, "ping")], req(2, "ping"), 5, [], {"jsonrpc": "2.0", "id": [3], "method": "ping"}])
            answer = await asyncio.wait_for(peer.receive(), 5)
            assert sorted(json.dumps(a.get("id")) for a in answer) == ["2", "null", "null", "null", "null"]
            await peer.send([])
            assert (await asyncio.wait_for(peer.receive(), 5))["error"]["code"] == p.INVALID_REQUEST
            await peer.send([req(5, "initialize", {"protocolVersion": p.V2025_03_26})])
            assert (await asyncio.wait_for(peer.receive(), 5))[0]["error"]["code"] == p.INVALID_REQUEST
    asyncio.run(main())


def test_concurrent_cancellations_leave_the_server_usable() -> None:
    async def main() -> None:
        server = DemoServer(ServerSettings(max_concurrent_calls=8))
        async with server.connect_in_process() as peer:
            n = 200 if LONG else 60
            for i in range(n):
                await peer.send(req(i, "tools/call", modern({"name": "slow"})))
            await asyncio.sleep(0.2)
            order = list(range(n)) + [10**9, "nope", None]
            random.Random(3).shuffle(order)
            for i in order:
                await peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": i}})
                await peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": i}})
            await peer.send(req("x", "tools/call", modern({"name": "echo", "arguments": {"text": "still"}})))
            while True:
                msg = await asyncio.wait_for(peer.receive(), 10)
                assert msg.get("id") not in range(n), f"cancelled request {msg.get('id')} was answered"
                if msg.get("id") == "x":
                    assert msg["result"]["structuredContent"]["text"] == "still"
                    break
            assert not peer.connection.inflight
    asyncio.run(main())


# ---------------------------------------------------------------------- stdio
def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))


def _mutations(rng: random.Random) -> list[bytes]:
    good = json.dumps(req(1, "tools/call", modern({"name": "get_weather", "arguments": {"location": "Paris"}}))).encode()
    out = [
        b"\x00\x01\x02", b"{" * 100_000, b"[" * 100_000 + b"]" * 100_000, b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}',
        b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}', b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}', b"\xef\xbb\xbf{}",
        b'{"jsonrpc":"2.0","id":"dup","id":"dup2","method":"ping"}', b'"\\ud800"', b"[[[[[]]]]]", b"[" + b"{}," * 1000 + b"{}]",
        json.dumps(req("deep", "ping", {"x": json.loads("[" * 200 + "]" * 200)})).encode(),
        json.dumps(req("wide", "ping", {"x": list(range(100_000))})).encode(),
    ]
    for _ in range(40 if LONG else 12):
        data = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            pos = rng.randrange(len(data))
            op = rng.random()
            if op < 0.4:
                data[pos] = rng.randrange(256)
            elif op < 0.7:
                del data[pos: pos + rng.randint(1, 10)]
            else:
                data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 5)))
        out.append(bytes(data).replace(b"\n", b" "))
    return out


def test_stdio_survives_mutated_lines_and_stays_bounded() -> None:
    rng = random.Random(8)
    srv = RawServer()
    try:
        srv.call("warm", "tools/list", modern())
        base = _rss_kb(srv.proc.pid)
        for round_ in range(4 if LONG else 2):
            for line in _mutations(rng):
                srv.send_raw(line + b"\n")
            srv.send_raw(b"x" * (5 * 1024 * 1024) + b"\n")  # oversized line
            res = srv.call(f"alive-{round_}", "tools/call", modern({"name": "get_weather", "arguments": {"location": "Oslo"}}), )
            assert "result" in res, res
        for msg in srv.others:
            _no_leaks(msg)
            if "method" not in msg and msg.get("id") not in (1, "deep", "wide", "dup2", "dup") and "error" in msg:
                assert msg["id"] is None or isinstance(msg["id"], (int, str))
        grown = _rss_kb(srv.proc.pid) - base
        print(f"\nstdio fuzz: {len(srv.others)} other messages, RSS grew {grown} kB")
        assert grown < 200_000, f"memory grew by {grown} kB"
        assert srv.proc.poll() is None
    finally:
        srv.close()
    assert b"Traceback" not in srv.stderr or b"tool get_weather failed" in srv.stderr


def test_stdio_abrupt_disconnect_mid_line() -> None:
    srv = RawServer()
    srv.call("a", "ping")
    srv.send_raw(b'{"jsonrpc":"2.0","id":"half","method":"tools/ca')
    start = time.monotonic()
    assert srv.close(timeout=10) == 0
    assert time.monotonic() - start < 10
    assert b"Traceback" not in srv.stderr, srv.stderr.decode()[-2000:]


@pytest.mark.parametrize("payload", [b"[" * 2_000_000 + b"\n", b'{"a":' * 300_000 + b"\n"])
def test_stdio_pathological_nesting_is_cheap(payload: bytes) -> None:
    srv = RawServer()
    try:
        srv.send_raw(payload[:1_000_000])
        srv.send_raw(payload[1_000_000:])
        msg = srv.recv(timeout=20)
        assert msg["id"] is None and msg["error"]["code"] in (p.PARSE_ERROR, p.INVALID_REQUEST)
        assert "result" in srv.call("ok", "tools/list", modern())
    finally:
        srv.close()
