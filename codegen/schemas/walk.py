"""The schema toolkit shared by the generator's stages: walking every subschema with its
JSON pointer, and following local ``$ref`` s inside one self-contained schema (docs, diff,
pull).  Refs across files are the spec resolver's business (:mod:`codegen.spec.refs`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..spec.pointer import join_pointer, resolve_pointer

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


def deref_local(schema: Any, root: Any, max_steps: int | None = None) -> tuple[Any, str]:
    """Follow a chain of local ``$ref`` s (``#...``) inside ``root``, cycle-safe.

    Sibling keywords of a ``$ref`` are merged over its target.  Returns the schema reached
    and the last ref followed ("" when ``schema`` is not a local ref or it does not resolve).
    """
    seen: list[str] = []
    last = ""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#"):
        ref = schema["$ref"]
        if ref in seen or (max_steps is not None and len(seen) >= max_steps):
            break
        seen.append(ref)
        ok, target = resolve_pointer(root, ref[1:])
        if not ok:
            break
        last = ref
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings} if isinstance(target, dict) else target
    return schema, last
