"""A generated package's pytest plugin as a user meets it: the package (``project: true``) and
the runtime with their ``testing`` extra installed into a fresh venv with pytest and
pytest-asyncio; tests in a folder without a ``conftest.py`` get the fixtures from the package's
``pytest11`` entry point, async ones in pytest-asyncio's strict mode and plain ones without it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from common_support import weather_spec

REPO = Path(__file__).resolve().parents[2]

USER_TESTS = '''
import asyncio

import pytest
from hypothesis import given, settings

from weather.models import GetForecastInput
from weather.testing import connect_sync, strategies


def test_sync_fixture(weather_sync_client):
    assert weather_sync_client.get_forecast(location="Paris", days=1).content[0].text == "day 1: sunny, 18.0 C"


def test_async_fixture_in_a_plain_test(weather_client):
    result = asyncio.run(weather_client.get_forecast(location="Paris", days=1))
    assert result.content[0].text == "day 1: sunny, 18.0 C"


@pytest.mark.asyncio
async def test_async_fixture_under_pytest_asyncio(weather_client):
    result = await weather_client.get_forecast(location="Paris", days=2)
    assert result.content[0].text.splitlines()[1] == "day 2: sunny, 19.0 C"


@settings(max_examples=15, deadline=None)
@given(strategies.get_forecast())
def test_property(args: GetForecastInput):
    assert 1 <= args.days <= 7
    with connect_sync() as client:
        try:
            text = client.get_forecast(**args.model_dump(exclude_unset=True)).content[0].text
        except Exception as exc:
            assert type(exc).__name__ == "UnknownLocationError"
        else:
            assert len(text.splitlines()) == args.days
'''


def test_the_fixtures_come_from_the_entry_point_with_and_without_pytest_asyncio(tmp_path: Path) -> None:
    from codegen import build

    spec = (REPO / "specs" / "weather.yaml").read_text("utf-8").replace("  version: 1.2.0\n", "  version: 1.2.0\n  project: true\n", 1)
    weather_spec(tmp_path / "specs", spec)
    result, written = build([tmp_path / "specs" / "weather.yaml"], tmp_path / "out")
    assert written is not None, [d.render() for d in result.diagnostics]
    pyproject = (tmp_path / "out" / "weather" / "pyproject.toml").read_text("utf-8")
    assert '[project.entry-points.pytest11]\nweather = "weather.testing"' in pyproject
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
    python = venv / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          f"{REPO / 'runtime'}[testing]", f"{tmp_path / 'out' / 'weather'}[testing]", "pytest", "pytest-asyncio"],
                         capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-3000:]
    impl = tmp_path / "impl"
    impl.mkdir()
    shutil.copy(REPO / "generated_examples" / "weather_impl.py", impl / "weather_impl.py")
    tests = tmp_path / "user_tests"
    tests.mkdir()
    (tests / "test_weather.py").write_text(USER_TESTS, "utf-8")
    env = {**{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}, "PYTHONPATH": str(impl)}

    def pytest(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=strict", *args,
                               str(tests)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)

    run = pytest()
    assert run.returncode == 0 and "4 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
    without = pytest("-p", "no:asyncio", "-k", "not pytest_asyncio")
    assert without.returncode == 0 and "3 passed" in without.stdout, without.stdout[-3000:] + without.stderr[-2000:]
    unplugged = pytest("-p", "no:weather", "-k", "sync_fixture")  # the fixtures are the plugin's
    assert unplugged.returncode != 0 and "fixture 'weather_sync_client' not found" in unplugged.stdout, unplugged.stdout
