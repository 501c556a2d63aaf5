"""Checks of a spec's REST binding: the top-level ``upstream`` and each tool's ``http`` (docs/openapi.md).

The structural check (spec-format.schema.json) already holds the shapes (methods, where an
argument goes, styles, status keys, environment variable names); here what the schema cannot
say, each a located error:

====  ======================================================================================
E130  ``upstream.baseUrl`` is not an absolute http(s) URL, or has a query or fragment
E131  a tool has ``http`` but the spec has no ``upstream``
E132  ``http.args`` and the ``inputSchema`` properties differ (every argument is bound, once)
E133  the path template and the ``in: path`` arguments differ (or the template is malformed)
E134  two arguments go to the same place (``in`` and ``name``; header names ignore case)
E135  a ``style`` (or ``allowReserved``) that the argument's ``in`` does not allow
E136  a security requirement names a scheme ``upstream.security`` does not declare
E137  ``http.errors`` maps a status to an error code the tool does not declare
E138  ``http.wrap`` names a property the tool's ``outputSchema`` does not have
E139  a ``http.fixed`` value goes where an argument (or another fixed value) already goes
E129  the body: a body argument without ``http.body``, the whole body beside body fields, or a
      ``files`` entry that is no body field
====  ======================================================================================

All of a spec's mistakes are reported at once.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from typing import Any

from ..diagnostics import Diagnostic
from .load import SourceDoc
from .model import SpecFile, ToolSpec
from .pointer import join_pointer
from .refs import Resolver, Target

_VARIABLE = re.compile(r"\{([^{}]*)\}")


def _styles(where: Any) -> tuple[str, ...] | None:
    """The styles a place allows (the runtime's table, which serializes them; none for a body,
    which its content type serializes); None for a place that is no place."""
    from mcp_codegen_runtime.server.upstream.binding import STYLES  # only for specs with a binding

    if where == "body":
        return ()
    return STYLES[where][0] if where in STYLES else None


def upstream_checks(doc: SourceDoc, spec: SpecFile, resolver: Resolver) -> list[Diagnostic]:
    """Diagnostics of ``upstream`` and of every tool's ``http`` (module docstring)."""
    out: list[Diagnostic] = []
    upstream = spec.upstream
    schemes: set[str] | None = None
    if upstream is not None:
        out += _base_url(doc, upstream.get("baseUrl"))
        schemes = set(upstream.get("security") or {})
        out += _requirements(doc, upstream.get("defaultSecurity"), "/upstream/defaultSecurity", schemes)
    for tool in spec.tools:
        if tool.http is None:
            continue
        ptr = join_pointer(tool.pointer, "http")
        if upstream is None:
            out.append(doc.diag("E131", f"tool {tool.name!r} has an http binding but the spec has no upstream", ptr,
                                hint="add a top-level `upstream: {baseUrl: https://...}` (what the tools call)"))
        else:
            out += _requirements(doc, tool.http.get("security"), join_pointer(ptr, "security"), schemes or set())
        out += _binding(doc, tool, ptr, resolver)
    return out


def _base_url(doc: SourceDoc, url: Any) -> list[Diagnostic]:
    if not isinstance(url, str):
        return []
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
    except ValueError:
        parts, host = None, None
    if parts is None or parts.scheme not in ("http", "https") or not host or parts.query or parts.fragment:
        return [doc.diag("E130", f"upstream.baseUrl {url!r} is not an absolute http(s) URL without a query or fragment",
                         "/upstream/baseUrl", hint="e.g. https://api.example.com/v1 (the tools' paths are joined to it)")]
    return []


def _requirements(doc: SourceDoc, alternatives: Any, ptr: str, schemes: set[str]) -> Iterator[Diagnostic]:
    for i, alternative in enumerate(alternatives or []):
        for j, name in enumerate(alternative or []):
            if name not in schemes:
                declared = ", ".join(sorted(schemes)) or "none"
                yield doc.diag("E136", f"security scheme {name!r} is not declared in upstream.security",
                               join_pointer(ptr, i, j), hint=f"declared schemes: {declared}")


