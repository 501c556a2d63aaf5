"""The local upstream of ``bench_upstream_cost.py``: a bare ASGI app (no framework) and the OpenAPI
document describing it.

``GET /api/items/{itemId}?currency=EUR`` answers the item as JSON (the id echoed, so every call is
checked end to end); it requires ``X-API-Key``.  Served by uvicorn on 127.0.0.1::

    python -m uvicorn upstream_items:app --host 127.0.0.1 --port PORT --lifespan off --no-access-log
"""

from __future__ import annotations

import json
from typing import Any

API_KEY = "bench-key-4f1c2a9e"
PREFIX = "/api/items/"


def item(item_id: int, currency: str = "EUR") -> dict[str, Any]:
    """The item the upstream answers (the trivial tool's constant has this shape)."""
    return {"id": item_id, "name": f"Item {item_id}", "price": 9.5, "currency": currency,
            "tags": ["bench", "small"], "inStock": True}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Items", "version": "1.0.0"},
    "servers": [{"url": "http://127.0.0.1:9/api"}],
    "security": [{"apiKey": []}],
    "components": {
        "securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
        "schemas": {"Item": {
            "type": "object", "required": ["id", "name", "price"],
            "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "price": {"type": "number"},
                           "currency": {"type": "string", "enum": ["EUR", "USD"]},
                           "tags": {"type": "array", "items": {"type": "string"}},
                           "inStock": {"type": "boolean"}}}},
    },
    "paths": {"/items/{itemId}": {"get": {
        "operationId": "getItem", "summary": "One item by its id.",
        "parameters": [
            {"name": "itemId", "in": "path", "required": True, "schema": {"type": "integer"}},
            {"name": "currency", "in": "query", "schema": {"type": "string", "enum": ["EUR", "USD"]}}],
        "responses": {
            "200": {"description": "The item.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}},
            "404": {"description": "No such item."}}}}},
}


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    path: str = scope["path"]
    headers = dict(scope["headers"])
    status, body = 404, b'{"error":"not found"}'
    if headers.get(b"x-api-key") != API_KEY.encode():
        status, body = 401, b'{"error":"unauthorized"}'
    elif scope["method"] == "GET" and path.startswith(PREFIX) and path[len(PREFIX):].isdigit():
        query = scope["query_string"].decode()
        currency = query.split("currency=", 1)[1].split("&", 1)[0] if "currency=" in query else "EUR"
        status, body = 200, json.dumps(item(int(path[len(PREFIX):]), currency), separators=(",", ":")).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
