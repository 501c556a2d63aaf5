"""The generated client renews lost legacy sessions against the official SDK's HTTP server too:
two ``tests/support/sdk_weather_http_server.py`` processes behind the round-robin balancer of
``tests/support/lb_proxy.py`` (the SDK answers an unknown session with its own 404 body)."""

from __future__ import annotations

from common_support import free_port, run_async
from http_support import ROOT, ServerProcess
from lb_proxy import LoadBalancer
from weather.client import WeatherClient
from weather.models import Unit


def test_generated_client_recovers_between_two_sdk_replicas() -> None:
    servers: list[ServerProcess] = []
    try:
        for _ in range(2):
            port = free_port()
            servers.append(ServerProcess([str(ROOT / "tests" / "support" / "sdk_weather_http_server.py"),
                                          "--port", str(port)], port=port))
        with LoadBalancer([("127.0.0.1", s.port) for s in servers]) as lb:

            async def main() -> tuple[list[float], int]:
                async with WeatherClient.http(lb.url, era="legacy", audit=None) as client:
                    out = [(await client.get_weather(location="Paris", unit=Unit.celsius)).temperature for _ in range(20)]
                    return out, client.transport.legacy.renewals  # type: ignore[attr-defined]

            temperatures, renewals = run_async(main(), 60)
        assert temperatures == [18.0] * 20
        assert renewals >= 1 and any(r.status == 404 for r in lb.routed)
    finally:
        for server in servers:
            server.stop()