def _binding(doc: SourceDoc, tool: ToolSpec, ptr: str, resolver: Resolver) -> list[Diagnostic]:
    http = tool.http or {}
    args: dict[str, Any] = {k: v for k, v in (http.get("args") or {}).items() if isinstance(v, dict)}
    out = _arguments(doc, tool, ptr, args, resolver)
    out += _path(doc, http.get("path"), ptr, args)
    out += _places(doc, http, ptr, args)
    out += _body(doc, http, ptr, args)
    declared = {e.code for e in tool.errors}
    for status, code in sorted((http.get("errors") or {}).items()):
        if code not in declared:
            out.append(doc.diag("E137", f"http.errors maps {status} to {code!r}, which tool {tool.name!r} does not "
                                "declare", join_pointer(ptr, "errors", status),
                                hint=f"declare it under the tool's errors ({', '.join(sorted(declared)) or 'none yet'})"))
    wrap = http.get("wrap")
    if isinstance(wrap, str) and "outputSchema" in tool.wire:
        props = _properties(doc, resolver, join_pointer(tool.pointer, "outputSchema"))
        if props is not None and wrap not in props:
            out.append(doc.diag("E138", f"http.wrap is {wrap!r} but the outputSchema has no property {wrap!r}",
                                join_pointer(ptr, "wrap"),
                                hint=f"outputSchema: {{type: object, properties: {{{wrap}: <the body's schema>}}, "
                                f"required: [{wrap}]}}"))
    return out


def _properties(doc: SourceDoc, resolver: Resolver, ptr: str) -> dict[str, Any] | None:
    """The ``properties`` of the schema at ``ptr`` (through a root that is only a ``$ref``); None when
    they cannot be known (not an object of properties, an unresolvable reference)."""
    schema = resolver.schema_at(Target(doc.file, ptr))
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and set(schema) <= {"$ref", "description", "title"}:
        known = len(resolver.diagnostics)
        target = resolver.resolve(schema["$ref"], doc, ptr + "/$ref", ptr)
        del resolver.diagnostics[known:]  # reported by validation's own pass over the refs
        schema = resolver.schema_at(target) if target is not None else None
    if not isinstance(schema, dict):
        return None
    props = schema.get("properties", {})
    return props if isinstance(props, dict) else None


def _arguments(doc: SourceDoc, tool: ToolSpec, ptr: str, args: dict[str, Any], resolver: Resolver) -> list[Diagnostic]:
    out = []
    props = _properties(doc, resolver, join_pointer(tool.pointer, "inputSchema"))
    if props is None:
        return out
    for name in args:
        if name not in props:
            out.append(doc.diag("E132", f"http.args binds {name!r}, which is not a property of the inputSchema",
                                join_pointer(ptr, "args", name),
                                hint=f"the properties: {', '.join(props) or 'none'}"))
    for name in props:
        if name not in args:
            out.append(doc.diag("E132", f"inputSchema property {name!r} is not bound in http.args",
                                join_pointer(tool.pointer, "inputSchema", "properties", name),
                                hint=f"add `{name}: {{in: query, name: {name}}}` (or path, header, cookie, body) "
                                "under http.args: a tool with http sends every argument"))
    return out


def _path(doc: SourceDoc, path: Any, ptr: str, args: dict[str, Any]) -> list[Diagnostic]:
    if not isinstance(path, str):
        return []
    at = join_pointer(ptr, "path")
    variables = _VARIABLE.findall(path)
    if "{" in _VARIABLE.sub("", path) or "}" in _VARIABLE.sub("", path) or "" in variables:
        return [doc.diag("E133", f"path template {path!r} is malformed", at,
                         hint="variables are {name}, not nested, never empty")]
    if any(c in path for c in "?#") or any(ord(c) < 32 or ord(c) == 127 for c in path):
        return [doc.diag("E133", f"path template {path!r} holds a query, a fragment or a control character", at,
                         hint="the path only; send fixed query values with http.fixed (a fragment is never sent)")]
    out = []
    bound = {arg.get("name"): key for key, arg in args.items() if arg.get("in") == "path"}
    for var in dict.fromkeys(variables):
        if var not in bound:
            out.append(doc.diag("E133", f"path variable {{{var}}} has no argument bound `in: path, name: {var}`", at,
                                hint="bind one inputSchema property to it under http.args"))
    for name, key in bound.items():
        if name not in variables:
            out.append(doc.diag("E133", f"argument {key!r} goes to path variable {name!r}, which {path!r} does not have",
                                join_pointer(ptr, "args", key, "name"),
                                hint=f"the template's variables: {', '.join(variables) or 'none'}"))
    return out


