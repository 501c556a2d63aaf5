"""What DCG is told: the naming service's decisions, carried in the model document, turned into
DCG's options (:func:`told_names`), and read back for the check that its output obeyed
(:func:`decided_fields`, used by :func:`codegen.models.generate.build_models` and the tests)."""

from __future__ import annotations

from typing import Any

from ..ir.naming.models import FIELD_NAMES, field_decisions


def told_names(schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The model document without the naming service's field names, and those names as DCG's
    scoped ``aliases`` option (``{"Class.wire": "python"}``, only where the two differ: an
    alias equal to the wire name would make DCG write ``Field(alias=...)`` for nothing)."""
    aliases: dict[str, str] = {}

    def strip(node: Any, keys_are_names: bool = False) -> Any:
        if isinstance(node, dict):
            if keys_are_names:  # a map of subschemas (``properties``): its keys are wire names
                return {k: strip(v) for k, v in node.items()}
            if FIELD_NAMES in node and isinstance(node.get("title"), str):
                aliases.update({f"{node['title']}.{w}": p for w, p in field_decisions(node) if w != p})
            return {k: v if k in _DATA_KEYS else strip(v, k in _MAPS) for k, v in node.items() if k != FIELD_NAMES}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(schema), aliases


def decided_fields(schema: dict[str, Any], members: dict[str, tuple[str, ...]] | None = None) -> dict[str, dict[str, str]]:
    """Class name -> {wire name: Python name} of every field the naming service named in the
    model document (what DCG's output must show); ``members`` is filled with each enum class's
    member names (``x-enum-varnames``)."""
    out: dict[str, dict[str, str]] = {}

    def visit(node: Any, keys_are_names: bool = False) -> None:
        if isinstance(node, dict) and keys_are_names:
            for value in node.values():
                visit(value)
        elif isinstance(node, dict):
            title = node.get("title")
            if FIELD_NAMES in node and isinstance(title, str):
                out.setdefault(title, dict(field_decisions(node)))
            if members is not None and isinstance(title, str) and isinstance(node.get("x-enum-varnames"), list):
                members.setdefault(title, tuple(node["x-enum-varnames"]))
            for key, value in node.items():
                if key not in _DATA_KEYS and key != FIELD_NAMES:
                    visit(value, key in _MAPS)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(schema)
    return out


_DATA_KEYS = frozenset({"const", "enum", "default", "examples", "x-enum-varnames"})
#: Keywords whose value maps names to subschemas (a property may be called ``title`` or ``x-mcp-codegen-fields``).
_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
