"""The generated weather client over Streamable HTTP.

* against the official SDK's weather server served over HTTP (tests/support/sdk_weather_http_server.py),
  both eras and the probe;
* against the generated weather server (bearer token, custom headers);
* against :class:`DemoHttpServer` (uvicorn in a thread): ``Mcp-Param-*`` mirroring with the
  Base64 sentinel, tools with invalid ``x-mcp-header`` dropped, SSE progress, legacy SSE
  resumption honouring ``retry`` with ``Last-Event-ID``, cancellation by closing the stream.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from common_support import free_port
from common_support import run_async as _run
from http_support import ROOT, DemoHttpServer, Recorder, ServerProcess, serve_app
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.client.http.transport import HttpTransport
from mcp_codegen_runtime.server.http import HttpApp
from mcp_codegen_runtime.wire import protocol as p
from mcp_codegen_runtime.wire.errors import McpError, UnknownToolError
from weather.client import WeatherClient
from weather.errors import UnknownLocationError
from weather.models import Unit

ERAS: list[str | None] = ["legacy", "modern", None]


@pytest.fixture(scope="module")
def sdk_server() -> Iterator[ServerProcess]:
    port = free_port()
    server = ServerProcess([str(ROOT / "tests" / "support" / "sdk_weather_http_server.py"), "--port", str(port)], port=port)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("era", ERAS)
def test_generated_client_against_sdk_http_server(sdk_server: ServerProcess, era: str | None) -> None:
    asked: list[str] = []

    async def elicit(request: Any) -> dict[str, Any]:
        asked.append(request.message)
        return {"action": "accept", "content": {"unit": "fahrenheit"}}

    async def main() -> None:
        async with WeatherClient.http(sdk_server.url, era=era, elicitation=elicit, audit=None) as client:
            assert client.era == (era or "modern")
            tools = await client.list_tools()
            assert [t.name for t in tools] == ["get_weather", "get_forecast", "slow", "count"]
            out = await client.get_weather(location="Paris", unit=Unit.celsius)
            assert (out.temperature, out.conditions, out.unit) == (18.0, "sunny", Unit.celsius)
            asked_out = await client.get_weather(location="Paris")
            assert asked_out.unit == Unit.fahrenheit and asked_out.temperature == 64.4
            text = await client.get_forecast(location="tokyo", days=2)
            assert text.text() == "day 1: cloudy, 22.0 C\nday 2: cloudy, 23.0 C"
            with pytest.raises(UnknownLocationError) as info:
                await client.get_weather(location="Atlantis", unit=Unit.celsius)
            assert info.value.data == {"location": "Atlantis"}
            with pytest.raises(UnknownToolError):
                await client.call_tool("no_such_tool", {})
            if era == "legacy":
                assert getattr(client.transport, "session_id", None)

    _run(main())
    assert asked == ["Which temperature unit?"]


def test_bearer_token_and_custom_headers() -> None:
    server = ServerProcess.weather(env={"MCP_CODEGEN_HTTP_TOKENS": "alice=s3cret"})
    try:

        async def main() -> None:
            for era in ("modern", "legacy"):
                async with WeatherClient.http(
                    server.url, era=era, bearer_token="s3cret", headers={"X-Trace": "t1"}, audit=None
                ) as client:
                    out = await client.get_weather(location="London", unit=Unit.celsius)
                    assert out.temperature == 12.5
            with pytest.raises(McpError) as info:
                async with WeatherClient.http(server.url, era="modern", bearer_token="wrong", audit=None) as client:
                    await client.list_tools()
            assert isinstance(info.value.data, dict) and info.value.data.get("httpStatus") == 401
            assert 'error="invalid_token"' in info.value.data.get("wwwAuthenticate", "")

        _run(main())
    finally:
        server.stop()


@pytest.fixture(scope="module")
def demo() -> Iterator[tuple[str, Recorder, DemoHttpServer]]:
    server = DemoHttpServer()
    recorder = Recorder(HttpApp(server, sse_retry_ms=300))
    with serve_app(recorder) as url:
        yield url, recorder, server


def test_custom_headers_mirrored_and_invalid_tools_dropped(
    demo: tuple[str, Recorder, DemoHttpServer], caplog: pytest.LogCaptureFixture
) -> None:
    url, recorder, _ = demo

    async def main() -> None:
        async with ClientBase.http(url, era="modern", audit=None) as client:
            with caplog.at_level(logging.WARNING, "mcp_codegen.client.http"):
                names = [t.name for t in await client.list_tools()]
            assert "bad_headers" not in names and "route" in names
            assert isinstance(client.transport, HttpTransport)
            assert "used twice" in client.transport.dropped_tools["bad_headers"]
            start = len(recorder.requests)
            res = await client.call_tool("route", {"region": " Zürich", "priority": 7, "verbose": False, "query": "q"})
            assert res.text() == " Zürich|7|False"
            headers = recorder.requests[start][1]
            assert headers["mcp-method"] == "tools/call" and headers["mcp-name"] == "route"
            assert headers["mcp-param-region"] == "=?base64?" + base64.b64encode(" Zürich".encode()).decode() + "?="
            assert headers["mcp-param-priority"] == "7" and headers["mcp-param-verbose"] == "false"
            assert "mcp-param-query" not in headers
            start = len(recorder.requests)
            await client.call_tool("route", {"region": "eu"})
            headers = recorder.requests[start][1]
            assert headers["mcp-param-region"] == "eu" and "mcp-param-priority" not in headers

    _run(main())
    assert any("bad_headers" in r.getMessage() for r in caplog.records)


def test_progress_over_sse_both_eras(demo: tuple[str, Recorder, DemoHttpServer]) -> None:
    url, _, _ = demo

    async def main() -> None:
        for era in ("modern", "legacy"):
            seen: list[float] = []
            async with ClientBase.http(url, era=era, audit=None) as client:
                res = await client.call_tool("slow", {"seconds": 0.3}, progress=lambda pr, seen=seen: seen.append(pr.progress))
                assert res.text() == "slept"
            assert seen and seen == sorted(seen), era

    _run(main())


def test_legacy_sse_resumption_honours_retry(demo: tuple[str, Recorder, DemoHttpServer]) -> None:
    url, recorder, _ = demo

    async def main() -> None:
        async with ClientBase.http(url, era="legacy", audit=None) as client:
            start = len(recorder.requests)
            res = await client.call_tool("poll", {})
            assert res.text() == "polled closed=True"
            posted = recorder.requests[start]
            gets = [r for r in recorder.requests[start:] if r[0] == "GET"]
            assert gets, "the client did not reconnect"
            assert gets[0][1]["last-event-id"].startswith(gets[0][1]["last-event-id"].split("-")[0] + "-")
            assert gets[0][2] - posted[2] >= 0.28  # waited for retry (300 ms)

    _run(main())


def test_modern_cancellation_closes_the_stream(demo: tuple[str, Recorder, DemoHttpServer]) -> None:
    url, _, server = demo

    async def main() -> None:
        async with ClientBase.http(url, era="modern", audit=None) as client:
            before = len(server.cancelled)
            task = asyncio.create_task(client.call_tool("slow", {"seconds": 5}))
            await asyncio.sleep(0.4)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            for _ in range(40):
                if len(server.cancelled) > before:
                    break
                await asyncio.sleep(0.05)
            assert len(server.cancelled) == before + 1
            assert (await client.call_tool("whoami", {})).text() == "None"

    _run(main())


def test_legacy_session_ends_with_delete(demo: tuple[str, Recorder, DemoHttpServer]) -> None:
    url, recorder, _ = demo

    async def main() -> None:
        client = ClientBase.http(url, era="legacy", audit=None)
        async with client:
            await client.list_tools()
            assert isinstance(client.transport, HttpTransport)
            sid = client.transport.session_id
            assert sid and all(0x21 <= ord(c) <= 0x7E for c in sid)
        deletes = [r for r in recorder.requests if r[0] == "DELETE" and r[1].get("mcp-session-id") == sid]
        assert len(deletes) == 1

    _run(main())
    assert p.V2026_07_28  # the module's protocol constants are importable alongside
