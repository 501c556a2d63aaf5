"""The request body of an upstream call, encoded as ``http.body.contentType`` says.

* ``application/json`` and ``*+json``: the JSON text (UTF-8).
* ``application/x-www-form-urlencoded``: ``name=value`` pairs, OpenAPI's default for form bodies
  (style ``form``, explode true: arrays repeat the field), objects in ``deepObject`` style
  (``a%5Bb%5D=c``); percent-encoded as the query (``serialize.py``), with ``~`` encoded too, as
  OpenAPI asks for form-urlencoded content.
* ``multipart/form-data``: one part per field (arrays repeat it); the fields of
  ``http.body.files`` are files whose argument is base64, sent decoded with their content type;
  objects are ``application/json`` parts; no percent-encoding (RFC 7578).
* ``text/*``: the string as UTF-8 (other values as their JSON text).
* Any other type (``application/octet-stream``, ``application/pdf``, XML ...): the whole-body
  argument is base64, sent decoded.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

from .binding import BodyBinding
from .serialize import SerializeError, join_query, query_items, text_of

#: A multipart part: (filename or None, content, content type or None), as httpx takes it.
Part = tuple[str | None, bytes, str | None]


@dataclass
class EncodedBody:
    """What the request carries: raw ``content`` with its ``content_type``, or multipart parts."""

    content: bytes | None = None
    content_type: str | None = None
    parts: list[tuple[str, Part]] = field(default_factory=list)


def media_type(content_type: str) -> str:
    """``type/subtype`` of a Content-Type, lower case, without parameters."""
    return content_type.split(";")[0].strip().lower()


def is_json(mime: str) -> bool:
    return mime == "application/json" or mime.endswith("+json")


def _base64(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise SerializeError(f"{what} must be base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise SerializeError(f"{what} is not valid base64") from None


def encode_body(binding: BodyBinding, value: Any) -> EncodedBody:
    """``value`` (the body: an object of spread fields, or the whole-body argument) as the binding's type.

    Raises:
        SerializeError: a value that cannot be sent that way (not base64, not an object for a form).
    """
    ctype = binding.content_type
    mime = media_type(ctype)
    if is_json(mime):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return EncodedBody(text.encode("utf-8"), ctype)
    if mime == "application/x-www-form-urlencoded":
        if not isinstance(value, dict):
            raise SerializeError("a form-urlencoded body must be an object")
        items: list[str] = []
        for name, item in value.items():
            items.extend(query_items(str(name), item, "deepObject" if isinstance(item, dict) else "form", True))
        return EncodedBody(join_query(items).replace("~", "%7E").encode("ascii"), ctype)
    if mime == "multipart/form-data":
        if not isinstance(value, dict):
            raise SerializeError("a multipart body must be an object")
        return EncodedBody(parts=_parts(binding, value))
    if mime.startswith("text/"):
        if "charset=" not in ctype.lower():
            ctype += "; charset=utf-8"
        return EncodedBody(text_of(value).encode("utf-8"), ctype)
    return EncodedBody(_base64(value, "the body"), ctype)


def _parts(binding: BodyBinding, value: dict[str, Any]) -> list[tuple[str, Part]]:
    parts: list[tuple[str, Part]] = []
    for name, item in value.items():
        for one in item if isinstance(item, list) else [item]:
            if name in binding.files:
                parts.append((name, (name, _base64(one, f"the file field {name!r}"), binding.files[name])))
            elif isinstance(one, (dict, list)):
                parts.append((name, (None, json.dumps(one, ensure_ascii=False).encode("utf-8"), "application/json")))
            else:
                parts.append((name, (None, text_of(one).encode("utf-8"), None)))
    return parts


__all__ = ["EncodedBody", "Part", "encode_body", "is_json", "media_type"]
