"""Explicit nulls the schema forbids: rejected in arguments, dropped from optional outputs."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_codegen_runtime.schema.nulls import allows_null, drop_invalid_nulls, null_violations

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "n": {"type": "number"},
        "maybe": {"type": ["number", "null"]},
        "anything": {},
        "choice": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "ref": {"$ref": "#/$defs/Item"},
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        "map": {"type": "object", "additionalProperties": {"type": "integer"}},
        "tag": {"enum": ["a", "b"]},
    },
    "required": ["n"],
    "$defs": {"Item": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"const": None}}}},
}


@pytest.mark.parametrize(("value", "paths"), [
    ({"n": 1, "maybe": None, "anything": None, "choice": None}, []),
    ({"n": None}, ["n"]),
    ({"n": 1, "tag": None}, ["tag"]),
    ({"n": 1, "ref": {"x": None, "y": None}}, ["ref.x"]),
    ({"n": 1, "items": [{"x": "ok"}, {"x": None}]}, ["items[1].x"]),
    ({"n": 1, "map": {"a": 1, "b": None}}, ["map.b"]),
])
def test_null_violations(value: dict[str, Any], paths: list[str]) -> None:
    assert sorted(e["path"] for e in null_violations(SCHEMA, value)) == paths


def test_allows_null_is_conservative_for_unknown_shapes() -> None:
    assert allows_null(True, SCHEMA) and allows_null({"description": "x"}, SCHEMA)
    assert not allows_null(False, SCHEMA)
    assert not allows_null({"allOf": [{}, {"type": "string"}]}, SCHEMA)


def test_drop_invalid_nulls_keeps_required_and_nullable() -> None:
    out = drop_invalid_nulls(SCHEMA, {"n": None, "maybe": None, "tag": None, "ref": {"x": None, "y": None}})
    assert out == {"n": None, "maybe": None, "ref": {"y": None}}
