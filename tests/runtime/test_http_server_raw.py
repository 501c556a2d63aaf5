"""Raw HTTP against the server transport: status codes, headers, security, limits, bad clients.

The generated weather server runs as ``python -m weather --http`` (one subprocess for the
module, with a short body timeout; with the fast extra off, uvicorn's h11, and on, httptools); header cases that need an ``x-mcp-header`` tool use
:class:`DemoHttpServer` under uvicorn in a thread.  After every abuse the server must still
answer a normal request.
"""

from __future__ import annotations

import base64
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from http_support import DemoHttpServer, ServerProcess, modern_headers, modern_request, post, serve_app
from mcp_codegen_runtime.server.http import HttpApp
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.wire import protocol as p

LEGACY_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": p.V2025_11_25, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
JSON_ONLY = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module", params=["off", "on"])  # the fast extra's loop and parser (httptools) off and on
def weather(request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    server = ServerProcess.weather("--body-timeout", "1", env={"MCP_CODEGEN_ACCELERATOR": request.param})
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def demo() -> Iterator[tuple[str, DemoHttpServer]]:
    server = DemoHttpServer(settings=ServerSettings(max_message_bytes=4096))
    with serve_app(HttpApp(server, tokens={"tok-a": "alice"}, sse_retry_ms=250)) as url:
        yield url, server


def healthy(url: str, **headers: str) -> None:
    res = post(url, modern_request(99, "tools/list"), {**modern_headers("tools/list"), **headers})
    assert res.status_code == 200 and "tools" in res.json()["result"]


def error_of(res: httpx.Response) -> dict[str, Any]:
    body = res.json()
    assert "error" in body, body
    err: dict[str, Any] = body["error"]
    return err


# ------------------------------------------------------------------ 2026 headers and status codes
@pytest.mark.parametrize(
    ("method", "params", "headers", "why"),
    [
        ("tools/list", None, modern_headers("prompts/list"), "Mcp-Method"),
        ("tools/list", None, {k: v for k, v in modern_headers("tools/list").items() if k != "mcp-method"}, "Mcp-Method"),
        ("tools/list", None, modern_headers("TOOLS/LIST"), "Mcp-Method"),
        ("tools/list", None, {**modern_headers("tools/list"), "mcp-protocol-version": p.V2025_11_25}, "MCP-Protocol-Version"),
        ("tools/list", None, {k: v for k, v in modern_headers("tools/list").items() if k != "mcp-protocol-version"}, "MCP-Protocol-Version"),
        ("tools/call", {"name": "get_weather", "arguments": {"location": "Paris"}}, modern_headers("tools/call", "get_forecast"), "Mcp-Name"),
        ("tools/call", {"name": "get_weather", "arguments": {"location": "Paris"}}, modern_headers("tools/call"), "Mcp-Name"),
    ],
)
def test_header_mismatch_is_400(weather: ServerProcess, method: str, params: Any, headers: dict[str, str], why: str) -> None:
    res = post(weather.url, modern_request(5, method, params), headers)
    assert res.status_code == 400
    err = error_of(res)
    assert err["code"] == p.HEADER_MISMATCH and why in err["message"]
    assert res.json()["id"] == 5
    healthy(weather.url)


def test_header_names_case_insensitive_and_values_trimmed(weather: ServerProcess) -> None:
    body = json.dumps(modern_request(6, "tools/call", {"name": "get_forecast", "arguments": {"location": "Paris", "days": 1}}))
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{weather.port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json\r\nMCP-PROTOCOL-VERSION: {p.V2026_07_28}\r\nmcp-method: tools/call\r\n"
            f"MCP-NAME:   get_forecast  \r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n{body}")
    sock = _raw_socket(weather.port, head)
    sock.settimeout(5)
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    sock.close()
    status, _, rest = answer.decode().partition("\r\n")
    assert status == "HTTP/1.1 200 OK", answer
    assert json.loads(rest.split("\r\n\r\n", 1)[1])["result"]["content"][0]["text"] == "day 1: sunny, 18.0 C"


def test_protocol_errors_map_to_status_codes(weather: ServerProcess) -> None:
    url = weather.url
    # _meta missing -> -32602 / 400
    res = post(url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, modern_headers("tools/list"))
    assert res.status_code == 400 and error_of(res)["code"] == p.INVALID_PARAMS
    # _meta without clientCapabilities -> -32602 / 400
    body = modern_request(2, "tools/list")
    del body["params"]["_meta"][p.META_CLIENT_CAPABILITIES]
    res = post(url, body, modern_headers("tools/list"))
    assert res.status_code == 400 and error_of(res)["code"] == p.INVALID_PARAMS
    # unsupported version (header and _meta agree) -> -32022 / 400
    body = modern_request(3, "tools/list")
    body["params"]["_meta"][p.META_PROTOCOL_VERSION] = "2099-01-01"
    res = post(url, body, {**modern_headers("tools/list"), "mcp-protocol-version": "2099-01-01"})
    assert res.status_code == 400 and error_of(res)["code"] == p.UNSUPPORTED_VERSION
    assert error_of(res)["data"]["requested"] == "2099-01-01"
    # removed / unknown methods -> -32601 / 404
    for method in ("initialize", "ping", "logging/setLevel", "no/such"):
        res = post(url, modern_request(4, method), modern_headers(method))
        assert res.status_code == 404 and error_of(res)["code"] == p.METHOD_NOT_FOUND, method
    # undeclared client capability -> -32021 / 400
    call = modern_request(5, "tools/call", {"name": "get_weather", "arguments": {"location": "Paris"}})
    res = post(url, call, modern_headers("tools/call", "get_weather"))
    assert res.status_code == 400 and error_of(res)["code"] == p.MISSING_CAPABILITY
    # unknown tool -> -32602 with 200
    call = modern_request(6, "tools/call", {"name": "nope", "arguments": {}})
    res = post(url, call, modern_headers("tools/call", "nope"))
    assert res.status_code == 200 and error_of(res)["code"] == p.INVALID_PARAMS
    # not JSON -> -32700 / 400; wrong content type -> 415
    res = httpx.post(url, content=b"{nope", headers=modern_headers("tools/list"))
    assert res.status_code == 400 and error_of(res)["code"] == p.PARSE_ERROR
    res = httpx.post(url, content=b"{}", headers={**modern_headers("tools/list"), "content-type": "text/plain"})
    assert res.status_code == 415
    # a lone UTF-16 surrogate is not Unicode: refused like bad JSON (was a 500 with a traceback)
    lone = json.dumps(modern_request(7, "tools/call", {"name": "get_weather", "arguments": {"location": "\ud800"}}))
    res = httpx.post(url, content=lone.encode("ascii"), headers=modern_headers("tools/call", "get_weather"))
    assert res.status_code == 400 and error_of(res)["code"] == p.PARSE_ERROR
    # notifications -> 202, empty body
    res = post(url, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "_meta": {}}},
               modern_headers("notifications/cancelled"))
    assert res.status_code == 202 and res.content == b""
    healthy(url)


