"""End to end from an OpenAPI document: convert, build, serve against a REST upstream, call every
tool, and judge each request that reached the upstream against the document.

Shared by ``tests/interop/test_openapi_prism.py`` and ``bench/bench_openapi.py``:

* :func:`operations`: the document's operations (method, path template, the parameters it
  declares, the request body's ``readOnly`` properties), Swagger 2.0 and OpenAPI 3.x alike;
* :func:`judge`: what is wrong with one recorded request (Prism's ``sl-violations``, a query
  parameter the operation does not declare — Prism does not flag those —, a ``readOnly``
  property sent in a JSON body, no operation matching at all);
* :func:`our_side`: ``mcp-codegen openapi`` + ``build`` + ``python -m PKG --stdio --upstream URL``
  driven by the official SDK client, one call per tool with :func:`sample_args.valid_sample`
  arguments, each call with the requests the recording front saw during it (the record format of
  ``bench/openapi_fastmcp.py``).
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import yaml
from sample_args import valid_sample

REPO = Path(__file__).resolve().parents[2]
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
#: The ``type`` of Prism's own problem documents (a request the document refuses, no route, ...).
PRISM_ERRORS = "https://stoplight.io/prism/errors#"
#: Prism's errors about its own answer (the document defines none to give), not about the request.
ANSWER_SIDE = frozenset({"NO_RESPONSE_RESPONSE_DEFINED", "NOT_FOUND", "NO_COMPLEX_OBJECT_TEXT", "NOT_ACCEPTABLE"})


@dataclass
class Operation:
    method: str
    template: str
    pattern: re.Pattern[str]
    query: set[str] = field(default_factory=set)
    read_only: set[str] = field(default_factory=set)
    name: str = ""


def load_document(path: Path) -> Any:
    return yaml.safe_load(path.read_text("utf-8"))


def _deref(doc: Any, node: Any, depth: int = 0) -> Any:
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/") and depth < 20:
        target: Any = doc
        for part in node["$ref"][2:].split("/"):
            target = target.get(part.replace("~1", "/").replace("~0", "~"), {}) if isinstance(target, dict) else {}
        node, depth = target, depth + 1
    return node


def _read_only(doc: Any, schema: Any) -> set[str]:
    schema = _deref(doc, schema)
    out: set[str] = set()
    if not isinstance(schema, dict):
        return out
    for name, prop in (schema.get("properties") or {}).items():
        if isinstance(_deref(doc, prop), dict) and _deref(doc, prop).get("readOnly"):
            out.add(name)
    for part in schema.get("allOf") or []:
        out |= _read_only(doc, part)
    return out


def _query_keys(doc: Any) -> set[str]:
    """The query parameters the document's API-key schemes declare (3.x and Swagger 2.0)."""
    schemes = {**((doc.get("components") or {}).get("securitySchemes") or {}), **(doc.get("securityDefinitions") or {})}
    return {s.get("name") for s in schemes.values() if isinstance(s, dict) and s.get("type") == "apiKey"
            and s.get("in") == "query"}


def operations(doc: Any) -> list[Operation]:
    """Every operation of ``doc`` with the path pattern a request of it matches (at the root, as Prism serves)."""
    out = []
    keys = _query_keys(doc)
    base = ""  # Prism serves a document's paths at its root (a Swagger 2.0 basePath too)
    for template, item in (doc.get("paths") or {}).items():
        item = _deref(doc, item)
        if not isinstance(item, dict):
            continue
        shared = [_deref(doc, p) for p in item.get("parameters") or []]
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            params = shared + [_deref(doc, p) for p in op.get("parameters") or []]
            regex = "^" + re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape((base.rstrip("/") + template) or "/")) + "/?$"
            entry = Operation(method.upper(), template, re.compile(regex), name=op.get("operationId") or f"{method} {template}")
            entry.query = {p.get("name") for p in params if isinstance(p, dict) and p.get("in") == "query"} | keys
            body = (op.get("requestBody") or {})
            body = _deref(doc, body)
            for media in (body.get("content") or {}).values() if isinstance(body, dict) else []:
                entry.read_only |= _read_only(doc, (media or {}).get("schema"))
            for p in params:
                if isinstance(p, dict) and p.get("in") == "body":
                    entry.read_only |= _read_only(doc, p.get("schema"))
            out.append(entry)
    return out


def match(ops: list[Operation], method: str, path: str) -> Operation | None:
    candidates = [o for o in ops if o.method == method and o.pattern.match(path)]
    # a literal segment beats a template variable (/pets/mine before /pets/{id})
    return min(candidates, key=lambda o: o.template.count("{"), default=None)


