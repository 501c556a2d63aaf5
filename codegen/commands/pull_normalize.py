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
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema.validators import validator_for

from ..ir.lower import runtime_member_names
from ..ir.naming import RESERVED_MODULE_NAMES, RUNTIME_ERROR_NAMES, ClassName, MethodName, PyIdent, pascal, snake
from ..runtime.wire.sanitize import strip_controls
from ..runtime.wire.uritemplate import TemplateError
from ..runtime.wire.uritemplate import parse as parse_template
from ..schemas.walk import walk_schemas
from ..spec.model import CODEGEN_TOOL_KEYS, WIRE_TOOL_KEYS
from ..spec.pointer import join_pointer, resolve_pointer
from ..spec.refs import iter_refs
from ..spec.validate import USABLE_TOOL_NAME, object_root, spec_format_schema

_ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_TYPE_ALIASES = {"int": "integer", "float": "number", "double": "number", "str": "string", "bool": "boolean",
                 "dict": "object", "map": "object", "list": "array", "none": "null"}
_JSON_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_SINGLE = frozenset({"items", "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains",
                            "propertyNames", "unevaluatedItems", "unevaluatedProperties"})
_MAX_FIX_ROUNDS = 50
_BARE_REF_KEYS = frozenset({"$ref", "description", "title", "$comment"})


#: Code of a note that is only written as a comment (no loss, no warning).
INFO = "info"


@dataclass(frozen=True, order=True)
class Note:
    """One change pull made.  ``pointer`` is relative to the tool entry (spec-absolute when
    ``tool`` is empty); ``code`` is W102, W104 or :data:`INFO`."""

    tool: str
    pointer: str
    code: str
    message: str


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- server -------------------------------------------------------------------------------


def sanitize_name(raw: str) -> str:
    """A server name usable as a package name: ``mcp-servers/everything`` -> ``mcp_servers_everything``."""
    name = snake(raw)
    if name and name[0].isdigit():
        name = "n" + name
    return name or "server"


def _string_field(source: Mapping[str, Any], key: str, where: str, notes: list[Note], tool: str = "") -> str | None:
    value = source.get(key)
    if value is None or isinstance(value, str):
        return value
    notes.append(Note(tool, f"/{key}" if tool else f"/server/{key}", "W104", f"{where} {key} {_short(value)} is not a string; dropped"))
    return None


def _icons(raw: Any, pointer: str, tool: str, notes: list[Note]) -> list[dict[str, Any]] | None:
    if raw is None:
        return None
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
        stem = pascal(name) or "Server"
        server["class_name"] = stem if stem[0].isalpha() else "N" + stem
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


# -- schemas ------------------------------------------------------------------------------


