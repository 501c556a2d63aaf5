"""Curation: which operations become tools, and how, kept in the spec's ``openapi`` section.

.. code-block:: yaml

    openapi:
      source: petstore.yaml          # the document, relative to the spec (written by the converter)
      include: {tags: [pet], operations: [getPetById, "GET /store/inventory"], paths: ["/pet/*"], methods: [GET]}
      exclude: {tags: [], operations: [], paths: [], methods: []}
      tools:
        getPetById:                  # operationId, or "METHOD /path"
          name: pet_get
          description: Fetch one pet.
          hide: [X-Trace]            # optional arguments left out
          pin: {api-version: "2"}    # arguments sent with this value, no argument any more
          annotations: {readOnlyHint: true}

An operation is converted when it matches ``include`` (any of its lists; no ``include``: every
operation) and does not match ``exclude``.  Re-running the converter reads this section from
the spec it replaces (and ``--overlay FILE``, which wins key by key) and writes it back as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from ...diagnostics import Diagnostic, Level
from ...spec.load import SourceDoc
from ...spec.pointer import join_pointer
from . import naming
from .ir import Fixed, Operation, Tool

SELECTORS = ("tags", "operations", "paths", "methods")
TOOL_KEYS = ("name", "description", "hide", "pin", "annotations")
ANNOTATIONS = {"title": str, "readOnlyHint": bool, "destructiveHint": bool, "idempotentHint": bool,
               "openWorldHint": bool}


@dataclass
class Curation:
    """A checked ``openapi`` section, with where each part came from (for diagnostics)."""

    data: dict[str, Any] = field(default_factory=dict)
    origin: dict[str, tuple[SourceDoc, str]] = field(default_factory=dict)  # top key or "tools/<key>" -> where

    def where(self, key: str) -> tuple[SourceDoc | None, str]:
        return self.origin.get(key, (None, ""))


def read(doc: SourceDoc, base: str, section: Any, into: Curation) -> list[Diagnostic]:
    """Check ``section`` (at ``base`` in ``doc``) and merge it into ``into`` (its keys win)."""
    out: list[Diagnostic] = []

    def bad(ptr: str, message: str, hint: str = "") -> None:
        out.append(doc.diag("E146", message, ptr, hint=hint))

    if not isinstance(section, dict):
        bad(base, "the `openapi` curation section must be a mapping")
        return out
    for key, value in section.items():
        at = join_pointer(base, key)
        if key == "source":
            if not isinstance(value, str):
                bad(at, "`source` must be a path")
        elif key in ("include", "exclude"):
            if _selector(value, at, bad):
                into.data[key] = value
                into.origin[key] = (doc, at)
        elif key == "tools":
            if not isinstance(value, dict):
                bad(at, "`tools` must map an operationId or \"METHOD /path\" to its curation")
                continue
            tools = into.data.setdefault("tools", {})
            for name, entry in value.items():
                if _tool(entry, join_pointer(at, name), bad):
                    tools[name] = entry
                    into.origin["tools/" + name] = (doc, join_pointer(at, name))
        else:
            bad(at, f"unknown curation key {key!r}", "known: source, include, exclude, tools")
    return out


def _selector(value: Any, at: str, bad: Any) -> bool:
    if not isinstance(value, dict):
        bad(at, "a selector must be a mapping of tags/operations/paths/methods to lists")
        return False
    ok = True
    for key, items in value.items():
        if key not in SELECTORS:
            bad(join_pointer(at, key), f"unknown selector {key!r}", "known: " + ", ".join(SELECTORS))
            ok = False
        elif not (isinstance(items, list) and all(isinstance(i, str) for i in items)):
            bad(join_pointer(at, key), f"`{key}` must be a list of strings")
            ok = False
    return ok


def _tool(entry: Any, at: str, bad: Any) -> bool:
    if not isinstance(entry, dict):
        bad(at, "a tool's curation must be a mapping", "keys: " + ", ".join(TOOL_KEYS))
        return False
    ok = True
    for key, value in entry.items():
        ptr = join_pointer(at, key)
        if key not in TOOL_KEYS:
            bad(ptr, f"unknown tool curation key {key!r}", "known: " + ", ".join(TOOL_KEYS))
            ok = False
        elif key == "name" and not (isinstance(value, str) and naming.VALID.fullmatch(value)):
            bad(ptr, f"tool name {value!r} is not 1-64 characters of A-Z a-z 0-9 _ -")
            ok = False
        elif key == "description" and not isinstance(value, str):
            bad(ptr, "`description` must be a string")
            ok = False
        elif key == "hide" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            bad(ptr, "`hide` must be a list of argument names")
            ok = False
        elif key == "pin" and not isinstance(value, dict):
            bad(ptr, "`pin` must map argument names to values")
            ok = False
        elif key == "annotations" and not (isinstance(value, dict) and all(
                k in ANNOTATIONS and isinstance(v, ANNOTATIONS[k]) for k, v in value.items())):
            bad(ptr, "`annotations` takes title (a string) and readOnlyHint, destructiveHint, idempotentHint, "
                "openWorldHint (true or false)")
            ok = False
    return ok


def _matches(op: Operation, selector: dict[str, list[str]]) -> bool:
    if set(op.tags) & set(selector.get("tags", [])):
        return True
    if {op.operation_id, op.label} & set(selector.get("operations", [])):
        return True
    if any(fnmatchcase(op.path, glob) for glob in selector.get("paths", [])):
        return True
    return op.method in {m.upper() for m in selector.get("methods", [])}


def selected(op: Operation, curation: Curation) -> bool:
    include = curation.data.get("include")
    if include and not _matches(op, include):
        return False
    exclude = curation.data.get("exclude")
    return not (exclude and _matches(op, exclude))


def apply(operations: list[Operation], curation: Curation) -> tuple[list[Tool], list[Diagnostic]]:
    """The tools of the selected operations, curated (names not yet unique: :func:`naming.assign`)."""
    out: list[Tool] = []
    diags: list[Diagnostic] = []
    entries: dict[str, Any] = curation.data.get("tools", {})
    used: set[str] = set()
    for op in operations:
        if not selected(op, curation):
            continue
        key = next((k for k in (op.operation_id, op.label) if k is not None and k in entries), None)
        entry: dict[str, Any] = entries.get(key, {}) if key is not None else {}
        if key is not None:
            used.add(key)
        name = entry.get("name") or naming.base_name(op)
        hints = {**naming.hints(op.method), **entry.get("annotations", {})}
        tool = Tool(op, name, naming.description(op, entry.get("description")), hints, list(op.args))
        if key is not None:
            diags += _hide_and_pin(tool, entry, *curation.where("tools/" + key))
        out.append(tool)
    for key in entries:
        if key not in used:
            doc, ptr = curation.where("tools/" + key)
            if doc is not None:
                diags.append(doc.diag("W123", f"curation for {key!r}: the document has no such operation "
                                      "(or it is not selected)", ptr, level=Level.WARNING,
                                      hint="an operationId or \"METHOD /path\" as the document writes it"))
    return out, diags


def _hide_and_pin(tool: Tool, entry: dict[str, Any], doc: SourceDoc | None, at: str) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    by_name = {a.name: a for a in tool.args}
    for i, name in enumerate(entry.get("hide", [])):
        arg = by_name.get(name)
        ptr = join_pointer(at, "hide", i)
        if arg is None:
            if doc is not None:
                diags.append(doc.diag("W123", f"{tool.operation.label} has no argument {name!r} to hide", ptr,
                                      level=Level.WARNING, hint="arguments: " + ", ".join(by_name) if by_name else ""))
        elif arg.required:
            if doc is not None:
                diags.append(doc.diag("E146", f"argument {name!r} of {tool.operation.label} is required and cannot be "
                                      "hidden", ptr, hint="pin it to a value instead (`pin: {NAME: VALUE}`)"))
        else:
            tool.args.remove(arg)
    for name, value in entry.get("pin", {}).items():
        arg = by_name.get(name)
        if arg is None or arg not in tool.args:
            if doc is not None and arg is None:
                diags.append(doc.diag("W123", f"{tool.operation.label} has no argument {name!r} to pin",
                                      join_pointer(at, "pin", name), level=Level.WARNING))
            continue
        tool.args.remove(arg)
        tool.fixed.append(Fixed(arg.location, arg.wire, value))
    return diags
