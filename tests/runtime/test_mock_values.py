"""Example values of JSON Schemas (``schema/examples.py``, ``schema/strings.py``): every value is
judged by ``jsonschema`` (an independent validator, formats asserted), never by the generator."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import pytest
import yaml
from mcp_codegen_runtime.schema.examples import ExampleError, example
from mcp_codegen_runtime.schema.strings import PatternUnsatisfiable, pattern_string

REPO = Path(__file__).resolve().parents[2]
FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER


def _assert_valid(schema: Any, value: Any) -> None:
    """``jsonschema`` judges; where Python's ``re`` cannot read an ECMA-262 pattern (``\\p{Lu}``,
    ``\\cJ``), jsonschema-rs (ECMA regular expressions, another independent implementation) does."""
    try:
        jsonschema.Draft202012Validator(schema, format_checker=FORMATS).validate(value)
    except re.error:
        jsonschema_rs.validator_for(schema, validate_formats=True).validate(value)


HARD = {
    "patterns": {"type": "object", "required": ["sku", "phone", "mail", "named"], "properties": {
        "sku": {"type": "string", "pattern": "^[A-Z0-9-]{4,20}$"},
        "phone": {"type": "string", "pattern": r"^\+?\d{1,3}[ -]\d{3}-\d{4}$"},
        "mail": {"type": "string", "pattern": r"^[^@\s]+@[^@\s]+\.[a-z]{2,6}$", "maxLength": 30},
        "named": {"type": "string", "pattern": r"^(ab|cd)-\1$"},
    }},
    "formats": {"type": "object", "required": ["a", "b", "c", "d", "e", "f", "g", "h"], "properties": {
        "a": {"type": "string", "format": "date-time"}, "b": {"type": "string", "format": "date"},
        "c": {"type": "string", "format": "email"}, "d": {"type": "string", "format": "uuid"},
        "e": {"type": "string", "format": "ipv4"}, "f": {"type": "string", "format": "ipv6"},
        "g": {"type": "string", "format": "uri"}, "h": {"type": "string", "format": "time"},
    }},
    "bounds": {"type": "object", "required": ["i", "n", "m", "s", "arr"], "properties": {
        "i": {"type": "integer", "minimum": 1000, "maximum": 1002},
        "n": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5},
        "m": {"type": "integer", "multipleOf": 7, "minimum": 50},
        "s": {"type": "string", "minLength": 12, "maxLength": 12},
        "arr": {"type": "array", "minItems": 3, "maxItems": 3, "uniqueItems": True,
                "items": {"type": "integer", "minimum": 0, "maximum": 3}},
    }},
    "recursion": {"$defs": {"Node": {"type": "object", "required": ["name", "children"], "properties": {
        "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
        "$ref": "#/$defs/Node"},
    "combinators": {"type": "object", "required": ["one", "any", "all", "cond"], "properties": {
        "one": {"oneOf": [{"type": "integer", "multipleOf": 2}, {"type": "integer", "multipleOf": 3}]},
        "any": {"anyOf": [{"type": "null"}, {"type": "string", "enum": ["x", "y"]}]},
        "all": {"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                          {"properties": {"b": {"const": True}}, "required": ["b"]}]},
        "cond": {"type": "object", "properties": {"kind": {"enum": ["a", "b"]}, "size": {"type": "integer"}},
                 "required": ["kind"], "if": {"properties": {"kind": {"const": "a"}}},
                 "then": {"required": ["size"]}, "else": {"not": {"required": ["size"]}}},
    }},
    "exclusive_branches": {"type": "object", "properties": {"price": {"type": "number"}, "percent": {"type": "number"}},
                           "oneOf": [{"required": ["price"]}, {"required": ["percent"]}]},
    "maps": {"type": "object", "minProperties": 2, "additionalProperties": False,
             "patternProperties": {"^x-[a-z]+$": {"type": "integer"}}},
    "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "items": False, "minItems": 2},
    "contains": {"type": "array", "contains": {"const": 42}, "items": {"type": "integer"}},
    "nullable": {"type": ["null", "string"], "minLength": 3},
}


@pytest.mark.parametrize("name", sorted(HARD))
def test_hard_schemas_give_valid_values_for_many_seeds(name: str) -> None:
    schema = HARD[name]
    values = [example(schema, seed=seed) for seed in range(12)]
    for value in values:
        _assert_valid(schema, value)


def test_deterministic_for_a_seed_and_varied_across_seeds() -> None:
    schema = HARD["patterns"]
    assert example(schema, seed=7) == example(schema, seed=7)
    assert len({repr(example(schema, seed=s)) for s in range(10)}) > 5


def test_examples_come_first_and_only_valid_ones() -> None:
    schema = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 0}},
              "examples": [{"n": -1}, {"n": 12345}]}
    assert {repr(example(schema, seed=s)) for s in range(8)} == {repr({"n": 12345})}  # {"n": -1} breaks the schema
    nested = {"type": "object", "required": ["city"], "properties": {"city": {"type": "string", "examples": ["Lyon"]}}}
    assert example(nested, seed=3) == {"city": "Lyon"}


def test_enum_and_const() -> None:
    assert example({"const": {"a": [1, 2]}}) == {"a": [1, 2]}
    assert {example({"enum": ["red", "green", 3]}, seed=s) for s in range(30)} == {"red", "green", 3}


def test_unsatisfiable_schema_is_an_error() -> None:
    with pytest.raises(ExampleError):
        example({"type": "integer", "minimum": 5, "maximum": 1})
    with pytest.raises(ExampleError):
        example({"allOf": [{"type": "string"}, {"type": "integer"}]})
    with pytest.raises(PatternUnsatisfiable):
        pattern_string("^a$", __import__("random").Random(0), min_length=5)


def test_pattern_strings_match_ecma_semantics() -> None:
    import random

    for pattern in [r"^\p{Lu}\p{Ll}+$", r"^[\w.-]+$", r"^(?!admin$)[a-z]{3,8}$", "^[^0-9]{2}x$", r"^\S+\s\S+$"]:
        for seed in range(10):
            text = pattern_string(pattern, random.Random(seed))
            _assert_valid({"type": "string", "pattern": pattern}, text)


def _spec_schemas() -> list[tuple[str, Any]]:
    """Every output and input schema of the example specs and golden cases, bundled as served."""
    out: list[tuple[str, Any]] = []
    for package in ("weather", "catalog", "notes", "everything"):
        for tool in importlib.import_module(f"{package}.tools").TOOLS:
            for key in ("outputSchema", "inputSchema"):
                if key in tool.wire:
                    out.append((f"{package}/{tool.name}/{key}", tool.wire[key]))
    for spec in sorted((REPO / "tests" / "generator" / "golden" / "cases").glob("*/spec.yaml")):
        data = yaml.safe_load(spec.read_text())
        defs = data.get("$defs") or {}
        for tool in data.get("tools") or []:
            for key in ("outputSchema", "inputSchema"):
                schema = tool.get(key)
                if isinstance(schema, dict) and not re.search(r'"\$ref": "(?!#)', str(schema).replace("'", '"')):
                    out.append((f"{spec.parent.name}/{tool['name']}/{key}", {**schema, "$defs": {**defs, **schema.get("$defs", {})}}))
    return out


def test_every_schema_of_the_example_specs_and_golden_cases_gets_valid_values() -> None:
    schemas = _spec_schemas()
    assert len(schemas) > 40
    failures = []
    for label, schema in schemas:
        for seed in range(4):
            try:
                _assert_valid(schema, example(schema, seed=seed))
            except (ExampleError, jsonschema.ValidationError) as exc:
                failures.append(f"{label} seed {seed}: {str(exc).splitlines()[0]}")
    assert not failures, "\n".join(failures)
