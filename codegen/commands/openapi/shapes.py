"""The OpenAPI 3.x shape both versions are read into: parameters, media types, bodies, responses.

:mod:`.swagger2` reads a Swagger 2.0 operation into the same shapes, so the rest of the
converter knows one version.  Each shape keeps where its parts are (:class:`~.load.Ref`), for
located diagnostics and for following relative ``$ref`` s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_codegen_runtime.server.upstream.binding import STYLES as RUNTIME_STYLES

from ...spec.pointer import join_pointer
from .load import Document, Ref

LOCATIONS = ("path", "query", "header", "cookie")
#: The styles each location allows, and the style when a parameter names none (OpenAPI 3): the
#: runtime's table, which serializes them.
STYLES = {where: RUNTIME_STYLES[where][0] for where in LOCATIONS}
DEFAULT_STYLE = {where: RUNTIME_STYLES[where][1] for where in LOCATIONS}


@dataclass
class Media:
    """One media type of a body or response, with its schema (None: no schema)."""

    content_type: str
    schema: Any
    schema_at: Ref
    encoding: dict[str, Any] = field(default_factory=dict)


@dataclass
class Param:
    """A path/query/header/cookie parameter."""

    name: str
    location: str
    required: bool
    description: str
    deprecated: bool
    schema: Any  # None when the parameter has no schema
    schema_at: Ref
    style: str | None
    explode: bool | None
    allow_reserved: bool
    where: Ref
    content_type: str | None = None  # parameter-level `content` (JSON in a query, ...)


@dataclass
class RequestBody:
    required: bool
    description: str
    media: list[Media]
    where: Ref


@dataclass
class Response:
    status: str
    description: str
    media: list[Media]
    where: Ref


def text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def media_list(doc: Document, content: Any, where: Ref) -> list[Media]:
    """The media types of a 3.x ``content`` map."""
    if content is None:
        return []
    if not isinstance(content, dict):
        doc.error(where.doc, "E141", "`content` must map media types to media type objects", where.pointer)
        return []
    out = []
    for ctype, media in content.items():
        at = Ref(where.doc, join_pointer(where.pointer, ctype))
        if not isinstance(media, dict):
            doc.error(at.doc, "E141", "a media type object must be a mapping", at.pointer)
            continue
        encoding: dict[str, Any] = media["encoding"] if isinstance(media.get("encoding"), dict) else {}
        out.append(Media(ctype.strip().lower(), media.get("schema"), Ref(at.doc, join_pointer(at.pointer, "schema")),
                         encoding))
    return out


def param_v3(doc: Document, raw: dict[str, Any], where: Ref) -> Param | None:
    """A 3.x parameter object (already dereferenced), or None with a diagnostic."""
    name, location = raw.get("name"), raw.get("in")
    if not isinstance(name, str) or not name:
        doc.error(where.doc, "E141", "a parameter needs a `name` string", where.pointer)
        return None
    if location not in LOCATIONS:
        doc.error(where.doc, "E141", f"parameter `in` must be one of {', '.join(LOCATIONS)}, not {location!r}",
                  join_pointer(where.pointer, "in"))
        return None
    schema, schema_at, content_type = raw.get("schema"), Ref(where.doc, join_pointer(where.pointer, "schema")), None
    if "content" in raw:
        media = media_list(doc, raw["content"], Ref(where.doc, join_pointer(where.pointer, "content")))
        if media:
            schema, schema_at, content_type = media[0].schema, media[0].schema_at, media[0].content_type
    style = raw.get("style") if raw.get("style") in STYLES[location] else None
    if "style" in raw and style is None:
        doc.warn(where.doc, "W120", f"parameter {name!r}: style {raw.get('style')!r} is not one for `in: {location}`; "
                 "the default is used", join_pointer(where.pointer, "style"))
    explode = raw.get("explode") if isinstance(raw.get("explode"), bool) else None
    return Param(name, location, location == "path" or raw.get("required") is True, text(raw.get("description")),
                 raw.get("deprecated") is True, schema, schema_at, style, explode, raw.get("allowReserved") is True,
                 where, content_type)
