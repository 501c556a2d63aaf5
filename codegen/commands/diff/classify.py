"""Classify every change between two versions of a set of servers.

:func:`diff_views` pairs servers (by name; one against one even when renamed) and tools (by
name; a removed and an added tool with identical schemas are a rename), then turns schema
:class:`~codegen.commands.diff.schema_compare.Delta` s into :class:`~codegen.commands.diff.changes.Change` s:
inputs are judged contravariantly (narrowing breaks callers), outputs covariantly (widening
breaks consumers).  Annotations, declared errors, client inputs and the generated Python
names are compared too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp_codegen_runtime.wire.tools import canonical_json, tool_fingerprint

from .changes import Change, sort_changes
from .schema_compare import Delta, Effect, compare_schemas
from .views import CatalogTyped, ServerView, ToolView

#: (direction, aspect, effect) -> kind, for the aspects whose kind depends only on these.
_SIMPLE: dict[tuple[str, str, Effect], str] = {}
for _d in ("input", "output"):
    _SIMPLE[(_d, "type", Effect.NARROWED)] = f"{_d}-type-narrowed"
    _SIMPLE[(_d, "type", Effect.WIDENED)] = f"{_d}-type-widened"
    _SIMPLE[(_d, "type", Effect.CHANGED)] = f"{_d}-changed"
    _SIMPLE[(_d, "enum", Effect.NARROWED)] = f"{_d}-enum-value-removed"
    _SIMPLE[(_d, "enum", Effect.WIDENED)] = f"{_d}-enum-value-added"
    _SIMPLE[(_d, "constraint", Effect.NARROWED)] = f"{_d}-constraint-tightened"
    _SIMPLE[(_d, "constraint", Effect.WIDENED)] = f"{_d}-constraint-loosened"
    _SIMPLE[(_d, "constraint", Effect.CHANGED)] = f"{_d}-changed"
    _SIMPLE[(_d, "changed", Effect.CHANGED)] = f"{_d}-changed"
    _SIMPLE[(_d, "variant", Effect.NARROWED)] = f"{_d}-variant-removed"
    _SIMPLE[(_d, "variant", Effect.WIDENED)] = f"{_d}-variant-added"
    _SIMPLE[(_d, "required", Effect.NARROWED)] = f"{_d}-required-added"
    _SIMPLE[(_d, "required", Effect.WIDENED)] = f"{_d}-required-removed"


def delta_kind(direction: str, delta: Delta) -> str:
    """The change kind of a schema delta seen in ``direction`` (``input`` or ``output``)."""
    if delta.aspect == "doc":
        return "schema-doc-changed"
    if delta.aspect == "default":
        return "default-changed"
    if delta.aspect == "property-removed":
        if direction == "output":
            return "output-field-removed"
        return "input-property-removed" if delta.closed else "input-property-removed-open"
    if delta.aspect == "property-added":
        if direction == "output":
            return "output-field-added-closed" if delta.closed else "output-field-added"
        return "input-required-added" if delta.required else "input-optional-added"
    return _SIMPLE.get((direction, delta.aspect, delta.effect), f"{direction}-changed")


class _Differ:
    def __init__(self, old: ServerView | None, new: ServerView | None) -> None:
        self.old, self.new = old, new
        either = new or old
        self.server = either.name if either is not None else ""
        self.changes: list[Change] = []

    def add(self, tool: str, kind: str, path: str, message: str, old: Any = None, new: Any = None) -> None:
        """Record a change, located in the new spec when the tool exists there, else the old."""
        view, tv = None, None
        for side in (self.new, self.old):
            if side is not None and (not tool or tool in side.tools):
                view, tv = side, side.tools.get(tool) if tool else None
                break
        file, line = "", 0
        if view is not None:
            file = view.source
            pointer = (tv.pointer + path) if tv is not None and tv.pointer else ("/tools" if tool else "/server")
            line = view.line_of(pointer)
        self.changes.append(Change(self.server, tool, kind, path, message, old, new, file=file, line=line))

    # -- servers ------------------------------------------------------------------------
    def run(self) -> list[Change]:
        old, new = self.old, self.new
        if old is None and new is not None:
            self.add("", "server-added", "", f"server {new.name!r} added ({len(new.tools)} tool(s))")
            return self.changes
        if new is None and old is not None:
            self.add("", "server-removed", "", f"server {old.name!r} removed ({len(old.tools)} tool(s))")
            return self.changes
        assert old is not None and new is not None
        if old.name != new.name:
            self.add("", "server-info-changed", "/name", f"server name {old.name!r} -> {new.name!r}", old.name, new.name)
        for key in sorted((set(old.info) | set(new.info)) - old.unknown_info - new.unknown_info):
            if old.info.get(key) != new.info.get(key):
                self.add("", "server-info-changed", f"/{key}", f"server {key} changed", old.info.get(key), new.info.get(key))
        if old.package and new.package and old.package != new.package:
            self.add("", "python-package-renamed", "", f"package {old.package!r} -> {new.package!r}", old.package, new.package)
        for role in sorted(set(old.classes) & set(new.classes)):
            if old.classes[role] != new.classes[role]:
                self.add("", "python-class-renamed", "", f"{role.replace('_', ' ')} class {old.classes[role]} -> {new.classes[role]}",
                         old.classes[role], new.classes[role])
        self._tools(old, new)
        self._catalog(old, new)
        return self.changes

    # -- resources, templates, prompts ----------------------------------------------------
    def _catalog(self, old: ServerView, new: ServerView) -> None:
        names = {"resource": "resource", "template": "resource template", "prompt": "prompt"}
        kinds = {"resource": "resource", "template": "resource-template", "prompt": "prompt"}
        for key in sorted(set(old.catalog) | set(new.catalog)):
            group, _, ident = key.partition(":")
            a, b = old.catalog.get(key), new.catalog.get(key)
            what = f"{names[group]} {ident!r}"
            if b is None:
                self.add("", f"{kinds[group]}-removed", "", f"{what} removed")
            elif a is None:
                self.add("", f"{kinds[group]}-added", "", f"{what} added")
            elif group == "prompt":
                self._prompt(ident, a, b)
            elif canonical_json(a) != canonical_json(b):
                self.add("", f"{kinds[group]}-changed", "", f"{what} changed", dict(a), dict(b))
            typed_a, typed_b = old.catalog_typed.get(key), new.catalog_typed.get(key)
            if a is not None and b is not None and typed_a is not None and typed_b is not None:
                self._catalog_typed(what, "/variables" if group == "template" else "/arguments", typed_a, typed_b)

    def _catalog_typed(self, what: str, at: str, old: CatalogTyped, new: CatalogTyped) -> None:
        """Types and enums of a template's variables / a prompt's arguments (the spec's, which the
        wire lists lack; presence and ``required`` are judged from the wire), and the Python names."""
        for delta in compare_schemas(old.schema, new.schema, at):
            if delta.aspect not in ("property-added", "property-removed", "required"):
                self.add("", delta_kind("input", delta), delta.path, f"{what}: {delta.message}", delta.old, delta.new)
        if old.method != new.method:
            self.add("", "python-method-renamed", "", f"{what}: client method {old.method} -> {new.method}",
                     old.method, new.method)
        for kw in old.kwargs:
            if kw not in new.kwargs:
                self.add("", "python-kwarg-removed", "", f"{what}: client keyword argument {kw!r} removed", kw, None)

    def _prompt(self, name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        def args(wire: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
            raw = wire.get("arguments")
            return {str(x.get("name")): x for x in raw if isinstance(x, dict)} if isinstance(raw, list) else {}

        before, after = args(old), args(new)
        for arg in sorted(set(before) | set(after)):
            was, now = before.get(arg), after.get(arg)
            if now is None:
                self.add("", "prompt-argument-removed", f"/arguments/{arg}", f"prompt {name!r}: argument {arg!r} removed")
            elif now.get("required") and (was is None or not was.get("required")):
                self.add("", "prompt-argument-required", f"/arguments/{arg}",
                         f"prompt {name!r}: argument {arg!r} is {'new and ' if was is None else 'now '}required")
            elif was is None:
                self.add("", "prompt-argument-added", f"/arguments/{arg}", f"prompt {name!r}: optional argument {arg!r} added")
        rest_old = {k: v for k, v in old.items() if k != "arguments"}
        rest_new = {k: v for k, v in new.items() if k != "arguments"}
        docs_old = {k: {kk: vv for kk, vv in v.items() if kk != "required"} for k, v in before.items() if k in after}
        docs_new = {k: {kk: vv for kk, vv in v.items() if kk != "required"} for k, v in after.items() if k in before}
        if canonical_json(rest_old) != canonical_json(rest_new) or canonical_json(docs_old) != canonical_json(docs_new):
            self.add("", "prompt-changed", "", f"prompt {name!r} changed")

    def _tools(self, old: ServerView, new: ServerView) -> None:
        removed = [n for n in old.tools if n not in new.tools]
        added = [n for n in new.tools if n not in old.tools]
        renames: dict[str, str] = {}
        for r in removed:
            key = _schemas_key(old.tools[r].wire)
            match = next((a for a in added if a not in renames.values() and _schemas_key(new.tools[a].wire) == key), None)
            if match is not None:
                renames[r] = match
        for r in removed:
            if r in renames:
                a = renames[r]
                self.add(a, "tool-renamed", "", f"tool {r!r} renamed to {a!r}", r, a)
                self._tool(old.tools[r], new.tools[a], a)
            else:
                self.add(r, "tool-removed", "", f"tool {r!r} removed")
        for a in added:
            if a not in renames.values():
                self.add(a, "tool-added", "", f"tool {a!r} added")
        for name in old.tools:
            if name in new.tools:
                self._tool(old.tools[name], new.tools[name], name)

    # -- one tool -------------------------------------------------------------------------
    def _tool(self, old: ToolView, new: ToolView, name: str) -> None:
        before = len(self.changes)
        for key in ("title", "description"):
            if old.wire.get(key) != new.wire.get(key):
                self.add(name, "tool-doc-changed", f"/{key}", f"{key} changed", old.wire.get(key), new.wire.get(key))
        self._annotations(old.wire.get("annotations") or {}, new.wire.get("annotations") or {}, name)
        for delta in compare_schemas(old.wire.get("inputSchema", {}), new.wire.get("inputSchema", {}), "/inputSchema"):
            self.add(name, delta_kind("input", delta), delta.path, delta.message, delta.old, delta.new)
        if "outputSchema" in old.wire and "outputSchema" not in new.wire:
            self.add(name, "output-schema-removed", "/outputSchema", "outputSchema removed (no more structured content)")
        elif "outputSchema" not in old.wire and "outputSchema" in new.wire:
            self.add(name, "output-schema-added", "/outputSchema", "outputSchema added")
        elif "outputSchema" in old.wire:
            for delta in compare_schemas(old.wire["outputSchema"], new.wire["outputSchema"], "/outputSchema"):
                self.add(name, delta_kind("output", delta), delta.path, delta.message, delta.old, delta.new)
        for key in sorted((set(old.wire) | set(new.wire)) - {"name", "title", "description", "annotations", "inputSchema", "outputSchema"}):
            if canonical_json(old.wire.get(key)) != canonical_json(new.wire.get(key)):
                self.add(name, "tool-doc-changed", f"/{key}", f"{key} changed", old.wire.get(key), new.wire.get(key))
        self._declared(old, new, name)
        self._python(old, new, name)
        schema_changes = [c for c in self.changes[before:] if c.path.startswith(("/inputSchema", "/outputSchema"))]
        if not schema_changes and _schemas_key(old.wire) != _schemas_key(new.wire):
            self.add(name, "schema-equivalent-change", "", "schemas differ in form only (e.g. $defs renamed); "
                     f"fingerprint {tool_fingerprint(old.wire)[:12]} -> {tool_fingerprint(new.wire)[:12]}")

    def _annotations(self, a: Mapping[str, Any], b: Mapping[str, Any], name: str) -> None:
        ro_a, ro_b = bool(a.get("readOnlyHint", False)), bool(b.get("readOnlyHint", False))
        de_a = not ro_a and bool(a.get("destructiveHint", True))
        de_b = not ro_b and bool(b.get("destructiveHint", True))
        id_a = ro_a or bool(a.get("idempotentHint", False))
        id_b = ro_b or bool(b.get("idempotentHint", False))
        dangerous = []
        if ro_a and not ro_b:
            dangerous.append("no longer read-only")
        if de_b and not de_a:
            dangerous.append("now destructive")
        if id_a and not id_b:
            dangerous.append("no longer idempotent")
        if dangerous:
            self.add(name, "annotation-destructive", "/annotations", "; ".join(dangerous), dict(a), dict(b))
        elif canonical_json(a) != canonical_json(b):
            self.add(name, "annotation-changed", "/annotations", "annotations changed", dict(a), dict(b))

    def _declared(self, old: ToolView, new: ToolView, name: str) -> None:
        if old.errors is not None and new.errors is not None:
            self._errors(old.errors, new.errors, name)
        if old.inputs is not None and new.inputs is not None:
            self._inputs(old.inputs, new.inputs, name)

    def _errors(self, old: Mapping[str, str], new: Mapping[str, str], name: str) -> None:
        for code in sorted(set(old) | set(new)):
            if code not in new:
                self.add(name, "error-removed", f"/errors/{code}", f"declared error {code!r} removed", old[code], None)
            elif code not in old:
                self.add(name, "error-added", f"/errors/{code}", f"declared error {code!r} added", None, new[code])
            elif old[code] and new[code] and old[code] != new[code]:
                self.add(name, "python-class-renamed", f"/errors/{code}", f"error class {old[code]} -> {new[code]}",
                         old[code], new[code])

    def _inputs(self, old: Mapping[str, Mapping[str, Any]], new: Mapping[str, Mapping[str, Any]], name: str) -> None:
        for key in sorted(set(old) | set(new)):
            at = f"/inputs/{key}"
            if key not in new:
                self.add(name, "client-input-removed", at, f"client input {key!r} removed")
            elif key not in old:
                self.add(name, "client-input-added", at, f"tool now asks the client for {key!r} ({new[key].get('method')})")
            else:
                self._client_input(old[key], new[key], name, at)

    def _client_input(self, a: Mapping[str, Any], b: Mapping[str, Any], name: str, at: str) -> None:
        pa, pb = dict(a.get("params") or {}), dict(b.get("params") or {})
        sa, sb = pa.pop("requestedSchema", None), pb.pop("requestedSchema", None)
        if a.get("method") != b.get("method") or canonical_json(pa) != canonical_json(pb):
            self.add(name, "client-input-changed", at, "client input request changed", dict(a), dict(b))
        if sa is not None or sb is not None:
            # the client answers with data the server validates: judged like tool inputs
            for delta in compare_schemas(sa or {}, sb or {}, at + "/requestedSchema"):
                self.add(name, delta_kind("input", delta), delta.path, delta.message, delta.old, delta.new)

    def _python(self, old: ToolView, new: ToolView, name: str) -> None:
        for role in sorted(set(old.python) & set(new.python)):
            a, b = old.python[role], new.python[role]
            if a != b:
                kind = "python-method-renamed" if role == "method" else "python-class-renamed"
                self.add(name, kind, "", f"{role.replace('_', ' ')} {a} -> {b}", a, b)
        if old.kwargs is not None and new.kwargs is not None:
            for kw in old.kwargs:
                if kw not in new.kwargs:
                    self.add(name, "python-kwarg-removed", "", f"client keyword argument {kw!r} removed", kw, None)


def _schemas_key(wire: Mapping[str, Any]) -> str:
    return canonical_json({k: wire[k] for k in ("inputSchema", "outputSchema") if k in wire})


def diff_views(old: Sequence[ServerView], new: Sequence[ServerView]) -> list[Change]:
    """Every change from ``old`` to ``new`` servers, sorted.

    Servers pair by name; when each side has exactly one server they pair regardless (a
    renamed server is a ``server-info-changed``).
    """
    pairs: list[tuple[ServerView | None, ServerView | None]] = []
    if len(old) == 1 and len(new) == 1:
        pairs.append((old[0], new[0]))
    else:
        by_new = {s.name: s for s in new}
        for s in old:
            pairs.append((s, by_new.pop(s.name, None)))
        pairs.extend((None, s) for s in by_new.values())
    changes: list[Change] = []
    for a, b in pairs:
        changes += _Differ(a, b).run()
    return sort_changes(changes)
