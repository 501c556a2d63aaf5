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
from support_server import DemoServer, modern, req

from codegen.runtime.server.security import Signer
from codegen.runtime.server.settings import ServerSettings
from codegen.runtime.wire import protocol as p

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
