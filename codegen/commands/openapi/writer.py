"""The converted spec: data in a fixed key order, and its YAML text with the header line.

Deterministic: the same document and curation give the same bytes (document order for tools
and properties, ``$defs`` sorted by name, no time stamps).  The YAML style is the one
``mcp-codegen pull`` writes (:mod:`codegen.commands.pull.emit`).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl

import yaml

from ..pull.emit import Block
from .ir import Api, Tool

#: How the first line of a converted spec starts; the converter replaces only such files.
MARKER = "# Converted by `mcp-codegen openapi`"


def spec_data(api: Api, tools: list[Tool], server_name: str, curation: dict[str, Any], source: str) -> dict[str, Any]:
    """The spec as data (what the text holds)."""
    server: dict[str, Any] = {"name": server_name, "version": api.version or "0"}
    if api.title:
        server["title"] = api.title
    if api.description:
        server["description"] = api.description.strip().split("\n\n", 1)[0].strip()
        server["instructions"] = api.description.strip()
    section: dict[str, Any] = {"source": source}
    for key in ("include", "exclude", "tools"):
        if curation.get(key):
            section[key] = curation[key]
    upstream: dict[str, Any] = {"baseUrl": api.base_url or ""}
    upstream["source"] = {"path": source, "sha256": api.source_sha256, "version": api.version or "0"}
    if api.schemes:
        upstream["security"] = {s.name: s.spec for s in api.schemes}
    if api.default_security:
        upstream["defaultSecurity"] = api.default_security
    data: dict[str, Any] = {"mcp-codegen": 1, "server": server, "openapi": section, "upstream": upstream}
    if api.defs:
        data["$defs"] = api.defs
    data["tools"] = [tool_data(t, api) for t in tools]
    return data


def tool_data(tool: Tool, api: Api) -> dict[str, Any]:
    op = tool.operation
    props: dict[str, Any] = {}
    for arg in tool.args:
        schema = arg.schema
        if arg.description:
            schema = {**schema, "description": arg.description} if isinstance(schema, dict) else \
                {"description": arg.description} if schema is True else schema
        props[arg.name] = schema
    required = [a.name for a in tool.args if a.required]
    inputs: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        inputs["required"] = required
    out: dict[str, Any] = {"name": tool.name, "description": tool.description, "annotations": tool.annotations,
                           "inputSchema": inputs}
    results = op.results
    if results.output_schema is not None:
        out["outputSchema"] = results.output_schema
    if results.errors:
        out["errors"] = {e.code: {"description": e.description, "data": e.data} for e in results.errors}
    path, path_query = request_path(op.path)
    http: dict[str, Any] = {"method": op.method, "path": path}
    if op.operation_id is not None:
        http["operationId"] = op.operation_id
    if op.security is not None and op.security != (api.default_security or []):
        http["security"] = op.security
    if results.accept:
        http["accept"] = results.accept
    if tool.args:
        http["args"] = {a.name: a.binding() for a in tool.args}
    if op.body is not None:
        body: dict[str, Any] = {"contentType": op.body.content_type, "required": op.body.required}
        if op.body.files:
            body["files"] = {k: {"contentType": v} for k, v in op.body.files.items()}
        http["body"] = body
    fixed = [{"in": "query", "name": k, "value": v} for k, v in path_query]
    fixed += [{"in": f.location, **({"name": f.wire} if f.wire is not None else {}), "value": f.value}
              for f in tool.fixed]
    if fixed:
        http["fixed"] = fixed
    if results.wrap:
        http["wrap"] = "result"
    if results.errors:
        http["errors"] = {e.status: e.code for e in results.errors}
    out["http"] = http
    return out


def request_path(key: str) -> tuple[str, list[tuple[str, str]]]:
    """The request path of a document's path key, and the query it carries: some documents tell two
    operations of one path apart by a fragment (``/cookies#form``: never sent, dropped) or a query
    (``/users?action=create``: sent on every call, as fixed query values)."""
    key = key.partition("#")[0] or "/"
    path, _, query = key.partition("?")
    return path or "/", parse_qsl(query, keep_blank_values=True)


def spec_text(data: dict[str, Any], source: str, openapi_version: str) -> str:
    """The YAML text: the header line, then the data."""
    data = json.loads(json.dumps(data))  # plain JSON data: no shared values (YAML aliases) in the text
    version = data["server"]["version"]
    header = (f"{MARKER} from {source} (OpenAPI {openapi_version}, API version {version}).\n"
              "# Re-run the command to refresh: the `openapi` section (curation) is kept.\n")
    parts = [header, f"mcp-codegen: {data['mcp-codegen']}\n"]
    for key, value in list(data.items())[1:]:
        if key in ("server", "openapi", "upstream"):
            value = Block(value)
        parts.append(yaml.dump({key: value}, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100, indent=2))
    return "".join(parts)


def _dumper() -> Any:
    """The YAML style of ``pull`` (:mod:`codegen.commands.pull.emit`) on libyaml's emitter when
    there (about five times faster on large documents; the same text)."""
    global _DUMPER
    if _DUMPER is None:
        from ..pull import emit

        base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        dumper: Any = type("_ConvertedSpecDumper", (base,), {})
        for kind in (dict, Block, list, str):
            dumper.add_representer(kind, emit._SpecDumper.yaml_representers[kind])
        _DUMPER = dumper
    return _DUMPER


_DUMPER: Any = None
