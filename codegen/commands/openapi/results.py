"""Responses -> a tool's outputSchema, ``http.wrap``, ``http.accept`` and declared errors.

* Success: ``200``, else the lowest documented 2xx, else ``2XX``; its JSON schema (response
  direction) is the outputSchema.  Several 2xx responses with different JSON schemas: their
  ``anyOf``.  A schema that is not a plain ``type: object`` is wrapped:
  ``{type: object, properties: {result: S}, required: [result]}`` and ``http.wrap: result``.
  No JSON success response: no outputSchema.
* ``http.accept``: every success media type, JSON ones first.
* Errors: every 4xx/5xx status, ``4XX``/``5XX`` range and ``default`` becomes a declared error
  (:data:`ERROR_CODES`, else ``http_<status>``; ranges ``http_4xx``; default
  ``upstream_error``) with description "<response description> (HTTP 404)" and data
  ``{status: integer, body: <the response's JSON schema, or anything>}``.
"""

from __future__ import annotations

import re
from typing import Any

from ...spec.pointer import join_pointer
from .ir import DeclaredError, Results
from .load import Document, Ref
from .schemas import RESPONSE, Schemas
from .shapes import Media, Response, media_list, text
from .swagger2 import response as response_v2

ERROR_CODES = {"400": "bad_request", "401": "unauthorized", "403": "forbidden", "404": "not_found",
               "409": "conflict", "422": "unprocessable_entity", "429": "too_many_requests", "500": "server_error"}
_STATUS = re.compile(r"[1-5](\d\d|XX)")


def is_json(ctype: str) -> bool:
    base = ctype.split(";", 1)[0].strip()
    return base == "application/json" or base.endswith("+json")


def read_responses(doc: Document, raw: Any, where: Ref, produces: list[str]) -> list[Response]:
    """The operation's responses in the 3.x shape (references followed)."""
    if raw is None:
        return []
    if not isinstance(raw, dict):
        doc.error(where.doc, "E141", "`responses` must map status codes to responses", where.pointer)
        return []
    out = []
    for status, value in raw.items():
        at = Ref(where.doc, join_pointer(where.pointer, status))
        key = str(status).upper()
        if key.startswith("X-"):
            continue
        if key != "DEFAULT" and not _STATUS.fullmatch(key):
            doc.warn(at.doc, "W120", f"response status {status!r} is not a status code, range or default; ignored",
                     at.pointer)
            continue
        followed = doc.follow(value, at)
        if followed is None:
            continue
        value, at = followed
        if not isinstance(value, dict):
            doc.error(at.doc, "E141", "a response must be a mapping", at.pointer)
            continue
        status_key = "default" if key == "DEFAULT" else key
        if doc.version == "2.0":
            out.append(response_v2(doc, status_key, value, produces, at))
        else:
            media = media_list(doc, value.get("content"), Ref(at.doc, join_pointer(at.pointer, "content")))
            out.append(Response(status_key, text(value.get("description")), media, at))
    return out


def _json_media(response: Response) -> Media | None:
    return next((m for m in response.media if is_json(m.content_type) and m.schema is not None), None)


def _success(responses: list[Response]) -> list[Response]:
    ok = [r for r in responses if r.status.startswith("2")]
    return sorted(ok, key=lambda r: (r.status != "200", r.status.replace("X", "9")))


def results(doc: Document, schemas: Schemas, responses: list[Response], label: str) -> Results:
    """Convert the responses of the operation ``label`` (``GET /path``)."""
    out = Results()
    success = _success(responses)
    types: list[str] = []
    for r in success:
        types += [m.content_type for m in r.media if m.content_type not in types]
    if types:
        out.accept = ", ".join(sorted(types, key=lambda t: not is_json(t)))
    found: list[Any] = []
    first: Media | None = None
    for r in success:
        media = _json_media(r)
        if media is None:
            continue
        schema = schemas.convert(media.schema, media.schema_at, RESPONSE)
        if schema not in found:
            found.append(schema)
            first = first or media
    if len(found) == 1 and first is not None:
        inline = _object_root(schemas, first)
        if inline is not None:
            out.output_schema = inline
    if found and out.output_schema is None:
        schema = found[0] if len(found) == 1 else {"anyOf": found}
        out.output_schema = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
        out.wrap = True
    for r in responses:
        if r.status.startswith(("4", "5")) or r.status == "default":
            out.errors.append(_error(schemas, r))
    return out


def _object_root(schemas: Schemas, media: Media) -> dict[str, Any] | None:
    """The outputSchema for a response schema that is a plain object (``type: object`` at its
    root, also behind a ``$ref``: then its root is written inline, as MCP wants ``type: object``
    at an outputSchema's root); None for anything else (it is wrapped)."""
    raw, where = schemas.resolve(media.schema, media.schema_at)
    if isinstance(media.schema, dict) and media.schema.get("nullable") is True:
        return None
    schema = schemas.convert(raw, where, RESPONSE)
    return schema if isinstance(schema, dict) and schema.get("type") == "object" else None


def _error(schemas: Schemas, response: Response) -> DeclaredError:
    status = response.status
    if status == "default":
        code, shown = "upstream_error", "any other HTTP error status"
    elif status.endswith("XX"):
        code, shown = f"http_{status[0]}xx", f"HTTP {status}"
    else:
        code, shown = ERROR_CODES.get(status, f"http_{status}"), f"HTTP {status}"
    media = _json_media(response)
    body = schemas.convert(media.schema, media.schema_at, RESPONSE) if media is not None else {}
    description = f"{response.description.strip()} ({shown})" if response.description.strip() else f"({shown})"
    data = {"type": "object", "properties": {"status": {"type": "integer"}, "body": body}, "required": ["status"]}
    return DeclaredError(status, code, description, data)

