"""Common nullable schema forms are model-exact: no run-time ``jsonschema``, and exactly as
strict as the schema (``null`` accepted, the constraints applied to the non-null value).

Each case goes through a generated server and the typed client, as the official suite's
cases do (``tests/support/json_schema_suite.py``): valid data must reach the handler
unchanged on both paths, invalid data must be refused on both.  The expected verdicts are
written out by hand below.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import json_schema_suite as suite
import pytest
from mcp_codegen_runtime.schema.residual import pattern_checks

from codegen.schemas.exactness import inexact_keywords, model_view

POINT = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"], "additionalProperties": False}

#: (description, schema, [(data, valid), ...])
CASES: list[tuple[str, Any, list[tuple[Any, bool]]]] = [
    ("nullable integer with bounds", {"type": ["integer", "null"], "minimum": 0, "maximum": 10},
     [(None, True), (0, True), (10, True), (5.0, True), (-1, False), (11, False), ("5", False), (1.5, False),
      (True, False), ([], False)]),
    ("nullable integer, exclusive bounds and multipleOf",
     {"type": ["null", "integer"], "exclusiveMinimum": 0, "exclusiveMaximum": 9, "multipleOf": 3},
     [(None, True), (3, True), (6, True), (0, False), (9, False), (4, False), ("3", False)]),
    ("nullable number with bounds", {"type": ["number", "null"], "minimum": 0.5, "exclusiveMaximum": 2},
     [(None, True), (0.5, True), (1, True), (1.99, True), (0.49, False), (2, False), ("1", False), (False, False)]),
    ("nullable string with lengths", {"type": ["string", "null"], "minLength": 2, "maxLength": 3},
     [(None, True), ("ab", True), ("abc", True), ("a", False), ("abcd", False), (5, False), ([], False)]),
    ("nullable string with a pattern", {"type": ["string", "null"], "pattern": "^a\\d$", "maxLength": 2},
     [(None, True), ("a1", True), ("b1", False), ("a12", False), ("a\u0661", False), (1, False)]),
    ("nullable array", {"type": ["array", "null"], "items": {"type": "integer", "minimum": 0}, "minItems": 1,
                        "maxItems": 2},
     [(None, True), ([0], True), ([1, 2], True), ([], False), ([1, 2, 3], False), ([-1], False), (["1"], False),
      ([None], False), ({}, False)]),
    ("nullable object", {"type": ["object", "null"], "properties": {"k": {"type": "string"}}, "required": ["k"],
                         "additionalProperties": False},
     [(None, True), ({"k": "v"}, True), ({}, False), ({"k": 1}, False), ({"k": "v", "j": 1}, False),
      ({"k": None}, False), ("k", False)]),
    ("nullable $ref through anyOf", {"$defs": {"P": POINT}, "anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]},
     [(None, True), ({"x": 1}, True), ({"x": "1"}, False), ({}, False), ({"x": 1, "y": 2}, False), (1, False)]),
    ("nullable $ref through disjoint oneOf", {"$defs": {"P": POINT}, "oneOf": [{"type": "null"}, {"$ref": "#/$defs/P"}]},
     [(None, True), ({"x": 1}, True), ({"x": 1.5}, False), ({}, False), ([], False), ("x", False)]),
    ("disjoint oneOf of scalars", {"oneOf": [{"type": "string", "maxLength": 1}, {"type": "integer", "minimum": 0}]},
     [("a", True), (0, True), ("ab", False), (-1, False), (None, False), (1.5, False)]),
    ("nullable enum without a type", {"enum": ["low", "high", None]},
     [(None, True), ("low", True), ("high", True), ("mid", False), ("", False), (1, False)]),
    ("nullable enum with a type list", {"type": ["string", "null"], "enum": ["low", "high", None]},
     [(None, True), ("low", True), ("mid", False), (0, False)]),
    ("enum without null under a nullable type", {"type": ["string", "null"], "enum": ["low", "high"]},
     [("low", True), (None, False), ("mid", False)]),
    ("null member under a string type", {"type": "string", "enum": ["low", None]},
     [("low", True), (None, False), ("high", False)]),
    ("const under a nullable type", {"type": ["string", "null"], "const": "on"},
     [("on", True), (None, False), ("off", False)]),
    ("optional nullable property", {"type": "object", "properties": {
        "n": {"type": ["integer", "null"], "minimum": 1},
        "e": {"enum": ["a", "b", None], "default": "a"},
        "p": {"type": "integer", "minimum": 1}}},
     [({}, True), ({"n": None}, True), ({"n": 1}, True), ({"n": 0}, False), ({"n": "1"}, False),
      ({"e": None}, True), ({"e": "b"}, True), ({"e": "c"}, False), ({"p": None}, False), ({"p": 1}, True)]),
    ("nullable items", {"type": "array", "items": {"type": ["integer", "null"], "maximum": 3}},
     [([], True), ([None, 3], True), ([4], False), ([None, "1"], False)]),
]


def _groups() -> list[suite.Group]:
    return [suite.Group("nullable.json", i, desc, schema,
                        [{"description": repr(data), "data": data, "valid": valid} for data, valid in tests])
            for i, (desc, schema, tests) in enumerate(CASES)]


@pytest.mark.parametrize(("desc", "schema"), [(d, s) for d, s, _ in CASES])
def test_nullable_forms_are_exact(desc: str, schema: Any) -> None:
    wire = suite.tool_schema(schema)
    # a pattern is checked beside the model (schema/residual.py) when it applies unconditionally
    assert all(kw == "pattern" for _, kw in inexact_keywords(wire)), desc
    assert pattern_checks(wire) is not None


def test_nullable_forms_through_server_and_client(tmp_path: Path) -> None:
    groups = _groups()
    spec_dir, out = tmp_path / "specs", tmp_path / "out"
    suite.write_specs(groups, spec_dir, False)
    assert suite.build(spec_dir, out) == {}
    sys.path.insert(0, str(out))
    try:
        report = suite.Report()
        asyncio.run(suite.run_package(suite.package_name("nullable.json"), groups, report))
    finally:
        sys.path.remove(str(out))
    bad = [f"[{o.path}] {o.verdict}: {o.group} / {o.test}: {o.detail}" for o in report.outcomes if o.verdict != "agree"]
    assert not bad, "\n".join(bad)
    assert len(report.outcomes) == 2 * sum(len(t) for _, _, t in CASES)
    assert report.model_only_tests == sum(len(t) for _, _, t in CASES)  # no tool is schema-checked


def test_overlapping_one_of_stays_schema_checked() -> None:
    schema = {"type": "object", "properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}}
    assert inexact_keywords(schema) == [("/properties/v", "oneOf")]
    untyped = {"type": "object", "properties": {"v": {"oneOf": [{"minimum": 1}, {"type": "null"}]}}}
    assert inexact_keywords(untyped) == [("/properties/v", "oneOf")]


def test_nullable_model_views() -> None:
    assert model_view({"type": ["integer", "null"], "minimum": 0, "multipleOf": 2}) == {
        "type": ["integer", "null"], "minimum": 0, "multipleOf": 2}
    assert model_view({"type": ["string", "null"], "minLength": 1, "pattern": "^a"}) == {
        "type": ["string", "null"], "minLength": 1}
    # a const or an enum without null leaves null out
    assert model_view({"type": ["string", "null"], "const": "on"}) == {"type": "string", "const": "on"}
    assert model_view({"type": ["string", "null"], "enum": ["a", "b"]}) == {"type": "string", "enum": ["a", "b"]}
    nullable = model_view({"enum": ["a", None], "description": "d"})
    assert nullable == {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}],
                        "x-mcp-codegen-nullable": True, "description": "d"}
