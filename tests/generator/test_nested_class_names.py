"""Nested schemas of several tools that become classes get names of the naming service, so one
``models.py`` never defines a class twice (``Name "Parser" already defined``): identical
nested enums named alike, different ones named alike, one-member enums, enums in items,
nullable fields, union branches and tool-local ``$defs`` — the result passes ``mypy --strict``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from codegen import build

#: One tool's input schema, written several times with a different enum member: the nested
#: property names (``parser``, ``mode`` ...) are the same in every tool.
_TOOL = """
  - name: {name}
    inputSchema:
      type: object
      $defs:
        Parser: {{type: string, enum: [{member}]}}
      properties:
        parser: {{type: string, enum: [{member}]}}
        shared: {{$ref: "#/$defs/Parser"}}
        mode: {{type: [string, "null"], enum: [{member}]}}
        modes: {{type: array, items: {{type: array, items: {{enum: [{member}]}}}}}}
        loose: {{enum: [{member}, null]}}
        either: {{anyOf: [{{type: string, enum: [{member}]}}, {{type: integer}}]}}
        maybe: {{type: [array, "null"], items: {{type: string, enum: [{member}]}}}}
        pair: {{type: object, properties: {{kind: {{type: string, enum: [{member}, other]}}}}}}
"""


def _spec(tmp_path: Path) -> Path:
    tools = "".join(_TOOL.format(name=name, member=member)
                    for name, member in (("lint", "lark"), ("parse", "lark"), ("format", "peg")))
    path = tmp_path / "spec.yaml"
    path.write_text(f"mcp-codegen: 1\nserver: {{name: parsers, version: '1'}}\ntools:{tools}", "utf-8")
    return path


def test_nested_classes_of_several_tools_are_distinct_and_pass_mypy_strict(tmp_path: Path) -> None:
    result, report = build([_spec(tmp_path)], tmp_path / "out")
    assert report is not None, [d.render() for d in result.diagnostics]
    models = (tmp_path / "out" / "parsers" / "models.py").read_text("utf-8")
    classes = [n.name for n in ast.parse(models).body if isinstance(n, ast.ClassDef)]
    assert len(classes) == len(set(classes)), sorted(c for c in classes if classes.count(c) > 1)
    # named by the naming service after their place (tool, property), not by the model generator
    for stem in ("Lint", "Parse", "Format"):
        assert {f"{stem}InputParser", f"{stem}InputMode", f"{stem}InputEitherOption1"} <= set(classes)
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "parsers"], cwd=tmp_path / "out",
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
