"""Reports of a diff: a rich table for people, JSON, JUnit XML and SARIF 2.1.0 for CI.

All renderers are pure functions of a :class:`~codegen.commands.diff.DiffResult` (the table writes to
the given console); output is deterministic (sorted changes, sorted keys, no timestamps).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .changes import KINDS, Change, Severity

if TYPE_CHECKING:
    from . import DiffResult

_STYLE = {Severity.BREAKING: "bold red", Severity.CODEGEN: "yellow", Severity.SAFE: "green"}
#: kinds whose message does not already say the old and new value
_VALUE_KINDS = frozenset({"schema-doc-changed", "default-changed", "tool-doc-changed", "server-info-changed",
                          "annotation-changed", "annotation-destructive", "client-input-changed"})
_SARIF_LEVEL = {Severity.BREAKING: "error", Severity.CODEGEN: "warning", Severity.SAFE: "note"}


def _short(value: Any, limit: int = 60) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summary(result: DiffResult) -> dict[str, int]:
    """Counts per severity, plus ``allowed`` and ``blocking``."""
    counts = {s.value: 0 for s in Severity}
    for c in result.changes:
        counts[c.severity.value] += 1
    counts["allowed"] = sum(c.allowed for c in result.changes)
    counts["blocking"] = sum(c.blocking for c in result.changes)
    return counts


def summary_line(result: DiffResult) -> str:
    s = summary(result)
    text = f"{s['breaking']} breaking, {s['codegen']} breaking for generated code, {s['safe']} safe"
    if s["allowed"]:
        text += f" ({s['allowed']} allowed)"
    return text + (" -> FAIL" if s["blocking"] else " -> OK")


def render_table(result: DiffResult, console: Console, show_safe: bool = True) -> None:
    """Print the changes as a table (spec text is never interpreted as rich markup)."""
    rows = [c for c in result.changes if show_safe or c.severity is not Severity.SAFE]
    if rows:
        table = Table(title=Text(f"{result.old_label} -> {result.new_label}"), show_lines=False, expand=False)
        table.add_column("tool", overflow="fold")
        table.add_column("severity", no_wrap=True)
        table.add_column("change", no_wrap=True)
        table.add_column("details (where)", overflow="fold", ratio=1)
        several = len({x.server for x in result.changes}) > 1
        previous = None
        for c in rows:
            key = (c.server, c.tool)
            if previous is not None and key != previous:
                table.add_section()
            name = (f"{c.server}/{c.tool}" if several else c.tool) if c.tool else f"(server {c.server})"
            sev = Text(c.severity.value + (" (allowed)" if c.allowed else ""), style="dim" if c.allowed else _STYLE[c.severity])
            detail = Text(c.message)
            if c.kind in _VALUE_KINDS and (c.old is not None or c.new is not None):
                detail.append(f"  [{_short(c.old)} -> {_short(c.new)}]")
            if c.path:
                detail.append("\n" + c.path, style="dim")
            table.add_row(Text(name if key != previous else ""), sev, Text(c.kind), detail)
            previous = key
        console.print(table)
    elif not result.changes:
        console.print(Text(f"no changes between {result.old_label} and {result.new_label}"))
    console.print(Text(summary_line(result)))


def change_dict(c: Change) -> dict[str, Any]:
    """JSON form of one change."""
    return {
        "server": c.server, "tool": c.tool, "kind": c.kind, "severity": c.severity.value, "path": c.path,
        "message": c.message, "old": c.old, "new": c.new, "allowed": c.allowed, "blocking": c.blocking,
        "location": {"file": c.file, "line": c.line},
    }


def render_json(result: DiffResult) -> str:
    """The whole result as JSON (``changes``, ``summary``, ``fingerprints``, ``diagnostics``)."""
    body = {
        "old": result.old_label,
        "new": result.new_label,
        "ok": result.ok,
        "summary": summary(result),
        "changes": [change_dict(c) for c in result.changes],
        "fingerprints": result.fingerprints,
        "diagnostics": [d.render() for d in result.diagnostics],
    }
    return json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def render_junit(result: DiffResult) -> str:
    """JUnit XML: one test suite per server, one test case per tool (failing on blocking changes)."""
    by_server: dict[str, dict[str, list[Change]]] = {}
    for server, tool in result.tool_keys:
        by_server.setdefault(server, {}).setdefault(tool, [])
    for c in result.changes:
        by_server.setdefault(c.server, {}).setdefault(c.tool, []).append(c)
    root = ET.Element("testsuites", name="mcp-codegen diff")
    total = failures = 0
    for server in sorted(by_server):
        suite = ET.SubElement(root, "testsuite", name=server)
        s_fail = 0
        tools = by_server[server]
        for tool in sorted(tools):
            case = ET.SubElement(suite, "testcase", classname=server, name=tool or "(server)")
            blocking = [c for c in tools[tool] if c.blocking]
            if blocking:
                s_fail += 1
                failure = ET.SubElement(case, "failure", type=blocking[0].kind,
                                        message=f"{len(blocking)} breaking change(s)")
                failure.text = "\n".join(f"{c.severity.value} {c.kind} {c.path}: {c.message}" for c in blocking)
            others = [c for c in tools[tool] if not c.blocking]
            if others:
                out = ET.SubElement(case, "system-out")
                out.text = "\n".join(f"{c.severity.value}{' (allowed)' if c.allowed else ''} {c.kind} {c.path}: {c.message}"
                                     for c in others)
        suite.set("tests", str(len(tools)))
        suite.set("failures", str(s_fail))
        suite.set("errors", "0")
        total += len(tools)
        failures += s_fail
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _uri(file: str) -> str:
    if file.startswith("git:"):
        file = file[4:].split(":", 1)[-1]
    return file


def render_sarif(result: DiffResult) -> str:
    """SARIF 2.1.0: one rule per change kind used, one result per change (allowed = suppressed)."""
    from ..._version import __version__

    used = sorted({c.kind for c in result.changes})
    rules = [{
        "id": kind,
        "shortDescription": {"text": KINDS[kind][1]},
        "defaultConfiguration": {"level": _SARIF_LEVEL[KINDS[kind][0]]},
        "properties": {"severity": KINDS[kind][0].value},
    } for kind in used]
    results = []
    for c in result.changes:
        item: dict[str, Any] = {
            "ruleId": c.kind,
            "ruleIndex": used.index(c.kind),
            "level": _SARIF_LEVEL[c.severity],
            "message": {"text": f"{c.tool or c.server}: {c.message}"},
            "locations": [{
                "logicalLocations": [{"fullyQualifiedName": "/".join(x for x in (c.server, c.tool) if x) + c.path}],
            }],
            "properties": {"severity": c.severity.value, "server": c.server, "tool": c.tool, "path": c.path},
        }
        if c.file:
            physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(c.file)}}
            if c.line:
                physical["region"] = {"startLine": c.line}
            item["locations"][0]["physicalLocation"] = physical
        if c.allowed:
            item["suppressions"] = [{"kind": "external", "justification": "allowed by --allow"}]
        results.append(item)
    body = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "mcp-codegen", "version": __version__, "rules": rules}},
            "results": results,
        }],
    }
    return json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


RENDERERS = {"json": render_json, "junit": render_junit, "sarif": render_sarif}
