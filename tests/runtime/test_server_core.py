"""Server core tests, in process (mcp_codegen_runtime, no subprocess, no generator)."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from common_support import state_key
from mcp_codegen_runtime.server.session import InProcessPeer
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.server.signing import Signer
from mcp_codegen_runtime.wire import jsonrpc
from mcp_codegen_runtime.wire import protocol as p
from support_server import DemoServer, assert_wire, modern, req

Responder = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class Client:
    """Minimal test client over an InProcessPeer."""

    def __init__(self, peer: InProcessPeer, responder: Responder | None = None) -> None:
        self.peer = peer
        self.responder = responder
        self.notes: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self._n = 0

    async def call(self, method: str, params: dict[str, Any] | None = None, id: Any = None) -> dict[str, Any]:
        self._n += 1
        rid = id if id is not None else self._n
        await self.peer.send(req(rid, method, params))
        return await self.wait(rid)

    async def wait(self, rid: Any, timeout: float = 5.0) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.peer.receive()
                if "method" in msg and "id" in msg:
                    self.server_requests.append(msg)
                    assert self.responder is not None, msg
                    await self.peer.send({"jsonrpc": "2.0", "id": msg["id"], **(await self.responder(msg))})
                elif "method" in msg:
                    self.notes.append(msg)
                elif msg.get("id") == rid:
                    return dict(msg)

    async def initialize(self, version: str = p.V2025_11_25, caps: dict[str, Any] | None = None) -> dict[str, Any]:
        res = await self.call(
            "initialize", {"protocolVersion": version, "capabilities": caps or {}, "clientInfo": {"name": "t", "version": "1"}}
        )
        await self.peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return res


def run(test: Callable[..., Awaitable[None]], server: DemoServer | None = None, **kw: Any) -> DemoServer:
    srv = server or DemoServer()

    async def main() -> None:
        async with srv.connect_in_process() as peer:
            await test(Client(peer, kw.get("responder")), srv)

    asyncio.run(main())
    return srv


def err(resp: dict[str, Any]) -> int:
    assert "error" in resp, resp
    code: int = resp["error"]["code"]
    return code


# --------------------------------------------------------------------- legacy era
@pytest.mark.parametrize("version", p.LEGACY_VERSIONS)
def test_initialize_and_version_gated_tools(version: str) -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        init = await c.initialize(version)
        assert init["result"]["protocolVersion"] == version
        assert_wire(version, "InitializeResult", init["result"])
        assert (await c.call("ping"))["result"] == {}
        listed = (await c.call("tools/list"))["result"]
        assert_wire(version, "ListToolsResult", listed)
        echo = listed["tools"][0]
        assert echo["name"] == "echo"
        assert ("title" in echo) == (version != p.V2025_03_26)
        assert ("outputSchema" in echo) == (version != p.V2025_03_26)
        assert ("_meta" in echo) == (version != p.V2025_03_26)
        assert ("icons" in echo) == (version == p.V2025_11_25)
        assert "ttlMs" not in listed and "resultType" not in listed
        res = (await c.call("tools/call", {"name": "echo", "arguments": {"text": "ab", "times": 2}}))["result"]
        assert_wire(version, "CallToolResult", res)
        assert json.loads(res["content"][0]["text"]) == {"text": "abab", "count": 2}
        if version == p.V2025_03_26:
            assert "structuredContent" not in res
        else:
            assert res["structuredContent"] == {"text": "abab", "count": 2}

    run(t)


def test_initialize_counter_offers_latest_legacy() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        for asked in ("2024-11-05", p.V2026_07_28, "garbage"):
            res = await c.call("initialize", {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}})
            assert res["result"]["protocolVersion"] == p.LATEST_LEGACY

    run(t)


@pytest.mark.parametrize(("version", "as_error"), [(p.V2025_03_26, True), (p.V2025_06_18, True), (p.V2025_11_25, False)])
def test_invalid_arguments_by_version(version: str, as_error: bool) -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize(version)
        for bad in ({"text": 5}, {"text": "x" * 51}, {"text": "a", "times": "2"}, {}):
            resp = await c.call("tools/call", {"name": "echo", "arguments": bad})
            if as_error:
                assert err(resp) == p.INVALID_PARAMS
                assert resp["error"]["data"]["tool"] == "echo"
            else:
                res = resp["result"]
                assert res["isError"] is True
                assert res["_meta"][p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_INVALID_ARGUMENTS
                assert res["content"][0]["text"].startswith("Invalid arguments for tool echo: ")
        resp = await c.call("tools/call", {"name": "echo", "arguments": {"text": 5}})
        text = json.dumps(resp)
        assert "text" in text and "string" in text.lower()

    run(t)


def test_call_param_errors_and_unknown_tool() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize()
        unknown = await c.call("tools/call", {"name": "nope", "arguments": {}})
        assert err(unknown) == p.INVALID_PARAMS and unknown["error"]["data"] == {"tool": "nope"}
        assert err(await c.call("tools/call", {"arguments": {}})) == p.INVALID_PARAMS
        assert err(await c.call("tools/call", {"name": "echo", "arguments": [1]})) == p.INVALID_PARAMS
        assert err(await c.call("tools/call", {"name": 3})) == p.INVALID_PARAMS
        assert err(await c.call("resources/list")) == p.METHOD_NOT_FOUND
        assert err(await c.call("tools/list", {"cursor": "bogus"})) == p.INVALID_PARAMS
        assert err(await c.call("logging/setLevel", {"level": "loud"})) == p.INVALID_PARAMS

    run(t)


def test_handler_outcomes() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize()

        async def call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
            return await c.call("tools/call", {"name": name, "arguments": args or {}})

        boom = (await call("echo", {"text": "boom"}))["result"]
        assert boom["isError"] is True and boom["content"][0]["text"] == "it went boom"
        assert boom["_meta"][p.META_TOOL_ERROR] == {"code": "boom", "data": {"why": "asked"}}
        blocks = (await call("blocks"))["result"]
        assert [b["text"] for b in blocks["content"]] == ["a", "b"] and "isError" not in blocks
        bad = await call("bad_output")
        assert err(bad) == p.INTERNAL_ERROR and "exploded" not in json.dumps(bad)
        crash = (await call("crash"))["result"]
        assert crash["isError"] is True and crash["_meta"][p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_INTERNAL
        assert "secret" not in json.dumps(crash) and "Traceback" not in json.dumps(crash)
        missing = (await call("missing"))["result"]
        assert missing["_meta"][p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_NOT_IMPLEMENTED
        sync = (await c.call("tools/call", {"name": "sync_echo", "arguments": {"text": "s"}, "_meta": {"progressToken": "tok"}}))
        assert sync["result"]["structuredContent"] == {"text": "s", "count": 1}
        assert [n["params"]["progress"] for n in c.notes if n["method"] == "notifications/progress"] == [1]
        srv.deny.add("blocks")
        denied = (await call("blocks"))["result"]
        assert denied["isError"] is True and denied["_meta"][p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_FORBIDDEN
        checked = (await call("schema_checked", {"text": "x" * 60}))["result"]
        assert checked["isError"] is True and "text" in checked["content"][0]["text"]
        assert (await call("schema_checked", {"text": "ok"}))["result"]["content"][0]["text"] == "ok"

    run(t)


def test_progress_and_logging_legacy() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize()
        await c.call("tools/call", {"name": "chatty", "arguments": {}, "_meta": {"progressToken": 7}})
        progress = [n["params"] for n in c.notes if n["method"] == "notifications/progress"]
        assert [(x["progressToken"], x["progress"], x["total"]) for x in progress] == [(7, 1, 3), (7, 2, 3)]
        logs = [n["params"]["level"] for n in c.notes if n["method"] == "notifications/message"]
        assert logs == ["debug", "error"]
        c.notes.clear()
        assert (await c.call("logging/setLevel", {"level": "warning"}))["result"] == {}
        await c.call("tools/call", {"name": "chatty", "arguments": {}})
        assert [n["params"]["level"] for n in c.notes if n["method"] == "notifications/message"] == ["error"]
        assert not [n for n in c.notes if n["method"] == "notifications/progress"]

    run(t)


def test_legacy_elicitation_and_roots_round_trip() -> None:
    async def responder(msg: dict[str, Any]) -> dict[str, Any]:
        if msg["method"] == "roots/list":
            return {"result": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}}
        assert msg["params"]["message"] == "Your name?"
        return {"result": {"action": "accept", "content": {"name": "Ada"}}}

    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize(caps={"elicitation": {}, "roots": {}})
        res = (await c.call("tools/call", {"name": "greet", "arguments": {}}))["result"]
        assert res["content"][0]["text"] == "hello Ada (accept)"
        res = (await c.call("tools/call", {"name": "roots", "arguments": {}}))["result"]
        assert res["content"][0]["text"] == "file:///a,file:///b"
        assert [r["method"] for r in c.server_requests] == ["elicitation/create", "roots/list"]

    run(t, responder=responder)


def test_legacy_elicitation_without_capability_is_tool_error() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize(caps={})
        res = (await c.call("tools/call", {"name": "greet", "arguments": {}}))["result"]
        assert res["isError"] is True
        assert res["_meta"][p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_INPUT_UNAVAILABLE

    run(t)


def test_batches_only_in_2025_03_26() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize(p.V2025_06_18)
        await c.peer.send([req(1, "ping")])
        msg = await c.peer.receive()
        assert msg["id"] is None and msg["error"]["code"] == p.INVALID_REQUEST
        await c.initialize(p.V2025_03_26)
        await c.peer.send([req(10, "ping"), req(11, "tools/list"), {"jsonrpc": "2.0", "method": "notifications/x"}, 5])
        batch = await c.peer.receive()
        assert isinstance(batch, list) and len(batch) == 3
        by_id = {m["id"]: m for m in batch}
        assert by_id[10]["result"] == {} and len(by_id[11]["result"]["tools"]) == len(srv.tool_defs)
        assert by_id[None]["error"]["code"] == p.INVALID_REQUEST
        await c.peer.send([])
        assert (await c.peer.receive())["error"]["code"] == p.INVALID_REQUEST

    run(t)


def test_pagination_signed_cursor() -> None:
    srv = DemoServer(ServerSettings(page_size=5))

    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize()
        names: list[str] = []
        cursor = None
        pages = 0
        while True:
            res = (await c.call("tools/list", {"cursor": cursor} if cursor else {}))["result"]
            names += [t["name"] for t in res["tools"]]
            pages += 1
            cursor = res.get("nextCursor")
            if cursor is None:
                break
            assert len(res["tools"]) == 5
        assert names == [t.name for t in srv.tool_defs] and pages == 3 and len(names) == 13
        forged = base64.urlsafe_b64encode(b'{"o":1}').rstrip(b"=").decode() + "." + cursor_sig(srv)
        assert err(await c.call("tools/list", {"cursor": forged})) == p.INVALID_PARAMS
        other = Signer("tools/list cursor", [state_key("other")], srv._cursors.audience).sign({"o": 1})
        assert err(await c.call("tools/list", {"cursor": other})) == p.INVALID_PARAMS
        assert err(await c.call("tools/list", {"cursor": ""})) == p.INVALID_PARAMS

    run(t, srv)


def cursor_sig(srv: DemoServer) -> str:
    token: str = srv._cursors.sign({"o": 5})
    return token.split(".")[1]


def test_enable_disable_notifies_initialized_legacy() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize()
        srv.disable_tool("echo")
        await asyncio.sleep(0.05)
        await c.call("ping")
        assert [n["method"] for n in c.notes] == ["notifications/tools/list_changed"]
        names = [t["name"] for t in (await c.call("tools/list"))["result"]["tools"]]
        assert "echo" not in names
        assert err(await c.call("tools/call", {"name": "echo", "arguments": {"text": "a"}})) == p.INVALID_PARAMS
        srv.enable_tool("echo")
        await asyncio.sleep(0.05)
        await c.call("ping")
        assert len(c.notes) == 2
        with pytest.raises(KeyError):
            srv.disable_tool("nope")

    run(t)


def test_cancellation_stops_handler_and_suppresses_response() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize()
        await c.peer.send(req(99, "tools/call", {"name": "slow", "arguments": {}}))
        await asyncio.wait_for(srv.slow_started.wait(), 2)
        await c.peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}})
        await asyncio.sleep(0.1)
        assert srv.slow_cancelled
        assert (await c.call("ping", id=100))["result"] == {}
        assert not [m for m in c.notes if m.get("id") == 99]

    run(t)


def test_call_timeout_and_rate_limit() -> None:
    settings = ServerSettings(call_timeout=0.2, rate_limit_per_second=0.001, rate_limit_burst=3)

    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize()
        res = (await c.call("tools/call", {"name": "slow", "arguments": {}}))["result"]
        assert res["isError"] is True and res["_meta"][p.META_TOOL_ERROR]["code"] == p.TOOL_ERROR_TIMEOUT
        codes = []
        for _ in range(3):
            r = (await c.call("tools/call", {"name": "blocks", "arguments": {}}))["result"]
            codes.append(r.get("_meta", {}).get(p.META_TOOL_ERROR, {}).get("code"))
        assert codes == [None, None, p.TOOL_ERROR_RATE_LIMITED]

    run(t, DemoServer(settings))


def test_string_and_depth_limits() -> None:
    settings = ServerSettings(max_string_length=100, max_depth=10)

    async def t(c: Client, srv: DemoServer) -> None:
        await c.initialize()
        assert err(await c.call("tools/call", {"name": "echo", "arguments": {"text": "x" * 101}})) == p.INVALID_REQUEST
        deep: Any = 1
        for _ in range(20):
            deep = [deep]
        assert err(await c.call("tools/call", {"name": "echo", "arguments": {"text": "a", "x": deep}})) == p.INVALID_REQUEST
        assert (await c.call("ping"))["result"] == {}

    run(t, DemoServer(settings))


def test_invalid_messages() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        for bad, expected_id in (
            ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, 1),
            ({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}, None),
            ({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": [1]}, 2),
            ("hello", None),
            ({"jsonrpc": "2.0", "id": 3, "method": 7}, 3),
        ):
            await c.peer.send(bad)
            msg = await c.peer.receive()
            assert msg == {"jsonrpc": "2.0", "id": expected_id, "error": {"code": p.INVALID_REQUEST, "message": "Invalid Request"}}

    run(t)


# -------------------------------------------------------------------- 2026 era
def test_modern_envelope_errors() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        assert err(await c.call("tools/list")) == p.INVALID_PARAMS
        assert err(await c.call("tools/list", {"_meta": {p.META_PROTOCOL_VERSION: p.V2026_07_28}})) == p.INVALID_PARAMS
        wrong = await c.call("tools/list", modern() | {"_meta": {**modern()["_meta"], p.META_PROTOCOL_VERSION: "2030-01-01"}})
        assert err(wrong) == p.UNSUPPORTED_VERSION
        assert wrong["error"]["data"]["requested"] == "2030-01-01"
        assert p.V2026_07_28 in wrong["error"]["data"]["supported"]
        for removed in ("ping", "logging/setLevel", "resources/list", "notifications/initialized"):
            assert err(await c.call(removed, modern({"level": "info"}))) == p.METHOD_NOT_FOUND
        bad_level = await c.call("tools/list", modern(**{p.META_LOG_LEVEL: "loud"}))
        assert err(bad_level) == p.INVALID_PARAMS

    run(t)


def test_modern_discover_list_call() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        disc = (await c.call("server/discover", modern()))["result"]
        assert_wire(p.V2026_07_28, "DiscoverResult", disc)
        assert disc["supportedVersions"] == [p.V2026_07_28]
        assert disc["_meta"][p.META_SERVER_INFO]["name"] == "demo"
        assert "serverInfo" not in disc
        listed = (await c.call("tools/list", modern()))["result"]
        assert_wire(p.V2026_07_28, "ListToolsResult", listed)
        assert listed["resultType"] == "complete" and listed["ttlMs"] == 60000 and listed["cacheScope"] == "public"
        assert "execution" not in listed["tools"][0] and "icons" in listed["tools"][0]
        res = (await c.call("tools/call", modern({"name": "echo", "arguments": {"text": "z"}})))["result"]
        assert_wire(p.V2026_07_28, "CallToolResult", res)
        assert res["structuredContent"] == {"text": "z", "count": 1}
        bad = (await c.call("tools/call", modern({"name": "echo", "arguments": {"text": 1}})))["result"]
        assert bad["isError"] is True and bad["resultType"] == "complete"
        # logging only with the per-request logLevel; progress with a token
        await c.call("tools/call", modern({"name": "chatty", "arguments": {}}, progressToken="p"))
        assert [n["params"]["progressToken"] for n in c.notes] == ["p", "p"]
        c.notes.clear()
        await c.call("tools/call", modern({"name": "chatty", "arguments": {}}, **{p.META_LOG_LEVEL: "error"}))
        assert [n["params"]["level"] for n in c.notes] == ["error"]

    run(t)


def test_mrtr_round_trip_and_state_checks() -> None:
    caps = {"elicitation": {}}

    async def t(c: Client, srv: DemoServer) -> None:
        first = (await c.call("tools/call", modern({"name": "greet", "arguments": {}}, caps)))["result"]
        assert_wire(p.V2026_07_28, "InputRequiredResult", first)
        assert first["resultType"] == "input_required"
        assert first["inputRequests"] == {"name": {"method": "elicitation/create", "params": dict(srv.tool_defs[6].inputs["name"].params)}}
        state = first["requestState"]
        answer = {"name": {"action": "accept", "content": {"name": "Grace"}}}
        done = (await c.call("tools/call", modern({"name": "greet", "arguments": {}, "inputResponses": answer, "requestState": state}, caps)))["result"]
        assert done["resultType"] == "complete" and done["content"][0]["text"] == "hello Grace (accept)"
        assert srv.runs["greet"] == 2
        # missing answer on retry: asked again
        again = (await c.call("tools/call", modern({"name": "greet", "arguments": {}, "requestState": state}, caps)))["result"]
        assert again["resultType"] == "input_required" and "name" in again["inputRequests"]
        # malformed answer content: asked again, not an error
        junk = {"name": {"action": "accept", "content": {"name": 3}}}
        again = (await c.call("tools/call", modern({"name": "greet", "arguments": {}, "inputResponses": junk, "requestState": state}, caps)))["result"]
        assert again["resultType"] == "input_required"
        # tampered, cross-tool, other arguments, garbage
        body, sig = state.split(".")
        tampered = body[:-2] + ("A" if body[-2] != "A" else "B") + body[-1] + "." + sig
        for bad_params in (
            {"name": "greet", "arguments": {}, "inputResponses": answer, "requestState": tampered},
            {"name": "two_questions", "arguments": {}, "inputResponses": answer, "requestState": state},
            {"name": "greet", "arguments": {"x": 1}, "inputResponses": answer, "requestState": state},
            {"name": "greet", "arguments": {}, "inputResponses": answer, "requestState": "x.y"},
            {"name": "greet", "arguments": {}, "inputResponses": {"name": 5}, "requestState": state},
        ):
            assert err(await c.call("tools/call", modern(bad_params, caps))) == p.INVALID_PARAMS
        # a decline
        decline = {"name": {"action": "decline"}}
        res = (await c.call("tools/call", modern({"name": "greet", "arguments": {}, "inputResponses": decline, "requestState": state}, caps)))["result"]
        assert res["content"][0]["text"] == "hello nobody (decline)"

    run(t)


def test_mrtr_multi_round_keeps_earlier_answers() -> None:
    caps = {"elicitation": {"form": {}}}

    async def t(c: Client, srv: DemoServer) -> None:
        r1 = (await c.call("tools/call", modern({"name": "two_questions", "arguments": {}}, caps)))["result"]
        assert list(r1["inputRequests"]) == ["elicit-1"]
        a1 = {"elicit-1": {"action": "accept", "content": {"a": "A"}}}
        r2 = (await c.call("tools/call", modern({"name": "two_questions", "arguments": {}, "inputResponses": a1, "requestState": r1["requestState"]}, caps)))["result"]
        assert list(r2["inputRequests"]) == ["elicit-2"]
        a2 = {"elicit-2": {"action": "accept", "content": {"b": "B"}}}
        r3 = (await c.call("tools/call", modern({"name": "two_questions", "arguments": {}, "inputResponses": a2, "requestState": r2["requestState"]}, caps)))["result"]
        assert r3["content"][0]["text"] == "A+B"

    run(t)


def test_mrtr_expired_state(monkeypatch: pytest.MonkeyPatch) -> None:
    srv = DemoServer(ServerSettings(request_state_ttl=-5))

    async def t(c: Client, srv: DemoServer) -> None:
        caps = {"elicitation": {}}
        first = (await c.call("tools/call", modern({"name": "greet", "arguments": {}}, caps)))["result"]
        answer = {"name": {"action": "accept", "content": {"name": "G"}}}
        resp = await c.call("tools/call", modern({"name": "greet", "arguments": {}, "inputResponses": answer, "requestState": first["requestState"]}, caps))
        assert err(resp) == p.INVALID_PARAMS and "Expired" in resp["error"]["message"]

    run(t, srv)


def test_mrtr_missing_capability() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        resp = await c.call("tools/call", modern({"name": "greet", "arguments": {}}, {}))
        assert err(resp) == p.MISSING_CAPABILITY
        assert resp["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}
        resp = await c.call("tools/call", modern({"name": "greet", "arguments": {}}, {"elicitation": {"url": {}}}))
        assert err(resp) == p.MISSING_CAPABILITY
        resp = await c.call("tools/call", modern({"name": "roots", "arguments": {}}, {"elicitation": {}}))
        assert resp["error"]["data"] == {"requiredCapabilities": {"roots": {}}}
        ok = (await c.call("tools/call", modern({"name": "roots", "arguments": {}}, {"roots": {}})))["result"]
        assert ok["inputRequests"] == {"roots-1": {"method": "roots/list"}}

    run(t)


def test_listen_subscription_and_list_changed() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.peer.send(req("L1", "subscriptions/listen", modern({"notifications": {"toolsListChanged": True, "promptsListChanged": True}})))
        ack = await c.peer.receive()
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"] == {"_meta": {p.META_SUBSCRIPTION_ID: "L1"}, "notifications": {"toolsListChanged": True}}
        srv.disable_tool("slow")
        note = await asyncio.wait_for(c.peer.receive(), 2)
        assert note == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {p.META_SUBSCRIPTION_ID: "L1"}}}
        # a legacy connection that never initialized gets nothing; stateless requests still work
        assert (await c.call("tools/list", modern()))["result"]["resultType"] == "complete"
        srv.close_subscriptions()
        final = await asyncio.wait_for(c.wait("L1"), 2)
        assert final["result"]["resultType"] == "complete"
        assert final["result"]["_meta"][p.META_SUBSCRIPTION_ID] == "L1"

    run(t)


def test_listen_cancel_sends_nothing_more() -> None:
    async def t(c: Client, srv: DemoServer) -> None:
        await c.peer.send(req(5, "subscriptions/listen", modern({"notifications": {"toolsListChanged": True}})))
        assert (await c.peer.receive())["method"] == "notifications/subscriptions/acknowledged"
        await c.peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
        await asyncio.sleep(0.05)
        srv.disable_tool("slow")
        assert (await c.call("tools/list", modern(), id=6))["id"] == 6
        assert c.notes == []

    run(t)


def test_settings_validation() -> None:
    with pytest.raises(ValueError):
        ServerSettings(page_size=0)
    s = dataclasses.replace(ServerSettings(), page_size=3)
    assert s.page_size == 3


def test_line_buffer_limits() -> None:
    buf = jsonrpc.LineBuffer(10)
    assert buf.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    out = buf.feed(b':2}' + b"x" * 20)
    assert out == [jsonrpc.OVERSIZE]
    assert buf.feed(b"yyy\n[1]\n\n") == [b"[1]"]
    assert buf.feed(b"tail") == [] and buf.flush() == [b"tail"]


def test_sampling_both_eras() -> None:
    async def responder(msg: dict[str, Any]) -> dict[str, Any]:
        assert msg["method"] == "sampling/createMessage" and msg["params"]["maxTokens"] == 10
        return {"result": {"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m"}}

    async def t(c: Client, srv: DemoServer) -> None:
        caps = {"sampling": {}}
        first = (await c.call("tools/call", modern({"name": "ask_llm", "arguments": {}}, caps)))["result"]
        assert first["inputRequests"]["sample-1"]["method"] == "sampling/createMessage"
        answer = {"sample-1": {"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m"}}
        done = await c.call("tools/call", modern({"name": "ask_llm", "arguments": {}, "inputResponses": answer, "requestState": first["requestState"]}, caps))
        assert done["result"]["content"][0]["text"] == "4"
        await c.initialize(caps=caps)
        legacy = (await c.call("tools/call", {"name": "ask_llm", "arguments": {}}))["result"]
        assert legacy["content"][0]["text"] == "4" and len(c.server_requests) == 1
        # a client error answer becomes an isError result
        c.responder = _refuse
        refused = (await c.call("tools/call", {"name": "ask_llm", "arguments": {}}))["result"]
        assert refused["isError"] is True and "refused" in refused["content"][0]["text"]

    run(t, responder=responder)


async def _refuse(msg: dict[str, Any]) -> dict[str, Any]:
    return {"error": {"code": -1, "message": "user said no"}}
