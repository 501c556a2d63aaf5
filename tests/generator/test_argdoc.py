"""The ``Args:`` line of a typed client method's argument (issue 28 point 4): the schema's
description, else its title, else a summary of what it accepts; never a placeholder."""

from __future__ import annotations

import pytest

from codegen.models.argdoc import argument_doc

ROOT = {"$defs": {"Unit": {"title": "Unit", "enum": ["celsius", "fahrenheit"]},
                  "Said": {"type": "string", "description": "Said by the definition."}}}


@pytest.mark.parametrize(("schema", "expected"), [
    ({"type": "string", "description": "City name", "title": "T"}, "City name"),
    ({"type": "string", "title": "Location"}, "Location"),
    ({"type": "string", "minLength": 1, "maxLength": 64}, "string, 1-64 characters"),
    ({"type": "string", "minLength": 1}, "string, at least 1 character"),
    ({"type": "string", "maxLength": 8, "format": "email"}, "string, at most 8 characters, format email"),
    ({"enum": ["celsius", "fahrenheit"]}, "one of: celsius, fahrenheit"),
    ({"$ref": "#/$defs/Unit"}, "one of: celsius, fahrenheit"),
    ({"$ref": "#/$defs/Said"}, "Said by the definition."),
    ({"type": "integer", "minimum": 1, "maximum": 7}, "integer, 1-7"),
    ({"type": ["integer", "null"], "exclusiveMinimum": 0}, "integer or null, more than 0"),
    ({"type": "array", "items": {"type": "string"}, "maxItems": 10, "uniqueItems": True},
     "array of string, at most 10 items, unique items"),
    ({"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}, "array of string, at least 1 item"),
    ({"const": 3}, "always 3"),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "string or integer"),
    ({}, "any"),
])
def test_argument_doc(schema: dict[str, object], expected: str) -> None:
    assert argument_doc(schema, ROOT) == expected
