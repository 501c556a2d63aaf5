"""Hypothesis strategies from JSON Schemas (runtime ``testing/strategies.py``): every value drawn
for every input and output schema of the example specs and golden cases, and for hostile
schemas (recursion, combinators, ECMA patterns, formats, numeric steps), validates against its
schema with ``jsonschema`` (format assertion on); a tool's strategy gives its input model, the
one the server hands the handler for those arguments."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from jsonschema import Draft202012Validator
from mcp_codegen_runtime.schema.validation import python_patterns, validate_arguments
from mcp_codegen_runtime.testing.strategies import from_schema, tool_arguments
from mcp_codegen_runtime.wire.tools import ToolDef

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "generator" / "golden" / "cases"
EXAMPLES = ("weather", "notes", "catalog", "everything")
DRAWS = settings(max_examples=25, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _packages() -> list[str]:
    for expected in sorted(CASES.glob("*/expected")):
        if str(expected) not in sys.path:
            sys.path.append(str(expected))
    return [*EXAMPLES, *sorted(p.parent.name for p in CASES.glob("*/expected/*/tools.py"))]


def _tools() -> list[tuple[str, ToolDef]]:
    return [(f"{pkg}/{tool.name}", tool) for pkg in _packages() for tool in importlib.import_module(f"{pkg}.tools").TOOLS]


TOOLS = _tools()
SCHEMAS = [(f"{name}:{key}", tool.wire[key]) for name, tool in TOOLS for key in ("inputSchema", "outputSchema")
           if key in tool.wire]


def _validator(schema: Any, formats: bool = False) -> Draft202012Validator:
    """jsonschema's validator of ``schema``, its patterns read as ECMA-262 (as the server reads them)."""
    return Draft202012Validator(python_patterns(schema), format_checker=Draft202012Validator.FORMAT_CHECKER if formats else None)


def _assert_draws_validate(schema: Any) -> list[Any]:
    validator = _validator(schema, formats=True)
    drawn: list[Any] = []

    @DRAWS
    @given(from_schema(schema))
    def check(value: Any) -> None:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(value)]
        assert not errors, (value, errors)
        drawn.append(value)

    check()
    return drawn


def test_the_corpus_is_the_examples_and_the_goldens() -> None:
    assert len(TOOLS) > 70 and len(SCHEMAS) >= 100
    assert {name.split("/")[0] for name, _ in TOOLS} >= {*EXAMPLES, "sink", "shapes", "nullable", "map_shapes"}


@pytest.mark.parametrize(("name", "schema"), SCHEMAS, ids=[n for n, _ in SCHEMAS])
def test_every_draw_of_a_spec_schema_validates(name: str, schema: dict[str, Any]) -> None:
    assert _assert_draws_validate(schema)


@pytest.mark.parametrize(("name", "tool"), TOOLS, ids=[n for n, _ in TOOLS])
def test_a_tool_strategy_gives_the_servers_view_of_valid_arguments(name: str, tool: ToolDef) -> None:
    validator = _validator(tool.wire["inputSchema"])

    @DRAWS
    @given(tool_arguments(tool, tool.input_model))
    def check(model: Any) -> None:
        assert type(model) is tool.input_model
        wire = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
        assert validator.is_valid(wire), wire
        assert validate_arguments(tool, wire) == model  # what the server would hand the handler

    check()


RECURSIVE = {
    "$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3},
                                                       "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                       "required": ["name"], "additionalProperties": False}},
    "$ref": "#/$defs/Node",
}
HOSTILE: dict[str, Any] = {
    "recursive tree": RECURSIVE,
    "linked list": {"$defs": {"L": {"type": "object", "properties": {"v": {"type": "integer"},
                                                                      "next": {"anyOf": [{"$ref": "#/$defs/L"}, {"type": "null"}]}},
                                    "required": ["v", "next"]}}, "$ref": "#/$defs/L"},
    "oneOf overlapping": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 10}]},
    "allOf with a ref": {"$defs": {"Base": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}},
                                            "required": ["id"]}},
                         "allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"tag": {"enum": ["a", "b"]}}, "required": ["tag"]}]},
    "ECMA patterns": {"type": "object", "properties": {"code": {"type": "string", "pattern": r"^\p{Lu}\d{2}$"},
                                                       "word": {"type": "string", "pattern": r"\w+@\w+", "maxLength": 12}},
                      "required": ["code", "word"]},
    "numeric steps": {"type": "array", "items": {"type": "number", "multipleOf": 0.1, "minimum": -1, "maximum": 1}},
    "integer step": {"type": "integer", "exclusiveMinimum": 3, "exclusiveMaximum": 11, "multipleOf": 2},
    "unique small enum": {"type": "array", "items": {"enum": [1, 1.5, "x", True]}, "minItems": 2, "uniqueItems": True},
    "prefix items only": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "items": False},
    "not": {"not": {"type": "string"}},
    "if then else": {"type": "object", "properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "integer"}},
                     "required": ["kind"], "if": {"properties": {"kind": {"const": "a"}}},
                     "then": {"required": ["n"]}, "else": {"not": {"required": ["n"]}}},
    "additional and pattern properties": {"type": "object", "properties": {"id": {"type": "string"}},
                                          "patternProperties": {"^x-": {"type": "integer"}},
                                          "additionalProperties": {"type": "boolean"}},
    "nullable": {"type": ["string", "null"], "minLength": 2},
    "const object": {"const": {"a": [1, {"b": None}]}},
    "anything": {},
    "true": True,
    "dependent required": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                           "dependentRequired": {"a": ["b"]}},
    "property counts": {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1, "maxProperties": 2},
    "formats": {"type": "object", "properties": {f: {"type": "string", "format": f} for f in
                                                 ("date-time", "date", "time", "email", "uri", "uuid", "ipv4", "ipv6",
                                                  "hostname", "duration", "json-pointer", "uri-reference", "regex")},
                "required": ["date-time", "email", "uuid"]},
    "format and pattern": {"type": "string", "format": "email", "pattern": "^[a-z]+@example[.]com$", "maxLength": 30},
    "mixed enum": {"enum": [None, 0, "0", [0], {"0": 0}]},
    "implied types": {"minimum": 5, "maxLength": 3},
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_every_draw_of_a_hostile_schema_validates(name: str) -> None:
    drawn = _assert_draws_validate(HOSTILE[name])
    assert drawn


def test_recursion_terminates_and_nests() -> None:
    drawn = _assert_draws_validate(RECURSIVE)
    assert any(value.get("children") and any(c.get("children") for c in value["children"]) for value in drawn) or \
        any(value.get("children") for value in drawn)


def test_a_contradiction_draws_nothing() -> None:
    for schema in (False, {"type": "integer", "minimum": 5, "maximum": 4}, {"allOf": [{"type": "string"}, {"type": "integer"}]},
                   {"type": "string", "minLength": 3, "maxLength": 2}):
        with pytest.raises(Unsatisfiable):
            _assert_draws_validate(schema)


def test_the_check_would_catch_an_invalid_draw() -> None:
    """The validity assertion above is not vacuous: a strategy ignoring ``minimum`` is caught."""
    validator = Draft202012Validator({"type": "integer", "minimum": 5})

    @DRAWS
    @given(st.integers())
    def check(value: int) -> None:
        assert validator.is_valid(value)

    with pytest.raises(AssertionError):
        check()
