"""mcp-codegen.lock: content, determinism, part of the manifest and of `check`, version drift notes."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_codegen_runtime.wire.tools import tool_fingerprint
from typer.testing import CliRunner

from codegen import __version__, generate
from codegen.commands.cli.main import app
from codegen.output.emit import MANIFEST
from codegen.render.lockfile import LOCKFILE, generator_versions, read_lock, version_drift

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "specs" / "weather.yaml"


@pytest.fixture(scope="module")
def weather_files() -> dict[str, str]:
    result = generate([WEATHER])
    assert result.ok
    return {f.path: f.content for f in result.files}


def test_lock_content(weather_files: dict[str, str]) -> None:
    lock = json.loads(weather_files[f"weather/{LOCKFILE}"])
    assert lock["lockfile_version"] == 1
    assert lock["spec"] == {"path": "specs/weather.yaml", "format_version": 1}
    assert lock["generator"] == {
        "mcp-codegen": __version__,
        "black": importlib.metadata.version("black"),
        "datamodel-code-generator": importlib.metadata.version("datamodel-code-generator"),
    }
    assert lock["server"]["package"] == "weather" and lock["server"]["classes"]["client"] == "WeatherClient"
    assert sorted(lock["tools"]) == ["get_forecast", "get_weather"]
    weather = lock["tools"]["get_weather"]
    assert weather["python"]["method"] == "get_weather" and weather["python"]["kwargs"] == ["location", "unit"]
    assert weather["python"]["errors"] == {"unknown_location": "UnknownLocationError"}


def _wire_of(tools_py: str, tool: str) -> dict[str, object]:
    """The ``wire=`` literal of one ToolDef in a generated tools.py (read with ast, not imported)."""
    for node in ast.walk(ast.parse(tools_py)):
        if isinstance(node, ast.Call) and any(k.arg == "wire" for k in node.keywords):
            name = next((k.value for k in node.keywords if k.arg == "name"), None)
            if isinstance(name, ast.Constant) and name.value == tool:
                wire = next(k.value for k in node.keywords if k.arg == "wire")
                if isinstance(wire, ast.Call):  # json.loads(r"""...""")
                    return dict(json.loads(ast.literal_eval(wire.args[0])))
                return dict(ast.literal_eval(wire))
    raise AssertionError(f"no ToolDef for {tool}")


def test_fingerprints_match_the_generated_tooldefs(weather_files: dict[str, str]) -> None:
    lock = json.loads(weather_files[f"weather/{LOCKFILE}"])
    tools_py = weather_files["weather/tools.py"]
    for name, entry in lock["tools"].items():
        assert entry["fingerprint"] in tools_py, name  # the same hash the client checks at run time
        assert tool_fingerprint(_wire_of(tools_py, name)) == entry["fingerprint"]
        assert len(entry["wire_sha256"]) == 64
    committed = read_lock(REPO / "generated_examples" / "weather" / LOCKFILE)
    assert committed is not None and committed["tools"] == lock["tools"]


def test_lock_is_owned_by_the_manifest(weather_files: dict[str, str]) -> None:
    manifest = json.loads(weather_files[f"weather/{MANIFEST}"])
    assert LOCKFILE in manifest["files"]


def test_lock_is_deterministic_across_hash_seeds() -> None:
    spec = REPO / "tests" / "generator" / "golden" / "cases" / "kitchen_sink" / "spec.yaml"
    code = ("import sys; from pathlib import Path; from codegen import generate; "
            "r = generate([Path(sys.argv[1])]); "
            "sys.stdout.write(next(f.content for f in r.files if f.path.endswith('mcp-codegen.lock')))")
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    other = subprocess.run([sys.executable, "-c", code, str(spec)], env=env, capture_output=True, text=True, timeout=120, check=True)
    here = next(f.content for f in generate([spec]).files if f.path.endswith(LOCKFILE))
    assert other.stdout == here and json.loads(here)["tools"]


runner = CliRunner()


def test_check_compares_the_lock_and_explains_version_drift(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert runner.invoke(app, ["build", str(WEATHER), "-o", str(out), "-q"]).exit_code == 0
    assert runner.invoke(app, ["check", str(WEATHER), "-o", str(out)]).exit_code == 0
    lock_path = out / "weather" / LOCKFILE
    lock = json.loads(lock_path.read_text())
    lock["generator"]["black"] = "0.0.1"
    lock_path.write_text(json.dumps(lock, indent=2, sort_keys=True) + "\n")
    assert version_drift(out, ["weather"]) == [f"weather: generated with black 0.0.1, running {generator_versions()['black']}"]
    res = runner.invoke(app, ["check", str(WEATHER), "-o", str(out)])
    assert res.exit_code == 1
    assert f"weather/{LOCKFILE} (generated)" in res.output and "generated with black 0.0.1" in res.output
    assert version_drift(out, ["nothing-here"]) == []
