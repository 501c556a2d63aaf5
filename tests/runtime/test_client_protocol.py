"""Client runtime against a scripted in-memory server: the protocol rules, precisely."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from typing import Any

import pytest
from client_fakes import MODERN_KEYS, Ctx, FakeServer, NoAnswer, RpcError, run
from mcp_codegen_runtime.client.types import (
    AuditRecord,
    ElicitationRequest,
    ElicitationResponse,
    Progress,
    Root,
    ToolCallInfo,
)
from mcp_codegen_runtime.wire import errors as E
from mcp_codegen_runtime.wire import protocol as p
from mcp_codegen_runtime.wire.tools import ToolDef, tool_fingerprint
from pydantic import BaseModel, ConfigDict, RootModel
from weather.client import WeatherClient
from weather.errors import UnknownLocationError
from weather.models import GetWeatherOutput


class AnyArgs(BaseModel):
    model_config = ConfigDict(extra="allow")


DELETE_CITY = ToolDef(
    name="delete_city",
    method="delete_city",
    wire={"name": "delete_city", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": True}},
    input_model=AnyArgs,
)
WRITE_NOTE = ToolDef(
    name="write_note",
    method="write_note",
    wire={
        "name": "write_note",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
    },
    input_model=AnyArgs,
)


class Client(WeatherClient):
    tool_defs = WeatherClient.tool_defs + (DELETE_CITY, WRITE_NOTE)


GET_WEATHER = next(t for t in WeatherClient.tool_defs if t.name == "get_weather")
#: What the weather client always declares: get_forecast links an MCP Apps view (docs/apps.md).
UI_CAPS = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}


def ok(structured: Any = None, text: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text or json.dumps(structured)}]}
    if structured is not None:
        result["structuredContent"] = structured
    return result


PARIS = {"temperature": 18.0, "conditions": "sunny", "unit": "celsius"}


def client(server: FakeServer, **kw: Any) -> Client:
    kw.setdefault("audit", None)
    return Client.in_process(server, **kw)


# -- era negotiation ---------------------------------------------------------------------------


def test_modern_probe_and_meta_on_every_request() -> None:
    server = FakeServer(on_call=lambda ctx: _async(ok(PARIS)))

    async def main() -> None:
        async with client(server, elicitation=lambda r: ElicitationResponse(action="decline")) as c:
            assert c.era == "modern" and c.protocol_version == "2026-07-28"
            assert c.server_identity == {"name": "fake", "version": "1"}
            assert c.instructions == "fake"
            await c.list_tools()
            out = await c.get_weather(location="Paris")
            assert out == GetWeatherOutput.model_validate(PARIS)

    run(main())
    methods = [m["method"] for m in server.requests()]
    assert methods == ["server/discover", "tools/list", "tools/call"]
    for req in server.requests():
        meta = req["params"]["_meta"]
        assert all(k in meta for k in MODERN_KEYS)
        assert meta[p.META_PROTOCOL_VERSION] == "2026-07-28"
        # capabilities only for the handlers given
        assert meta[p.META_CLIENT_CAPABILITIES] == {"elicitation": {}, **UI_CAPS}
        assert meta[p.META_CLIENT_INFO]["name"] == "weather-client"
    call = server.requests("tools/call")[0]["params"]
    assert call["name"] == "get_weather" and call["arguments"] == {"location": "Paris"}
    assert not server.requests("initialize")


def test_no_capabilities_without_handlers() -> None:
    server = FakeServer()

    async def main() -> None:
        async with client(server):
            pass

    run(main())
    assert server.requests()[0]["params"]["_meta"][p.META_CLIENT_CAPABILITIES] == UI_CAPS


def test_fallback_to_initialize_on_method_not_found() -> None:
    server = FakeServer(modern=False)

    async def main() -> None:
        async with client(server, roots=[Root(uri="file:///tmp", name="tmp")]) as c:
            assert c.era == "legacy" and c.protocol_version == p.LATEST_LEGACY
            assert c.server_identity["name"] == "fake-legacy"
            await c.list_tools()

    run(main())
    methods = [m["method"] for m in server.received if "method" in m]
    assert methods[:3] == ["server/discover", "initialize", "notifications/initialized"]
    init = server.requests("initialize")[0]["params"]
    assert init["capabilities"] == {"roots": {}, **UI_CAPS}
    assert init["protocolVersion"] == "2025-11-25"
    listing = server.requests("tools/list")[0]
    assert p.META_PROTOCOL_VERSION not in (listing.get("params") or {}).get("_meta", {})


def test_fallback_on_probe_timeout() -> None:
    server = FakeServer(modern=False, silent_discover=True)

    async def main() -> None:
        async with client(server, probe_timeout=0.2) as c:
            assert c.era == "legacy"

    run(main())


def test_unsupported_version_with_only_legacy_versions_goes_legacy() -> None:
    async def discover(ctx: Ctx) -> dict[str, Any]:
        raise RpcError(-32022, "Unsupported protocol version", {"supported": ["2025-06-18"], "requested": "2026-07-28"})

    server = FakeServer(discover=discover, legacy_version=None)

    async def main() -> None:
        async with client(server) as c:
            assert (c.era, c.protocol_version) == ("legacy", "2025-06-18")

    run(main())
    assert server.requests("initialize")[0]["params"]["protocolVersion"] == "2025-06-18"


def test_forced_modern_does_not_fall_back() -> None:
    server = FakeServer(modern=False)

    async def main() -> None:
        with pytest.raises(E.MethodNotFoundError):
            async with client(server, era="modern"):
                pass

    run(main())
    assert not server.requests("initialize")


def test_recognised_modern_error_is_not_a_fallback() -> None:
    async def discover(ctx: Ctx) -> dict[str, Any]:
        raise RpcError(-32020, "header mismatch")

    server = FakeServer(discover=discover)

    async def main() -> None:
        with pytest.raises(E.HeaderMismatchError):
            async with client(server):
                pass

    run(main())
    assert not server.requests("initialize")


def test_forced_legacy_version() -> None:
    server = FakeServer()

    async def main() -> None:
        async with client(server, protocol_version="2025-03-26") as c:
            assert (c.era, c.protocol_version) == ("legacy", "2025-03-26")

    run(main())
    assert [m["method"] for m in server.requests()] == ["initialize"]


def test_initialize_counter_offer_unknown_version_fails() -> None:
    server = FakeServer(modern=False, legacy_version="2023-01-01")

    async def main() -> None:
        with pytest.raises(E.UnsupportedProtocolVersionError, match="2024-11-05"):  # names what it speaks
            async with client(server):
                pass

    run(main())


def test_initialize_counter_offer_2024_11_05_is_accepted() -> None:
    server = FakeServer(modern=False, legacy_version="2024-11-05")

    async def main() -> None:
        async with client(server) as c:
            assert (c.era, c.protocol_version) == ("legacy", "2024-11-05")

    run(main())


# -- tools/list ---------------------------------------------------------------------------------


def _tools(n: int) -> list[dict[str, Any]]:
    return [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(n)]


def test_list_tools_follows_every_page() -> None:
    server = FakeServer(tools=_tools(5), page_size=2)

    async def main() -> list[Any]:
        async with client(server) as c:
            return await c.list_tools()

    tools = run(main())
    assert [t.name for t in tools] == ["t0", "t1", "t2", "t3", "t4"]
    cursors = [(r["params"] or {}).get("cursor") for r in server.requests("tools/list")]
    assert cursors == [None, "2", "4"]


def test_list_tools_cache_honours_ttl_and_list_changed() -> None:
    server = FakeServer(tools=_tools(3), page_size=2, ttl_ms=60_000)

    async def main() -> None:
        async with client(server) as c:
            await c.list_tools()
            await c.list_tools()
            assert len(server.requests("tools/list")) == 2  # both pages cached
            await server.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            await asyncio.sleep(0.05)
            await c.list_tools()
            assert len(server.requests("tools/list")) == 4
            await c.list_tools(refresh=True)
            assert len(server.requests("tools/list")) == 6

    run(main())


def test_list_tools_ttl_zero_is_not_cached() -> None:
    server = FakeServer(tools=_tools(1), ttl_ms=0)

    async def main() -> None:
        async with client(server) as c:
            await c.list_tools()
            await c.list_tools()

    run(main())
    assert len(server.requests("tools/list")) == 2


def test_list_tools_repeated_cursor_is_an_error() -> None:
    server = FakeServer(tools=_tools(3), page_size=1)

    async def main() -> None:
        async with client(server) as c:
            server.page_size = 1
            orig = server._dispatch

            async def looping(method: str, ctx: Ctx) -> dict[str, Any]:
                if method == "tools/list":
                    return {"tools": [], "nextCursor": "same", "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
                return await orig(method, ctx)

            server._dispatch = looping  # type: ignore[method-assign]
            with pytest.raises(E.ProtocolError, match="repeats a cursor"):
                await c.list_tools()

    run(main())


# -- MRTR (2026 input_required) -------------------------------------------------------------------

STATE = "  opaque \u00e9tat  with spaces\n and \"quotes\"\t\n"


def test_input_required_loop_new_ids_exact_state_and_all_requests_fulfilled() -> None:
    rounds: list[dict[str, Any]] = []

    async def on_call(ctx: Ctx) -> dict[str, Any]:
        rounds.append(ctx.message)
        n = len(rounds)
        if n == 1:
            return {
                "resultType": "input_required",
                "inputRequests": {
                    "unit": {
                        "method": "elicitation/create",
                        "params": {
                            "message": "Which temperature unit?",
                            "requestedSchema": {"type": "object", "properties": {"unit": {"type": "string"}}},
                        },
                    },
                    "where": {"method": "roots/list"},
                    "llm": {
                        "method": "sampling/createMessage",
                        "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5},
                    },
                },
                "requestState": STATE,
            }
        if n == 2:  # another round, without requestState this time
            return {
                "resultType": "input_required",
                "inputRequests": {"again": {"method": "roots/list"}},
            }
        return {"resultType": "complete", **ok(PARIS)}

    seen: list[ElicitationRequest] = []

    def elicit(req: ElicitationRequest) -> ElicitationResponse:
        seen.append(req)
        return ElicitationResponse(action="accept", content={"unit": "celsius"})

    async def sample(req: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}

    records: list[AuditRecord] = []
    server = FakeServer(on_call=on_call)

    async def main() -> GetWeatherOutput:
        async with Client.in_process(
            server, elicitation=elicit, sampling=sample, roots=[Root(uri="file:///w")], audit=records.append
        ) as c:
            return await c.get_weather(location="Paris")

    assert run(main()) == GetWeatherOutput.model_validate(PARIS)
    assert len(rounds) == 3
    ids = [r["id"] for r in rounds]
    assert len(set(ids)) == 3
    first, second, third = (r["params"] for r in rounds)
    for params in (first, second, third):
        assert params["name"] == "get_weather" and params["arguments"] == {"location": "Paris"}
        assert all(k in params["_meta"] for k in MODERN_KEYS)
        assert params["_meta"][p.META_CLIENT_CAPABILITIES] == {"elicitation": {}, "sampling": {}, "roots": {}, **UI_CAPS}
    assert "requestState" not in first and "inputResponses" not in first
    assert second["requestState"] == STATE
    assert second["inputResponses"] == {
        "unit": {"action": "accept", "content": {"unit": "celsius"}},
        "where": {"roots": [{"uri": "file:///w"}]},
        "llm": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"},
    }
    assert "requestState" not in third
    assert third["inputResponses"] == {"again": {"roots": [{"uri": "file:///w"}]}}
    # the handler learnt which tool and which declared input asked
    assert seen[0].tool == "get_weather" and seen[0].key == "unit"
    assert seen[0].input_def is GET_WEATHER.inputs["unit"]
    assert records[-1].rounds == 3 and records[-1].outcome == "ok"


def test_input_required_rounds_are_bounded() -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        return {"resultType": "input_required", "requestState": "again"}

    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server, max_input_rounds=3) as c:
            with pytest.raises(E.InputRequiredLoopError):
                await c.call_tool("echo", {})

    run(main())
    assert len(server.requests("tools/call")) == 3


def test_input_request_without_handler_fails_clearly() -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        return {"resultType": "input_required", "inputRequests": {"k": {"method": "elicitation/create", "params": {"message": "?"}}}}

    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server) as c:
            with pytest.raises(E.MethodNotFoundError):
                await c.call_tool("echo", {})

    run(main())
    assert len(server.requests("tools/call")) == 1


def test_result_type_missing_is_complete_unknown_is_invalid() -> None:
    answers = [ok(text="plain"), {"resultType": "weird", "content": []}]

    async def on_call(ctx: Ctx) -> dict[str, Any]:
        return answers.pop(0)

    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server) as c:
            assert (await c.call_tool("echo", {})).text() == "plain"
            with pytest.raises(E.ProtocolError, match="unknown resultType"):
                await c.call_tool("echo", {})

    run(main())


# -- legacy server->client requests ----------------------------------------------------------------


def test_legacy_server_requests_are_answered_by_handlers() -> None:
    replies: dict[str, Any] = {}

    async def on_call(ctx: Ctx) -> dict[str, Any]:
        replies["ping"] = await ctx.request("ping")
        replies["elicit"] = await ctx.request(
            "elicitation/create", {"message": "Which temperature unit?", "requestedSchema": {"type": "object"}}
        )
        replies["roots"] = await ctx.request("roots/list")
        replies["sampling"] = await ctx.request("sampling/createMessage", {"messages": [], "maxTokens": 1})
        return ok(PARIS)

    seen: list[ElicitationRequest] = []

    async def elicit(req: ElicitationRequest) -> ElicitationResponse:
        seen.append(req)
        return ElicitationResponse(action="accept", content={"unit": "fahrenheit"})

    server = FakeServer(modern=False, on_call=on_call)

    async def main() -> None:
        async with client(server, elicitation=elicit, roots=lambda: [Root(uri="file:///r", name="r")]) as c:
            assert c.era == "legacy"
            await c.get_weather(location="Paris")

    run(main())
    assert replies["ping"]["result"] == {}
    assert replies["elicit"]["result"] == {"action": "accept", "content": {"unit": "fahrenheit"}}
    assert replies["roots"]["result"] == {"roots": [{"uri": "file:///r", "name": "r"}]}
    assert replies["sampling"]["error"]["code"] == -32601  # no sampling handler
    assert seen[0].tool == "get_weather" and seen[0].key == "unit"  # matched the declared input


# -- error mapping ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (-32700, E.ParseError),
        (-32600, E.InvalidRequestError),
        (-32601, E.MethodNotFoundError),
        (-32602, E.InvalidParamsError),
        (-32603, E.InternalError),
        (-32002, E.ResourceNotFoundError),
        (-32042, E.UrlElicitationRequiredError),
        (-32020, E.HeaderMismatchError),
        (-32021, E.MissingCapabilityError),
        (-32022, E.UnsupportedProtocolVersionError),
        (-31999, E.ProtocolError),
    ],
)
def test_every_jsonrpc_code_maps_to_its_class(code: int, cls: type[E.ProtocolError]) -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        raise RpcError(code, "nope", {"x": 1})

    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server) as c:
            with pytest.raises(cls) as info:
                await c.call_raw("echo", {"a": 1})
            assert type(info.value) is cls
            assert info.value.code == code and info.value.data == {"x": 1}

    run(main())


def test_invalid_params_classification() -> None:
    answers = [
        RpcError(-32602, "Unknown tool: nope"),
        RpcError(-32602, "Tool nope not found"),
        RpcError(-32602, "Invalid arguments for tool get_weather: location: required"),
        RpcError(-32602, "weird cursor"),
    ]

    async def on_call(ctx: Ctx) -> dict[str, Any]:
        raise answers.pop(0)

    server = FakeServer(modern=False, on_call=on_call)

    async def main() -> None:
        async with client(server) as c:
            with pytest.raises(E.UnknownToolError):
                await c.call_tool("nope", {})
            with pytest.raises(E.UnknownToolError):
                await c.call_tool("nope", {})
            with pytest.raises(E.InvalidArgumentsError) as info:
                await c.call_tool("get_weather", {})
            assert info.value.code == -32602
            with pytest.raises(E.InvalidParamsError) as info2:
                await c.call_tool("echo", {})
            assert type(info2.value) is E.InvalidParamsError

    run(main())


def test_legacy_invalid_params_on_locally_invalid_args_is_invalid_arguments() -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        raise RpcError(-32602, "bad request")

    server = FakeServer(modern=False, on_call=on_call)

    async def main() -> None:
        async with client(server) as c:
            with pytest.raises(E.InvalidArgumentsError):
                await c.call_tool("get_weather", {"location": ""})  # minLength 1

    run(main())


def _error_result(meta: dict[str, Any] | None, text: str = "failed") -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": True}
    if meta is not None:
        result["_meta"] = meta
    return result


def test_is_error_results_map_to_declared_and_generic_errors() -> None:
    answers = [
        _error_result({p.META_TOOL_ERROR: {"code": "unknown_location", "data": {"location": "X"}}}, "no X"),
        _error_result({p.META_TOOL_ERROR: {"code": "mcp-codegen.invalid_arguments", "data": {"errors": []}}}),
        _error_result({p.META_TOOL_ERROR: {"code": "something_else"}}),
        _error_result(None, "boom"),
        _error_result(None, "Unknown tool: get_weather"),
    ]

    async def on_call(ctx: Ctx) -> dict[str, Any]:
        return answers.pop(0)

    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server) as c:
            with pytest.raises(UnknownLocationError) as declared:
                await c.get_weather(location="X")
            assert declared.value.data == {"location": "X"}
            assert declared.value.message == "no X"
            assert declared.value.result is not None and declared.value.result["isError"] is True
            with pytest.raises(E.InvalidArgumentsError):
                await c.get_weather(location="X")
            with pytest.raises(E.ToolExecutionError) as other:
                await c.get_weather(location="X")
            assert type(other.value) is E.ToolExecutionError
            with pytest.raises(E.ToolExecutionError, match="boom"):
                await c.get_weather(location="X")
            with pytest.raises(E.UnknownToolError):
                await c.get_weather(location="X")

    run(main())


def test_call_raw_returns_is_error_results() -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        return {**_error_result(None, "bad"), "resultType": "complete", "extraField": 7}

    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server) as c:
            result = await c.call_raw("echo", {})
            assert result.isError and result.text() == "bad"
            assert result.model_dump(by_alias=True)["extraField"] == 7

    run(main())


# -- structured output ----------------------------------------------------------------------------


def test_structured_output_variants() -> None:
    answers = [
        {"content": [], "structuredContent": {"result": PARIS}},  # SDK-style wrapping
        ok(text=json.dumps(PARIS)),  # no structuredContent: JSON text block
        ok({"temperature": "hot", "conditions": "x", "unit": "kelvin"}),  # breaks the model
        {"content": [{"type": "text", "text": "not json"}]},
    ]

    async def on_call(ctx: Ctx) -> dict[str, Any]:
        return answers.pop(0)

    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server) as c:
            assert await c.get_weather(location="a") == GetWeatherOutput.model_validate(PARIS)
            assert await c.get_weather(location="a") == GetWeatherOutput.model_validate(PARIS)
            with pytest.raises(E.OutputValidationError) as info:
                await c.get_weather(location="a")
            # the client's own check names the fields and why, never the values (those stay in .result)
            assert [(e.path, e.message) for e in info.value.errors] == [
                ("temperature", "Input should be a valid number, unable to parse string as a number"),
                ("unit", "Input should be 'celsius' or 'fahrenheit'")]
            assert "temperature: Input should be a valid number" in str(info.value)
            for shown in (str(info.value), json.dumps(info.value.data)):
                assert "kelvin" not in shown and "hot" not in shown
            assert info.value.result is not None and info.value.result["structuredContent"]["unit"] == "kelvin"
            with pytest.raises(E.OutputValidationError):
                await c.get_weather(location="a")

    run(main())


class Counts(RootModel[list[int]]):
    pass


COUNT = ToolDef(
    name="count",
    method="count",
    wire={"name": "count", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array", "items": {"type": "integer"}}},
    input_model=AnyArgs,
    output_model=Counts,
)


def test_non_object_output_wrapped_in_result() -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        return {"content": [], "structuredContent": {"result": [1, 2, 3]}}

    server = FakeServer(on_call=on_call)

    async def main() -> Counts:
        async with client(server) as c:
            return await c._call_structured(COUNT, {"n": 3}, Counts)

    assert run(main()).root == [1, 2, 3]


# -- timeouts, progress, transport loss ----------------------------------------------------------------


def test_idle_timeout_cancels_on_the_wire() -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        raise NoAnswer

    records: list[AuditRecord] = []
    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server, timeout=0.2, audit=records.append) as c:
            with pytest.raises(E.McpTimeoutError) as info:
                await c.call_tool("echo", {})
            assert info.value.data["hard"] is False
            await asyncio.sleep(0.05)

    run(main())
    call_id = server.requests("tools/call")[0]["id"]
    cancels = server.notifications("notifications/cancelled")
    assert [n["params"]["requestId"] for n in cancels] == [call_id]
    assert records[0].outcome == "timeout"


def test_progress_extends_idle_timeout_but_not_the_hard_maximum() -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        token = ctx.params["_meta"]["progressToken"]
        for i in range(100):
            await asyncio.sleep(0.05)
            await ctx.notify("notifications/progress", {"progressToken": token, "progress": i + 1, "total": 100})
            if ctx.params["arguments"].get("steps") == i + 1:
                return ok(text="done")
        return ok(text="done")

    server = FakeServer(on_call=on_call)
    seen: list[Progress] = []

    async def main() -> None:
        async with client(server, timeout=0.2, max_timeout=0.8) as c:
            # 8 x 50 ms = 0.4 s > idle timeout, fine because progress keeps arriving
            result = await c.call_tool("echo", {"steps": 8}, progress=seen.append)
            assert result.text() == "done"
            loop = asyncio.get_running_loop()
            start = loop.time()
            with pytest.raises(E.McpTimeoutError) as info:
                await c.call_tool("echo", {"steps": 1000})
            assert info.value.data["hard"] is True
            assert 0.7 <= loop.time() - start < 1.5

    run(main())
    assert [s.progress for s in seen] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert seen[0].total == 100


def test_transport_loss_fails_pending_requests() -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        raise NoAnswer

    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server, timeout=10) as c:
            calls = [asyncio.create_task(c.call_tool("echo", {"i": i})) for i in range(3)]
            await asyncio.sleep(0.1)
            server.crash.set()
            results = await asyncio.gather(*calls, return_exceptions=True)
            assert all(isinstance(r, E.TransportClosedError) for r in results), results
            with pytest.raises(E.TransportClosedError):
                await c.call_tool("echo", {})

    run(main())


# -- confirm and audit hooks ------------------------------------------------------------------------


def test_confirm_hook_denial_sends_nothing() -> None:
    shown: list[ToolCallInfo] = []

    def deny(info: ToolCallInfo) -> bool:
        shown.append(info)
        return False

    records: list[AuditRecord] = []
    server = FakeServer()

    async def main() -> None:
        async with client(server, confirm=deny, audit=records.append) as c:
            with pytest.raises(E.ConfirmationDeniedError):
                await c.call_tool("delete_city", {"name": "Paris"})
            with pytest.raises(E.ConfirmationDeniedError):
                await c.call_raw("write_note", {"text": "x"})
            with pytest.raises(E.ConfirmationDeniedError):
                await c.call_raw("not_generated", {})
            await c.get_weather(location="Paris", unit="celsius")  # read-only: not asked

    server.on_call = lambda ctx: _async(ok(PARIS))
    run(main())
    assert [(i.tool, i.reason) for i in shown] == [
        ("delete_city", "destructive"),
        ("write_note", "not read-only"),
        ("not_generated", "unknown tool"),
    ]
    assert shown[0].arguments == {"name": "Paris"} and shown[0].tool_def is DELETE_CITY
    assert [r["params"]["name"] for r in server.requests("tools/call")] == ["get_weather"]
    assert [r.outcome for r in records] == ["denied", "denied", "denied", "ok"]


def test_confirm_hook_approval_sends_the_call() -> None:
    async def approve(info: ToolCallInfo) -> bool:
        return info.tool == "delete_city"

    server = FakeServer()

    async def main() -> None:
        async with client(server, confirm=approve) as c:
            await c.call_tool("delete_city", {"name": "Paris"})

    run(main())
    assert server.requests("tools/call")[0]["params"]["arguments"] == {"name": "Paris"}


def test_audit_hook_records_digest_outcome_and_duration() -> None:
    answers = [ok(PARIS), _error_result({p.META_TOOL_ERROR: {"code": "unknown_location"}})]

    async def on_call(ctx: Ctx) -> dict[str, Any]:
        return answers.pop(0)

    records: list[AuditRecord] = []

    async def audit(record: AuditRecord) -> None:
        records.append(record)

    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server, audit=audit) as c:
            await c.get_weather(location="Paris", unit="celsius")
            with pytest.raises(UnknownLocationError):
                await c.get_weather(location="Nowhere")

    run(main())
    digest = hashlib.sha256(b'{"location":"Paris","unit":"celsius"}').hexdigest()
    assert records[0].tool == "get_weather" and records[0].arguments_sha256 == digest
    assert records[0].outcome == "ok" and records[0].error is None and records[0].duration_s >= 0
    assert (records[0].era, records[0].protocol_version, records[0].server) == ("modern", "2026-07-28", "fake")
    assert records[1].outcome == "tool_error" and records[1].error == "UnknownLocationError"
    assert records[1].error_code == "unknown_location"


def test_default_audit_hook_logs(caplog: pytest.LogCaptureFixture) -> None:
    server = FakeServer()

    async def main() -> None:
        async with Client.in_process(server) as c:
            await c.call_tool("echo", {"a": 1})

    with caplog.at_level(logging.INFO, logger="mcp_codegen.client.audit"):
        run(main())
    lines = [r.getMessage() for r in caplog.records if r.name == "mcp_codegen.client.audit"]
    assert len(lines) == 1 and "tool=echo outcome=ok" in lines[0]
    assert hashlib.sha256(b'{"a":1}').hexdigest() in lines[0]


# -- check_compat ---------------------------------------------------------------------------------


def test_check_compat_reports_added_removed_changed() -> None:
    weather = next(t for t in WeatherClient.tool_defs if t.name == "get_weather")
    changed_forecast = {"name": "get_forecast", "inputSchema": {"type": "object", "properties": {}}}
    server = FakeServer(tools=[dict(weather.wire), changed_forecast, {"name": "extra", "inputSchema": {"type": "object"}}])

    async def main() -> Any:
        async with client(server) as c:
            return await c.check_compat()

    report = run(main())
    assert report.added == ("extra",)
    assert report.removed == ("delete_city", "write_note")
    assert [(ch.name, ch.fields) for ch in report.changed] == [("get_forecast", ("inputSchema",))]
    assert report.unchanged == ("get_weather",)
    assert not report.compatible
    assert weather.fingerprint == tool_fingerprint(weather.wire)


async def _async(value: Any) -> Any:
    return value


def test_cancelling_a_call_cancels_it_on_the_wire() -> None:
    async def on_call(ctx: Ctx) -> dict[str, Any]:
        raise NoAnswer

    records: list[AuditRecord] = []
    server = FakeServer(on_call=on_call)

    async def main() -> None:
        async with client(server, audit=records.append) as c:
            task = asyncio.create_task(c.call_tool("echo", {}))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await asyncio.sleep(0.05)

    run(main())
    call_id = server.requests("tools/call")[0]["id"]
    assert [n["params"]["requestId"] for n in server.notifications("notifications/cancelled")] == [call_id]
    assert records[0].outcome == "cancelled"


def test_watch_tools_opens_and_closes_a_listen_stream() -> None:
    async def listen_forever(method: str, ctx: Ctx) -> dict[str, Any]:
        if method == "subscriptions/listen":
            raise NoAnswer
        return await orig(method, ctx)

    server = FakeServer()
    orig = server._dispatch
    server._dispatch = listen_forever  # type: ignore[method-assign]

    async def main() -> None:
        async with client(server, watch_tools=True):
            await asyncio.sleep(0.05)

    run(main())
    listen = server.requests("subscriptions/listen")
    assert len(listen) == 1
    assert listen[0]["params"]["notifications"] == {"toolsListChanged": True}
    assert all(k in listen[0]["params"]["_meta"] for k in MODERN_KEYS)
    cancels = server.notifications("notifications/cancelled")
    assert [n["params"]["requestId"] for n in cancels] == [listen[0]["id"]]


def _http_era_probe(discover_status: int) -> tuple[str, list[str]]:
    """Era seen by an HTTP client whose server answers server/discover with ``discover_status``
    and JSON-RPC -32601 (then answers initialize and tools/call either way)."""
    import httpx

    methods: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        msg = json.loads(request.content)
        method = msg.get("method")
        methods.append(method)
        if "id" not in msg:
            return httpx.Response(202)
        if method == "server/discover":
            error = {"code": p.METHOD_NOT_FOUND, "message": "Method not found"}
            return httpx.Response(discover_status, json={"jsonrpc": "2.0", "id": msg["id"], "error": error})
        if method == "initialize":
            result: dict[str, Any] = {"protocolVersion": p.LATEST_LEGACY, "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "legacy", "version": "1"}}
        else:
            result = {**ok(PARIS), "resultType": "complete"}
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": msg["id"], "result": result})

    async def main() -> str:
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        try:
            async with WeatherClient.http("http://127.0.0.1:1/mcp", http_client=http, audit=None) as c:
                assert await c.get_weather(location="Paris") == GetWeatherOutput.model_validate(PARIS)
                return c.era
        finally:
            await http.aclose()

    return run(main()), methods


def test_http_404_method_not_found_probe_means_modern() -> None:
    # TOOLS-PROTOCOL §2.3: over HTTP, 404 + -32601 to the probe is a 2026 server: no initialize.
    era, methods = _http_era_probe(404)
    assert era == "modern"
    assert methods == ["server/discover", "tools/call"]


def test_http_method_not_found_probe_without_404_means_legacy() -> None:
    era, methods = _http_era_probe(200)
    assert era == "legacy"
    assert methods[:3] == ["server/discover", "initialize", "notifications/initialized"]
