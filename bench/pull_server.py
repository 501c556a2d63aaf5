"""A synthetic stdio MCP server of N tools (default 50) for ``bench_pull.py``.

Newline-delimited JSON-RPC on stdin/stdout, standard library only, so its start-up is
about the interpreter's.  It answers ``initialize`` (2025-11-25, or the version asked for
when it is one of the versions below), ``ping`` and ``tools/list`` (every tool in one page);
notifications get no answer and every other method -32601 (``server/discover`` too, so a
client probing the 2026 era falls back to ``initialize``).  Each tool has a nested input
schema (an object, an enum, an array of objects, defaults, descriptions) and half of them an
output schema; the same ``--tools`` always gives the same bytes.

Usage::

    python bench/pull_server.py [--tools 50]
"""

from __future__ import annotations

import json
import sys

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def tool(i: int) -> dict[str, object]:
    """Tool ``i``: deterministic, a little of everything a real tool schema holds."""
    item = {
        "type": "object",
        "properties": {"sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                       "quantity": {"type": "integer", "minimum": 1, "default": 1}},
        "required": ["sku"],
    }
    schema: dict[str, object] = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": f"Identifier of record {i}."},
            "mode": {"type": "string", "enum": ["fast", "safe", "dry-run"], "default": "safe"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
            "items": {"type": "array", "items": item, "maxItems": 100},
            "note": {"type": ["string", "null"], "maxLength": 2000},
        },
        "required": ["id"],
        "additionalProperties": False,
    }
    out: dict[str, object] = {"name": f"tool_{i:03d}", "title": f"Tool {i}",
                              "description": f"Synthetic tool number {i}: looks a record up and reports on it.",
                              "inputSchema": schema, "annotations": {"readOnlyHint": i % 2 == 0}}
    if i % 2 == 0:
        out["outputSchema"] = {"type": "object", "properties": {"ok": {"type": "boolean"}, "count": {"type": "integer"}},
                               "required": ["ok"]}
    return out


def main() -> None:
    n = int(sys.argv[sys.argv.index("--tools") + 1]) if "--tools" in sys.argv else 50
    tools = [tool(i) for i in range(n)]
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if "id" not in msg or "method" not in msg:
            continue  # a notification or a response
        method = msg["method"]
        if method == "initialize":
            asked = msg.get("params", {}).get("protocolVersion")
            result: object = {"protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
                              "capabilities": {"tools": {"listChanged": False}},
                              "serverInfo": {"name": "synthetic-50", "version": "1.0.0"}}
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = {"tools": tools}
        else:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": f"Method not found: {method}"}}
            out.write(json.dumps(reply) + "\n")
            out.flush()
            continue
        out.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
