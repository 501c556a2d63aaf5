"""Operations -> :class:`~.ir.Operation`: arguments (parameters and body), body binding, results.

Arguments, as the contract says:

* each path/query/header/cookie parameter is an argument named like the parameter
  (characters outside ``[A-Za-z0-9_.-]`` as ``_``, at most 64 characters); ``Accept``,
  ``Content-Type`` and ``Authorization`` headers are left out (OpenAPI ignores them);
* a plain object body (``properties``, no ``oneOf``/``anyOf``/``allOf`` at the root, no
  ``additionalProperties`` schema nor ``patternProperties``) that is required or has no required
  property is spread: one argument per property; any other body is one argument ``body``;
* collisions: path > query > header > cookie > body; a later argument gets ``_<in>``, then
  ``_2``, ``_3``; an argument not named like its wire name says so in its description;
* style/explode are written when the document sets them or the value is an array or object;
  a parameter with ``content`` (JSON in a query) is a string argument holding that JSON text
  (``contentMediaType``/``contentSchema`` say which);
* body media types in this order: JSON (and ``+json``), form-urlencoded, multipart,
  octet-stream, text/plain, then others (W120: sent as base64 bytes, or text for ``text/*``).
"""

from __future__ import annotations

import re
from typing import Any

from ...spec.pointer import join_pointer
from . import swagger2
from .ir import Arg, Body, Operation
from .load import Document, Ref
from .results import is_json, read_responses, results
from .schemas import REQUEST, Schemas
from .security import requirements
from .shapes import DEFAULT_STYLE, Media, Param, RequestBody, media_list, param_v3, text

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_ARG_CHARS = re.compile(r"[^A-Za-z0-9_.-]")
_TEMPLATE = re.compile(r"\{([^{}]+)\}")
_FORM = "application/x-www-form-urlencoded"
_MULTIPART = "multipart/form-data"
_OCTET = "application/octet-stream"
_WHAT = {"path": "path parameter", "query": "query parameter", "header": "header", "cookie": "cookie",
         "body": "body field"}
BASE64 = {"type": "string", "contentEncoding": "base64"}


def read_operations(doc: Document, schemas: Schemas, schemes: set[str]) -> list[Operation]:
    """Every operation of the document, in document order."""
    data = doc.data
    paths = data.get("paths")
    if paths is None:
        if doc.version != "3.1":
            doc.error(doc.root, "E141", "the document has no `paths`", "", "an OpenAPI document lists its operations under `paths`")
        return []
    if not isinstance(paths, dict):
        doc.error(doc.root, "E141", "`paths` must be a mapping of path to path item", "/paths")
        return []
    out = []
    for path, item in paths.items():
        at = Ref(doc.root, join_pointer("/paths", path))
        if path.startswith("x-"):
            continue
        if not path.startswith("/"):
            doc.error(at.doc, "E141", f"path {path!r} must start with /", at.pointer)
            continue
        followed = doc.follow(item, at)
        if followed is None:
            continue
        item, at = followed
        if not isinstance(item, dict):
            doc.error(at.doc, "E141", "a path item must be a mapping", at.pointer)
            continue
        shared = _param_list(doc, item.get("parameters"), Ref(at.doc, join_pointer(at.pointer, "parameters")))
        for key, raw in item.items():
            if key.lower() not in METHODS:
                continue
            op_at = Ref(at.doc, join_pointer(at.pointer, key))
            if not isinstance(raw, dict):
                doc.error(op_at.doc, "E141", "an operation must be a mapping", op_at.pointer)
                continue
            out.append(_operation(doc, schemas, schemes, key.upper(), path, raw, op_at, shared))
    return out


