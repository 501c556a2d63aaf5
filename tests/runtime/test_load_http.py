"""Load over Streamable HTTP (loopback only, bounded in count and time).

The generated weather server runs as a uvicorn subprocess (``python -m weather --http``,
tests/support/http_stress_impl.py for the slow behaviours), stopped by its PID.  Every client has
its own bearer token, so its own rate-limit bucket.

* 50 concurrent clients (half stateless 2026-07-28, half legacy sessions answered as SSE or
  JSON) each send their calls at once: every request id is answered exactly once, with
  the right result, legacy ids reused across sessions never cross; p50/p99 latency and
  throughput are printed (no timed assertion); server RSS before/after is printed and
  bounded;
* the generated ``WeatherClient.http`` under the same load;
* a second server with low limits (burst 4, 3 calls at once, 1 s call timeout): a client
  over its burst gets ``isError`` results with ``mcp-codegen.rate_limited`` (both eras share
  the principal's bucket) while others are unaffected; calls beyond the concurrency limit
  wait, never more than 3 run at once, and the ones that wait past the call timeout get
  ``mcp-codegen.timeout``; afterwards nothing is left running.

``MCP_CODEGEN_FUZZ=long`` runs more calls per client.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from http_stress_support import (
    EXAMPLES,
    LONG,
    RATE_LIMITED,
    TIMED_OUT,
    V_LEGACY,
    HttpServer,
    check_answer,
    forecast,
    forecast_text,
    legacy_call,
    legacy_headers,
    legacy_init,
    modern,
    modern_headers,
    percentiles,
    tool_error_code,
)

CLIENTS = 50
CALLS = 40 if LONG else 10
CITIES = ("Paris", "London", "Tokyo")
TOKENS = {f"client{i}": f"tok-{i:02d}-{'x' * 20}" for i in range(CLIENTS + 20)}


@pytest.fixture(scope="module")
def server() -> Iterator[HttpServer]:
    high = {"rate_limit_per_second": 1e6, "rate_limit_burst": 1_000_000}
    with HttpServer(settings=high, tokens=TOKENS) as srv:
        yield srv
        assert srv.alive()


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.answered: Counter[tuple[int, Any]] = Counter()
        self.sent = 0


async def _post(client: httpx.AsyncClient, url: str, body: Any, headers: dict[str, str]) -> tuple[httpx.Response, float]:
    start = time.monotonic()
    res = await client.post(url, json=body, headers=headers)
    return res, time.monotonic() - start


async def _one_client(index: int, url: str, tally: Tally) -> None:
    token = TOKENS[f"client{index}"]
    legacy = index % 2 == 1
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=CALLS + 2)) as client:
        sid = None
        if legacy:
            init, _ = await _post(client, url, legacy_init(0), {"content-type": "application/json",
                                                               "accept": "application/json",
                                                               "authorization": f"Bearer {token}"})
            assert init.status_code == 200, init.text
            sid = init.headers["mcp-session-id"]
            note, _ = await _post(client, url, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                                  legacy_headers(sid, token=token, sse=False))
            assert note.status_code == 202

        async def call(k: int) -> None:
            city = CITIES[(index + k) % 3]
            days = 1 + (index * 7 + k) % 7
            sleepy = k % 5 == 4
            location = "sleep:0.01" if sleepy else city
            if legacy:
                assert sid is not None
                rid: Any = k  # the same ids in every session: sessions never mix them up
                body = legacy_call(rid, location, days)
                headers = legacy_headers(sid, token=token, sse=k % 2 == 0)
            else:
                rid = k if k % 2 else f"c{index}-{k}"
                body, headers = forecast(rid, location, days, token=token)
            tally.sent += 1
            res, elapsed = await _post(client, url, body, headers)
            msgs = check_answer(res.status_code, res.headers.get("content-type", ""), res.content, rid=rid,
                                what=(index, k))
            assert res.status_code == 200, (index, k, res.text[:300])
            finals = [m for m in msgs if "method" not in m]
            assert len(finals) == 1 and finals[0]["id"] == rid, (index, k, msgs)
            text = finals[0]["result"]["content"][0]["text"]
            assert text == ("done sleep:0.01" if sleepy else forecast_text(city, days)), (index, k, text)
            tally.answered[(index, rid)] += 1
            tally.latencies.append(elapsed)

        await asyncio.gather(*(call(k) for k in range(CALLS)))
        listing = modern(f"list-{index}", "tools/list")
        res, _ = await _post(client, url, listing, modern_headers("tools/list", token=token))
        assert [t["name"] for t in res.json()["result"]["tools"]] == ["get_weather", "get_forecast"]
        if sid is not None:
            bye = await client.delete(url, headers=legacy_headers(sid, token=token))
            assert bye.status_code == 200


def test_unloaded_latency(server: HttpServer) -> None:
    """One client, one call at a time: the baseline for the figures below (printed only)."""
    latencies: list[float] = []
    with httpx.Client(timeout=30) as client:
        for k in range(400 if LONG else 100):
            body, headers = forecast(k, "Paris", 3, token=TOKENS["client0"])
            start = time.monotonic()
            res = client.post(server.url, json=body, headers=headers)
            latencies.append(time.monotonic() - start)
            assert res.json()["result"]["content"][0]["text"] == forecast_text("Paris", 3)
    p50, p99, worst = percentiles(latencies)
    print(f"\nHTTP unloaded: {len(latencies)} sequential 2026 calls, p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {worst:.2f} ms")


def test_many_clients_every_id_answered_once(server: HttpServer) -> None:
    tally = Tally()
    rss_before = server.rss_kb()
    cpu_before = server.cpu_seconds()
    start = time.monotonic()

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(_one_client(i, server.url, tally) for i in range(CLIENTS))), 120)

    asyncio.run(main())
    wall = time.monotonic() - start
    rss_after = server.rss_kb()
    cpu = server.cpu_seconds() - cpu_before
    p50, p99, worst = percentiles(tally.latencies)
    print(f"\nHTTP load: {CLIENTS} clients x {CALLS} calls ({tally.sent} calls, both eras) in {wall:.2f} s "
          f"= {tally.sent / wall:.0f} calls/s; latency p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {worst:.1f} ms; "
          f"server CPU {cpu * 1000 / tally.sent:.2f} ms per call (the clients share this machine); "
          f"server RSS {rss_before} -> {rss_after} kB")
    assert tally.sent == CLIENTS * CALLS
    assert len(tally.answered) == tally.sent and set(tally.answered.values()) == {1}
    assert rss_after - rss_before < 200_000


def test_generated_clients_under_load(server: HttpServer) -> None:
    sys.path.insert(0, str(EXAMPLES))
    from weather.client import WeatherClient

    latencies: list[float] = []
    users = 20
    calls = 20 if LONG else 5

    async def user(i: int) -> None:
        era = "modern" if i % 2 == 0 else "legacy"
        async with WeatherClient.http(server.url, bearer_token=TOKENS[f"client{CLIENTS + i}"], era=era, audit=None) as client:

            async def one(k: int) -> None:
                city = CITIES[(i + k) % 3]
                days = 1 + (i + k) % 7
                start = time.monotonic()
                result = await client.get_forecast(location=city, days=days)
                latencies.append(time.monotonic() - start)
                assert result.content[0].text == forecast_text(city, days)

            await asyncio.gather(*(one(k) for k in range(calls)))

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(user(i) for i in range(users))), 120)

    asyncio.run(main())
    p50, p99, worst = percentiles(latencies)
    print(f"\nWeatherClient.http load: {users} clients x {calls} calls: p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
          f"max {worst:.1f} ms")
    assert len(latencies) == users * calls


# ------------------------------------------------------------------ the limits
LIMITS = {"rate_limit_per_second": 0.001, "rate_limit_burst": 4, "max_concurrent_calls": 3, "call_timeout": 1.0}


@pytest.fixture(scope="module")
def limited() -> Iterator[HttpServer]:
    with HttpServer(settings=LIMITS, tokens=TOKENS) as srv:
        yield srv
        assert srv.alive()


def _stats(url: str, who: str) -> dict[str, int]:
    body, headers = forecast("stats", "stats", token=TOKENS[who])
    result = httpx.post(url, json=body, headers=headers, timeout=10).json()["result"]
    assert not result.get("isError"), result
    data: dict[str, int] = json.loads(result["content"][0]["text"])
    return data


def _result(res: httpx.Response, rid: Any) -> dict[str, Any]:
    msgs = check_answer(res.status_code, res.headers.get("content-type", ""), res.content, rid=rid, what=rid)
    assert res.status_code == 200, res.text[:300]
    finals = [m for m in msgs if "method" not in m]
    assert len(finals) == 1 and finals[0]["id"] == rid, msgs
    result: dict[str, Any] = finals[0]["result"]
    return result


def test_rate_limit_over_http(limited: HttpServer) -> None:
    url = limited.url

    async def burst(who: str, n: int) -> list[dict[str, Any]]:
        async with httpx.AsyncClient(timeout=30) as client:
            async def one(k: int) -> dict[str, Any]:
                body, headers = forecast(k, "Paris", 1, token=TOKENS[who])
                return _result(await client.post(url, json=body, headers=headers), k)
            return list(await asyncio.gather(*(one(k) for k in range(n))))

    results = asyncio.run(burst("client0", 10))
    ok = [r for r in results if not r.get("isError")]
    limited_ = [r for r in results if tool_error_code(r) == RATE_LIMITED]
    assert len(ok) == 4 and len(limited_) == 6, results
    assert all("rate limit" in r["content"][0]["text"].lower() for r in limited_)
    # other principals have their own bucket; listing is not a tool call
    assert len([r for r in asyncio.run(burst("client1", 4)) if not r.get("isError")]) == 4
    res = httpx.post(url, json=modern(1, "tools/list"), headers=modern_headers("tools/list", token=TOKENS["client0"]))
    assert res.status_code == 200 and len(res.json()["result"]["tools"]) == 2
    # legacy sessions draw from the same per-principal bucket as 2026 calls
    token = TOKENS["client2"]
    init = httpx.post(url, json=legacy_init(0), headers={"content-type": "application/json", "accept": "application/json",
                                                         "authorization": f"Bearer {token}"})
    sid = init.headers["mcp-session-id"]
    codes = []
    for k in range(3):
        res = httpx.post(url, json=legacy_call(k), headers=legacy_headers(sid, V_LEGACY, token=token), timeout=10)
        codes.append(tool_error_code(_result(res, k)))
    for k in range(3, 5):
        body, headers = forecast(k, token=token)
        codes.append(tool_error_code(_result(httpx.post(url, json=body, headers=headers, timeout=10), k)))
    assert codes == [None, None, None, None, RATE_LIMITED], codes
    # no token: 401 before any bucket is touched
    body, headers = forecast(9)
    assert httpx.post(url, json=body, headers=headers).status_code == 401


def test_concurrency_limit_over_http(limited: HttpServer) -> None:
    url = limited.url
    before = _stats(url, "client60")
    n = 12
    principals = [f"client{5 + i}" for i in range(n)]

    async def storm() -> list[tuple[str, dict[str, Any]]]:
        async with httpx.AsyncClient(timeout=30) as client:
            async def one(i: int, who: str) -> tuple[str, dict[str, Any]]:
                token = TOKENS[who]
                if i % 2:
                    init = await client.post(url, json=legacy_init(0), headers={
                        "content-type": "application/json", "accept": "application/json",
                        "authorization": f"Bearer {token}"})
                    sid = init.headers["mcp-session-id"]
                    res = await client.post(url, json=legacy_call(i, "sleep:0.5"), headers=legacy_headers(sid, token=token))
                else:
                    body, headers = forecast(i, "sleep:0.5", token=token)
                    res = await client.post(url, json=body, headers=headers)
                return who, _result(res, i)
            return list(await asyncio.gather(*(one(i, who) for i, who in enumerate(principals))))

    start = time.monotonic()
    results = asyncio.run(storm())
    wall = time.monotonic() - start
    after = _stats(url, "client61")
    done = [r for _, r in results if not r.get("isError")]
    timed_out = [r for _, r in results if tool_error_code(r) == TIMED_OUT]
    print(f"\nconcurrency limit 3, call timeout 1 s: {len(done)} of {n} calls of 0.5 s done, {len(timed_out)} timed out, "
          f"peak {after['peak']} running, {wall:.2f} s")
    assert len(done) + len(timed_out) == n, results
    assert all(r["content"][0]["text"] == "done sleep:0.5" for r in done)
    assert all("timed out" in r["content"][0]["text"] for r in timed_out)
    assert after["peak"] <= 3, after
    assert len(timed_out) >= 1 and len(done) >= 1  # 12 x 0.5 s of work cannot fit 3 slots x 1 s
    assert after["running"] == 0
    assert after["started"] - before["started"] == len(done) + after["cancelled"] - before["cancelled"]
    # the slots are free again
    body, headers = forecast("after", "London", 2, token=TOKENS["client62"])
    assert _result(httpx.post(url, json=body, headers=headers, timeout=10), "after")["content"][0]["text"] == \
        forecast_text("London", 2)
