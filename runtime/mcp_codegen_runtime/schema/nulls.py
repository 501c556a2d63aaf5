"""Explicit ``null`` where the schema does not allow it.

The generated models type optional properties as ``X | None = None``, so pydantic alone
would accept ``{"x": null}`` for ``x: {type: number}``.  JSON Schema does not: an optional
property may be absent, not null.  :func:`null_violations` finds such nulls in arguments
(reported as invalid arguments); :func:`drop_invalid_nulls` removes them from a handler's
output when the property is optional (absent is what the handler meant).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_MAX_DEPTH = 64


def _resolve(schema: Any, root: Mapping[str, Any]) -> Any:
    for _ in range(_MAX_DEPTH):
        if not isinstance(schema, Mapping):
            return schema
        ref = schema.get("$ref")
        if not (isinstance(ref, str) and ref.startswith("#/")):
            return schema
        node: Any = root
        for token in ref[2:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or token not in node:
                return {}
            node = node[token]
        schema = node
    return {}


def allows_null(schema: Any, root: Mapping[str, Any], depth: int = 0) -> bool:
    """Whether ``null`` can be valid under ``schema`` (conservative: unknown -> True)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return schema is not False
    t = schema.get("type")
    if isinstance(t, str) and t != "null" or isinstance(t, list) and "null" not in t:
        return False
    if "const" in schema and schema["const"] is not None:
        return False
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        return False
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and not any(allows_null(b, root, depth + 1) for b in branches):
            return False
    branches = schema.get("allOf")
    if isinstance(branches, list) and not all(allows_null(b, root, depth + 1) for b in branches):
        return False
    return True


def _children(schema: Any, root: Mapping[str, Any], value: Any) -> list[tuple[str | int, Any, Any]]:
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return []
    if isinstance(value, dict):
        raw_props = schema.get("properties")
        props: Mapping[str, Any] = raw_props if isinstance(raw_props, Mapping) else {}
        extra = schema.get("additionalProperties")
        out: list[tuple[str | int, Any, Any]] = []
        for key, item in value.items():
            if key in props:
                out.append((key, props[key], item))
            elif isinstance(extra, Mapping):
                out.append((key, extra, item))
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [(i, schema["items"], item) for i, item in enumerate(value)]
    return []


def null_violations(schema: Mapping[str, Any], value: Any) -> list[dict[str, str]]:
    """``{"path", "message"}`` for every null the schema does not allow (first 10)."""
    errors: list[dict[str, str]] = []
    stack: list[tuple[Any, Any, str, int]] = [(schema, value, "", 0)]
    while stack and len(errors) < 10:
        sub, val, path, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        for key, child_schema, child in _children(sub, schema, val):
            child_path = f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else key)
            if child is None:
                if not allows_null(child_schema, schema):
                    errors.append({"path": child_path, "message": "null is not allowed here (omit the property instead)"})
            elif isinstance(child, (dict, list)):
                stack.append((child_schema, child, child_path, depth + 1))
    return errors


def drop_invalid_nulls(schema: Mapping[str, Any], value: Any) -> Any:
    """``value`` without optional properties that are null where null is not allowed."""
    def clean(sub: Any, val: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH or not isinstance(val, (dict, list)):
            return val
        resolved = _resolve(sub, schema)
        required = set(resolved.get("required") or []) if isinstance(resolved, Mapping) else set()
        kids = {key: s for key, s, _ in _children(sub, schema, val)}
        if isinstance(val, dict):
            return {
                k: clean(kids.get(k), v, depth + 1)
                for k, v in val.items()
                if not (v is None and k in kids and k not in required and not allows_null(kids[k], schema))
            }
        return [clean(kids.get(i), v, depth + 1) for i, v in enumerate(val)]

    return clean(schema, value, 0)
