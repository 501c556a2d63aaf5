"""Defaults that their own schema refuses, seen through ``$ref``, ``allOf``, ``anyOf`` ...

A ``default`` is an annotation: JSON Schema never checks it.  The models do use it (a
field left out gets it), so a default its schema refuses gives the handler a value the
schema forbids, and a model that fails ``mypy --strict`` (``p: Priority = "urgent"``).  The
model builder (:mod:`codegen.schemas.document`) drops such defaults and reports W102;
:func:`unfit_defaults` finds them by validating each default with ``jsonschema`` against its
subschema with every ``$ref`` in it replaced by its target (the spec resolver's rules:
tool-local ``$defs``, other files).  A reference cycle is cut (anything is accepted there),
so a recursive schema never reports a default it would accept.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from jsonschema.validators import validator_for

from ..spec.load import SourceDoc
from ..spec.pointer import join_pointer
from ..spec.refs import Resolver, Target
from .walk import walk_schemas

_DATA_KEYS = frozenset({"const", "enum", "default", "examples"})
#: How deep references are followed inside one default's schema (real schemas stay far below).
_MAX_REF_DEPTH = 32


def _inlined(resolver: Resolver, doc: SourceDoc, node: Any, at: str, scope: str, open_refs: tuple[Target, ...]) -> Any:
    """Copy of ``node`` with each ``$ref`` replaced by its target (beside its siblings, in
    an ``allOf``); a cycle or a reference that does not resolve becomes ``true``."""
    if isinstance(node, list):
        return [_inlined(resolver, doc, v, join_pointer(at, i), scope, open_refs) for i, v in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref" or key in ("$id", "$anchor", "$dynamicAnchor"):
            continue
        out[key] = value if key in _DATA_KEYS else _inlined(resolver, doc, value, join_pointer(at, key), scope, open_refs)
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = resolver.resolve(ref, doc, join_pointer(at, "$ref"), scope)
        if target is None or target in open_refs or len(open_refs) >= _MAX_REF_DEPTH:
            body: Any = True
        else:
            tdoc = resolver.doc(target.file)
            inner = scope if tdoc is doc and scope and target.pointer.startswith(scope) else ""
            body = _inlined(resolver, tdoc, resolver.schema_at(target), target.pointer, inner, (*open_refs, target))
        out["allOf"] = [*(out.get("allOf") or []), body]
    return out


def unfit_defaults(resolver: Resolver, doc: SourceDoc, schema: Any, ptr: str, scope: str) -> dict[str, str]:
    """Pointer of each ``default`` in ``schema`` (at ``ptr`` in ``doc``; ``scope``: the tool
    schema its local refs resolve in) that its subschema refuses -> why, in jsonschema's words."""
    cls = validator_for(schema, default=jsonschema.Draft202012Validator) if isinstance(schema, dict) \
        else jsonschema.Draft202012Validator
    found: dict[str, str] = {}

    def visit(node: dict[str, Any], at: str) -> None:
        if "default" not in node:
            return
        resolved = _inlined(resolver, doc, {k: v for k, v in node.items() if k != "default"}, at, scope, ())
        try:
            error = jsonschema.exceptions.best_match(cls(resolved).iter_errors(node["default"]))
        except Exception:  # a schema jsonschema cannot use here: validation reports what is wrong with it
            return
        if error is not None:
            found[join_pointer(at, "default")] = error.message

    walk_schemas(schema, visit, ptr)
    return found


def json_text(value: Any) -> str:
    """A default as it is written in JSON (for a diagnostic)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