class _SchemaFixer:
    """Rewrites one tool schema so build accepts it; every change becomes a Note."""

    def __init__(self, tool: str, base: str, notes: list[Note]) -> None:
        self.tool = tool
        self.base = base
        self.notes = notes

    def note(self, at: str, message: str, code: str = "W102") -> None:
        self.notes.append(Note(self.tool, self.base + at, code, message))

    def fix(self, schema: dict[str, Any], is_input: bool) -> dict[str, Any]:
        schema = copy.deepcopy(schema)
        if is_input:
            schema = self._object_root(schema)
        self._legacy_forms(schema)
        self._meta_fix(schema)
        self._refs(schema)
        return schema

    def _object_root(self, schema: dict[str, Any]) -> dict[str, Any]:
        if object_root(schema) != "bad":
            return schema
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            ok, target = resolve_pointer(schema, ref[1:])
            if ok and isinstance(target, dict) and object_root(target) != "bad":
                merged = {k: copy.deepcopy(v) for k, v in target.items() if k not in schema}
                merged.update((k, v) for k, v in schema.items() if k != "$ref")  # $defs, $schema, description
                merged.setdefault("type", "object")
                self.note("", f"root $ref {ref!r} inlined so the root is an object schema", "W104")
                return merged
        branches = [b for key in ("anyOf", "oneOf") for b in (schema.get(key) or [])]
        if "type" not in schema and branches and all(isinstance(b, dict) and object_root(b) != "bad" for b in branches):
            schema["type"] = "object"
            self.note("", "root is a union of objects; `type: object` added", "W104")
            return schema
        kept: dict[str, Any] = {k: schema[k] for k in ("$schema", "description", "title") if k in schema}
        self.note("", f"root {_short(schema)} is not an object schema; replaced by an open object (untyped arguments)")
        kept["type"] = "object"
        return kept

    def _legacy_forms(self, schema: dict[str, Any]) -> None:
        """Known pre-2020-12 spellings, rewritten to their 2020-12 meaning."""
        dialect = validator_for(schema, default=jsonschema.Draft202012Validator)
        draft4 = dialect in (jsonschema.Draft4Validator, jsonschema.Draft3Validator)
        modern = dialect in (jsonschema.Draft202012Validator, jsonschema.Draft201909Validator)

        def visit(node: dict[str, Any], at: str) -> None:
            for bound, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
                if isinstance(node.get(bound), bool) and not draft4:
                    if node[bound] and isinstance(node.get(plain), (int, float)):
                        node[bound] = node.pop(plain)
                        self.note(join_pointer(at, bound), f"draft-04 `{bound}: true` rewritten as `{bound}: {node[bound]}`", "W104")
                    else:
                        del node[bound]
                        self.note(join_pointer(at, bound), f"draft-04 boolean `{bound}` dropped")
            if "type" in node:
                self._fix_type(node, at)
            props = node.get("properties")
            if isinstance(props, dict):
                lifted = [k for k, v in props.items() if isinstance(v, dict) and isinstance(v.get("required"), bool)]
                for key in lifted:
                    if props[key].pop("required"):
                        req: list[Any] = node["required"] if isinstance(node.get("required"), list) else []
                        node["required"] = req if key in req else [*req, key]
                    self.note(join_pointer(at, "properties", key, "required"),
                              "draft-03 boolean `required` moved to the parent's `required` list", "W104")
            if isinstance(node.get("items"), list) and "prefixItems" not in node and modern:
                node["prefixItems"] = node.pop("items")
                if "additionalItems" in node:
                    node["items"] = node.pop("additionalItems")
                self.note(join_pointer(at, "items"), "tuple `items: [...]` rewritten as `prefixItems`", "W104")

        walk_schemas(schema, visit)

    def _fix_type(self, node: dict[str, Any], at: str) -> None:
        raw = node["type"]
        names = raw if isinstance(raw, list) else [raw]
        if names and all(isinstance(n, str) and n in _JSON_TYPES for n in names) and len(set(names)) == len(names):
            return
        fixed: list[str] = []
        for name in names:
            if isinstance(name, str):
                name = _TYPE_ALIASES.get(name.lower(), name.lower())
                if name in _JSON_TYPES and name not in fixed:
                    fixed.append(name)
        if not fixed:
            del node["type"]
            self.note(join_pointer(at, "type"), f"unknown type {_short(raw)} dropped")
        else:
            node["type"] = fixed if isinstance(raw, list) and len(fixed) > 1 else fixed[0]
            self.note(join_pointer(at, "type"), f"type {_short(raw)} rewritten as {_short(node['type'])}", "W104")

    def _meta_fix(self, schema: dict[str, Any]) -> None:
        """Whatever the dialect's meta-schema still rejects is removed (made unconstrained)."""
        cls = validator_for(schema, default=jsonschema.Draft202012Validator)
        meta = cls(cls.META_SCHEMA)
        for _ in range(_MAX_FIX_ROUNDS):
            err = next(iter(sorted(meta.iter_errors(schema), key=lambda e: [str(p) for p in e.absolute_path])), None)
            if err is None:
                return
            path = list(err.absolute_path)
            if not path:
                schema.clear()
                schema["type"] = "object"
                self.note("", f"schema rejected by its meta-schema ({err.message}); replaced by an open object")
                return
            parent: Any = schema
            for part in path[:-1]:
                parent = parent[part]
            last = path[-1]
            at = join_pointer("", *path)
            if _is_subschema(schema, path):
                parent[last] = {}
                self.note(at, f"invalid schema {_short(err.instance)} replaced by an unconstrained one ({err.message})")
            elif isinstance(parent, list):
                del parent[last]
                self.note(at, f"invalid entry {_short(err.instance)} dropped ({err.message})")
            else:
                del parent[last]
                self.note(at, f"invalid `{last}` {_short(err.instance)} dropped ({err.message})")
        self.note("", "too many meta-schema errors; left as is (build reports them)", "W104")

    def _refs(self, schema: dict[str, Any]) -> None:
        for at, ref in list(iter_refs(schema)):
            ok, node = resolve_pointer(schema, at[: -len("/$ref")])
            if not ok or not isinstance(node, dict) or node.get("$ref") != ref:
                continue
            if not _resolves_locally(schema, ref):
                del node["$ref"]
                self.note(at, f"$ref {ref!r} cannot be resolved inside the tool's schema (build refuses network, "
                              "file and anchor refs); replaced by an unconstrained schema")
            elif _pure_ref_cycle(schema, at[: -len("/$ref")]):
                del node["$ref"]
                self.note(at, f"$ref {ref!r} is part of a cycle of bare references; replaced by an unconstrained schema")


