"""``mcp-codegen proxy --record FILE --upstream URL --port P``: a recording Streamable HTTP reverse proxy.

A minimal ASGI app under uvicorn on 127.0.0.1:P.  A request to ``/mcp`` (or to the upstream
URL's own path) goes to the upstream URL; any other path (OAuth metadata under
``/.well-known/``...) to the same path on the upstream's origin.  The request is sent with
httpx as it came (method, headers but ``Host``, body), and the response streamed back as it
comes, status and headers included, so SSE streams (POST answers, GET listen streams) pass
through unbuffered.  JSON bodies are recorded message by message, SSE events as their
``data:`` messages arrive, each with ``"http": {"method", "status", "headers", "session"}``
(headers scrubbed, the session id hashed: :mod:`.cassette`).
"""

from __future__ import annotations

import json
import sys
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .cassette import CassetteWriter, Scrubber, session_hash

#: Headers not passed on (hop by hop, or set again by the HTTP stack).
_HOP = frozenset({"host", "content-length", "connection", "keep-alive", "transfer-encoding", "te", "trailer",
                  "upgrade", "proxy-connection", "accept-encoding"})


def _decode(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


class SseMessages:
    """The JSON messages of an SSE stream, fed chunk by chunk."""

    def __init__(self) -> None:
        self._buffer = ""

    def feed(self, chunk: bytes) -> list[Any]:
        self._buffer += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        out: list[Any] = []
        while "\n\n" in self._buffer:
            event, self._buffer = self._buffer.split("\n\n", 1)
            data = "\n".join(line[5:].lstrip(" ") if line.startswith("data:") else "" for line in event.split("\n")
                             if line.startswith("data:"))
            if data:
                message = _decode(data.encode("utf-8"))
                if message is not None:
                    out.append(message)
        return out


class RecordingProxy:
    """The ASGI app (see the module docstring)."""

    def __init__(self, upstream: str, cassette: CassetteWriter, scrubber: Scrubber) -> None:
        self.upstream = upstream
        parts = urlsplit(upstream)
        self.origin = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
        self.path = parts.path or "/"
        self.cassette = cassette
        self.scrubber = scrubber
        self.client: Any = None

    def target(self, path: str, query: str) -> str:
        base = self.upstream if path in ("/mcp", self.path) else self.origin + path
        return base + (("&" if "?" in base else "?") + query if query else "")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        import httpx

        if self.client is None:
            self.client = httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None))
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        method = scope["method"]
        sent_session = next((v for k, v in headers if k.lower() == "mcp-session-id"), None)
        message = _decode(body) if body else None
        if message is not None:
            self.cassette.message("c2s", message, {"method": method, "status": None,
                                                   "headers": self.scrubber.headers(headers),
                                                   "session": session_hash(sent_session)})
        query = scope.get("query_string", b"").decode("latin-1")
        request = self.client.build_request(method, self.target(scope["path"], query), content=body,
                                            headers=[*((k, v) for k, v in headers if k.lower() not in _HOP),
                                                     ("accept-encoding", "identity")])  # bodies readable for the record
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            await _plain(send, 502, f"mcp-codegen proxy: upstream unreachable: {type(exc).__name__}")
            return
        try:
            await self._relay(response, method, sent_session, send)
        finally:
            await response.aclose()

    async def _relay(self, response: Any, method: str, sent_session: str | None, send: Any) -> None:
        session = response.headers.get("mcp-session-id") or sent_session
        http = {"method": method, "status": response.status_code,
                "headers": self.scrubber.headers(response.headers.multi_items()), "session": session_hash(session)}
        await send({"type": "http.response.start", "status": response.status_code,
                    "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.multi_items()
                                if k.lower() not in _HOP]})
        streaming = "text/event-stream" in response.headers.get("content-type", "")
        events = SseMessages()
        whole = b""
        async for chunk in response.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if streaming:
                for item in events.feed(chunk):
                    self.cassette.message("s2c", item, http)
            else:
                whole += chunk
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        if not streaming and whole:
            message = _decode(whole)
            if message is not None:
                self.cassette.message("s2c", message, http)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                if self.client is not None:
                    await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _plain(send: Any, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": text.encode("utf-8")})


def run_http_proxy(upstream: str, port: int, record: Any, scrubber: Scrubber, server: dict[str, Any] | None = None) -> int:
    """Serve the recording proxy on 127.0.0.1:``port`` until SIGINT/SIGTERM; the exit status."""
    import uvicorn

    cassette = CassetteWriter(record, scrubber, {"transport": "http", "server": server,
                                                  "upstream": scrubber.url(upstream)})
    app = RecordingProxy(upstream, cassette, scrubber)
    print(f"mcp-codegen proxy: http://127.0.0.1:{port}/mcp -> {scrubber.url(upstream)} (recording to {record})",
          file=sys.stderr, flush=True)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", access_log=False)
    try:
        uvicorn.Server(config).run()
    finally:
        cassette.close()
    return 0


__all__ = ["RecordingProxy", "SseMessages", "run_http_proxy"]
