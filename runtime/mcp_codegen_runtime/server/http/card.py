"""The server card (SEP-2127): ``GET <streamable-http path>/server-card``.

The card is the generated server's ``server_card`` (the package's ``server-card.json``, the same
bytes).  It is public metadata, so it is answered without the MCP endpoint's checks (no token, no
``Origin`` check: browser clients read it across origins), like the health probes:

* GET / HEAD: ``200`` with ``Content-Type: application/mcp-server-card+json``, a strong ``ETag``
  (a digest of the body), ``Cache-Control: public, max-age=3600`` and the CORS headers the
  discovery document asks for; ``If-None-Match`` naming that tag (or ``*``) answers ``304``.
* OPTIONS (a CORS preflight): ``204`` with the CORS headers.
* Other methods: ``405`` with ``Allow``.

A server without a card (a spec without ``registry``) has no such route: ``404`` as any other path.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .request import Request, Send
from .responses import send_body

MEDIA_TYPE = "application/mcp-server-card+json"
#: The path of the card below the MCP endpoint.
SUFFIX = "/server-card"
_CORS = [(b"access-control-allow-origin", b"*"), (b"access-control-allow-methods", b"GET, HEAD, OPTIONS"),
         (b"access-control-allow-headers", b"Content-Type, If-None-Match"),
         (b"access-control-expose-headers", b"ETag")]
_CACHE = (b"cache-control", b"public, max-age=3600")


def card_bytes(card: Mapping[str, Any]) -> bytes:
    """The card as served: the layout of the generated ``server-card.json`` (2-space indent,
    keys in the order given, a final newline)."""
    return (json.dumps(card, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


class CardEndpoint:
    """The card of one server at ``<mcp path>/server-card`` (module docstring)."""

    def __init__(self, card: Mapping[str, Any], mcp_path: str) -> None:
        self.path = mcp_path.rstrip("/") + SUFFIX
        self.body = card_bytes(card)
        self.etag = '"' + hashlib.sha256(self.body).hexdigest()[:32] + '"'

    def matches(self, path: str) -> bool:
        return path.rstrip("/") == self.path

    def _fresh(self, req: Request) -> bool:
        """``If-None-Match`` names the current tag (weak comparison, RFC 9110 13.1.2) or is ``*``."""
        header = req.get("if-none-match")
        if header is None:
            return False
        tags = [t.strip() for t in header.split(",")]
        return "*" in tags or any(t.removeprefix("W/") == self.etag for t in tags)

    async def serve(self, req: Request, send: Send) -> None:
        """Answer one request for the card."""
        if req.method == "OPTIONS":
            await send_body(send, 204, b"", [*_CORS, (b"access-control-max-age", b"86400")])
            return
        if req.method not in ("GET", "HEAD"):
            await send_body(send, 405, b"Method Not Allowed",
                            [(b"allow", b"GET, HEAD, OPTIONS"), (b"content-type", b"text/plain; charset=utf-8"), *_CORS])
            return
        headers = [*_CORS, _CACHE, (b"etag", self.etag.encode("ascii"))]
        if self._fresh(req):  # no body, no length
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        headers.append((b"content-type", MEDIA_TYPE.encode("ascii")))
        if req.method == "HEAD":  # the GET's length, no body
            length = (b"content-length", str(len(self.body)).encode())
            await send({"type": "http.response.start", "status": 200, "headers": [*headers, length]})
            await send({"type": "http.response.body", "body": b""})
            return
        await send_body(send, 200, self.body, headers)


def card_endpoint(server: Any, mcp_path: str) -> CardEndpoint | None:
    """The card endpoint of ``server`` (its ``server_card``), None when it has no card."""
    card = getattr(server, "server_card", None)
    return CardEndpoint(card, mcp_path) if isinstance(card, Mapping) else None
