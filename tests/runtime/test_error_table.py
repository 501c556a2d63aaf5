"""One test per row of the README's error table ("Error mapping"): what the server sends and
what the client raises, in both protocol eras, through the runtime's own client and server
in one process (the HTTP-only rows are in test_http_server_raw.py / test_http_client.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from common_support import run_async
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.wire import errors as E
from mcp_codegen_runtime.wire import protocol as p
from support_server import DemoServer

ERAS = ["modern", "legacy"]


def _with_client(era: str, body: Callable[[ClientBase], Awaitable[None]], **options: Any) -> None:
    async def main() -> None:
        async with ClientBase.in_process(DemoServer(), era=era, audit=None, **options) as client:  # type: ignore[arg-type]
            await body(client)

    run_async(main())


@pytest.mark.parametrize("era", ERAS)
def test_unknown_tool_and_malformed_params(era: str) -> None:
    async def body(c: ClientBase) -> None:
        with pytest.raises(E.UnknownToolError) as unknown:
            await c.call_tool("no_such_tool", {})
        assert unknown.value.code == p.INVALID_PARAMS
        with pytest.raises(E.InvalidParamsError) as bad:
            await c.request("tools/call", {"name": 42})
        assert bad.value.code == p.INVALID_PARAMS and not isinstance(bad.value, E.UnknownToolError)

    _with_client(era, body)


@pytest.mark.parametrize("version", [p.V2025_06_18, p.V2025_11_25, p.V2026_07_28])
def test_arguments_that_fail_the_input_schema(version: str) -> None:
    async def body(c: ClientBase) -> None:
        with pytest.raises(E.InvalidArgumentsError) as info:
            await c.call_tool("echo", {"text": 5})
        # isError (2025-11-25 and later: code is the tool-error code) or -32602 before that
        want = p.INVALID_PARAMS if version == p.V2025_06_18 else p.TOOL_ERROR_INVALID_ARGUMENTS
        assert info.value.code == want, info.value.code

    _with_client("modern" if version == p.V2026_07_28 else "legacy", body, protocol_version=version)


@pytest.mark.parametrize("era", ERAS)
def test_declared_error_is_its_own_class_with_its_code(era: str) -> None:
    from weather import WeatherClient
    from weather.errors import UnknownLocationError
    from weather_impl import WeatherService

    async def main() -> None:
        async with WeatherClient.in_process(WeatherService(), era=era, audit=None) as c:  # type: ignore[arg-type]
            with pytest.raises(UnknownLocationError) as info:
                await c.get_weather(location="Atlantis")
            assert info.value.code == "unknown_location" == UnknownLocationError.error_code
            assert info.value.data == {"location": "Atlantis"}
        # a client that does not know the code (not generated from this spec) still sees it
        async with ClientBase.in_process(DemoServer(), era=era, audit=None) as generic:  # type: ignore[arg-type]
            with pytest.raises(E.ToolExecutionError) as other:
                await generic.call_tool("echo", {"text": "boom"})
            assert other.value.code == "boom" and other.value.message == "it went boom"

    run_async(main())


@pytest.mark.parametrize("era", ERAS)
def test_other_handler_failures_are_tool_execution_errors(era: str) -> None:
    async def body(c: ClientBase) -> None:
        with pytest.raises(E.ToolExecutionError) as info:
            await c.call_tool("crash", {})
        assert "internal error" in info.value.message and "Traceback" not in info.value.message

    _with_client(era, body)


@pytest.mark.parametrize("era", ERAS)
def test_output_that_breaks_the_output_schema(era: str) -> None:
    async def body(c: ClientBase) -> None:
        with pytest.raises(E.OutputValidationError) as info:
            await c.call_tool("bad_output", {})
        assert info.value.code == p.INTERNAL_ERROR
        # -32603 with data {"code": "mcp-codegen.invalid_output", "errors": [{path, message}]}: what broke
        assert info.value.data == {"code": p.ERROR_INVALID_OUTPUT, "errors": [
            {"path": "text", "message": "Input should be a valid string"},
            {"path": "count", "message": "Field required"}]}
        assert [(e.path, e.message) for e in info.value.errors] == [
            ("text", "Input should be a valid string"), ("count", "Field required")]
        assert "text: Input should be a valid string; count: Field required" in str(info.value)

    _with_client(era, body)


@pytest.mark.parametrize("era", ERAS)
def test_output_the_client_itself_refuses_names_the_fields_too(era: str) -> None:
    """A server that does not check its output (``blocks`` declares none): the client's own
    check of ``structuredContent`` against its output model fails the same way, no values."""
    from dataclasses import replace

    from mcp_codegen_runtime.wire.content import ToolResult
    from support_server import DEMO_TOOLS, EchoOut

    class Unchecked(DemoServer):
        async def blocks(self, args: Any, ctx: Any) -> Any:
            return ToolResult(content=[], structuredContent={"text": 5, "count": "secret-count-value"})

    blocks = next(t for t in DEMO_TOOLS if t.name == "blocks")
    typed = replace(blocks, output_model=EchoOut, wire={**blocks.wire, "outputSchema": EchoOut.model_json_schema()})

    async def body(c: ClientBase) -> None:
        with pytest.raises(E.OutputValidationError) as info:
            await c._call_structured(typed, {}, EchoOut)  # what a typed method of a generated client runs
        assert [(e.path, e.message) for e in info.value.errors] == [
            ("text", "Input should be a valid string"), ("count", "Input should be a valid integer, unable to parse "
                                                                  "string as an integer")]
        assert "text: Input should be a valid string" in str(info.value)
        assert "secret-count-value" not in str(info.value) and "secret-count-value" not in repr(info.value.data)
        assert info.value.result is not None and info.value.result["structuredContent"]["text"] == 5

    async def main() -> None:
        async with ClientBase.in_process(Unchecked(), era=era, audit=None) as c:  # type: ignore[arg-type]
            await body(c)

    run_async(main())


@pytest.mark.parametrize("era", ERAS)
def test_unknown_method(era: str) -> None:
    async def body(c: ClientBase) -> None:
        with pytest.raises(E.MethodNotFoundError) as info:
            await c.request("resources/list", {})
        assert info.value.code == p.METHOD_NOT_FOUND

    _with_client(era, body)


def test_timeout_and_closed_transport() -> None:
    async def body(c: ClientBase) -> None:
        with pytest.raises(E.McpTimeoutError):
            await c.call_tool("slow", {}, timeout=0.2)
        await c.aclose()
        with pytest.raises(E.TransportClosedError):
            await c.call_tool("echo", {"text": "x"})

    _with_client("modern", body)


def test_every_error_derives_from_mcp_error() -> None:
    for cls in (E.UnknownToolError, E.InvalidParamsError, E.InvalidArgumentsError, E.ToolExecutionError,
                E.OutputValidationError, E.MethodNotFoundError, E.UnsupportedProtocolVersionError,
                E.HeaderMismatchError, E.MissingCapabilityError, E.ParseError, E.InvalidRequestError,
                E.McpTimeoutError, E.TransportClosedError, E.DeclaredToolError):
        assert issubclass(cls, E.McpError)
    assert asyncio  # the module runs its coroutines through run_async


@pytest.mark.parametrize("era", ERAS)
def test_a_tool_error_with_a_code_keeps_it_on_the_wire(era: str) -> None:
    class Quota(DemoServer):
        async def crash(self, args: Any, ctx: Any) -> Any:
            raise E.ToolError("over quota", code="my.quota", data={"left": 0})

    async def main() -> None:
        async with ClientBase.in_process(Quota(), era=era, audit=None) as c:  # type: ignore[arg-type]
            with pytest.raises(E.ToolExecutionError) as info:
                await c.call_tool("crash", {})
            assert info.value.code == "my.quota" and info.value.message == "over quota"

    run_async(main())
