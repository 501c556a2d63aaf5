"""npm ``@modelcontextprotocol/ext-apps@2.0.4`` as the MCP Apps host of the generated ``weather`` server, in Node
(``tests/support/ext_apps_host.mjs``; installed by ``scripts/npm-ext-apps``): over stdio and Streamable HTTP, in
the 2025 era (``initialize``) and the 2026-07-28 one (``server/discover``).

The package's own helpers and zod schemas judge what the server sends (``getToolUiResourceUri``, the visibility
checks, ``McpUiToolMetaSchema``, ``McpUiResourceMetaSchema``, ``RESOURCE_MIME_TYPE``); its ``AppBridge`` (the host's
side, holding the TypeScript SDK client connected to our server) and its ``App`` (the view's side) then run the
extension's handshake over an in-memory transport pair — what a browser host does over an iframe's
``postMessage``, the one part that needs a browser — and the view calls the tool and reads its UI resource
through the bridge, which forwards both to the real server."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from apps_support import MIME, URI, check_forecast_html, run_host, weather_over_http
from support_server import EXAMPLES

VERSIONS = {"legacy": "2025-11-25", "auto": "2026-07-28"}


def _check(report: dict[str, Any], mode: str) -> None:
    assert report["protocol"] == VERSIONS[mode]
    assert report["mimeType"] == MIME  # the package's RESOURCE_MIME_TYPE is the one the server uses
    assert MIME in report["serverExtension"]["mimeTypes"]
    tools = {t["name"]: t for t in report["tools"]}
    assert tools["get_forecast"] == {"name": "get_forecast", "uri": URI, "appOnly": False, "modelOnly": False,
                                     "metaIssues": None}  # the package's McpUiToolMetaSchema accepts _meta.ui
    assert tools["get_weather"]["uri"] is None
    read = report["read"]
    assert read["uri"] == URI and read["mimeType"] == MIME and read["metaIssues"] is None
    assert read["allow"] == ""  # no permissions asked: an empty iframe allow attribute
    check_forecast_html(read["text"])
    view = report["view"]
    assert view["hostVersion"] == {"name": "ext-apps-host-check", "version": "1.0.0"}  # the handshake ran
    assert view["input"] == {"arguments": {"location": "Paris", "days": 2}}
    assert [b["text"].split("\n")[0] for b in view["result"]["content"]] == ["day 1: sunny, 18.0 C"]
    assert view["call"]["content"] == [{"type": "text", "text": "day 1: sunny, 18.0 C"}]
    assert view["read"] == URI


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_ext_apps_host_over_stdio(mode: str) -> None:
    _check(run_host(mode, "stdio", sys.executable, "-m", "weather", "--stdio", cwd=EXAMPLES), mode)


def test_ext_apps_host_over_http(tmp_path: Path) -> None:
    with weather_over_http(tmp_path) as url:
        for mode in ("legacy", "auto"):
            _check(run_host(mode, "http", url, cwd=EXAMPLES), mode)
