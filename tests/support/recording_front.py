"""A recording reverse proxy for the OpenAPI tests: ``python recording_front.py UPSTREAM PORT LOG``.

Listens on 127.0.0.1:PORT, forwards every request unchanged to UPSTREAM (Prism, a FastAPI app)
with httpx, answers with the upstream's answer, and appends one JSON line per exchange to LOG:
method, raw path, raw query string, request headers, body (base64), the answer's status, its
``sl-violations`` header and its problem document if any (Prism's reports of a request that breaks
the document).  Prism does not
flag undeclared query parameters, so the tests read the query string from here.
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Any

import httpx
import uvicorn

HOP = {"connection", "keep-alive", "transfer-encoding", "host", "content-length"}


def make_app(upstream: str, log_path: str) -> Any:
    client = httpx.AsyncClient(base_url=upstream, timeout=30.0)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        raw_path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        query = scope.get("query_string", b"").decode("latin-1")
        url = raw_path + (f"?{query}" if query else "")
        answer = await client.request(scope["method"], url, headers=[h for h in headers if h[0].lower() not in HOP],
                                      content=body)
        problem = None  # Prism's 422 problem document of a request that breaks the document
        if "problem+json" in answer.headers.get("content-type", ""):
            try:
                problem = answer.json()
            except ValueError:
                problem = None
        record = {"method": scope["method"], "path": raw_path, "query": query, "headers": headers,
                  "body": base64.b64encode(body).decode(), "status": answer.status_code,
                  "violations": answer.headers.get("sl-violations"), "problem": problem}
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        out = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers.items() if k.lower() not in HOP]
        out.append((b"content-length", str(len(answer.content)).encode()))
        await send({"type": "http.response.start", "status": answer.status_code, "headers": out})
        await send({"type": "http.response.body", "body": answer.content})

    return app


if __name__ == "__main__":
    target, port, log_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    uvicorn.run(make_app(target, log_file), host="127.0.0.1", port=port, log_level="warning")
