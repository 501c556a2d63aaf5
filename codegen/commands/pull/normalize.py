"""Normalization of a live server's ``serverInfo`` and ``tools/list`` into spec entries.

Policy: a pulled spec is the server's wire truth.  Tool entries are copied as written so
that the generated client's fingerprints match the live server (``check_compat()``) and a
re-pull diffs cleanly.  Everything ``mcp-codegen build`` tolerates on its own is left
alone (build reports it, e.g. W102 for a root without ``type`` or a ``default: null`` on a
non-nullable field).  Pull only rewrites what build must reject or what would give the
package broken names, and records every change as a :class:`Note` (W102 for a schema
that accepts more than before, W104 for other changes to a tool entry):

* an ``inputSchema`` root that is not an object schema (replaced by an open object, or a
  root ``$ref`` inlined);
* schema values the JSON Schema meta-schema rejects (draft-04 boolean
  ``exclusiveMinimum``, draft-03 ``required: true``, ``type: "any"``, ``null`` values,
  tuple ``items`` in 2020-12 ...; anything else invalid is dropped);
* ``$ref`` values that cannot be resolved inside the tool's own schema (network, file,
  anchor or dangling refs: refused by build) become unconstrained;
* tool entries the spec format refuses (unknown keys, non-string titles, bad icons,
  unusable or duplicate names) and very long tool descriptions;
* Python names: tools whose names collide in Python get ``python_name``; tool-local
  ``$defs`` that appear identically in several tools move to the spec's ``$defs`` (the
  wire is unchanged: build bundles them back), differing ones get ``x-python-name``.
"""

from __future__ import annotations

import copy
import dis
import json
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from mcp_codegen_runtime.wire.sanitize import strip_controls

from ...ir.naming.core import (
    RESERVED_MODULE_NAMES,
    RUNTIME_ERROR_NAMES,
    def_class,
    pulled_class_stem,
    pulled_local_class,
    pulled_package,
    tool_class,
    tool_method,
    tool_stem,
)
from ...spec.model import CODEGEN_TOOL_KEYS, WIRE_TOOL_KEYS
from ...spec.pointer import join_pointer
from ...spec.refs import iter_refs
from ...spec.validate import USABLE_TOOL_NAME, spec_format_schema
from .notes import INFO, Note, short
from .schemas import SchemaFixer

_ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


# -- server -------------------------------------------------------------------------------


def sanitize_name(raw: str) -> str:
    """A server name usable as a package name: ``mcp-servers/everything`` -> ``mcp_servers_everything``."""
    return pulled_package(raw)


def _string_field(source: Mapping[str, Any], key: str, where: str, notes: list[Note], tool: str = "") -> str | None:
    value = source.get(key)
    if value is None or isinstance(value, str):
        return value
    notes.append(Note(tool, f"/{key}" if tool else f"/server/{key}", "W104", f"{where} {key} {short(value)} is not a string; dropped"))
    return None


def _icons(raw: Any, pointer: str, tool: str, notes: list[Note]) -> list[dict[str, Any]] | None:
    if raw is None:
        return None
    import jsonschema  # only for servers that publish icons

    schema = spec_format_schema()["$defs"]["Icon"]
    items = raw if isinstance(raw, list) else []
    good = [copy.deepcopy(i) for i in items if jsonschema.Draft202012Validator(schema).is_valid(i)]
    if len(good) != (len(raw) if isinstance(raw, list) else 1):
        notes.append(Note(tool, pointer, "W104", "icons that are not {src, mimeType?, sizes?, theme?} objects dropped"))
    return good or None


