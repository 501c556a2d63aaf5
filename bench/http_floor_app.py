"""The floor of ``bench_http_floor.py``: a bare ASGI application on the generated server's
own uvicorn stack (the runtime's listening socket, event loop, HTTP parser and uvicorn options:
``server.http.serve``, so ``MCP_CODEGEN_ACCELERATOR=off`` gives the standard loop and h11 as it
does to the generated server).  It reads each request's body and answers with a fixed JSON body,
the bytes of the generated server's answer to the same ``tools/call``, sent the plain ASGI way
(``http.response.start``, then ``http.response.body``): no protocol, no validation, no routing.

Run: ``python bench/http_floor_app.py PORT BODY_FILE`` (127.0.0.1 only).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp_codegen_runtime.server.http.cli import uvicorn_options
from mcp_codegen_runtime.server.http.serve import bind_socket, serve


def floor_app(body: bytes) -> Any:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


def main() -> None:
    port, body_file = int(sys.argv[1]), Path(sys.argv[2])
    serve(floor_app(body_file.read_bytes()), bind_socket("127.0.0.1", port), uvicorn_options(), grace=1.0)


if __name__ == "__main__":
    main()
