"""The one-line description of a typed client method's argument (its ``Args:`` entry).

The schema's ``description``, else its ``title``, else a short summary of what it accepts,
written from the schema: ``string, 1-64 characters``, ``one of: celsius, fahrenheit``,
``integer, at least 1``, ``array of string, at most 10 items`` (never a bare placeholder).
"""

from __future__ import annotations

import json
from typing import Any

from ..schemas.walk import deref_local

_MAX_DEPTH = 3


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _range(low: Any, high: Any, unit: str = "") -> str | None:
    def suffix(n: Any) -> str:
        return "" if not unit else f" {unit[:-1]}" if n == 1 else f" {unit}"

    if isinstance(low, int | float) and isinstance(high, int | float):
        return f"exactly {_text(low)}{suffix(low)}" if low == high else f"{_text(low)}-{_text(high)}{suffix(high)}"
    if isinstance(low, int | float):
        return f"at least {_text(low)}{suffix(low)}"
    if isinstance(high, int | float):
        return f"at most {_text(high)}{suffix(high)}"
    return None


def _resolve(schema: Any, root: Any) -> Any:
    target, _ = deref_local(schema, root, max_steps=8)
    return target


def type_summary(schema: Any, root: Any, depth: int = 0) -> str:
    """What ``schema`` accepts, in a few words (``any`` when it says nothing)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return "any"
    if "const" in schema:
        return f"always {_text(schema['const'])}"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "one of: " + ", ".join(_text(v) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return " or ".join(type_summary(b, root, depth + 1) for b in schema[key])
    types = schema.get("type")
    names = [types] if isinstance(types, str) else [t for t in types if isinstance(t, str)] if isinstance(types, list) else []
    if not names:
        names = ["object"] if "properties" in schema else ["array"] if "items" in schema else []
    parts: list[str] = []
    for name in names:
        if name == "array" and isinstance(schema.get("items"), dict) and schema["items"]:
            name = f"array of {type_summary(schema['items'], root, depth + 1)}"
        parts.append(name)
    head = " or ".join(parts) or "any"
    if depth:  # an array's items: their type only (their constraints would read as the array's)
        return head
    details = [d for d in (
        _range(schema.get("minLength"), schema.get("maxLength"), "characters"),
        f"format {schema['format']}" if isinstance(schema.get("format"), str) else None,
        _range(schema.get("minimum"), schema.get("maximum")),
        f"more than {_text(schema['exclusiveMinimum'])}" if isinstance(schema.get("exclusiveMinimum"), int | float) else None,
        f"less than {_text(schema['exclusiveMaximum'])}" if isinstance(schema.get("exclusiveMaximum"), int | float) else None,
        _range(schema.get("minItems"), schema.get("maxItems"), "items"),
        "unique items" if schema.get("uniqueItems") is True else None,
    ) if d]
    return ", ".join([head, *details])


def argument_doc(schema: Any, root: Any) -> str:
    """The ``Args:`` line of one argument: description, else title, else :func:`type_summary`."""
    target = _resolve(schema, root)
    # a referenced definition's title is its type's name, not a description of the argument
    for source, key in ((schema, "description"), (target, "description"), (schema, "title")):
        text = source.get(key) if isinstance(source, dict) else None
        if isinstance(text, str) and text.strip():
            return text
    return type_summary(schema, root)


def schema_default(schema: Any, root: Any) -> str | None:
    """The schema's ``default`` of an argument as JSON (``"medium"``, ``""``, ``false``), for its
    ``Args:`` line (the value a client sends, not a Python repr such as ``Priority.medium``);
    None when the schema has none."""
    for source in (schema, _resolve(schema, root)):
        if isinstance(source, dict) and "default" in source:
            try:
                return json.dumps(source["default"], ensure_ascii=False)
            except (TypeError, ValueError):
                return None
    return None