def _is_subschema(schema: Any, path: list[Any]) -> bool:
    """Whether ``path`` (from the schema root) names a subschema rather than a keyword's value."""
    node: Any = schema
    i = 0
    while i < len(path) and isinstance(node, dict):
        key = path[i]
        value = node.get(key)
        if key in _SCHEMA_MAPS or key in _SCHEMA_LISTS or (key == "items" and isinstance(value, list)):
            if i + 2 == len(path):
                return True
            if i + 2 > len(path):
                return False
            node, i = value[path[i + 1]] if isinstance(value, (dict, list)) else None, i + 2
        elif key in _SCHEMA_SINGLE:
            if i + 1 == len(path):
                return True
            node, i = value, i + 1
        else:
            return False
    return False


def _pure_ref_cycle(schema: dict[str, Any], start: str) -> bool:
    """Whether the bare-``$ref`` chain starting at pointer ``start`` leads back to it."""
    seen: set[str] = set()
    ptr = start
    while ptr not in seen:
        seen.add(ptr)
        ok, node = resolve_pointer(schema, ptr)
        ref = node.get("$ref") if ok and isinstance(node, dict) else None
        if not isinstance(ref, str) or set(node) - _BARE_REF_KEYS or not _resolves_locally(schema, ref):
            return False
        ptr = ref[1:]
    return ptr == start


def _resolves_locally(schema: dict[str, Any], ref: str) -> bool:
    """Whether ``ref`` is a JSON-pointer fragment that exists inside ``schema``."""
    return (ref == "#" or ref.startswith("#/")) and resolve_pointer(schema, ref[1:])[0]


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
        entry["inputSchema"] = _SchemaFixer(name, "/inputSchema", notes).fix(schema, True)
    else:
        notes.append(Note(name, "/inputSchema", "W102", f"inputSchema {_short(schema)} is not a schema object; "
                                                        "replaced by an open object"))
        entry["inputSchema"] = {"type": "object"}
    if "outputSchema" in raw:
        out = raw["outputSchema"]
        if isinstance(out, dict):
            entry["outputSchema"] = _SchemaFixer(name, "/outputSchema", notes).fix(out, False)
        else:
            notes.append(Note(name, "/outputSchema", "W102", f"outputSchema {_short(out)} is not a schema object; dropped (results untyped)"))
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
                notes.append(Note(name, f"/{key}", "W104", f"{key} {_short(raw[key])} is not an object; dropped"))
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
            notes.append(Note(tool, join_pointer("/annotations", key), "W104", f"annotation {key!r}: {_short(value)} dropped"))
    return out


