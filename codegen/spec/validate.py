"""Validation of a loaded spec: structure, tool names, JSON Schemas and ``$ref`` targets.

All problems are collected as diagnostics; nothing raises.  The structural check uses the published
``spec-format.schema.json``; schemas are meta-validated against 2020-12 (or their ``$schema``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from mcp_codegen_runtime.wire.uritemplate import TemplateError
from mcp_codegen_runtime.wire.uritemplate import parse as parse_template

from ..diagnostics import Diagnostic, Level
from .apps import load_ui, ui_link_checks, ui_uris
from .auth import auth_checks
from .icons import icon_checks
from .keywords import schema_typos, undeclared_required
from .load import SourceDoc
from .metaschema import meta_diagnostics
from .model import SpecFile, parse_spec
from .overlays import overlay_checks
from .pointer import depth_exceeded, join_pointer
from .refs import Resolver, Target, iter_refs
from .registry import registry_checks
from .setaside import sound_copy, without_set_aside
from .skills import load_skills
from .structure import spec_format_schema as spec_format_schema
from .structure import structural_errors
from .upstream import upstream_checks

TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
#: Names outside TOOL_NAME that still work (the spec allows 128 characters, SEP-986 and the
#: conformance suite allow ``/``): accepted with W103.  Empty, longer, or with whitespace
#: or control characters: E020.
USABLE_TOOL_NAME = re.compile(r"^[^\s\x00-\x1f\x7f]{1,128}$")
#: Keywords that only make sense on an object: a root without ``type`` that has one of
#: these (or nothing shaping it at all) is an object schema written sloppily.
_OBJECT_KEYWORDS = frozenset({"properties", "required", "additionalProperties", "patternProperties",
                              "propertyNames", "minProperties", "maxProperties", "dependentRequired"})
_NON_OBJECT_SHAPE = frozenset({"$ref", "enum", "const", "items", "prefixItems", "anyOf", "oneOf", "allOf",
                               "not", "if", "minLength", "maxLength", "pattern", "minimum", "maximum",
                               "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"})
#: Deepest JSON nesting accepted inside one schema (the model generator and validators
#: recurse; real schemas stay far below this).
MAX_DEPTH = 64


def object_root(schema: Any) -> str:
    """How an ``inputSchema`` root stands: ``"object"``, ``"loose"`` or ``"bad"``.

    ``"loose"``: no ``type`` but nothing but object keywords (``properties``, ``required``
    ...) or no shape at all, or a ``type`` list that contains ``"object"`` (such as
    ``[object, "null"]``).  The models then treat it as ``type: object`` (W102).
    """
    if not isinstance(schema, dict):
        return "bad"
    kind = schema.get("type")
    if kind == "object":
        return "object"
    if isinstance(kind, list) and "object" in kind:
        return "loose"
    if kind is None and not (_NON_OBJECT_SHAPE & set(schema)):
        return "loose"
    return "bad"


def _ref_cycles(doc: SourceDoc, resolver: Resolver, elsewhere: Iterable[tuple[str, str]] = ()) -> list[Diagnostic]:
    """Chains of schemas that are nothing but ``$ref`` and lead back to themselves (E027, once per
    cycle) or go on for more than ``MAX_DEPTH`` links (E028, once), followed from each of the
    spec's ``$defs`` and from each schema of another file its ``$ref``s reach (``elsewhere``:
    (file, pointer)), so that a cycle between two other files is found too; each schema is
    followed once."""
    out = []
    defs = (doc.data.get("$defs") or {}) if isinstance(doc.data, dict) else {}
    starts = [((doc.file, join_pointer("/$defs", name)), defs[name]) for name in sorted(defs)]
    starts += [((f, at), resolver.schema_at(Target(f, at))) for f, at in sorted(elsewhere)]
    reported: set[frozenset[tuple[str, str]]] = set()
    done: set[tuple[str, str]] = set()  # schemas whose chain was followed from an earlier start
    for start, node in starts:
        if start in done:
            continue
        seen = [start]
        cur, ptr = resolver.doc(start[0]), start[1]  # the resolver knows the spec itself too
        while isinstance(node, dict) and set(node) <= {"$ref", "description", "title"} and isinstance(node.get("$ref"), str):
            target = resolver.resolve(node["$ref"], cur, ptr + "/$ref", "")
            if target is None:
                break
            cur = resolver.doc(target.file)
            ptr, node = target.pointer, resolver.schema_at(target)
            here = (target.file, ptr)
            if here in seen:  # the chain closes: the cycle is from `here` on
                cycle = seen[seen.index(here):]
                if frozenset(cycle) not in reported:
                    reported.add(frozenset(cycle))
                    qualified = any(f != doc.file for f, _ in cycle)
                    chain = [f"{resolver.doc(f).display}#{at}" if qualified else at for f, at in cycle + [here]]
                    out.append(resolver.doc(here[0]).diag(
                        "E027", f"$ref cycle: {' -> '.join(chain)}", here[1],
                        hint="a schema cannot be only a reference to itself; give one of them a type"))
                break
            if here in done:
                break
            seen.append(here)
            if len(seen) > MAX_DEPTH:  # no schema needs this many aliases; the models would recurse through them
                if not any(d.code == "E028" for d in out):  # one report: the chain goes on from every link
                    out.append(resolver.doc(start[0]).diag(
                        "E028", f"$ref chain longer than {MAX_DEPTH} links (schemas that are only a $ref)", start[1],
                        hint="point the $ref at the schema itself"))
                break
        done.update(seen)
    return out


def _entries(value: Any) -> list[tuple[int | str, dict[str, Any]]]:
    """(index or key, entry) of the mapping entries of a list or mapping (others skipped: the
    structural check reports them)."""
    items = enumerate(value) if isinstance(value, list) else sorted(value.items()) if isinstance(value, dict) else ()
    return [(k, v) for k, v in items if isinstance(v, dict)]


def _schema_sites(spec_data: dict[str, Any]) -> list[tuple[str, Any, str]]:
    """(pointer, schema, scope) for every schema in the spec; scope is the ref root."""
    sites: list[tuple[str, Any, str]] = []
    defs = spec_data.get("$defs")
    for name, schema in sorted(defs.items()) if isinstance(defs, dict) else ():
        sites.append((join_pointer("/$defs", name), schema, ""))
    for i, tool in _entries(spec_data.get("tools")):
        base = join_pointer("/tools", i)
        for key in ("inputSchema", "outputSchema"):
            if key in tool:
                ptr = join_pointer(base, key)
                sites.append((ptr, tool[key], ptr))
        for code, err in _entries(tool.get("errors")):
            if "data" in err:
                sites.append((join_pointer(base, "errors", code, "data"), err["data"], ""))
        for key, inp in _entries(tool.get("inputs")):
            if "requestedSchema" in inp:
                sites.append((join_pointer(base, "inputs", key, "requestedSchema"), inp["requestedSchema"], ""))
    for i, tpl in _entries(spec_data.get("resourceTemplates")):
        variables = tpl.get("variables")
        for var, schema in sorted(variables.items()) if isinstance(variables, dict) else ():
            sites.append((join_pointer("/resourceTemplates", i, "variables", var), schema, ""))
    for name, overlay in _entries(spec_data.get("overlays")):
        if "outputSchema" in overlay:
            ptr = join_pointer("/overlays", name, "outputSchema")
            sites.append((ptr, overlay["outputSchema"], ptr))
    return sites


def check_refs(resolver: Resolver, doc: SourceDoc, schema: Any, ptr: str, scope: str,
               seen: set[tuple[str, str]] | None = None) -> list[tuple[SourceDoc, str]]:
    """Resolve every ``$ref`` reachable from ``schema`` (following into other files).  ``seen``:
    the targets already followed, shared by the calls of one spec, so that a chain of ``$ref``s
    is walked once, not once from each of its links.

    Returns:
        (document, pointer) of every schema reached in another file.
    """
    seen = set() if seen is None else seen
    elsewhere: list[tuple[SourceDoc, str]] = []
    work = [(doc, schema, ptr, scope)]
    while work:
        cur_doc, cur, cur_ptr, cur_scope = work.pop()
        for at, ref in iter_refs(cur, cur_ptr):
            target = resolver.resolve(ref, cur_doc, at, cur_scope)
            if target is None or (target.file, target.pointer) in seen:
                continue
            seen.add((target.file, target.pointer))
            tdoc = resolver.doc(target.file)
            if tdoc is not doc:
                elsewhere.append((tdoc, target.pointer))
                scope_of = ""
            else:
                scope_of = cur_scope if target.pointer.startswith(cur_scope) and cur_scope else ""
            work.append((tdoc, resolver.schema_at(target), target.pointer, scope_of))
    return elsewhere


def _typos(doc: SourceDoc, schema: Any, ptr: str, pulled: bool) -> list[Diagnostic]:
    """E029 for every key of ``schema`` that looks like a mistyped keyword (W109 in a pulled
    spec, which keeps what the server sent); W113 for a ``required`` name that looks like a
    mistyped property or that extra properties forbid."""
    out = []
    for at, key, meant in schema_typos(schema, ptr):
        if pulled:
            out.append(doc.diag("W109", f"unknown schema keyword {key!r}: an annotation that nothing checks "
                                "(kept, as the server sent it)", at, hint=f"did you mean {meant!r}?",
                                level=Level.WARNING))
        else:
            out.append(doc.diag("E029", f"unknown schema keyword {key!r}, probably a typo: JSON Schema ignores "
                                "unknown keys, so nothing would check it", at, hint=f"did you mean {meant!r}?"))
    for miss in undeclared_required(schema, ptr):
        if miss.meant is not None:
            out.append(doc.diag("W113", f"required property {miss.name!r} is not declared in properties, so "
                                f"{miss.meant!r} stays optional and every call must send {miss.name!r}", miss.pointer,
                                hint=f"did you mean {miss.meant!r}?", level=Level.WARNING))
        else:
            out.append(doc.diag("W113", f"required property {miss.name!r} is not declared in properties, and extra "
                                "properties are forbidden: no call can pass", miss.pointer,
                                hint="declare it in properties, or remove it from required", level=Level.WARNING))
    return out


def validate(doc: SourceDoc) -> tuple[SpecFile | None, Resolver | None, list[Diagnostic]]:
    """Validate a loaded spec.

    Returns:
        The typed spec and its ref resolver when there is no error, and all diagnostics.
    """
    diags = structural_errors(doc)
    blocking = [d.pointer for d in diags if d.is_error and d.code != "E011"]  # an unknown key leaves the shape intact
    sound: SourceDoc | None = doc
    if blocking:  # set the broken entries aside and go on, so every mistake shows at once
        sound = sound_copy(doc, blocking)
        if sound is None or any(d.is_error and d.code != "E011" for d in structural_errors(sound, without_set_aside(sound.data))):
            return None, None, diags
    spec = parse_spec(sound)
    skills, skill_diags, skill_deps = load_skills(sound)
    diags += skill_diags
    ui_resources, ui_diags, ui_deps = load_ui(sound, {r.uri: r.pointer for r in spec.resources})
    diags += ui_diags
    diags += ui_link_checks(doc, [(t.pointer, t.ui, isinstance(t.wire.get("_meta"), dict) and "ui" in t.wire["_meta"])
                                  for t in spec.tools if t.ui is not None], *ui_uris(doc.data))
    spec = replace(spec, skills=skills, skill_deps=skill_deps, ui_resources=ui_resources, ui_deps=ui_deps)
    seen: dict[str, str] = {}
    for tool in spec.tools:
        if not USABLE_TOOL_NAME.fullmatch(tool.name):
            diags.append(doc.diag("E020", f"tool name {tool.name!r} is not allowed",
                                  join_pointer(tool.pointer, "name"),
                                  hint="use 1-64 characters from A-Z a-z 0-9 _ - ."))
        elif not TOOL_NAME.fullmatch(tool.name):
            diags.append(doc.diag("W103", f"tool name {tool.name!r} is outside the recommended 1-64 characters "
                                  "A-Z a-z 0-9 _ - .", join_pointer(tool.pointer, "name"),
                                  hint="some clients may refuse it; the Python name is derived safely",
                                  level=Level.WARNING))
        if tool.name in seen:
            diags.append(doc.diag("E021", f"duplicate tool name {tool.name!r} (first at {seen[tool.name]})",
                                  join_pointer(tool.pointer, "name"), hint="tool names must be unique per server"))
        else:
            seen[tool.name] = tool.pointer
        root = object_root(tool.wire["inputSchema"])
        if root == "bad":
            diags.append(doc.diag("E022", "inputSchema must have `type: object` at its root",
                                  join_pointer(tool.pointer, "inputSchema"),
                                  hint="wrap the arguments in an object: {type: object, properties: {...}}"))
        elif root == "loose":
            diags.append(doc.diag("W102", "inputSchema root is not `type: object`; the models treat it as an object",
                                  join_pointer(tool.pointer, "inputSchema"),
                                  hint="add `type: object` at the root (tools/list publishes the schema as written)",
                                  level=Level.WARNING))
    diags.extend(_catalog_checks(doc, spec))
    diags.extend(overlay_checks(doc, spec))
    diags.extend(auth_checks(doc, spec))
    diags.extend(registry_checks(doc, spec))
    diags.extend(icon_checks(doc))
    resolver = Resolver(doc)
    typo_checked: set[tuple[str, str]] = set()  # schemas of other files, checked once
    followed: set[tuple[str, str]] = set()  # $ref targets walked (check_refs)
    for ptr, schema, scope in _schema_sites(doc.data):
        if any(b == ptr or b.startswith(ptr + "/") for b in blocking):
            continue  # the spec format's error says what is wrong with it
        deep = depth_exceeded(schema, MAX_DEPTH)
        if deep is not None:
            diags.append(doc.diag("E028", f"schema nested more than {MAX_DEPTH} levels deep", ptr + deep,
                                  hint="flatten the schema with $defs and $ref"))
            continue
        diags.extend(meta_diagnostics(doc, schema, ptr))  # and the rest of the schema still checked:
        diags.extend(_typos(doc, schema, ptr, doc.pulled))  # every mistake at once
        for other, at in check_refs(resolver, doc, schema, ptr, scope, followed):
            if (other.file, at) not in typo_checked:
                typo_checked.add((other.file, at))
                diags.extend(_typos(other, resolver.schema_at(Target(other.file, at)), at, doc.pulled))
    diags.extend(upstream_checks(doc, spec, resolver))
    diags.extend(resolver.diagnostics)
    if not any(d.level is Level.ERROR for d in diags):
        diags.extend(_ref_cycles(doc, resolver, typo_checked))
    if any(d.level is Level.ERROR for d in diags):
        return None, None, diags
    return spec, resolver, diags


#: Types a template variable or prompt argument may have (values arrive as strings).
_SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean"})


def _catalog_checks(doc: SourceDoc, spec: SpecFile) -> list[Diagnostic]:
    """Resources, templates and prompts: unique URIs / names, templates that parse, declared
    variables that the template has, scalar variable types, completion sources that exist."""
    out: list[Diagnostic] = []
    first: dict[tuple[str, str], str] = {}

    def unique(kind: str, value: str, ptr: str, what: str) -> None:
        if (kind, value) in first:
            out.append(doc.diag("E080", f"duplicate {what} {value!r} (first at {first[kind, value]})", ptr,
                                hint=f"each {what} must be unique per server"))
        else:
            first[kind, value] = ptr

    for r in spec.resources:
        unique("uri", r.uri, join_pointer(r.pointer, "uri"), "resource URI")
        unique("resource", r.name, join_pointer(r.pointer, "name"), "resource or template name")
    for tpl in spec.templates:
        unique("template", tpl.uri_template, join_pointer(tpl.pointer, "uriTemplate"), "URI template")
        unique("resource", tpl.name, join_pointer(tpl.pointer, "name"), "resource or template name")
        try:
            names = set(parse_template(tpl.uri_template).variables)
        except TemplateError as exc:
            out.append(doc.diag("E081", f"invalid URI template: {exc}", join_pointer(tpl.pointer, "uriTemplate"),
                                hint="RFC 6570 levels 1-3: {var}, {+var}, {#var}, {.var}, {/var}, {;var}, {?a,b}, {&a}"))
            continue
        for var, schema in tpl.variables.items():
            ptr = join_pointer(tpl.pointer, "variables", var)
            if var not in names:
                out.append(doc.diag("E082", f"variable {var!r} is not in the template {tpl.uri_template!r}", ptr,
                                    hint=f"the template's variables: {', '.join(sorted(names)) or 'none'}"))
            elif isinstance(schema, dict) and "enum" not in schema and schema.get("type", "string") not in _SCALAR_TYPES:
                out.append(doc.diag("E082", f"variable {var!r} must be a string, integer, number or boolean "
                                    "(URI values are text)", join_pointer(ptr, "type")))
        for var in tpl.complete:
            if var not in names:
                out.append(doc.diag("E082", f"completion for {var!r}, which is not a variable of the template",
                                    join_pointer(tpl.pointer, "complete", var)))
    for pr in spec.prompts:
        unique("prompt", pr.name, join_pointer(pr.pointer, "name"), "prompt name")
        seen: set[str] = set()
        for i, arg in enumerate(pr.arguments):
            if arg.name in seen:
                out.append(doc.diag("E080", f"duplicate argument {arg.name!r} of prompt {pr.name!r}",
                                    join_pointer(pr.pointer, "arguments", i, "name")))
            seen.add(arg.name)
    return out
