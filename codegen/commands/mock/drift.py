"""``mcp-codegen check --cassette FILE SPEC``: which recorded traffic no longer fits the spec.

Every ``tools/call`` of the cassette (:class:`mcp_codegen_runtime.server.mock.Cassette`) is
checked against the spec's wire tools (the bundled schemas ``diff`` compares): a tool the spec
no longer has (``recorded-tool-unknown``), arguments its ``inputSchema`` refuses
(``recorded-arguments-invalid``), and a successful result whose ``structuredContent`` its
``outputSchema`` refuses, or that has none although the tool declares one
(``recorded-output-invalid``: the output drift of a server whose answers changed, or of a spec
narrowed past what the server sends).  Results that are errors (``isError`` or a JSON-RPC
error) are not judged.  The findings are changes of a :class:`~codegen.commands.diff.DiffResult`
(cassette -> spec), so every ``diff`` report format renders them; all are breaking.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp_codegen_runtime.schema.validation import schema_errors
from mcp_codegen_runtime.server.mock.replay import Cassette, CassetteError, Exchange

from ...diagnostics import Diagnostic
from ..diff import DiffResult
from ..diff.changes import Change, sort_changes
from ..diff.sources import load_side


def _errors(schema: Any, value: Any) -> str:
    found = schema_errors(schema, value)
    return "; ".join(f"{e['path']}: {e['message']}" if e["path"] else e["message"] for e in found[:3])


def _check(exchange: Exchange, tools: dict[str, Any], server: str, cassette: str, spec: str) -> list[Change]:
    name = exchange.params.get("name")
    where = f"{cassette}:{exchange.line}"
    if not isinstance(name, str):
        return []
    tool = tools.get(name)
    if tool is None:
        return [Change(server, name, "recorded-tool-unknown", "", f"recorded call at {where} names tool {name!r}, "
                       "which the spec does not declare", file=spec)]
    out: list[Change] = []
    wire = tool.wire
    arguments = exchange.params.get("arguments") or {}
    problems = _errors(wire.get("inputSchema", {}), arguments)
    if problems:
        out.append(Change(server, name, "recorded-arguments-invalid", "/inputSchema",
                          f"recorded arguments at {where} no longer fit: {problems}", old=arguments, file=spec))
    result = exchange.response.get("result")
    if not isinstance(result, dict) or result.get("isError") or "outputSchema" not in wire:
        return out
    if "structuredContent" not in result:
        out.append(Change(server, name, "recorded-output-invalid", "/outputSchema",
                          f"recorded result at {where} has no structuredContent, but the tool declares an outputSchema",
                          file=spec))
        return out
    problems = _errors(wire["outputSchema"], result["structuredContent"])
    if problems:
        out.append(Change(server, name, "recorded-output-invalid", "/outputSchema",
                          f"recorded result at {where} no longer fits: {problems}", old=result["structuredContent"],
                          file=spec))
    return out


def check_cassette(cassette_path: Path, spec: Path) -> DiffResult:
    """The recorded calls of ``cassette_path`` that ``spec`` no longer accepts, as a diff result."""
    label_old, label_new = str(cassette_path), str(spec)
    try:
        cassette = Cassette.load(cassette_path)
    except CassetteError as exc:
        return DiffResult(label_old, label_new, diagnostics=[Diagnostic(label_old, 0, 0, "E162", str(exc))])
    side = load_side(str(spec))
    if not side.ok:
        return DiffResult(label_old, label_new, diagnostics=side.diagnostics)
    if len(side.views) != 1:
        return DiffResult(label_old, label_new, diagnostics=[Diagnostic(label_new, 0, 0, "E163",
                                                                        "check --cassette takes one spec (one server)")])
    view = side.views[0]
    changes: list[Change] = []
    for exchange in cassette.exchanges:
        if exchange.method == "tools/call":
            changes += _check(exchange, dict(view.tools), view.name, label_old, label_new)
    result = DiffResult(label_old, label_new, changes=sort_changes(changes))
    result.tool_keys = sorted({(view.name, "")} | {(view.name, t) for t in view.tools})
    return result


__all__ = ["check_cassette"]
