"""A small hand-written MCP server over stdio (2025-06-18, newline-delimited JSON-RPC), shaped like
real servers that tests met: it declares the ``resources`` and ``prompts`` capabilities but answers
``resources/templates/list`` with -32601 (``--no-prompts-list``: ``prompts/list`` too), sends no
``serverInfo.version``, and its tools publish no ``outputSchema``: ``get_note`` answers a JSON text
block, ``get_text`` a plain sentence, ``get_two`` two text blocks.

Run: ``python optional_lists_server.py [--no-prompts-list]``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

NO_PROMPTS = "--no-prompts-list" in sys.argv[1:]

OBJ: dict[str, Any] = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
TOOLS = [
    {"name": "get_note", "description": "A note, as JSON text.", "inputSchema": OBJ},
    {"name": "get_text", "description": "A sentence.", "inputSchema": {"type": "object"}},
    {"name": "get_two", "description": "Two text blocks.", "inputSchema": {"type": "object"}},
]
RESOURCES = [{"uri": "memo://one", "name": "one", "mimeType": "text/plain"}]
PROMPTS = [{"name": "greet", "arguments": [{"name": "who", "required": True}]}]


def call(params: dict[str, Any]) -> dict[str, Any]:
    name, args = params.get("name"), params.get("arguments") or {}
    if name == "get_note":
        text = "bad Text!" if args.get("id") == 0 else "a note"
        return {"content": [{"type": "text", "text": json.dumps({"id": args.get("id"), "text": text})}]}
    if name == "get_text":
        return {"content": [{"type": "text", "text": "no JSON here"}]}
    return {"content": [{"type": "text", "text": "1"}, {"type": "text", "text": "2"}]}


def answer(msg: dict[str, Any]) -> dict[str, Any] | None:
    method, params = msg.get("method"), msg.get("params") or {}
    if "id" not in msg:
        return None
    result: Any
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "serverInfo": {"name": "optional-lists"},
                  "capabilities": {"tools": {}, "resources": {}, "prompts": {}}}
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = call(params)
    elif method == "resources/list":
        result = {"resources": RESOURCES}
    elif method == "prompts/list" and not NO_PROMPTS:
        result = {"prompts": PROMPTS}
    else:  # resources/templates/list, server/discover, ...
        return {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": f"Method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": msg["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