def normalize_server(info: Mapping[str, Any], instructions: str | None, name: str | None = None) -> tuple[dict[str, Any], list[Note]]:
    """The ``server:`` block of a pulled spec from the live ``serverInfo`` and instructions."""
    notes: list[Note] = []
    raw_name = info.get("name")
    live_name = raw_name if isinstance(raw_name, str) else ""
    # the live name verbatim (diff compares it; an unprintable one is sanitized); package and
    # class names follow from it (naming.natural_words), or from ``name`` when given
    shown = strip_controls(live_name).replace("\n", " ").replace("\t", " ").strip()  # no terminal escapes
    chosen = shown if shown and shown.isprintable() else sanitize_name(live_name or "server")
    version = info.get("version")
    if not isinstance(version, (str, int, float)) or isinstance(version, bool) or str(version) == "":
        notes.append(Note("", "/server/version", "W104", "serverInfo has no version; using 0.0.0"))
        version = "0.0.0"
    # a pulled server is someone else's: build its typed client only (a spec edit can change it)
    server: dict[str, Any] = {"name": chosen, "version": str(version), "target": "client"}
    if name:
        server["package"] = sanitize_name(name)
        server["class_name"] = pulled_class_stem(name)
    for key in ("title", "description", "websiteUrl"):
        value = _string_field(info, key, "serverInfo", notes)
        if value:
            server[key] = value
    icons = _icons(info.get("icons"), "/server/icons", "", notes)
    if icons:
        server["icons"] = icons
    if instructions:
        server["instructions"] = instructions
    return server, notes


# -- tools --------------------------------------------------------------------------------


def _tool_entry(raw: dict[str, Any], notes: list[Note]) -> dict[str, Any]:
    name = raw["name"]
    entry: dict[str, Any] = {"name": name}
    vendor = {}
    for key in sorted(set(raw) - set(WIRE_TOOL_KEYS)):
        if key in CODEGEN_TOOL_KEYS:
            notes.append(Note(name, f"/{key}", "W104", f"field {key!r} means something else in a spec; dropped"))
        else:
            vendor[key] = copy.deepcopy(raw[key])  # kept verbatim, sent as it came (W105 at build)
    for key in ("title", "description"):
        value = _string_field(raw, key, "tool", notes, name)
        if value is not None:
            entry[key] = value
    schema = raw.get("inputSchema")
    if isinstance(schema, dict):
        entry["inputSchema"] = SchemaFixer(name, "/inputSchema", notes).fix(schema, True)
    else:
        notes.append(Note(name, "/inputSchema", "W102", f"inputSchema {short(schema)} is not a schema object; "
                                                        "replaced by an open object"))
        entry["inputSchema"] = {"type": "object"}
    if "outputSchema" in raw:
        out = raw["outputSchema"]
        if isinstance(out, dict):
            entry["outputSchema"] = SchemaFixer(name, "/outputSchema", notes).fix(out, False)
        else:
            notes.append(Note(name, "/outputSchema", "W102", f"outputSchema {short(out)} is not a schema object; dropped (results untyped)"))
    ann = raw.get("annotations")
    if ann is not None:
        entry_ann = _annotations(ann, name, notes)
        if entry_ann:
            entry["annotations"] = entry_ann
    icons = _icons(raw.get("icons"), "/icons", name, notes)
    if icons:
        entry["icons"] = icons
    for key in ("execution", "_meta"):
        if key in raw:
            if isinstance(raw[key], dict):
                entry[key] = copy.deepcopy(raw[key])
            else:
                notes.append(Note(name, f"/{key}", "W104", f"{key} {short(raw[key])} is not an object; dropped"))
    return {**{k: entry[k] for k in WIRE_TOOL_KEYS if k in entry}, **vendor}


def _annotations(ann: Any, tool: str, notes: list[Note]) -> dict[str, Any]:
    if not isinstance(ann, dict):
        notes.append(Note(tool, "/annotations", "W104", "annotations is not an object; dropped"))
        return {}
    out: dict[str, Any] = {}
    for key, value in ann.items():
        if key in _ANNOTATION_HINTS:
            ok = isinstance(value, bool)
        else:  # title must be a string; vendor keys are kept verbatim
            ok = isinstance(value, str) if key == "title" else True
        if ok:
            out[key] = value
        else:
            notes.append(Note(tool, join_pointer("/annotations", key), "W104", f"annotation {key!r}: {short(value)} dropped"))
    return out


