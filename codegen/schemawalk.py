"""Walking a JSON Schema: every subschema, with its JSON pointer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .spec.load import join_pointer

_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMA_SINGLE = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
                     "propertyNames", "unevaluatedItems", "unevaluatedProperties")


def walk_schemas(schema: Any, visit: Callable[[dict[str, Any], str], None], ptr: str = "") -> None:
    """Call ``visit(node, pointer)`` on every subschema (objects only), pre-order."""
    stack: list[tuple[Any, str]] = [(schema, ptr)]
    while stack:
        node, at = stack.pop()
        if not isinstance(node, dict):
            continue
        visit(node, at)
        children: list[tuple[Any, str]] = []
        for key in _SUBSCHEMA_MAPS:
            if isinstance(node.get(key), dict):
                children += [(v, join_pointer(at, key, k)) for k, v in node[key].items()]
        for key in _SUBSCHEMA_LISTS:
            if isinstance(node.get(key), list):
                children += [(v, join_pointer(at, key, i)) for i, v in enumerate(node[key])]
        for key in _SUBSCHEMA_SINGLE:
            if isinstance(node.get(key), dict):
                children.append((node[key], join_pointer(at, key)))
        stack.extend(reversed(children))
