"""Patterns checked beside the models (``schema/residual.py``): which schemas qualify, and
what the check reports (expected values written by hand)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_codegen_runtime.schema.patterns import compile_pattern, to_python
from mcp_codegen_runtime.schema.residual import pattern_checks, pattern_errors

SKU = {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"}


def steps(schema: Any) -> list[tuple[tuple[tuple[str, str], ...], str]] | None:
    checks = pattern_checks(schema)
    return None if checks is None else [(c.steps, c.pattern) for c in checks]


def test_no_pattern_no_checks() -> None:
    assert steps({"type": "object", "properties": {"a": {"type": "integer"}}}) == []


def test_unconditional_locations_through_properties_items_values_and_refs() -> None:
    schema = {
        "type": "object",
        "properties": {
            "sku": {"$ref": "#/$defs/Sku"},
            "lines": {"type": "array", "items": {"type": "object", "properties": {"sku": {"$ref": "#/$defs/Sku"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string", "pattern": "^x"}},
        },
        "$defs": {"Sku": SKU},
    }
    assert steps(schema) == [
        ((("property", "sku"),), SKU["pattern"]),
        ((("property", "lines"), ("items", ""), ("property", "sku")), SKU["pattern"]),
        ((("property", "labels"), ("values", "")), "^x"),
    ]


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"anyOf": [SKU, {"type": "integer"}]}}},
    {"type": "object", "properties": {"a": {"allOf": [SKU]}}},
    {"type": "object", "if": {"properties": {"a": SKU}}, "then": {"required": ["b"]}},
    {"type": "object", "patternProperties": {"^a": {"type": "string"}}},
    {"type": "object", "properties": {"a": {"type": "array", "prefixItems": [SKU], "items": SKU}}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": SKU},
    {"type": "object", "properties": {"a": {"type": "array", "items": [SKU]}}},  # draft-07 tuple
    # recursive: the pattern applies at any depth
    {"type": "object", "properties": {"t": {"$ref": "#/$defs/T"}},
     "$defs": {"T": {"type": "object", "properties": {"name": SKU, "kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}}},
    # draft-07 ignores the siblings of $ref
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
     "properties": {"a": {"$ref": "#/definitions/S", "pattern": "^b"}}, "definitions": {"S": {"type": "string"}}},
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}},  # not a regex
    {"type": "object", "properties": {"a": {"$ref": "other.json#/S"}, "b": SKU}},
])
def test_conditional_or_unknown_reach_needs_the_whole_schema(schema: dict[str, Any]) -> None:
    assert steps(schema) is None


def test_errors_name_each_location_and_skip_non_strings() -> None:
    schema = {"type": "object", "properties": {
        "lines": {"type": "array", "items": {"type": "object", "properties": {"sku": SKU}}},
        "tags": {"type": "object", "additionalProperties": {"pattern": "^t"}}}}
    checks = pattern_checks(schema)
    assert checks is not None
    value = {"lines": [{"sku": "ABC-1"}, {"sku": "abc-1"}, {"sku": 5}, {}], "tags": {"x": "tag", "y": "bad"}}
    assert pattern_errors(checks, value) == [
        (("lines", 1, "sku"), "'abc-1' does not match '^[A-Z]{3}-[0-9]+$'"),
        (("tags", "y"), "'bad' does not match '^t'"),
    ]
    assert pattern_errors(checks, {"lines": "not a list", "tags": None}) == []


def test_ecma_semantics() -> None:
    checks = pattern_checks({"type": "object", "properties": {"d": {"type": "string", "pattern": "^\\d+$"}}})
    assert checks is not None
    assert pattern_errors(checks, {"d": "123"}) == []
    assert pattern_errors(checks, {"d": "\u0661"}) != []  # ECMA \d is ASCII only
    assert pattern_errors(checks, {"d": "1\n"}) != []  # $ is the very end


def test_ecma_named_groups_and_backreferences() -> None:
    """``(?<name>...)`` and ``\\k<name>`` are ECMA-262's spelling; lookbehinds stay as they are."""
    assert to_python("^(?<year>\\d{4})-\\k<year>$") == "^(?P<year>\\d{4})-(?P=year)\\Z"
    assert to_python("(?<=\\$)\\d+(?<!0)") == "(?<=\\$)\\d+(?<!0)"
    assert compile_pattern("^(?<y>\\d{4})-\\k<y>$").search("2024-2024")
    assert not compile_pattern("^(?<y>\\d{4})-\\k<y>$").search("2024-2025")
    assert to_python("[\\k<]") == "[\\k<]"  # inside a class: not a backreference