def _param_list(doc: Document, raw: Any, where: Ref) -> list[tuple[dict[str, Any], Ref]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        doc.error(where.doc, "E141", "`parameters` must be a list", where.pointer)
        return []
    out = []
    for i, item in enumerate(raw):
        followed = doc.follow(item, Ref(where.doc, join_pointer(where.pointer, i)))
        if followed is None:
            continue
        value, at = followed
        if not isinstance(value, dict):
            doc.error(at.doc, "E141", "a parameter must be a mapping", at.pointer)
            continue
        out.append((value, at))
    return out


def _operation(doc: Document, schemas: Schemas, schemes: set[str], method: str, path: str, raw: dict[str, Any],
               where: Ref, shared: list[tuple[dict[str, Any], Ref]]) -> Operation:
    label = f"{method} {path}"
    merged: dict[tuple[str, str], tuple[dict[str, Any], Ref]] = {}
    for p, at in shared + _param_list(doc, raw.get("parameters"), Ref(where.doc, join_pointer(where.pointer, "parameters"))):
        merged[(repr(p.get("name")), repr(p.get("in")))] = (p, at)
    raws = list(merged.values())
    params: list[Param] = []
    body: RequestBody | None
    if doc.version == "2.0":
        consumes = swagger2.media_types(raw.get("consumes", doc.data.get("consumes")))
        body = swagger2.request_body(doc, raws, consumes, where)
        for p, at in raws:
            if p.get("in") not in ("body", "formData"):
                param = swagger2.param(doc, p, at)
                if param is not None:
                    params.append(param)
    else:
        for p, at in raws:
            param = param_v3(doc, p, at)
            if param is not None:
                params.append(param)
        body = _body_v3(doc, raw.get("requestBody"), Ref(where.doc, join_pointer(where.pointer, "requestBody")))
    params = _match_template(doc, path, params, where, label)
    args: list[Arg] = []
    for param in sorted(params, key=lambda p: ("path", "query", "header", "cookie").index(p.location)):
        if param.location == "header" and param.name.lower() in _IGNORED_HEADERS:
            continue
        args.append(_param_arg(doc, schemas, param))
    bound, body_args = _body(doc, schemas, body, label)
    args += body_args
    _name_args(args)
    produces = swagger2.media_types(raw.get("produces", doc.data.get("produces"))) if doc.version == "2.0" else []
    responses = read_responses(doc, raw.get("responses"), Ref(where.doc, join_pointer(where.pointer, "responses")), produces)
    tags = [t for t in raw.get("tags") or [] if isinstance(t, str)] if isinstance(raw.get("tags"), list) else []
    op_id = raw.get("operationId") if isinstance(raw.get("operationId"), str) and raw.get("operationId") else None
    security = requirements(doc, raw.get("security"), Ref(where.doc, join_pointer(where.pointer, "security")), schemes)
    if doc.version != "2.0" and isinstance(raw.get("servers"), list) and raw["servers"]:
        doc.warn(where.doc, "W120", f"{label}: operation-level `servers` are not supported; the document's base URL is used",
                 join_pointer(where.pointer, "servers"))
    return Operation(method, path, op_id, tags, text(raw.get("summary")), text(raw.get("description")),
                     raw.get("deprecated") is True, args, bound, results(doc, schemas, responses, label), security, where)


def _match_template(doc: Document, path: str, params: list[Param], where: Ref, label: str) -> list[Param]:
    """Path parameters as the template has them: undeclared ones added as strings (W120),
    declared ones the template lacks dropped (W120)."""
    names = list(dict.fromkeys(_TEMPLATE.findall(path)))
    declared = {p.name for p in params if p.location == "path"}
    out = []
    for p in params:
        if p.location == "path" and p.name not in names:
            doc.warn(p.where.doc, "W120", f"{label}: path parameter {p.name!r} is not in the path template; dropped",
                     p.where.pointer)
            continue
        out.append(p)
    for name in names:
        if name not in declared:
            doc.warn(where.doc, "W120", f"{label}: path template variable {{{name}}} is not declared; read as a string",
                     where.pointer)
            out.append(Param(name, "path", True, "", False, {"type": "string"}, where, None, None, False, where))
    return out


def _param_arg(doc: Document, schemas: Schemas, param: Param) -> Arg:
    if param.schema is None:
        schema: Any = {"type": "string"} if param.location == "path" else {}
    else:
        schema = schemas.convert(param.schema, param.schema_at, REQUEST)
    description = param.description
    if param.content_type is not None:
        schema = {"type": "string", "contentMediaType": param.content_type, "contentSchema": schema}
        description = (description + " " if description else "") + f"(the value as {param.content_type} text)"
    if param.deprecated:
        description = "Deprecated. " + description if description else "Deprecated."
    style, explode = param.style, param.explode
    if style is not None or explode is not None or (param.content_type is None and _structured(schemas, param)):
        style = style or DEFAULT_STYLE[param.location]
        explode = explode if explode is not None else style == "form"
    return Arg(param.name, param.location, param.name, schema, param.required, description.strip(), style, explode,
               param.allow_reserved and param.location == "query", param.where)


def _structured(schemas: Schemas, param: Param) -> bool:
    """Whether a parameter's value may be an array or object (its style and explode matter)."""
    raw, _ = schemas.resolve(param.schema, param.schema_at)
    if not isinstance(raw, dict):
        return False
    kind = raw.get("type")
    kinds = [k for k in (kind if isinstance(kind, list) else [kind]) if isinstance(k, str)]
    return bool({"array", "object"} & set(kinds)) or (kind is None and bool({"properties", "items", "allOf", "oneOf", "anyOf"} & set(raw)))


def _body_v3(doc: Document, raw: Any, where: Ref) -> RequestBody | None:
    if raw is None:
        return None
    followed = doc.follow(raw, where)
    if followed is None:
        return None
    raw, where = followed
    if not isinstance(raw, dict):
        doc.error(where.doc, "E141", "a request body must be a mapping", where.pointer)
        return None
    media = media_list(doc, raw.get("content"), Ref(where.doc, join_pointer(where.pointer, "content")))
    return RequestBody(raw.get("required") is True, text(raw.get("description")), media, where)


def _rank(media: Media) -> int:
    ctype = media.content_type.split(";", 1)[0].strip()
    if is_json(ctype):
        return 0
    order = (_FORM, _MULTIPART, _OCTET, "text/plain")
    return 1 + order.index(ctype) if ctype in order else 9


def _body(doc: Document, schemas: Schemas, body: RequestBody | None, label: str) -> tuple[Body | None, list[Arg]]:
    if body is None or not body.media:
        return None, []
    media = min(body.media, key=_rank)
    ctype = media.content_type.split(";", 1)[0].strip()
    rank = _rank(media)
    desc = body.description.strip()
    if rank == 9 and not ctype.startswith("text/"):
        doc.warn(body.where.doc, "W120", f"{label}: request body type {ctype!r} is sent as bytes: the `body` "
                 "argument is base64", body.where.pointer)
    if rank >= 3:  # octet-stream, text/plain and any other type: one string argument
        schema = {"type": "string"} if ctype.startswith("text/") else dict(BASE64)
        return Body(ctype, body.required), [Arg("body", "body", None, schema, body.required, desc, where=body.where)]
    bound = Body(ctype, body.required)
    spread = _spreadable(schemas, media, body.required)
    if spread is None:
        schema = schemas.convert(media.schema, media.schema_at, REQUEST) if media.schema is not None else \
            ({} if rank == 0 else {"type": "object"})
        return bound, [Arg("body", "body", None, schema, body.required, desc, where=body.where)]
    props, required = spread
    args = []
    for name, schema in props.items():
        if ctype == _MULTIPART and _is_file(schema):
            enc = media.encoding.get(name)
            ftype = enc.get("contentType") if isinstance(enc, dict) and isinstance(enc.get("contentType"), str) else None
            bound.files[name] = (ftype or _OCTET).split(",")[0].strip()
        field_desc = schema.get("description", "") if isinstance(schema, dict) else ""
        plain = {k: v for k, v in schema.items() if k != "description"} if isinstance(schema, dict) else schema
        args.append(Arg(name, "body", name, plain, name in required, field_desc, where=body.where))
    return bound, args


def _spreadable(schemas: Schemas, media: Media, required: bool) -> tuple[dict[str, Any], set[str]] | None:
    """The converted properties and required names of a body that is spread, else None."""
    if media.schema is None:
        return None
    raw, where = schemas.resolve(media.schema, media.schema_at)
    if not isinstance(raw, dict) or raw.get("type", "object") != "object" or raw.get("nullable") is True:
        return None
    if {"oneOf", "anyOf", "allOf", "patternProperties", "not", "if"} & set(raw):
        return None
    if isinstance(raw.get("additionalProperties"), dict) or not isinstance(raw.get("properties"), dict) \
            or not raw["properties"]:
        return None
    converted = schemas.convert(raw, where, REQUEST)
    names = set(converted.get("required", []))
    if names and not required:
        return None
    props = converted.get("properties", {})
    return (props, names) if props else None


def arg_name(wire: str) -> str:
    """An argument name for a wire name: characters outside ``[A-Za-z0-9_.-]`` as ``_``, at most 64."""
    return (_ARG_CHARS.sub("_", wire) or "_")[:64]


def _name_args(args: list[Arg]) -> None:
    """Name the arguments in place (they come in precedence order: path ... body)."""
    taken: set[str] = set()
    for arg in args:
        base = arg_name(arg.wire if arg.wire is not None else "body")
        name = base
        if name in taken:
            suffix = "_" + arg.location
            name = base[:64 - len(suffix)] + suffix
            n = 1
            while name in taken:
                n += 1
                tail = f"{suffix}_{n}"
                name = base[:64 - len(tail)] + tail
        taken.add(name)
        arg.name = name
        if arg.wire is not None and name != arg.wire:
            note = f"({_WHAT[arg.location]} `{arg.wire}`)"
            arg.description = f"{arg.description} {note}".strip()


def _is_file(schema: Any) -> bool:
    """A multipart field holding a file, or an array of files (one part per item)."""
    if not isinstance(schema, dict):
        return False
    items = schema.get("items")
    return schema.get("contentEncoding") == "base64" or (
        schema.get("type") == "array" and isinstance(items, dict) and items.get("contentEncoding") == "base64")
