"""What one JSON Schema says, read the same way on both sides of a comparison: the keywords
that never change the accepted values, the bounds, a schema's types and enum values, its text
without annotations, and canonical JSON for comparing values."""

from __future__ import annotations

import json
from typing import Any

#: Keywords that never change which values a schema accepts.
ANNOTATIONS = frozenset({
    "title", "description", "examples", "$comment", "deprecated", "readOnly", "writeOnly",
    "$schema", "$id", "$anchor", "$dynamicAnchor", "contentMediaType", "contentEncoding", "contentSchema",
})
LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
STRING_CONSTRAINTS = ("pattern", "format")
#: Keywords handled by dedicated code below (everything else is compared generically).
HANDLED = frozenset({
    "$ref", "$defs", "definitions", "type", "enum", "const", "default", "multipleOf", "uniqueItems",
    "properties", "required", "additionalProperties", "items", "prefixItems", "anyOf", "oneOf", "allOf",
    *LOWER_BOUNDS, *UPPER_BOUNDS, *STRING_CONSTRAINTS,
}) | ANNOTATIONS


def canon(value: Any) -> str:
    """Canonical JSON text, for equality and set operations on JSON values."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def is_doc_key(key: str) -> bool:
    return key in ANNOTATIONS or key.startswith("x-")


def types_of(schema: dict[str, Any]) -> frozenset[str] | None:
    t = schema.get("type")
    if t is None:
        return None
    return frozenset([t] if isinstance(t, str) else t)


def accepts(types: frozenset[str] | None, t: str) -> bool:
    return types is None or t in types or (t == "integer" and "number" in types)


def covers(big: frozenset[str] | None, small: frozenset[str] | None) -> bool:
    if big is None:
        return True
    if small is None:
        return False
    return all(accepts(big, t) for t in small)


def type_text(types: frozenset[str] | None) -> str:
    return "any" if types is None else " | ".join(sorted(types))


def enum_values(schema: dict[str, Any]) -> list[Any] | None:
    if "enum" in schema and isinstance(schema["enum"], list):
        values = schema["enum"]
        if "const" in schema:
            values = [v for v in values if canon(v) == canon(schema["const"])]
        return values
    if "const" in schema:
        return [schema["const"]]
    return None


def strip_doc(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: strip_doc(v) for k, v in schema.items() if not is_doc_key(k) and k != "default"}
    if isinstance(schema, list):
        return [strip_doc(v) for v in schema]
    return schema
