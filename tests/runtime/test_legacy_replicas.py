"""Legacy (2025) sessions across replicas: two real ``python -m weather --http`` processes
behind a per-request load balancer (tests/support/lb_proxy.py).

* round robin: every other request lands on the replica without the session and gets 404;
  the generated client starts a new session and sends the request again, so 20 sequential
  calls all succeed (before the renewal existed the client dropped the session id and every
  later call failed with 400 "Mcp-Session-Id header required");
* sticky by the replica hint: session ids are ``<replica-id>.<random>`` (``--replica-id`` or
  ``MCP_CODEGEN_REPLICA_ID``), the balancer routes on the prefix, and no request gets 404.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from common_support import run_async
from http_support import ServerProcess
from lb_proxy import LoadBalancer
from weather.client import WeatherClient
from weather.models import Unit

CALLS = 20


@pytest.fixture(scope="module")
def replicas() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    first = ServerProcess.weather("--replica-id", "r1")  # the flag ...
    try:
        second = ServerProcess.weather(env={"MCP_CODEGEN_REPLICA_ID": "r2"})  # ... and the environment
    except Exception:
        first.stop()
        raise
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def _backends(replicas: tuple[ServerProcess, ServerProcess]) -> list[tuple[str, int]]:
    return [("127.0.0.1", server.port) for server in replicas]


async def _calls(url: str, version: str) -> tuple[list[float], WeatherClient]:
    async with WeatherClient.http(url, protocol_version=version, audit=None) as client:
        assert client.era == "legacy"
        temperatures = []
        for _ in range(CALLS):
            out = await client.get_weather(location="London", unit=Unit.celsius)
            temperatures.append(out.temperature)
    return temperatures, client


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_round_robin_calls_recover_from_404(replicas: tuple[ServerProcess, ServerProcess], version: str) -> None:
    with LoadBalancer(_backends(replicas), mode="round_robin") as lb:
        temperatures, client = run_async(_calls(lb.url, version), 60)
    assert temperatures == [12.5] * CALLS
    posts = [r for r in lb.routed if r.method == "POST"]
    assert {r.backend for r in posts} == {0, 1}  # both replicas served
    lost = [r for r in posts if r.status == 404]
    assert lost, "no request reached the replica without the session: the test proves nothing"
    renewals = client.transport.legacy.renewals  # type: ignore[attr-defined]
    assert 1 <= renewals <= CALLS  # at most one new session per call
    assert not [r for r in posts if r.status == 400]  # never "Mcp-Session-Id header required"


def test_sticky_routing_by_replica_hint(replicas: tuple[ServerProcess, ServerProcess]) -> None:
    with LoadBalancer(_backends(replicas), mode="sticky", replicas={"r1": 0, "r2": 1}) as lb:
        temperatures, client = run_async(_calls(lb.url, "2025-11-25"), 60)
    assert temperatures == [12.5] * CALLS
    sid = client.transport.session_id  # type: ignore[attr-defined]
    replica, _, token = sid.partition(".")
    assert replica in ("r1", "r2") and len(token) >= 32
    assert all(0x21 <= ord(c) <= 0x7E for c in sid)
    assert client.transport.legacy.renewals == 0  # type: ignore[attr-defined]
    with_session = [r for r in lb.routed if r.session_id is not None]
    assert len(with_session) >= CALLS + 1  # the calls, notifications/initialized, DELETE
    assert {r.backend for r in with_session} == {0 if replica == "r1" else 1}
    assert all(r.status < 400 for r in lb.routed)