def _usable_tools(tools: list[Any], notes: list[Note]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for i, raw in enumerate(tools):
        name = raw.get("name") if isinstance(raw, dict) else None
        if not isinstance(name, str) or not USABLE_TOOL_NAME.match(name):
            notes.append(Note("", f"/tools/{i}", "W104", f"tool with unusable name {short(name)} dropped (empty, "
                                                         "over 128 characters or with whitespace)"))
        elif name in seen:
            notes.append(Note(name, "", "W104", f"tool {name!r} listed twice; the second entry dropped"))
        else:
            seen.add(name)
            out.append(raw)
    return sorted(out, key=lambda t: t["name"])


@cache
def runtime_member_names() -> frozenset[str]:
    """:func:`codegen.ir.lower.runtime_member_names` (the names tool methods must not shadow),
    computed the same way without importing the lowering and the schema machinery it brings
    (about 0.15 s of a pull); ``tests/generator/test_pull_imports.py`` checks that both agree."""
    lower = sys.modules.get("codegen.ir.lower")
    if lower is not None:
        return frozenset(lower.runtime_member_names())
    from mcp_codegen_runtime.client.gencode import ClientBase, SyncClientBase
    from mcp_codegen_runtime.server.gencode import ServerBase

    names: set[str] = {"self", "ctx", "args"}
    for cls in (ServerBase, ClientBase, SyncClientBase):
        names.update(dir(cls))
        names.update(i.argval for i in dis.get_instructions(cls.__init__) if i.opname == "STORE_ATTR")
    return frozenset(names)


def _python_names(tools: list[dict[str, Any]], notes: list[Note]) -> None:
    """``python_name`` for tools whose method or class names collide (the names lowering gives
    them: the naming service's :func:`~codegen.ir.naming.core.tool_method` and ``tool_stem``)."""
    runtime = runtime_member_names()
    methods: set[str] = set()
    stems: set[str] = set()
    for tool in tools:
        name = tool["name"]
        method, stem = tool_method(name, None, runtime), str(tool_stem(name, None))
        if method in methods or stem in stems:
            base, n = method.rstrip("_"), 2
            while tool_method(name, f"{base}_{n}", runtime) in methods or str(tool_stem(name, f"{base}_{n}")) in stems:
                n += 1
            chosen = f"{base}_{n}"
            notes.append(Note(name, "/python_name", "W104", f"Python name {method!r} is taken by another tool; python_name {chosen!r} set"))
            rest = {k: v for k, v in tool.items() if k != "name"}
            tool.clear()
            tool.update({"name": name, "python_name": chosen, **rest})
            method, stem = tool_method(name, chosen, runtime), str(tool_stem(name, chosen))
        methods.add(method)
        stems.add(stem)


def _schemas(tool: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for key in ("inputSchema", "outputSchema"):
        if isinstance(tool.get(key), dict):
            yield key, tool[key]


def _reachable_defs(schema: dict[str, Any]) -> set[str]:
    """Names of ``$defs`` entries reachable by ``#/$defs/X`` refs from outside ``$defs``."""
    outside = {k: v for k, v in schema.items() if k != "$defs"}
    defs = schema.get("$defs") or {}
    found: set[str] = set()
    work = [outside]
    while work:
        for _, ref in iter_refs(work.pop()):
            name = _defs_name(ref)
            if name is not None and name in defs and name not in found:
                found.add(name)
                work.append(defs[name])
    return found


def _defs_name(ref: str) -> str | None:
    if ref.startswith("#/$defs/") and ref.count("/") == 2:
        return ref[len("#/$defs/"):].replace("~1", "/").replace("~0", "~")
    return None


def _hoist_defs(tools: list[dict[str, Any]], notes: list[Note]) -> dict[str, Any]:
    """Move ``$defs`` entries that are identical wherever they appear to the spec's ``$defs``.

    Build bundles them back into each tool's wire schema under the same name, so the
    wire (and its fingerprint) is unchanged.  Only entries found in several schemas move
    (with the entries they refer to).  An entry stays local when its bodies differ, when a
    schema carries it without using it (dropping it would change that wire), or when it
    refers to an entry that stays local.
    """
    bodies: dict[str, set[str]] = {}
    first: dict[str, Any] = {}
    sites: dict[str, list[dict[str, Any]]] = {}
    blocked: set[str] = set()
    for tool in tools:
        for _, schema in _schemas(tool):
            defs = schema.get("$defs")
            if not isinstance(defs, dict):
                continue
            used = _reachable_defs(schema)
            for name, body in defs.items():
                bodies.setdefault(name, set()).add(json.dumps(body, sort_keys=True))
                first.setdefault(name, body)
                sites.setdefault(name, []).append(schema)
                if name not in used:
                    blocked.add(name)
            for _, ref in iter_refs(schema):
                if ref.startswith("#/$defs/") and _defs_name(ref) is None:
                    blocked.update(defs)  # pointers into a def (#/$defs/X/properties/y): keep all local
    movable = {n for n, b in bodies.items() if len(b) == 1 and n not in blocked}
    # refs of each movable body: other $defs names, or None for a ref that only resolves in the tool (#, #/properties/..)
    deps = {n: {_defs_name(ref) for _, ref in iter_refs(first[n])} for n in movable}
    hoist = {n for n in movable if len(sites[n]) > 1}  # only what several schemas share, plus what that needs
    changed = True
    while changed:
        changed = False
        for name in sorted(hoist):
            missing = deps[name] - hoist
            if None in missing or not missing <= movable:
                hoist.discard(name)
                changed = True
            elif missing:
                hoist |= {d for d in missing if d is not None}
                changed = True
    shared: dict[str, Any] = {}
    for name in sorted(hoist):
        shared[name] = copy.deepcopy(first[name])
        for schema in sites[name]:
            del schema["$defs"][name]
            if not schema["$defs"]:
                del schema["$defs"]
    if shared:
        notes.append(Note("", "/$defs", INFO, f"$defs shared by several schemas moved to the spec's $defs: {', '.join(shared)} "
                                              "(the wire schemas are unchanged)"))
    return shared


def _local_class_names(tools: list[dict[str, Any]], shared: dict[str, Any], notes: list[Note]) -> None:
    """``x-python-name`` on tool-local definitions whose class names would collide."""
    taken = Counter(str(def_class(n)) for n in shared)
    for tool in tools:
        stem = tool_stem(tool["name"], tool.get("python_name"))
        taken.update([str(tool_class(stem, "Input")), str(tool_class(stem, "Output"))])
        for _, schema in _schemas(tool):
            for key in ("$defs", "definitions"):
                taken.update(str(def_class(n)) for n in (schema.get(key) or {}))
    reserved = RESERVED_MODULE_NAMES | RUNTIME_ERROR_NAMES
    for tool in tools:
        stem = tool_stem(tool["name"], tool.get("python_name"))
        for where, schema in _schemas(tool):
            role = "" if where == "inputSchema" else "Output"
            for key in ("$defs", "definitions"):
                for name, body in (schema.get(key) or {}).items():
                    cls = str(def_class(name))
                    if isinstance(body, dict) and "x-python-name" not in body and (taken[cls] > 1 or cls in reserved):
                        body["x-python-name"] = pulled_local_class(stem, role, name)
                        notes.append(Note(tool["name"], join_pointer(f"/{where}", key, name, "x-python-name"), "W104",
                                          f"class name {cls!r} is used elsewhere; x-python-name {body['x-python-name']!r} set"))


def normalize_tools(tools: list[Any]) -> tuple[list[dict[str, Any]], dict[str, Any], list[Note]]:
    """Spec tool entries (sorted by name) and shared ``$defs`` from a ``tools/list`` result.

    Returns:
        The tool entries, the spec-level ``$defs`` and a note for every change made.
    """
    notes: list[Note] = []
    entries = [_tool_entry(raw, notes) for raw in _usable_tools(tools, notes)]
    _python_names(entries, notes)
    shared = _hoist_defs(entries, notes)
    _local_class_names(entries, shared, notes)
    return entries, shared, notes
