"""Without httpx, an HTTP client fails where it is made, with a typed error that names the
install (not a bare RuntimeError at its first connect)."""

from __future__ import annotations

import pytest
from mcp_codegen_runtime.wire.errors import MissingDependencyError
from weather import WeatherClient, WeatherSyncClient


@pytest.fixture
def no_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "httpx", None)  # `import httpx` fails, as where it is missing


@pytest.mark.parametrize("client", [WeatherClient, WeatherSyncClient])
def test_construction_fails_with_the_install_command(no_httpx: None, client: type) -> None:
    with pytest.raises(MissingDependencyError) as caught:
        client.http("http://127.0.0.1:9/mcp")
    assert isinstance(caught.value, ImportError) and caught.value.package == "httpx"
    assert "pip install 'mcp-codegen-runtime[http]'" in str(caught.value)
    assert "calling a server over HTTP needs httpx" in str(caught.value)


def test_with_httpx_construction_connects_nothing() -> None:
    WeatherClient.http("http://127.0.0.1:9/mcp")  # nothing listens there: made, never connected
