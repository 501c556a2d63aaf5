"""Per-client fairness over real sockets: one HTTP client (a principal, else an address; here
the addresses 127.0.0.2 and 127.0.0.3 of the loopback network) cannot take every legacy session
(and with them every GET stream), every tool-call slot or every 2026 listen stream from the
others; each also stays capped in total."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from http_support import DemoHttpServer, ServerProcess, modern_headers, modern_request, serve_app
from mcp_codegen_runtime.server.http import HttpApp
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.wire import protocol as p

SSE = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": p.V2025_11_25, "capabilities": {}, "clientInfo": {"name": "f", "version": "0"}}}


def from_address(address: str, timeout: float = 10) -> httpx.Client:
    """A client whose connections come from ``address`` (another host, as the server sees it)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=timeout)


def test_one_client_cannot_take_every_legacy_session_or_get_stream() -> None:
    server = ServerProcess.weather("--max-sessions", "10", "--max-sessions-per-client", "2")
    a, b = from_address("127.0.0.2"), from_address("127.0.0.3")
    streams: list[Any] = []
    try:
        held = []
        for _ in range(2):  # A's share, each session busy with an open GET stream
            res = a.post(server.url, json=INIT, headers=SSE)
            assert res.status_code == 200, res.text
            sid = res.headers["mcp-session-id"]
            get = a.stream("GET", server.url, headers={"accept": "text/event-stream", "mcp-session-id": sid,
                                                          "mcp-protocol-version": p.V2025_11_25})
            resp = get.__enter__()
            assert resp.status_code == 200
            streams.append(get)
            held.append(sid)
        time.sleep(0.3)
        refused = a.post(server.url, json=INIT, headers=SSE)
        assert refused.status_code == 503 and "for this client" in refused.text, refused.text
        assert refused.headers.get("retry-after") == "5"
        for _ in range(2):  # another client is served all the same
            assert b.post(server.url, json=INIT, headers=SSE).status_code == 200
        streams.pop().__exit__(None, None, None)  # A's second session falls idle ...
        time.sleep(0.3)
        again = a.post(server.url, json=INIT, headers=SSE)
        assert again.status_code == 200, again.text  # ... and makes room for A's new one
        gone = a.post(server.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                      headers={**SSE, "mcp-session-id": held[1], "mcp-protocol-version": p.V2025_11_25})
        assert gone.status_code == 404
    finally:
        for get in streams:
            get.__exit__(None, None, None)
        a.close()
        b.close()
        server.stop()


def _slow_call(client: httpx.Client, url: str, rid: int, seconds: float) -> float:
    started = time.monotonic()
    body = modern_request(rid, "tools/call", {"name": "slow", "arguments": {"seconds": seconds}})
    res = client.post(url, json=body, headers={**modern_headers("tools/call", "slow"), "accept": "application/json"})
    assert res.status_code == 200, res.text
    assert res.json()["result"]["content"][0]["text"] == "slept", res.text
    return time.monotonic() - started


def test_one_client_cannot_take_every_call_slot() -> None:
    server = DemoHttpServer(settings=ServerSettings(max_concurrent_calls=4, max_concurrent_calls_per_client=2,
                                                    rate_limit_per_second=1000, rate_limit_burst=1000))
    with serve_app(HttpApp(server)) as url, from_address("127.0.0.2", 30) as a, from_address("127.0.0.3", 30) as b:
        with ThreadPoolExecutor(8) as pool:
            flood = [pool.submit(_slow_call, a, url, i, 2.0) for i in range(6)]  # A wants 6 slots of 4
            time.sleep(0.5)
            mine = [pool.submit(_slow_call, b, url, 100 + i, 0.2) for i in range(2)]
            assert all(f.result() < 1.5 for f in mine), [f.result() for f in mine]  # B did not queue behind A
            took = sorted(f.result() for f in flood)
        assert took[-1] > 5.0, took  # A ran two at a time: three rounds of 2 s


def test_one_client_cannot_take_every_listen_stream() -> None:
    server = DemoHttpServer(settings=ServerSettings(max_listen_streams=10, max_listen_streams_per_client=1))
    listen = modern_request(7, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    headers = modern_headers("subscriptions/listen")
    with serve_app(HttpApp(server)) as url, from_address("127.0.0.2") as a, from_address("127.0.0.3") as b:
        first = a.stream("POST", url, json=listen, headers=headers)
        resp = first.__enter__()
        try:
            assert resp.status_code == 200
            lines = resp.iter_lines()
            assert "acknowledged" in next(lines)  # A holds its one stream
            second = a.post(url, json={**listen, "id": 8}, headers=headers)
            body = second.text
            assert "for this client" in body, body
            with b.stream("POST", url, json={**listen, "id": 9}, headers=headers) as other:
                assert other.status_code == 200
                for line in other.iter_lines():
                    if line.startswith("data:"):
                        assert "acknowledged" in json.loads(line[5:])["method"]
                        break
        finally:
            server.close_subscriptions()
            first.__exit__(None, None, None)


def test_default_shares_are_a_tenth_but_never_starve_a_small_server() -> None:
    from mcp_codegen_runtime.server.http import HttpSettings

    assert ServerSettings().listen_streams_per_client() == 100  # of 1000
    assert ServerSettings(max_listen_streams=50).listen_streams_per_client() == 10
    assert ServerSettings(max_listen_streams=2).listen_streams_per_client() == 2  # a cap that small is for one client
    assert ServerSettings(max_concurrent_calls=64).calls_per_client() == 48
    assert ServerSettings(max_concurrent_calls=1).calls_per_client() == 1
    assert HttpSettings().sessions_per_client() == 100
    assert HttpSettings(max_sessions=10, max_sessions_per_client=3).sessions_per_client() == 3
    assert HttpSettings(max_sessions=5, max_sessions_per_client=50).sessions_per_client() == 5