def test_get_and_delete_are_405_in_2026(weather: ServerProcess) -> None:
    for method in ("GET", "DELETE"):
        res = httpx.request(method, weather.url, headers={"accept": "text/event-stream", "mcp-protocol-version": p.V2026_07_28})
        assert res.status_code == 405, method
    res = httpx.request("PUT", weather.url, content=b"{}")
    assert res.status_code == 405
    assert httpx.get(weather.url.replace("/mcp", "/other")).status_code == 404
    healthy(weather.url)


def test_mcp_param_headers_validated(demo: tuple[str, DemoHttpServer]) -> None:
    url, _ = demo
    auth = {"authorization": "Bearer tok-a"}

    def call(args: dict[str, Any], **params: str) -> httpx.Response:
        headers = {**modern_headers("tools/call", "route"), **auth}
        headers.update({f"mcp-param-{k}": v for k, v in params.items()})
        return post(url, modern_request(7, "tools/call", {"name": "route", "arguments": args}), headers)

    ok = call({"region": "Hello", "priority": 3}, region="=?base64?" + base64.b64encode(b"Hello").decode() + "?=", priority="3")
    assert ok.status_code == 200 and ok.json()["result"]["content"][0]["text"] == "Hello|3|None"
    literal = "=?base64?SGVsbG8="  # no suffix: a literal value
    assert call({"region": literal}, region=literal).status_code == 200
    for args, params in (
        ({"region": "eu"}, {}),  # header missing
        ({"region": "eu"}, {"region": "us"}),  # different
        ({"region": "Hello"}, {"region": "=?base64?SGVsbG8?="}),  # bad padding
        ({"region": "Hello"}, {"region": "=?base64?SGVs!!!bG8=?="}),  # bad alphabet
        ({"region": "eu", "priority": 3}, {"region": "eu", "priority": "4"}),
        ({"region": "eu"}, {"region": "eu", "verbose": "true"}),  # header without the argument
    ):
        res = call(args, **params)
        assert res.status_code == 400, (args, params)
        assert error_of(res)["code"] == p.HEADER_MISMATCH
    assert call({"region": "eu", "priority": 3}, region="eu", priority="3").status_code == 200
    healthy(url, **auth)


