"""MCP Apps in the runtime, in process: what a server with UI resources answers a client with and without the
extension (both eras), and what the typed client checks when it reads a tool's UI resource.  The shapes are
validated against the extension's published schema (``tests/schemas/ecosystem/ext-apps/schema.json``)."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import pytest
from apps_support import apps_valid
from mcp_codegen_runtime.client.async_client import ClientBase
from mcp_codegen_runtime.client.sync_client import SyncClientBase
from mcp_codegen_runtime.gencode import (
    ResourceDef,
    ServerInfo,
    TextContent,
    TextResourceContents,
    ToolDef,
    ToolResult,
    UiResourceDef,
)
from mcp_codegen_runtime.server.gencode import Context, ServerBase
from mcp_codegen_runtime.wire.apps import declares_ui, tool_ui, without_ui
from mcp_codegen_runtime.wire.errors import ProtocolError, ResourceNotFoundError, UnknownToolError
from pydantic import BaseModel

MIME = "text/html;profile=mcp-app"
UI = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}}
PAGE = "<!DOCTYPE html><html><body>é</body></html>"
META = {"csp": {"connectDomains": ["https://api.example.com"]}, "permissions": {"camera": {}}, "prefersBorder": True}


class Empty(BaseModel):
    pass


def _tool(name: str, meta: dict[str, Any] | None) -> ToolDef:
    wire: dict[str, Any] = {"name": name, "inputSchema": {"type": "object"}}
    if meta is not None:
        wire["_meta"] = meta
    return ToolDef(name=name, method="answer", wire=wire, input_model=Empty)


class AppsServer(ServerBase):
    server_info = ServerInfo(name="apps", version="1.0")
    tool_defs = (
        _tool("board", {"ui": {"resourceUri": "ui://apps/board"}, "vendor/x": 1}),
        _tool("move", {"ui": {"resourceUri": "ui://apps/board", "visibility": ["app"]}}),
        _tool("plain", None),
        _tool("broken", {"ui": {"resourceUri": "ui://apps/wrong-type"}}),
    )
    ui_resource_defs = (UiResourceDef(uri="ui://apps/board", name="Board", html=PAGE, meta=META, title="The board"),)
    resource_defs = (ResourceDef(uri="ui://apps/wrong-type", name="wrong", method="wrong", wire={
        "uri": "ui://apps/wrong-type", "name": "wrong", "mimeType": "text/html"}),)

    async def answer(self, args: Empty, ctx: Context) -> ToolResult:
        return ToolResult(content=[TextContent(text="works without a UI too")])

    async def wrong(self, ctx: Context) -> TextResourceContents:
        return TextResourceContents(uri="ui://apps/wrong-type", mimeType="text/html", text=PAGE)


class UiClient(ClientBase):
    """A typed client whose tools link a UI (what the generator writes): it declares the extension."""

    tool_defs: ClassVar[tuple[ToolDef, ...]] = AppsServer.tool_defs


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 30))


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_client_with_the_extension_sees_the_apps(era: str) -> None:
    async def body() -> None:
        async with UiClient.in_process(AppsServer(), era=era) as client:
            assert declares_ui(client.client_capabilities)
            assert client.server_capabilities["extensions"] == {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}
            tools = {t.name: t for t in await client.list_tools()}
            assert list(tools) == ["board", "move", "plain", "broken"]  # app-only tools listed: the host hides them
            assert tools["board"].raw["_meta"] == {"ui": {"resourceUri": "ui://apps/board"}, "vendor/x": 1}
            for name in ("board", "move"):
                apps_valid("McpUiToolMeta", tools[name].raw["_meta"]["ui"])
            board, move = tools["board"].ui, tools["move"].ui
            assert board is not None and board.resource_uri == "ui://apps/board" and board.model_visible
            assert move is not None and move.visibility == ["app"] and not move.model_visible and move.app_callable
            assert tools["plain"].ui is None
            listed = [r.raw for r in await client.list_resources()]
            assert [r["uri"] for r in listed] == ["ui://apps/wrong-type", "ui://apps/board"]  # after the spec's resources
            assert listed[1] == {"uri": "ui://apps/board", "name": "Board", "title": "The board", "mimeType": MIME,
                                 "size": len(PAGE.encode("utf-8")), "_meta": {"ui": META}}
            apps_valid("McpUiResourceMeta", listed[1]["_meta"]["ui"])
            read = await client.request("resources/read", {"uri": "ui://apps/board"})
            assert read["contents"] == [{"uri": "ui://apps/board", "mimeType": MIME, "text": PAGE, "_meta": {"ui": META}}]
            ui = await client.ui_resource("move")
            assert (ui.uri, ui.mime_type, ui.html) == ("ui://apps/board", MIME, PAGE)
            assert ui.meta.csp is not None and ui.meta.csp.connect_domains == ["https://api.example.com"]
            assert ui.meta.permissions is not None and ui.meta.permissions.camera == {} and ui.meta.prefers_border
            with pytest.raises(ResourceNotFoundError):
                await client.ui_resource("plain")  # no UI link
            with pytest.raises(UnknownToolError):
                await client.ui_resource("nope")
            with pytest.raises(ProtocolError, match="text/html;profile=mcp-app"):
                await client.ui_resource("broken")  # served, but not as an MCP App
            with pytest.raises(ResourceNotFoundError):
                await client.read_ui_resource("ui://apps/missing")

    _run(body())


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_client_without_the_extension_sees_the_text_only_server(era: str) -> None:
    async def body() -> None:
        async with ClientBase.in_process(AppsServer(), era=era) as client:
            assert not declares_ui(client.client_capabilities)
            tools = {t.name: t.raw for t in await client.list_tools()}
            assert list(tools) == ["board", "plain", "broken"]  # no app could call the app-only tool
            assert tools["board"]["_meta"] == {"vendor/x": 1} and "_meta" not in tools["broken"]
            assert (await client.call_raw("board", {})).text() == "works without a UI too"
            ui = await client.read_ui_resource("ui://apps/board")  # the resource stays readable
            assert ui.html == PAGE

    _run(body())


class UiSyncClient(SyncClientBase[UiClient]):
    client_class = UiClient


def test_the_sync_client() -> None:
    with UiSyncClient.in_process(AppsServer()) as client:
        assert client.tool_ui("board") is not None
        assert client.ui_resource("board").html == PAGE


def test_wire_helpers() -> None:
    assert tool_ui({"_meta": {"ui/resourceUri": "ui://old/link"}}) == {"resourceUri": "ui://old/link"}  # deprecated key
    assert without_ui({"name": "t", "_meta": {"ui/resourceUri": "ui://x/y"}}) == {"name": "t"}
    assert not declares_ui({"extensions": {"io.modelcontextprotocol/ui": {}}})  # mimeTypes is required
    assert not declares_ui({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}})


def test_handlers_know_whether_the_client_renders_uis() -> None:
    seen: list[bool] = []

    class Recording(AppsServer):
        async def answer(self, args: Empty, ctx: Context) -> ToolResult:
            seen.append(ctx.supports_ui)
            return await super().answer(args, ctx)

    async def body() -> None:
        for cls in (UiClient, ClientBase):
            async with cls.in_process(Recording()) as client:
                await client.call_raw("board", {})

    _run(body())
    assert seen == [True, False]