def _place(where: Any, name: Any) -> tuple[Any, Any]:
    """The place a value goes: header names compare without case (HTTP field names)."""
    return (where, name.lower() if where == "header" and isinstance(name, str) else name)


def _places(doc: SourceDoc, http: dict[str, Any], ptr: str, args: dict[str, Any]) -> list[Diagnostic]:
    out = []
    taken: dict[tuple[Any, Any], str] = {}
    for key, arg in args.items():
        where, at = arg.get("in"), join_pointer(ptr, "args", key)
        place = _place(where, arg.get("name"))
        if place in taken:
            out.append(doc.diag("E134", f"arguments {taken[place]!r} and {key!r} both go to {_show((where, arg.get('name')))}", at,
                                hint="each argument needs its own place"))
        else:
            taken[place] = key
        style = arg.get("style")
        allowed_styles = _styles(where)
        if isinstance(style, str) and allowed_styles is not None and style not in allowed_styles:
            allowed = ", ".join(allowed_styles) or "none (a body is serialized by its content type)"
            out.append(doc.diag("E135", f"style {style!r} is not allowed in {where}", join_pointer(at, "style"),
                                hint=f"allowed in {where}: {allowed}"))
        if "allowReserved" in arg and where != "query":
            out.append(doc.diag("E135", f"allowReserved applies to query parameters only, not to {where}",
                                join_pointer(at, "allowReserved"), hint="remove it"))
    fixed_taken: dict[tuple[Any, Any], int] = {}
    for i, fixed in enumerate(http.get("fixed") or []):
        if not isinstance(fixed, dict):
            continue
        place, at = _place(fixed.get("in"), fixed.get("name")), join_pointer(ptr, "fixed", i)
        shown = _show((fixed.get("in"), fixed.get("name")))
        if place in taken:
            out.append(doc.diag("E139", f"fixed value goes to {shown}, where argument {taken[place]!r} goes", at,
                                hint="drop the argument from inputSchema and http.args, or drop the fixed value"))
        elif place in fixed_taken:
            out.append(doc.diag("E139", f"fixed values {fixed_taken[place]} and {i} both go to {shown}", at,
                                hint="keep one of them"))
        else:
            fixed_taken[place] = i
    return out


def _show(place: tuple[Any, Any]) -> str:
    where, name = place
    return "the whole body" if where == "body" and name is None else f"{where} {name!r}"


def _body(doc: SourceDoc, http: dict[str, Any], ptr: str, args: dict[str, Any]) -> list[Diagnostic]:
    out = []
    body = http.get("body")
    in_body = {key: arg for key, arg in args.items() if arg.get("in") == "body"}
    fields = {arg["name"] for arg in in_body.values() if isinstance(arg.get("name"), str)}
    whole = [key for key, arg in in_body.items() if "name" not in arg]
    fixed_body = any(isinstance(f, dict) and f.get("in") == "body" for f in http.get("fixed") or [])
    if (in_body or fixed_body) and not isinstance(body, dict):
        first = next(iter(in_body), None)
        at = join_pointer(ptr, "args", first) if first is not None else join_pointer(ptr, "fixed")
        out.append(doc.diag("E129", "values go to the body but http has no body", at,
                            hint="add `body: {contentType: application/json}` under http"))
    if whole and (fields or fixed_body):
        out.append(doc.diag("E129", f"argument {whole[0]!r} is the whole body, beside body fields",
                            join_pointer(ptr, "args", whole[0]),
                            hint="name the field it fills (`name:`), or send the body as one argument only"))
    files = (body or {}).get("files") if isinstance(body, dict) else None
    for name in sorted(files or {}):
        if name not in fields:
            out.append(doc.diag("E129", f"http.body.files names {name!r}, which is no body field of an argument",
                                join_pointer(ptr, "body", "files", name),
                                hint=f"the body fields: {', '.join(sorted(fields)) or 'none'}"))
    return out
