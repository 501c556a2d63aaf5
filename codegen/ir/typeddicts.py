"""Which object classes get a request-side ``TypedDict`` (issue 28: typed all the way).

Every object class a tool's input model reaches (its nested objects, array items and
referenced definitions, not the input class itself: its fields are the method's keyword
arguments) gets one, named by :func:`codegen.ir.naming.models.typed_dict_class` and claimed
by lowering in the module's class registry.  Whether its schema can be stated exactly is
decided later, from the generated models (:mod:`codegen.models.typeddicts`).
"""

from __future__ import annotations

from typing import Any


def class_schemas(model_schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Class name -> its schema in the model document (``$defs`` entries and titled inline objects)."""
    out: dict[str, dict[str, Any]] = {}

    def visit(node: Any, keys_are_names: bool = False) -> None:
        if isinstance(node, dict):
            if not keys_are_names and isinstance(node.get("title"), str) and isinstance(node.get("properties"), dict):
                out.setdefault(node["title"], node)
            for key, value in node.items():
                if key in ("const", "enum", "default", "examples"):
                    continue
                if keys_are_names:
                    visit(value)
                else:
                    visit(value, key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"))
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(model_schema)
    for key, node in (model_schema.get("$defs") or {}).items():
        if isinstance(node, dict) and isinstance(node.get("properties"), dict):
            out.setdefault(str(node.get("title") or key), node)
    return out


def request_objects(model_schema: dict[str, Any], input_classes: list[str]) -> list[str]:
    """The object classes reachable from ``input_classes`` (in first-reached order, roots excluded)."""
    schemas = class_schemas(model_schema)
    defs = model_schema.get("$defs") or {}
    by_node = {id(node): name for name, node in schemas.items()}
    seen: list[str] = []
    done: set[int] = set()

    def visit(node: Any, root: bool = False) -> None:
        if isinstance(node, list):
            for value in node:
                visit(value)
            return
        if not isinstance(node, dict) or id(node) in done:
            return
        done.add(id(node))
        name = by_node.get(id(node))
        if name is not None and not root and name not in seen:
            seen.append(name)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            visit(defs.get(ref[len("#/$defs/"):]))
        for key, value in node.items():
            if key not in ("const", "enum", "default", "examples"):
                visit(value)

    for cls in input_classes:
        visit(defs.get(cls), root=True)
    return [name for name in seen if name not in input_classes]
