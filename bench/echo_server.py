"""The raw floor of the stdio benchmark: a minimal newline-delimited JSON-RPC loop.

Reads one JSON message per line from stdin and answers a ``tools/call`` of ``add`` with the
result shape a real server sends (text content plus ``structuredContent``).  No protocol,
no validation: what Python, JSON and the pipes cost on their own.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        args = msg["params"]["arguments"]
        result = {"sum": args["a"] + args["b"]}
        reply = {"jsonrpc": "2.0", "id": msg["id"],
                 "result": {"content": [{"type": "text", "text": json.dumps(result)}], "structuredContent": result}}
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