# ------------------------------------------------------------------ security
def test_foreign_origin_and_host_are_403(weather: ServerProcess) -> None:
    url = weather.url
    port = weather.port
    body = modern_request(1, "server/discover")
    for extra in ({"origin": "http://evil.example.com"}, {"host": "evil.example.com"}, {"origin": "null"},
                  {"host": f"localhost:{port + 1}"}):
        res = post(url, body, {**modern_headers("server/discover"), **extra})
        assert res.status_code == 403, extra
        assert error_of(res)["code"] == p.INVALID_REQUEST
    for good in ({"origin": f"http://localhost:{port}", "host": f"localhost:{port}"}, {"origin": f"http://127.0.0.1:{port}"}):
        assert post(url, body, {**modern_headers("server/discover"), **good}).status_code == 200
    res = post(url, LEGACY_INIT, {**JSON_ONLY, "origin": "http://evil.example.com"})
    assert res.status_code == 403


def test_bearer_token(demo: tuple[str, DemoHttpServer]) -> None:
    url, _ = demo
    body = modern_request(1, "tools/call", {"name": "whoami", "arguments": {}})
    headers = modern_headers("tools/call", "whoami")
    res = post(url, body, headers)
    assert res.status_code == 401 and res.headers["www-authenticate"].startswith("Bearer ")
    res = post(url, body, {**headers, "authorization": "Bearer wrong"})
    assert res.status_code == 401 and 'error="invalid_token"' in res.headers["www-authenticate"]
    res = post(url, body, {**headers, "authorization": "Bearer tok-a"})
    assert res.status_code == 200 and res.json()["result"]["content"][0]["text"] == "'alice'"


# ------------------------------------------------------------------ limits and bad clients
def test_oversized_bodies_are_413(demo: tuple[str, DemoHttpServer]) -> None:
    url, _ = demo
    auth = {"authorization": "Bearer tok-a"}
    big = modern_request(1, "tools/call", {"name": "route", "arguments": {"region": "x" * 10_000}})
    res = post(url, big, {**modern_headers("tools/call", "route"), **auth})
    assert res.status_code == 413 and error_of(res)["code"] == p.INVALID_REQUEST

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit applies while reading
        yield json.dumps(big).encode()[:3000]
        yield b" " * 3000
        yield b"}"

    res = httpx.post(url, content=chunks(), headers={**modern_headers("tools/call", "route"), **auth})
    assert res.status_code == 413
    healthy(url, **auth)


def _raw_socket(port: int, head: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), 5)
    sock.sendall(head.encode())
    return sock


