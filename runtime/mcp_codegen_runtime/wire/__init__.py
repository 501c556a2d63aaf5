"""What both sides put on and read off the wire: protocol names, JSON-RPC framing, the error
table, content blocks, per-version shapes, HTTP headers, SSE framing and the static tool table."""
