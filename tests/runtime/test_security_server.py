"""Security properties of the server runtime (in process, ``DemoServer``; 2026-07-28 MRTR).

* ``requestState``: tampered (every byte position of payload and MAC flipped), truncated,
  re-signed with another key, expired, issued for another tool, other arguments or another
  principal: all ``-32602`` and the handler never runs with forged answers.  Key rotation:
  a token signed with an old key listed second still verifies.  Replaying a valid token for
  the very same call is accepted by design (stateless servers keep no nonce store); it can
  only repeat answers the client itself gave.
* Results never carry tracebacks or internal paths; size limits reject before dispatch.
* Per-client rate limit gives the ``rate_limited`` isError result.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
from common_support import flip_char as _flip
from common_support import state_key
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.server.signing import Signer
from mcp_codegen_runtime.wire import protocol as p
from support_server import DemoServer, modern, req

ELICIT = {"elicitation": {}}


async def _call(peer: Any, rid: Any, name: str, args: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": args or {}, **extra}
    await peer.send(req(rid, "tools/call", modern(params, caps=ELICIT)))
    while True:
        msg = await asyncio.wait_for(peer.receive(), 5)
        if msg.get("id") == rid and "method" not in msg:
            return dict(msg)


async def _state(peer: Any, name: str = "greet") -> str:
    first = await _call(peer, "s0", name)
    assert first["result"]["resultType"] == p.RESULT_INPUT_REQUIRED
    return str(first["result"]["requestState"])


ANSWER = {"name": {"action": "accept", "content": {"name": "Ada"}}}


def test_request_state_tampering_is_rejected() -> None:
    async def main() -> None:
        server = DemoServer()
        async with server.connect_in_process() as peer:
            state = await _state(peer)
            ok = await _call(peer, "ok", "greet", requestState=state, inputResponses={})
            assert ok["result"]["resultType"] == p.RESULT_INPUT_REQUIRED  # still no answer: asks again
            runs = server.runs.get("greet", 0)
            forged = {_flip(state, i) for i in range(len(state)) if state[i] != "."}
            body, mac = state.split(".")
            payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            payload["r"] = {"name": {"action": "accept", "content": {"name": "Mallory"}}}
            evil = Signer("mrtr requestState", [state_key("attacker")], "demo").sign(payload, ttl=600)
            forged |= {state + "x", state[:-1], body, "." + mac, state + "." + mac, "", "..", evil,
                       Signer("tools/list cursor", None, "demo").sign(payload)}
            for i, token in enumerate(sorted(forged)):
                res = await _call(peer, f"f{i}", "greet", requestState=token)
                assert res.get("error", {}).get("code") == p.INVALID_PARAMS, (token, res)
                assert "Mallory" not in json.dumps(res)
            for bad in (None, 5, [state], {"s": state}):
                if bad is None:
                    continue
                res = await _call(peer, f"t{bad!r}", "greet", requestState=bad)
                assert res["error"]["code"] == p.INVALID_PARAMS
            assert server.runs.get("greet", 0) == runs, "a forged state reached the handler"
    asyncio.run(main())


def test_request_state_bound_to_tool_arguments_and_principal() -> None:
    async def main() -> None:
        server = DemoServer()
        async with server.connect_in_process(principal="alice") as alice, server.connect_in_process(principal="bob") as bob:
            state = await _state(alice)
            for peer, name, args in ((alice, "two_questions", {}), (alice, "echo", {"text": "x"}), (bob, "greet", {})):
                res = await _call(peer, "x", name, args, requestState=state, inputResponses=ANSWER)
                assert res["error"]["code"] == p.INVALID_PARAMS and "another request" in res["error"]["message"], res
            good = await _call(alice, "g", "greet", requestState=state, inputResponses=ANSWER)
            assert "hello Ada" in json.dumps(good["result"])
            replay = await _call(alice, "r", "greet", requestState=state, inputResponses=ANSWER)
            assert replay["result"]["content"] == good["result"]["content"]  # same call, same answers
    asyncio.run(main())


def test_expired_request_state_is_rejected() -> None:
    async def main() -> None:
        server = DemoServer(ServerSettings(request_state_ttl=-5))
        async with server.connect_in_process() as peer:
            state = await _state(peer)
            res = await _call(peer, "e", "greet", requestState=state, inputResponses=ANSWER)
            assert res["error"]["code"] == p.INVALID_PARAMS and "Expired" in res["error"]["message"]
    asyncio.run(main())


def test_key_rotation_and_foreign_keys() -> None:
    async def main() -> None:
        k1, k2, k3 = state_key("k1"), state_key("k2"), state_key("k3")
        old = DemoServer(state_keys=[k1])
        async with old.connect_in_process() as peer:
            state = await _state(peer)
        for keys, accepted in (([k2, k1], True), ([k1, k2], True), ([k3], False), ([k2, k3], False),
                               ([k1[:-1] + bytes([k1[-1] ^ 1])], False)):
            server = DemoServer(state_keys=keys)
            async with server.connect_in_process() as peer:
                res = await _call(peer, "k", "greet", requestState=state, inputResponses=ANSWER)
                assert ("result" in res) is accepted, (keys, res)
    asyncio.run(main())


def test_failures_never_leak_tracebacks_or_paths(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> list[dict[str, Any]]:
        server = DemoServer()
        async with server.connect_in_process() as peer:
            return [await _call(peer, i, name, args) for i, (name, args) in enumerate(
                [("crash", {}), ("bad_output", {}), ("missing", {}), ("echo", {"text": 5}), ("nope", {})])]
    answers = asyncio.run(main())
    text = json.dumps(answers)
    assert "/secret/path" not in text and "Traceback" not in text and "exploded" not in text and ".py" not in text
    assert "/secret/path/db.sqlite exploded" in caplog.text  # the details stay in the server log


def test_size_limits_reject_before_dispatch() -> None:
    async def main() -> None:
        server = DemoServer(ServerSettings(max_string_length=1000, max_depth=10))
        async with server.connect_in_process() as peer:
            deep: Any = "x"
            for _ in range(20):
                deep = [deep]
            for i, args in enumerate([{"text": "a" * 1001}, {"a" * 1001: 1}, {"text": deep}]):
                res = await _call(peer, i, "echo", args)
                assert res["error"]["code"] == p.INVALID_REQUEST, res
            assert server.runs == {}
    asyncio.run(main())


def test_rate_limit_per_client() -> None:
    async def main() -> None:
        server = DemoServer(ServerSettings(rate_limit_per_second=0.001, rate_limit_burst=3))
        async with server.connect_in_process() as a, server.connect_in_process() as b:
            results = [await _call(a, i, "echo", {"text": "x"}) for i in range(5)]
            codes = [r["result"].get("_meta", {}).get("mcp-codegen/error", {}).get("code") for r in results]
            assert [r["result"].get("isError", False) for r in results] == [False, False, False, True, True]
            assert codes[3] == codes[4] and "rate" in json.dumps(results[3]).lower()
            other = await _call(b, "b", "echo", {"text": "x"})  # another client has its own bucket
            assert not other["result"].get("isError", False)
    asyncio.run(main())


def _nest(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


#: Arguments near the limits of ``ServerSettings(max_string_length=64, max_depth=6)``: nesting
#: one short of, at and one past the depth limit (``params`` at 0, ``arguments`` at 1, ``text``
#: at 2), strings at and past the length limit, brackets, quotes and escapes inside strings.
_NEAR_LIMITS: list[dict[str, Any]] = [
    {"text": _nest(3)}, {"text": _nest(4)}, {"text": _nest(5)}, {"text": [[[[]]]]}, {"text": [[[[[]]]]]},
    {"text": "a" * 64}, {"text": "a" * 65}, {"a" * 64: 1}, {"a" * 65: 1}, {"text": "é" * 64}, {"text": "😀" * 65},
    {"text": '"]]]]]]]]\\' * 6}, {"text": "[[[[[[[[[[[[[[[[[[", "b": '\\"'}, {"t": "\\", "u": [[[["x"]]]]},
]


@pytest.mark.parametrize("copy", [True, False])
def test_size_limits_near_the_edges_in_process(copy: bool) -> None:
    """Each call near a limit is refused exactly when the walk of its params says so, with the
    JSON copy (whose text may prove the limits) and without (the walk alone)."""
    from mcp_codegen_runtime.server.sizelimits import exceeds_limits_walk as exceeds_limits

    async def main() -> None:
        settings = ServerSettings(max_string_length=64, max_depth=6)
        server = DemoServer(settings)
        async with server.connect_in_process(copy=copy) as peer:
            for i, args in enumerate(_NEAR_LIMITS):
                res = await _call(peer, i, "echo", args)
                params = modern({"name": "echo", "arguments": args}, caps=ELICIT)
                refused = exceeds_limits(params, 64, 6) is not None
                assert (res.get("error", {}).get("code") == p.INVALID_REQUEST) == refused, (args, res)
            assert sum(exceeds_limits(modern({"name": "echo", "arguments": a}, caps=ELICIT), 64, 6) is None
                       for a in _NEAR_LIMITS) >= 5  # both verdicts are exercised
    asyncio.run(main())


def test_size_limits_near_the_edges_over_stdio() -> None:
    """The same over stdio (``serve_stdio`` on a byte stream), where the line itself may prove
    the limits: the refusals are the walk's, line by line."""
    import io

    from mcp_codegen_runtime.server.sizelimits import exceeds_limits_walk as exceeds_limits
    from mcp_codegen_runtime.server.stdio.transport import serve_stdio

    settings = ServerSettings(max_string_length=1 << 20, max_depth=6)
    server = DemoServer(settings)
    lines = [req(i, "tools/call", modern({"name": "echo", "arguments": a}, caps=ELICIT)) for i, a in enumerate(_NEAR_LIMITS)]
    out = io.BytesIO()
    asyncio.run(serve_stdio(server, stdin=io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in lines)), stdout=out))
    answers = {m["id"]: m for m in map(json.loads, out.getvalue().splitlines()) if "id" in m}
    for message in lines:
        refused = exceeds_limits(message["params"], 1 << 20, 6) is not None
        got = answers[message["id"]]
        assert (got.get("error", {}).get("code") == p.INVALID_REQUEST) == refused, (message, got)
