"""A ``default`` its own schema refuses, seen through ``$ref``, ``allOf``, ``anyOf``, a pattern, a
tool-local ``$defs`` entry or another file: W102 at the default (an error with ``--strict``), and
models that leave it out, so they pass ``mypy --strict`` and a call without the field works."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codegen import build, generate
from codegen.commands.cli.main import app

SPEC = """\
mcp-codegen: 1
server: {name: defaults, version: "1"}
$defs:
  Priority: {type: string, enum: [low, medium, high]}
  Small: {type: integer, maximum: 5}
tools:
  - name: file_issue
    description: File an issue.
    inputSchema:
      type: object
      $defs:
        Size: {type: string, enum: [s, m, l]}
      properties:
        priority: {$ref: "#/$defs/Priority", default: urgent}
        size: {$ref: "#/$defs/Size", default: xl}
        count: {allOf: [{$ref: "#/$defs/Small"}], default: 9}
        owner: {anyOf: [{type: integer}, {type: "null"}], default: nobody}
        label: {type: string, pattern: "^[a-z]+$", default: Bug}
        unit: {$ref: "units.yaml#/$defs/Unit", default: kelvin}
        fine: {$ref: "#/$defs/Priority", default: low}
"""
UNITS = "$defs:\n  Unit: {type: string, enum: [celsius, fahrenheit]}\n"
BAD = ("priority", "size", "count", "owner", "label", "unit")


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    (tmp_path / "units.yaml").write_text(UNITS, "utf-8")
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC, "utf-8")
    return path


def test_each_unfit_default_is_reported_at_its_place(spec: Path) -> None:
    result = generate([spec])
    assert result.ok
    w102 = {d.pointer: d.message for d in result.diagnostics if d.code == "W102"}
    for name in BAD:
        assert f"/tools/0/inputSchema/properties/{name}/default" in w102, (name, w102)
    assert "/tools/0/inputSchema/properties/fine/default" not in w102
    assert "'urgent' is not one of ['low', 'medium', 'high']" in w102["/tools/0/inputSchema/properties/priority/default"]
    assert "9 is greater than the maximum of 5" in w102["/tools/0/inputSchema/properties/count/default"]


def test_strict_validation_fails(spec: Path) -> None:
    assert CliRunner().invoke(app, ["validate", str(spec)]).exit_code == 0
    strict = CliRunner().invoke(app, ["validate", "--strict", str(spec)])
    assert strict.exit_code == 1 and "W102" in strict.output


def test_the_models_leave_them_out_and_pass_mypy(spec: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    result, report = build([spec], out)
    assert report is not None, [d.render() for d in result.diagnostics]
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "defaults"], cwd=out,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    monkeypatch.syspath_prepend(str(out))
    models = importlib.import_module("defaults.models")
    args = models.FileIssueInput.model_validate({})
    assert [getattr(args, name) for name in BAD] == [None] * len(BAD)
    assert args.fine == "low"  # a default that fits stays
