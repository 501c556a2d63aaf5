"""A generated package's ``testing`` module (weather of generated_examples): the typed clients in
process on an implementation named every way, the default one resolved like ``--impl``, its
errors; Hypothesis imported only for strategies (else an ImportError naming the install); the
pytest fixtures through ``pytest_plugins``, with and without an async plugin."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mcp_codegen_runtime.testing.servers import NoImplementationError
from weather import ElicitationResponse, TextContent
from weather.errors import UnknownLocationError
from weather.testing import connect, connect_sync, strategies
from weather_impl import WeatherService

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "generated_examples"
MINIMAL = ROOT / "tests" / "generator" / "golden" / "cases" / "minimal" / "expected"


def _text(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    assert isinstance(content[0], TextContent)
    return content[0].text


def test_connect_sync_serves_the_default_implementation_in_process() -> None:
    with connect_sync() as client:
        text = _text(client.get_forecast(location="Paris", days=2))
        with pytest.raises(UnknownLocationError):
            client.get_forecast(location="Atlantis")
    assert text == "day 1: sunny, 18.0 C\nday 2: sunny, 19.0 C"  # weather_impl.py's table


def test_connect_takes_a_class_an_instance_or_a_name_and_client_options() -> None:
    class Sunny(WeatherService):
        def get_forecast(self, args, ctx):  # type: ignore[no-untyped-def]
            from weather import ToolResult

            return ToolResult(content=[TextContent(type="text", text=f"always sunny in {args.location}")])

    async def main() -> list[str]:
        out = []
        for impl in (Sunny, Sunny(), "weather_impl:WeatherService"):
            async with connect(impl) as client:
                out.append(_text(await client.get_forecast(location="Paris", days=1)))
        answer = ElicitationResponse(action="accept", content={"unit": "fahrenheit"})
        async with connect(elicitation=lambda request: answer) as client:
            weather = await client.get_weather(location="Paris")
        out.append(weather.unit.value)
        return out

    assert asyncio.run(main()) == ["always sunny in Paris"] * 2 + ["day 1: sunny, 18.0 C", "fahrenheit"]


def test_what_is_not_an_implementation_is_refused() -> None:
    with pytest.raises(TypeError, match="WeatherServerBase"):
        connect(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a subclass of WeatherServerBase"):
        connect("weather_impl:_lookup")


def test_no_default_implementation_says_how_to_give_one() -> None:
    code = "from minimal.testing import connect_sync\nconnect_sync()\n"
    proc = subprocess.run([sys.executable, "-c", code], cwd=MINIMAL, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and NoImplementationError.__name__ in proc.stderr
    assert "server.implementation" in proc.stderr and "build --scaffold" in proc.stderr


def test_importing_testing_needs_neither_pytest_nor_hypothesis() -> None:
    code = ("import sys\nimport weather.testing as t\n"
            "assert 'pytest' not in sys.modules and 'hypothesis' not in sys.modules, sorted(sys.modules)\n"
            "assert not hasattr(t, 'weather_client')\n"  # fixtures only under pytest
            "sys.modules['hypothesis'] = None\n"
            "try:\n    t.strategies.get_weather()\nexcept ImportError as exc:\n    print(exc)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=EXAMPLES, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "pip install hypothesis jsonschema" in proc.stdout


def test_strategies_draw_the_input_models_a_handler_receives() -> None:
    from hypothesis import given, settings
    from weather.models import GetForecastInput

    seen: list[GetForecastInput] = []

    @settings(max_examples=20, database=None, deadline=None)
    @given(strategies.get_forecast())
    def check(args: GetForecastInput) -> None:
        assert type(args) is GetForecastInput and 1 <= args.days <= 7 and len(args.location) >= 1
        seen.append(args)

    check()
    assert len({a.location for a in seen}) > 5  # drawn, not a constant
    assert strategies.get_forecast() is strategies.get_forecast()  # made once per tool


USER_TESTS = '''
import asyncio

import pytest
from hypothesis import given, settings
from weather.models import GetForecastInput
from weather.testing import connect_sync, strategies


def test_sync(weather_sync_client):
    assert "day 1" in weather_sync_client.get_forecast(location="Paris").content[0].text


def test_async_without_a_plugin(weather_client):
    async def main():
        return await weather_client.get_forecast(location="Paris", days=1)
    assert asyncio.run(main()).content[0].text == "day 1: sunny, 18.0 C"


@pytest.mark.anyio
async def test_async_with_anyio(weather_client, anyio_backend):
    result = await weather_client.get_forecast(location="Paris", days=1)
    assert result.content[0].text == "day 1: sunny, 18.0 C"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@settings(max_examples=10, deadline=None)
@given(strategies.get_forecast())
def test_property(args: GetForecastInput):
    with connect_sync() as client:
        try:
            client.get_forecast(**args.model_dump(exclude_unset=True))
        except Exception as exc:
            assert type(exc).__name__ == "UnknownLocationError"
'''

OVERRIDE = '''
from weather_impl import WeatherService

class Cloudy(WeatherService):
    def get_forecast(self, args, ctx):
        from weather import TextContent, ToolResult
        return ToolResult(content=[TextContent(type="text", text="day 1: cloudy")])

import pytest

@pytest.fixture
def weather_implementation():
    return Cloudy


def test_override(weather_sync_client):
    assert weather_sync_client.get_forecast(location="Paris").content[0].text == "day 1: cloudy"
'''


def test_the_fixtures_through_pytest_plugins(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["weather.testing"]\n', "utf-8")
    (tmp_path / "test_user.py").write_text(USER_TESTS, "utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "test_override.py").write_text(OVERRIDE, "utf-8")
    env = {"PYTHONPATH": str(EXAMPLES), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error::pytest.PytestWarning",
                           str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "5 passed" in proc.stdout, proc.stdout
    listed = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--fixtures", str(tmp_path)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300).stdout
    for name in ("weather_client", "weather_sync_client", "weather_mock_client", "weather_mock_sync_client",
                 "weather_implementation", "weather_mock_scenario"):
        assert name in listed, name
    assert textwrap.dedent("connects on first call") in listed
