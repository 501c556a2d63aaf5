"""The host-limits lint of ``mcp-codegen validate``: the rules of :mod:`codegen.spec.hosts`
applied to every tool of valid specs, each finding a W111 warning.

The input schemas are walked as written, following ``$ref`` into ``$defs`` and other files, so
every warning points at the line to change; nothing is rewritten.  ``build`` does not run it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, Level, sort_key
from .discovery import discover
from .hosts import HostRule, Node, ToolFacts, select
from .load import SourceDoc, load_spec_file
from .model import SpecFile
from .pointer import join_pointer
from .refs import Resolver, Target
from .sources import one_read_per_file
from .validate import validate

#: Keywords whose value is one subschema, a list of them, or a map of names to them.
_ONE = ("items", "additionalProperties", "additionalItems", "unevaluatedProperties", "unevaluatedItems", "contains",
        "propertyNames", "not", "if", "then", "else", "contentSchema")
_LIST = ("prefixItems", "allOf", "anyOf", "oneOf")
_MAP = ("properties", "patternProperties", "dependentSchemas")
#: Steps into these add a nesting level (what "levels of nesting" count).
_NESTING = frozenset({"properties", "items", "prefixItems", "additionalProperties", "patternProperties"})
#: Schemas walked per tool at most (a guard against pathological specs).
_MAX_NODES = 50_000


def _children(schema: dict[str, Any], ptr: str) -> Iterator[tuple[str, Any, str]]:
    """(keyword, subschema, pointer) of every direct subschema of ``schema``."""
    for key in _ONE:
        value = schema.get(key)
        if isinstance(value, dict):
            yield key, value, join_pointer(ptr, key)
        elif key == "items" and isinstance(value, list):
            for i, item in enumerate(value):
                yield key, item, join_pointer(ptr, key, i)
    for key in _LIST:
        value = schema.get(key)
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield key, item, join_pointer(ptr, key, i)
    for key in _MAP:
        value = schema.get(key)
        if isinstance(value, dict):
            for name, item in value.items():
                yield key, item, join_pointer(ptr, key, name)


def schema_nodes(resolver: Resolver, doc: SourceDoc, root: str) -> list[Node]:
    """Every schema reachable from the one at ``root`` of ``doc``, ``$ref``s followed, each once."""
    start = resolver.schema_at(Target(doc.file, root))
    out: list[Node] = []
    seen: set[tuple[str, str]] = set()
    work: list[tuple[SourceDoc, Any, str, str, str, int]] = [(doc, start, root, root, "root", 0)]
    while work and len(out) < _MAX_NODES:
        cur, schema, ptr, scope, place, depth = work.pop()
        if not isinstance(schema, dict) or (cur.file, ptr) in seen:
            continue
        seen.add((cur.file, ptr))
        out.append(Node(cur, ptr, schema, place, depth))
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = resolver.resolve(ref, cur, join_pointer(ptr, "$ref"), scope)
            if target is not None:
                tdoc = resolver.doc(target.file)
                tscope = scope if tdoc is cur and scope and target.pointer.startswith(scope) else ""
                work.append((tdoc, resolver.schema_at(target), target.pointer, tscope, place, depth))
        children = list(_children(schema, ptr))
        for key, sub, at in reversed(children):
            kind = "property" if key == "properties" else "inner"
            work.append((cur, sub, at, scope, kind, depth + (key in _NESTING)))
    return out


def tool_facts(doc: SourceDoc, spec: SpecFile, resolver: Resolver) -> list[ToolFacts]:
    """The facts of every tool of ``spec``."""
    facts = []
    for tool in spec.tools:
        root = join_pointer(tool.pointer, "inputSchema")
        facts.append(ToolFacts(doc, tool.pointer, tool.name, spec.server.name, tool.wire,
                               tuple(schema_nodes(resolver, doc, root))))
    return facts


def _diagnostic(rule: HostRule, hosts: tuple[str, ...], subject: str, where: SourceDoc, ptr: str, what: str) -> Diagnostic:
    return where.diag("W111", f"host may refuse {subject}: {what} ({', '.join(hosts)}: rule {rule.id})", ptr,
                      hint=f"{rule.hint}; source: {rule.source}", level=Level.WARNING)


def lint(doc: SourceDoc, spec: SpecFile, resolver: Resolver, profile: str) -> list[Diagnostic]:
    """W111 for every rule of ``profile`` a tool of ``spec`` breaks (an unknown profile: none)."""
    rules, _ = select(profile)
    if not rules:
        return []
    tools = tool_facts(doc, spec, resolver)
    out: list[Diagnostic] = []
    seen: set[tuple[str, str, str]] = set()
    for rule, hosts in rules:
        if rule.per == "server":
            if tools:
                for where, ptr, what in rule.check(tools):
                    out.append(_diagnostic(rule, hosts, f"server {spec.server.name!r}", where, ptr, what))
            continue
        for t in tools:
            for where, ptr, what in rule.check(t):
                if (rule.id, t.name, f"{where.file}#{ptr}") in seen:
                    continue
                seen.add((rule.id, t.name, f"{where.file}#{ptr}"))
                out.append(_diagnostic(rule, hosts, f"tool {t.name!r}", where, ptr, what))
    return out


def lint_paths(paths: Sequence[Path], profile: str) -> list[Diagnostic]:
    """The host-limits warnings of every spec under ``paths`` that validates without errors."""
    out: list[Diagnostic] = []
    with one_read_per_file():
        specs, _ = discover(paths)
        for path, display in specs:
            doc, diags = load_spec_file(path, display)
            if doc is None or any(d.is_error for d in diags):
                continue
            spec, resolver, _ = validate(doc)
            if spec is not None and resolver is not None:
                out.extend(lint(doc, spec, resolver, profile))
    return sorted(out, key=sort_key)