def _usable_tools(tools: list[Any], notes: list[Note]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for i, raw in enumerate(tools):
        name = raw.get("name") if isinstance(raw, dict) else None
        if not isinstance(name, str) or not USABLE_TOOL_NAME.match(name):
            notes.append(Note("", f"/tools/{i}", "W104", f"tool with unusable name {_short(name)} dropped (empty, "
                                                         "over 128 characters or with whitespace)"))
        elif name in seen:
            notes.append(Note(name, "", "W104", f"tool {name!r} listed twice; the second entry dropped"))
        else:
            seen.add(name)
            out.append(raw)
    return sorted(out, key=lambda t: t["name"])


def _python_names(tools: list[dict[str, Any]], notes: list[Note]) -> None:
    """``python_name`` for tools whose method or class names collide (as lowering would derive them)."""
    runtime = runtime_member_names()
    methods: set[str] = set()
    stems: set[str] = set()
    for tool in tools:
        name = tool["name"]
        method, stem = str(MethodName(name, runtime)), str(ClassName(name))
        if method in methods or stem in stems:
            base, n = method.rstrip("_"), 2
            while str(MethodName(f"{base}_{n}", runtime)) in methods or str(ClassName(f"{base}_{n}")) in stems:
                n += 1
            chosen = f"{base}_{n}"
            notes.append(Note(name, "/python_name", "W104", f"Python name {method!r} is taken by another tool; python_name {chosen!r} set"))
            rest = {k: v for k, v in tool.items() if k != "name"}
            tool.clear()
            tool.update({"name": name, "python_name": chosen, **rest})
            method, stem = str(MethodName(chosen, runtime)), str(ClassName(chosen))
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
    taken = Counter(str(ClassName(n)) for n in shared)
    for tool in tools:
        stem = ClassName(tool.get("python_name") or tool["name"])
        taken.update([str(ClassName(stem, "Input")), str(ClassName(stem, "Output"))])
        for _, schema in _schemas(tool):
            for key in ("$defs", "definitions"):
                taken.update(str(ClassName(n)) for n in (schema.get(key) or {}))
    reserved = RESERVED_MODULE_NAMES | RUNTIME_ERROR_NAMES
    for tool in tools:
        stem = ClassName(tool.get("python_name") or tool["name"])
        for where, schema in _schemas(tool):
            role = "" if where == "inputSchema" else "Output"
            for key in ("$defs", "definitions"):
                for name, body in (schema.get(key) or {}).items():
                    cls = str(ClassName(name))
                    if isinstance(body, dict) and "x-python-name" not in body and (taken[cls] > 1 or cls in reserved):
                        body["x-python-name"] = str(ClassName(f"{stem}{role}_{name}"))
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


# -- resources, resource templates, prompts ------------------------------------------------

_RESOURCE_KEYS = ("uri", "name", "title", "description", "mimeType", "size", "annotations", "icons", "_meta")
_TEMPLATE_KEYS = ("uriTemplate", "name", "title", "description", "mimeType", "annotations", "icons", "_meta")
_PROMPT_KEYS = ("name", "title", "description", "icons", "_meta", "arguments")
_ARGUMENT_KEYS = ("name", "title", "description", "required")


def _kept(raw: Mapping[str, Any], keys: tuple[str, ...], at: str, notes: list[Note]) -> dict[str, Any]:
    """The entry with the keys the spec format knows (others noted: the spec cannot hold them)."""
    dropped = sorted(k for k in raw if k not in keys)
    if dropped:
        notes.append(Note("", at, "W104", f"{', '.join(map(repr, dropped))} left out (not in the spec format)"))
    return {k: raw[k] for k in keys if k in raw}


def _typed(entry: dict[str, Any], types: dict[str, type]) -> dict[str, Any]:
    """``entry`` without text fields that are not strings and typed fields of the wrong type
    (the spec format would refuse them)."""
    out = {}
    for k, v in entry.items():
        want = types.get(k, str) if k in ("title", "description", "mimeType", *types) else None
        if want is None or (isinstance(v, want) and not (want is int and isinstance(v, bool))):
            out[k] = v
    return out


def _stems(entries: list[dict[str, Any]], prefix: str, notes: list[Note], key: str, tools: set[str]) -> None:
    """Give entries whose handler names would clash (with each other or with a tool's method)
    a ``python_name`` (numbered)."""
    used: set[str] = set()
    for i, entry in enumerate(entries):
        stem = str(PyIdent(str(entry["name"])))
        chosen, n = stem, 2
        while chosen in used or f"{prefix}_{chosen}" in tools:
            chosen, n = f"{stem}_{n}", n + 1
        used.add(chosen)
        if chosen != stem:
            entry["python_name"] = chosen
            notes.append(Note("", f"/{key}/{i}/name", "W104", f"{entry['name']!r}: Python name {prefix}_{chosen} "
                              "(another entry has the same one)"))


def normalize_catalog(resources: list[Any], templates: list[Any], prompts: list[Any],
                      tools: Sequence[dict[str, Any]] = ()) -> tuple[dict[str, list[dict[str, Any]]], list[Note]]:
    """Spec ``resources`` / ``resourceTemplates`` / ``prompts`` from the server's lists: unknown keys
    and unusable entries (no uri or name, duplicates, templates beyond RFC 6570 level 3) left out
    with a note; names that would give one Python name twice numbered."""
    notes: list[Note] = []
    out: dict[str, list[dict[str, Any]]] = {}
    seen: set[tuple[str, str]] = set()

    def usable(raw: Any, key: str, ident: str, i: int) -> bool:
        ok = isinstance(raw, dict) and isinstance(raw.get(ident), str) and raw.get(ident) and \
            isinstance(raw.get("name"), str) and raw.get("name")
        if not ok:
            notes.append(Note("", f"/{key}", "W104", f"entry {i} has no {ident} or name; left out"))
            return False
        names = "prompt" if key == "prompts" else "resource"  # resources and templates share names
        if (key, raw[ident]) in seen or (names + "#name", raw["name"]) in seen:
            notes.append(Note("", f"/{key}", "W104", f"duplicate {raw[ident]!r} / {raw['name']!r}; left out"))
            return False
        seen.update({(key, raw[ident]), (names + "#name", raw["name"])})
        return True

    res = [_kept(r, _RESOURCE_KEYS, f"/resources/{i}", notes) for i, r in enumerate(resources)
           if usable(r, "resources", "uri", i)]
    tpls = []
    for i, r in enumerate(templates):
        if not usable(r, "resourceTemplates", "uriTemplate", i):
            continue
        try:
            parse_template(r["uriTemplate"])
        except TemplateError as exc:
            notes.append(Note("", "/resourceTemplates", "W104", f"template {r['uriTemplate']!r} left out: {exc}"))
            continue
        tpls.append(_kept(r, _TEMPLATE_KEYS, f"/resourceTemplates/{i}", notes))
    prs = []
    for i, r in enumerate(prompts):
        if not usable(r, "prompts", "name", i):
            continue
        entry = _typed(_kept(r, _PROMPT_KEYS, f"/prompts/{i}", notes), {})
        args = entry.get("arguments")
        if args is not None:
            good, names_seen = [], set()
            for a in args if isinstance(args, list) else []:
                if isinstance(a, dict) and isinstance(a.get("name"), str) and a["name"] and a["name"] not in names_seen:
                    names_seen.add(a["name"])
                    good.append(_typed(_kept(a, _ARGUMENT_KEYS, f"/prompts/{i}/arguments", notes), {"required": bool}))
            entry["arguments"] = good
        prs.append(entry)
    res = [_typed(r, {"size": int}) for r in res]
    tpls = [_typed(x, {}) for x in tpls]
    taken = {str(MethodName(str(t.get("python_name") or t["name"]))) for t in tools}
    _stems([*res, *tpls], "read", notes, "resources", taken)
    _stems(prs, "prompt", notes, "prompts", taken)
    for key, entries in (("resources", res), ("resourceTemplates", tpls), ("prompts", prs)):
        if entries:
            out[key] = entries
    return out, notes