def judge(ops: list[Operation], exchange: dict[str, Any]) -> list[str]:
    """What is wrong with one request the front recorded (empty: nothing)."""
    problems = [f"prism: {v.get('message')}" for v in json.loads(exchange.get("violations") or "[]")
                if v.get("severity") == "Error"]
    problem = exchange.get("problem")
    kind = str(problem.get("type", "")) if isinstance(problem, dict) else ""
    if kind.startswith(PRISM_ERRORS) and kind[len(PRISM_ERRORS):] not in ANSWER_SIDE and not problems:
        problems.append(f"prism {exchange['status']}: {problem.get('title')}: {problem.get('detail')}")
    op = match(ops, exchange["method"], exchange["path"])
    if op is None:
        return [*problems, f"no operation matches {exchange['method']} {exchange['path']}"]
    for name, _ in parse_qsl(exchange.get("query", ""), keep_blank_values=True):
        base = name.split("[", 1)[0]  # deepObject: filter[a]=1 belongs to filter
        if name not in op.query and base not in op.query:
            problems.append(f"undeclared query parameter {name!r} of {op.name}")
    body = base64.b64decode(exchange.get("body") or "")
    ctype = next((v for k, v in exchange["headers"] if k.lower() == "content-type"), "")
    if body and "json" in ctype and op.read_only:
        try:
            sent = json.loads(body)
        except ValueError:
            sent = None
        if isinstance(sent, dict):
            problems += [f"readOnly property {k!r} sent to {op.name}" for k in sorted(op.read_only & set(sent))]
    return problems


def log_length(path: Path) -> int:
    """How many exchanges the recording front's log holds (a mark before a call)."""
    return len(path.read_text("utf-8").splitlines()) if path.exists() else 0


def logged_since(path: Path, start: int) -> list[dict[str, Any]]:
    """The exchanges the front recorded after the mark ``start`` (those of one call)."""
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()[start:]] if path.exists() else []


def convert_and_build(document: Path, work: Path, name: str) -> tuple[Path, str, float]:
    """``mcp-codegen openapi`` then ``build``: (the output folder, the package name, seconds)."""
    cli = [sys.executable, "-m", "codegen"]
    spec = work / "specs" / f"{name}.yaml"
    began = time.perf_counter()
    conv = subprocess.run([*cli, "openapi", str(document), "-o", str(spec), "--name", name], capture_output=True,
                          text=True, timeout=600, cwd=REPO)
    assert conv.returncode == 0, f"openapi {document.name} failed:\n{conv.stdout}\n{conv.stderr}"
    out = work / "out"
    build = subprocess.run([*cli, "build", str(spec), "-o", str(out)], capture_output=True, text=True, timeout=900,
                           cwd=REPO)
    assert build.returncode == 0, f"build of {spec} failed:\n{build.stdout}\n{build.stderr}"
    return out, name, time.perf_counter() - began


def credentials(spec: Path) -> dict[str, str]:
    """A made-up value for every credential variable the converted spec names (``upstream.security``)."""
    upstream = (yaml.safe_load(spec.read_text("utf-8")) or {}).get("upstream") or {}
    names: list[str] = []
    for scheme in (upstream.get("security") or {}).values():
        env = scheme.get("env")
        names += [env] if isinstance(env, str) else list((env or {}).values())
    return {name: f"test-{name.lower()}-value" for name in names}


def our_side(out: Path, package: str, base_url: str, front_log: Path, rounds: int = 0,
             mode: str = "2026-07-28", env: dict[str, str] | None = None) -> dict[str, Any]:
    """Serve the built package over stdio against ``base_url`` and call every tool once (see the module docstring)."""
    from common_support import run_sdk_client
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([str(out), str(REPO)])}
    params = StdioServerParameters(command=sys.executable, args=["-m", package, "--stdio", "--upstream", base_url],
                                   cwd=str(out), env=env)
    calls: list[dict[str, Any]] = []
    result: dict[str, Any] = {"served": True, "calls": calls}

    async def body(client: Any) -> None:
        tools = (await client.list_tools()).tools
        result["tools"] = len(tools)
        first_ok = None
        for tool in tools:
            args = valid_sample(dict(tool.input_schema))
            if args is None:
                calls.append({"tool": tool.name, "skipped": "no valid arguments could be made"})
                continue
            mark = log_length(front_log)
            answer = await client.call_tool(tool.name, args)
            text = " ".join(getattr(c, "text", "") for c in answer.content)[:300]
            calls.append({"tool": tool.name, "args": args, "isError": bool(answer.is_error), "text": text,
                          "structured": answer.structured_content is not None, "exchanges": logged_since(front_log, mark)})
            if first_ok is None and not answer.is_error:
                first_ok = (tool.name, args)
        if first_ok is not None and rounds:
            began = time.perf_counter()
            for _ in range(rounds):
                await client.call_tool(*first_ok)
            result["throughput"] = {"tool": first_ok[0], "calls": rounds, "per_s": rounds / (time.perf_counter() - began)}

    run_sdk_client(params, mode, body, read_timeout=60, timeout=900)
    return result


def summary(doc: Any, side: dict[str, Any]) -> dict[str, Any]:
    """Counts of one side's run: calls, tool errors, requests that break the document (with the reasons)."""
    ops = operations(doc)
    calls = [c for c in side.get("calls", []) if "skipped" not in c]
    broken: list[str] = []
    for call in calls:
        for exchange in call.get("exchanges", []):
            broken += [f"{call['tool']}: {p}" for p in judge(ops, exchange)]
    return {"served": side.get("served", False), "tools": side.get("tools", 0), "calls": len(calls),
            "skipped": len(side.get("calls", [])) - len(calls), "errors": sum(1 for c in calls if c.get("isError")),
            "violations": len(broken), "reasons": broken, "error": side.get("error")}