def test_slow_client_gets_408_and_does_not_block_others(weather: ServerProcess) -> None:
    body = json.dumps(modern_request(1, "tools/list")).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{weather.port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json\r\nMCP-Protocol-Version: {p.V2026_07_28}\r\nMcp-Method: tools/list\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    slow = _raw_socket(weather.port, head)
    slow.sendall(body[:10])  # ... and never the rest
    started = time.monotonic()
    healthy(weather.url)  # served while the slow client hangs
    assert time.monotonic() - started < 0.9
    slow.settimeout(5)
    answer = slow.recv(4096).decode()
    slow.close()
    assert answer.startswith("HTTP/1.1 408"), answer
    healthy(weather.url)


def test_vanishing_client_cancels_its_2026_call(demo: tuple[str, DemoHttpServer]) -> None:
    url, server = demo
    port = int(url.split(":")[2].split("/")[0])
    body = json.dumps(modern_request(1, "tools/call", {"name": "slow", "arguments": {"seconds": 5},
                                                       "_meta": {}})).encode()
    req = json.loads(body)
    req["params"]["_meta"] = {**req["params"]["_meta"], p.META_PROGRESS_TOKEN: "t1"}
    body = json.dumps(req).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {p.V2026_07_28}\r\n"
            f"Mcp-Method: tools/call\r\nMcp-Name: slow\r\nAuthorization: Bearer tok-a\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    before = len(server.cancelled)
    sock = _raw_socket(port, head)
    sock.sendall(body)
    sock.settimeout(5)
    first = sock.recv(4096).decode()
    assert first.startswith("HTTP/1.1 200") and "text/event-stream" in first
    assert "notifications/progress" in first or "notifications/progress" in sock.recv(4096).decode()
    sock.close()  # the client vanishes mid-stream
    deadline = time.monotonic() + 3
    while len(server.cancelled) == before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(server.cancelled) == before + 1
    healthy(url, authorization="Bearer tok-a")


# ------------------------------------------------------------------ legacy sessions
def _sse_events(text: str) -> list[dict[str, str]]:
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if line and not line.startswith(":"):
                key, _, value = line.partition(":")
                fields[key] = fields.get(key, "") + value.removeprefix(" ")
        if fields:
            events.append(fields)
    return events


def test_legacy_session_lifecycle(weather: ServerProcess) -> None:
    url = weather.url
    res = post(url, LEGACY_INIT, JSON_ONLY)
    assert res.status_code == 200 and res.json()["result"]["protocolVersion"] == p.V2025_11_25
    sid = res.headers["mcp-session-id"]
    assert len(sid) >= 16 and all(0x21 <= ord(c) <= 0x7E for c in sid)
    session = {**JSON_ONLY, "mcp-session-id": sid, "mcp-protocol-version": p.V2025_11_25}
    assert post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session).status_code == 202
    # no session id -> 400, unknown -> 404, unsupported version header -> 400
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    assert post(url, listing, {**JSON_ONLY, "mcp-protocol-version": p.V2025_11_25}).status_code == 400
    assert post(url, listing, {**session, "mcp-session-id": "nope"}).status_code == 404
    assert post(url, listing, {**session, "mcp-protocol-version": "1999-01-01"}).status_code == 400
    # SSE answer: priming event (id, empty data, retry) first, then the response
    res = post(url, listing, session)
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/event-stream")
    events = _sse_events(res.text)
    assert events[0]["data"] == "" and "id" in events[0] and int(events[0]["retry"]) > 0
    assert [t["name"] for t in json.loads(events[-1]["data"])["result"]["tools"]] == ["get_weather", "get_forecast"]
    # JSON when the client only accepts JSON
    res = post(url, {**listing, "id": 3}, {**session, "accept": "application/json"})
    assert res.headers["content-type"] == "application/json" and res.json()["id"] == 3
    # resume the finished stream from its priming event: the response is replayed
    res = httpx.get(url, headers={**session, "accept": "text/event-stream", "last-event-id": events[0]["id"]})
    replay = _sse_events(res.text)
    assert json.loads(replay[-1]["data"])["id"] == 2
    # DELETE ends the session
    assert httpx.delete(url, headers=session).status_code == 200
    assert post(url, {**listing, "id": 4}, session).status_code == 404
    healthy(url)


def test_legacy_get_stream_and_polling_tool(demo: tuple[str, DemoHttpServer]) -> None:
    url, _ = demo
    auth = {"authorization": "Bearer tok-a"}
    res = post(url, LEGACY_INIT, {**JSON_ONLY, **auth})
    sid = res.headers["mcp-session-id"]
    session = {**JSON_ONLY, **auth, "mcp-session-id": sid, "mcp-protocol-version": p.V2025_11_25}
    # the session is bound to its principal
    other = post(url, LEGACY_INIT, JSON_ONLY)
    assert other.status_code == 401
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "poll", "arguments": {}}}
    res = post(url, call, session)  # the handler closes the stream: no response on it
    events = _sse_events(res.text)
    assert events[0]["retry"] == "250"
    assert not any('"id":5' in e.get("data", "") for e in events)
    last = events[-1]["id"]
    time.sleep(0.4)
    res = httpx.get(url, headers={**session, "accept": "text/event-stream", "last-event-id": last}, timeout=10)
    assert json.loads(_sse_events(res.text)[-1]["data"])["result"]["content"][0]["text"] == "polled closed=True"
    res = httpx.get(url, headers={**session, "accept": "text/event-stream", "last-event-id": "77-1"})
    assert res.status_code == 404
    assert httpx.delete(url, headers=session).status_code == 200
