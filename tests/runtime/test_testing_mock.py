"""``connect_mock`` / ``connect_mock_sync`` and the mock fixtures of a generated package's ``testing``
module, on ``mock_server`` of the runtime (branch ``mock`` of issue 42: these tests need it
merged): a mocked answer is valid against the tool's output schema, deterministic for a seed, and
a scenario file chooses a declared error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from weather.errors import UnknownLocationError
from weather.testing import connect_mock_sync
from weather.tools import GET_WEATHER_TOOL

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "generated_examples"


def test_the_mock_answers_valid_outputs_deterministically() -> None:
    schema = GET_WEATHER_TOOL.wire["outputSchema"]
    answers = []
    for _ in range(2):
        with connect_mock_sync(seed=7) as client:
            out = client.get_weather(location="Paris")
            answers.append(out.model_dump(mode="json"))
    assert Draft202012Validator(schema).is_valid(answers[0]) and answers[0] == answers[1]


def test_a_scenario_file_chooses_a_declared_error(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("- tool: get_weather\n  when: {location: Atlantis}\n  error: unknown_location\n", "utf-8")
    with connect_mock_sync(scenario=scenario) as client:
        client.get_weather(location="Paris")
        with pytest.raises(UnknownLocationError):
            client.get_weather(location="Atlantis")


def test_the_mock_fixtures(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["weather.testing"]\n', "utf-8")
    (tmp_path / "test_mock.py").write_text(
        "import asyncio\n\n"
        "def test_sync(weather_mock_sync_client):\n"
        "    assert weather_mock_sync_client.get_weather(location='x').unit.value in ('celsius', 'fahrenheit')\n\n"
        "def test_async(weather_mock_client):\n"
        "    out = asyncio.run(weather_mock_client.get_weather(location='x'))\n"
        "    assert isinstance(out.temperature, float)\n", "utf-8")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)], cwd=tmp_path,
                          env={"PYTHONPATH": str(EXAMPLES), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "2 passed" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]
