"""Swagger 2.0 read into the OpenAPI 3.x shapes of :mod:`.shapes`.

* ``host`` + ``basePath`` + ``schemes`` -> the server URL (https first);
* ``in: body`` -> a request body in each ``consumes`` type (default ``application/json``);
  ``in: formData`` -> an object body, ``multipart/form-data`` when a field is ``type: file`` or
  ``consumes`` names it, else ``application/x-www-form-urlencoded``;
* a non-body parameter's own ``type``/``items``/``enum``... -> its schema; ``collectionFormat``
  -> style/explode (csv: form or simple without explode, ssv: spaceDelimited, pipes:
  pipeDelimited, multi: form with explode; tsv has no 3.x equivalent: W120, sent as csv);
* a response's ``schema`` -> that schema in each ``produces`` type (default ``application/json``);
* ``definitions`` are the shared schemas (:mod:`.schemas`); ``securityDefinitions`` are read by
  :mod:`.security`.
"""

from __future__ import annotations

from typing import Any

from ...spec.pointer import join_pointer
from .load import Document, Ref
from .shapes import LOCATIONS, Media, Param, RequestBody, Response, text

#: Keys of a 2.0 non-body parameter (or items object) that are schema keywords.
_SCHEMA_KEYS = ("type", "format", "items", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
                "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf")
_COLLECTION = {"csv": (None, False), "ssv": ("spaceDelimited", False), "pipes": ("pipeDelimited", False),
               "multi": ("form", True), "tsv": (None, False)}


def server_url(data: dict[str, Any]) -> str:
    """The base URL: ``scheme://host/basePath`` (relative when there is no host)."""
    host: str = data["host"] if isinstance(data.get("host"), str) else ""
    base: str = data["basePath"] if isinstance(data.get("basePath"), str) else ""
    schemes = [s for s in data.get("schemes") or [] if s in ("https", "http")] if isinstance(data.get("schemes"), list) else []
    scheme = "https" if "https" in schemes or not schemes else "http"
    if not host:
        return base or "/"
    return f"{scheme}://{host}{base if base.startswith('/') or not base else '/' + base}".rstrip("/")


def media_types(value: Any) -> list[str]:
    return [v.strip().lower() for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _schema_of(raw: dict[str, Any]) -> dict[str, Any]:
    out = {k: raw[k] for k in _SCHEMA_KEYS if k in raw}
    if isinstance(out.get("items"), dict):
        out["items"] = _schema_of(out["items"])
    return out


def param(doc: Document, raw: dict[str, Any], where: Ref) -> Param | None:
    """A non-body 2.0 parameter (``in: path/query/header``) in the 3.x shape."""
    name, location = raw.get("name"), raw.get("in")
    if not isinstance(name, str) or not name:
        doc.error(where.doc, "E141", "a parameter needs a `name` string", where.pointer)
        return None
    if location not in LOCATIONS:
        doc.error(where.doc, "E141", f"parameter `in` must be body, formData, path, query or header, not {location!r}",
                  join_pointer(where.pointer, "in"))
        return None
    style, explode = None, None
    if raw.get("type") == "array":
        fmt = raw.get("collectionFormat", "csv")
        if not isinstance(fmt, str) or fmt not in _COLLECTION or (fmt == "multi" and location != "query"):
            doc.warn(where.doc, "W120", f"parameter {name!r}: collectionFormat {fmt!r} cannot be expressed; sent "
                     "comma-separated", join_pointer(where.pointer, "collectionFormat"))
            fmt = "csv"
        elif fmt == "tsv":
            doc.warn(where.doc, "W120", f"parameter {name!r}: collectionFormat tsv has no OpenAPI 3 style; sent "
                     "comma-separated", join_pointer(where.pointer, "collectionFormat"))
        style, explode = _COLLECTION[fmt]
        style = style or ("form" if location == "query" else "simple")
    return Param(name, location, location == "path" or raw.get("required") is True, text(raw.get("description")),
                 False, _schema_of(raw), where, style, explode, False, where)


def request_body(doc: Document, params: list[tuple[dict[str, Any], Ref]], consumes: list[str],
                 where: Ref) -> RequestBody | None:
    """The request body of a 2.0 operation's ``body`` or ``formData`` parameters."""
    body = [(p, at) for p, at in params if p.get("in") == "body"]
    form = [(p, at) for p, at in params if p.get("in") == "formData"]
    if body:
        raw, at = body[0]
        types = [c for c in consumes if "form" not in c] or ["application/json"]
        schema_at = Ref(at.doc, join_pointer(at.pointer, "schema"))
        return RequestBody(raw.get("required") is True, text(raw.get("description")),
                           [Media(c, raw.get("schema"), schema_at) for c in types], at)
    if not form:
        return None
    props: dict[str, Any] = {}
    required: list[str] = []
    files = False
    for raw, _at in form:
        name = raw.get("name")
        if not isinstance(name, str):
            continue
        props[name] = _schema_of(raw)
        if isinstance(raw.get("description"), str):
            props[name]["description"] = raw["description"]
        files = files or raw.get("type") == "file"
        if raw.get("required") is True:
            required.append(name)
    ctype = "multipart/form-data" if files or "multipart/form-data" in consumes else "application/x-www-form-urlencoded"
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return RequestBody(bool(required), "", [Media(ctype, schema, where)], where)


def response(doc: Document, status: str, raw: dict[str, Any], produces: list[str], where: Ref) -> Response:
    """A 2.0 response in the 3.x shape: its schema in each ``produces`` type."""
    media = []
    if "schema" in raw:
        schema_at = Ref(where.doc, join_pointer(where.pointer, "schema"))
        media = [Media(c, raw["schema"], schema_at) for c in (produces or ["application/json"])]
    return Response(status, text(raw.get("description")), media, where)
