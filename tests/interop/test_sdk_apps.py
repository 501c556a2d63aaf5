"""MCP Apps (io.modelcontextprotocol/ui) of the generated ``weather`` server, seen by the official ``mcp``
SDK client (PyPI ``mcp`` 2.3.0) over stdio and Streamable HTTP, in the 2025 (``initialize``) and
2026-07-28 eras.  What it receives — the tool's ``_meta.ui``, the UI resource's listing and its
``resources/read`` contents — is validated against the extension's published JSON schema
(``tests/schemas/ecosystem/ext-apps/schema.json``, npm ``@modelcontextprotocol/ext-apps@2.0.4``) and
the protocol's own schema; the HTML is compared with the files under ``specs/ui/forecast/``.

A client that advertises the extension (``mcp.client.extension.advertise``) gets the UI links; one
that does not gets the text-only tools (docs/apps.md) and can still read the resource."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from apps_support import EXTENSION, MIME, URI, apps_valid, check_forecast_html, weather_over_http
from common_support import run_async
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.stdio import StdioServerParameters
from support_server import EXAMPLES, assert_wire, server_env

STDIO = StdioServerParameters(command=sys.executable, args=["-m", "weather", "--stdio"], cwd=str(EXAMPLES), env=server_env())


def _wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


async def _with_ui(client: Client) -> None:
    version = client.protocol_version
    assert client.server_capabilities.extensions == {EXTENSION: {"mimeTypes": [MIME]}}
    tools = {t.name: _wire(t) for t in (await client.list_tools()).tools}
    for tool in tools.values():
        assert_wire(version, "Tool", tool)
    ui = tools["get_forecast"]["_meta"]["ui"]
    apps_valid("McpUiToolMeta", ui)
    assert ui == {"resourceUri": URI}
    assert "_meta" not in tools["get_weather"]
    listed = [_wire(r) for r in (await client.list_resources()).resources]
    assert [r["uri"] for r in listed] == [URI]
    assert_wire(version, "Resource", listed[0])
    assert listed[0]["mimeType"] == MIME
    apps_valid("McpUiResourceMeta", listed[0]["_meta"]["ui"])
    read = await client.read_resource(URI)
    first = read.contents[0]
    assert isinstance(first, types.TextResourceContents)
    contents = _wire(first)
    assert_wire(version, "TextResourceContents", contents)
    assert contents["uri"] == URI and contents["mimeType"] == MIME
    apps_valid("McpUiResourceMeta", contents["_meta"]["ui"])
    assert contents["_meta"]["ui"] == {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}
    assert first.text.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    check_forecast_html(first.text)
    result = await client.call_tool("get_forecast", {"location": "Paris", "days": 2})  # meaningful text either way
    assert isinstance(result.content[0], types.TextContent) and result.content[0].text.startswith("day 1:")


async def _without_ui(client: Client) -> None:
    tools = {t.name: _wire(t) for t in (await client.list_tools()).tools}
    assert set(tools) == {"get_weather", "get_forecast"}
    assert "_meta" not in tools["get_forecast"]  # the text-only server: no UI link
    read = await client.read_resource(URI)  # the resource itself stays readable
    assert isinstance(read.contents[0], types.TextResourceContents)
    apps_valid("McpUiResourceMeta", read.contents[0].meta["ui"])  # type: ignore[index]


def _run(target: Any, mode: str, body: Any, ui: bool) -> None:
    async def main() -> None:
        extensions = [advertise(EXTENSION, {"mimeTypes": [MIME]})] if ui else None
        async with Client(target, mode=mode, read_timeout_seconds=20, extensions=extensions) as client:
            assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
            await body(client)

    run_async(main(), 60)


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # auto: server/discover, so 2026-07-28
def test_sdk_client_with_the_extension_over_stdio(mode: str) -> None:
    _run(STDIO, mode, _with_ui, True)


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # auto: server/discover, so 2026-07-28
def test_sdk_client_without_the_extension_over_stdio(mode: str) -> None:
    _run(STDIO, mode, _without_ui, False)


def test_sdk_client_over_http(tmp_path: Path) -> None:
    with weather_over_http(tmp_path) as url:
        for mode in ("legacy", "auto"):
            _run(url, mode, _with_ui, True)
            _run(url, mode, _without_ui, False)
