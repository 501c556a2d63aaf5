"""Output errors say what broke, on every transport: a handler returning a wrong-typed field
gives the client an ``OutputValidationError`` naming the field path and why (``.errors``,
``str()``, ``data.errors`` of the -32603 ``mcp-codegen.invalid_output``), and no value of the
result (a secret-looking string in the wrong-typed field) appears in its message or data;
the server log keeps the details.  stdio and HTTP are real ``python -m weather`` processes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from common_support import free_port, run_async
from http_support import EXAMPLES, ROOT, ServerProcess
from mcp_codegen_runtime.wire import protocol as p

SECRET = "sk-live-51Hq8ZtR2xT9vQ"  # looks like a credential: must never reach the client

IMPL = f"""\
from typing import Any

from weather import Context
from weather.models import GetForecastInput, GetWeatherInput
from weather.server import WeatherServerBase


class Leaky(WeatherServerBase):
    async def get_weather(self, args: GetWeatherInput, ctx: Context) -> Any:
        return {{"temperature": {SECRET!r}, "conditions": "sunny", "unit": "celsius"}}

    async def get_forecast(self, args: GetForecastInput, ctx: Context) -> Any:
        return "fine"
"""

EXPECTED = [("temperature", "Input should be a valid number")]


@pytest.fixture
def impl_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "leaky_impl.py").write_text(IMPL, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _assert_names_the_field_not_the_value(exc: Any) -> None:
    from weather import OutputValidationError

    assert isinstance(exc, OutputValidationError), repr(exc)
    assert exc.code == p.INTERNAL_ERROR
    assert [(e.path, e.message) for e in exc.errors] == EXPECTED
    assert exc.data["code"] == p.ERROR_INVALID_OUTPUT
    assert exc.data["errors"] == [{"path": "temperature", "message": "Input should be a valid number"}]
    text = str(exc)
    assert "get_weather" in text and "temperature: Input should be a valid number" in text, text
    for shown in (text, exc.message, json.dumps(exc.data)):
        assert SECRET not in shown and "sk-live" not in shown, shown
        assert "Traceback" not in shown and ".py" not in shown and str(ROOT) not in shown, shown


async def _call(client: Any) -> Any:
    try:
        await client.get_weather(location="Paris")
    except Exception as exc:  # asserted by the caller
        return exc
    raise AssertionError("get_weather returned a value")


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_in_process(impl_dir: Path, era: str) -> None:
    from leaky_impl import Leaky  # type: ignore[import-not-found]
    from weather import WeatherClient

    async def main() -> Any:
        async with WeatherClient.in_process(Leaky(), era=era, audit=None) as client:
            return await _call(client)

    _assert_names_the_field_not_the_value(run_async(main()))


def test_stdio(impl_dir: Path) -> None:
    from weather import WeatherClient

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(impl_dir), str(EXAMPLES)]))

    async def main() -> Any:
        async with WeatherClient.stdio(sys.executable, ["-m", "weather", "--stdio", "--impl", "leaky_impl:Leaky"],
                                       env=env, cwd=str(impl_dir)) as client:
            return await _call(client)

    _assert_names_the_field_not_the_value(run_async(main()))


@pytest.mark.parametrize("version", [p.V2025_11_25, p.V2026_07_28])
def test_http_both_eras(impl_dir: Path, version: str) -> None:
    from weather import WeatherClient

    port = free_port()
    server = ServerProcess(["-m", "weather", "--http", "--port", str(port), "--impl", "leaky_impl:Leaky"], port=port,
                           env={"PYTHONPATH": os.pathsep.join([str(impl_dir), str(EXAMPLES), str(ROOT)])})
    try:
        async def main() -> Any:
            async with WeatherClient.http(server.url, protocol_version=version) as client:
                return await _call(client)

        exc = run_async(main())
    finally:
        server.stop()
    _assert_names_the_field_not_the_value(exc)
    assert SECRET in server.stderr_text  # the details (with the value) are in the server's log only
    assert "tool get_weather returned an invalid result" in server.stderr_text
