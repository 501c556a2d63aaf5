"""OpenAPI parameter serialisation (``style``/``explode``) for path, query, header and cookie.

The rules of OpenAPI 3.1 (section "Style Values", "Style Examples", "URL Percent-Encoding",
appendices C to E), which define the styles by RFC 6570 URI Template expansion:

* path: ``simple`` (``{id}``), ``label`` (``{.id}``), ``matrix`` (``{;id}``); query and cookie:
  ``form`` (``{?id}``); query only: ``spaceDelimited``, ``pipeDelimited``, ``deepObject``, which
  RFC 6570 lacks and OpenAPI asks to handle alike.  ``explode`` is RFC 6570's ``*``.
* Percent-encoding (RFC 6570 non-reserved expansion): every character outside RFC 3986's
  unreserved set (``A-Z a-z 0-9 - . _ ~``) is encoded, UTF-8 first, in names and values;
  delimiters inside a value (``,`` ``/`` ``?`` ``#`` ``&`` ``=``) are encoded too, so a value can
  never change the path or add a parameter.  The styles' own delimiters that RFC 3986 does not
  allow in a query (space, ``|``, ``[``, ``]``) are sent percent-encoded, as the OpenAPI 3.1.1
  examples show (``color=blue%7Cblack%7Cbrown``, ``color%5BR%5D=100``).
* ``allowReserved: true`` (query): RFC 6570 reserved expansion: reserved characters and
  percent-encoded triples pass unchanged, except those the query or form-urlencoded give a
  meaning (``[`` ``]`` ``#`` ``&`` ``=`` ``+``), which OpenAPI still asks to encode.
* Headers are never percent-encoded (OpenAPI 3.1.2, appendix D); a value with a control
  character cannot be sent and is refused.  Cookies (``form``) are percent-encoded, and several
  name=value pairs are joined by ``; ``, never ``&``.
* ``null`` and an empty list or object are RFC 6570 "undefined": the OpenAPI table gives
  ``;id`` (matrix), ``.`` (label), ``id=`` (form); a path segment that would be empty is refused.
* A path segment that would be ``.`` or ``..`` (a dot-segment, which clients and servers
  resolve away) is sent as ``%2E``/``%2E%2E``.

Values come as JSON data (``model_dump(mode="json")``): booleans are ``true``/``false``,
numbers their JSON text, and values nested deeper than the styles define are sent as their
compact JSON text (OpenAPI leaves those implementation-defined).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote

#: Reserved characters ``allowReserved`` lets through in a query (RFC 3986 reserved minus
#: ``[ ] #`` not allowed in a query and ``& = +`` that form-urlencoded gives a meaning).
_RESERVED_KEPT = ":/?@!$'()*,;"
_TRIPLE = re.compile(r"(%[0-9A-Fa-f]{2})")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class SerializeError(ValueError):
    """An argument cannot be sent where the binding puts it (the message names the parameter)."""


def encode(text: str, *, reserved: bool = False) -> str:
    """``text`` percent-encoded for a URI: non-reserved (everything but unreserved) or reserved expansion."""
    if text.isalnum() and text.isascii():  # letters and digits only: nothing to encode either way
        return text
    if not reserved:
        return quote(text, safe="")
    return "".join(part if _TRIPLE.fullmatch(part) else quote(part, safe=_RESERVED_KEPT)
                   for part in _TRIPLE.split(text))


def text_of(value: Any) -> str:
    """A scalar's text: strings as they are, ``true``/``false``, numbers' JSON, deeper data as compact JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if type(value) is int:  # JSON's text of an integer is its decimal digits
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _undefined(value: Any) -> bool:
    return value is None or (isinstance(value, (list, dict)) and not value)


def _items(value: list[Any] | dict[str, Any], enc: Callable[[str], str], pair: str) -> list[str]:
    """The items of a list, or an object's ``key<pair>value`` entries, each encoded."""
    if isinstance(value, dict):
        return [enc(str(k)) + pair + enc(text_of(v)) for k, v in value.items()]
    return [enc(text_of(v)) for v in value]


# ------------------------------------------------------------------ path
def path_value(name: str, value: Any, style: str, explode: bool) -> str:
    """The expansion of path parameter ``name`` (its leading ``.``/``;`` included).

    Raises:
        SerializeError: a ``simple`` value that would leave the path segment empty.
    """
    enc = encode
    if style == "matrix":
        if _undefined(value):
            return ";" + enc(name)
        if isinstance(value, (list, dict)):
            if explode:
                if isinstance(value, dict):
                    return "".join(";" + item for item in _items(value, enc, "="))
                return "".join(f";{enc(name)}={enc(text_of(v))}" for v in value)
            return f";{enc(name)}=" + ",".join(_items(value, enc, ","))
        text = text_of(value)
        return f";{enc(name)}" + (f"={enc(text)}" if text else "")
    if style == "label":
        if _undefined(value):
            return "."
        if isinstance(value, (list, dict)):
            return "." + ("." if explode else ",").join(_items(value, enc, "=" if explode else ","))
        return "." + enc(text_of(value))
    # simple
    if _undefined(value) or value == "":
        raise SerializeError(f"the path parameter {name!r} needs a non-empty value")
    if isinstance(value, (list, dict)):
        return ",".join(_items(value, enc, "=" if explode else ","))
    return enc(text_of(value))


def expand_path(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``{name}`` replaced by its expansion; the template's own text
    percent-encoded where a URL path may not hold it as written (a space in a documented path:
    ``%20``; an escape already in the template is kept); dot-segments made harmless."""
    path = "".join(values.get(part, text) if part else text for part, text in _template(template))
    if "." not in path:  # no dot-segment possible
        return path
    return "/".join(seg.replace(".", "%2E") if seg in (".", "..") else seg for seg in path.split("/"))


@functools.lru_cache(maxsize=1024)
def _template(template: str) -> tuple[tuple[str, str], ...]:
    """The parts of a path template, split once: ``(name, "{name}" encoded)`` for a variable (its
    text stands when no value fills it), ``("", text encoded)`` for the template's own text."""
    parts = re.split(r"(\{[^{}]*\})", template)
    return tuple((part[1:-1], quote(part, safe=_PATH_SAFE)) if part.startswith("{") and part.endswith("}")
                 and part[1:-1] else ("", quote(part, safe=_PATH_SAFE)) for part in parts)


#: What a path template's own text keeps as written: RFC 3986 ``pchar`` and ``/`` (and ``%`` of an
#: escape the document already wrote).
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"


# ------------------------------------------------------------------ query
def query_items(name: str, value: Any, style: str, explode: bool, allow_reserved: bool = False) -> list[str]:
    """The ``name=value`` items (already percent-encoded) of query parameter ``name``."""
    key = encode(name)

    def enc(text: str) -> str:
        return encode(text, reserved=allow_reserved)

    if style == "deepObject" and isinstance(value, dict) and value:
        return _deep(key, value, enc)
    if _undefined(value):
        return [key + "="]
    if not isinstance(value, (list, dict)):
        return [f"{key}={enc(text_of(value))}"]
    if explode or style == "deepObject":
        if isinstance(value, dict):
            return [f"{encode(str(k))}={enc(text_of(v))}" for k, v in value.items()]
        return [f"{key}={enc(text_of(v))}" for v in value]
    sep = {"spaceDelimited": "%20", "pipeDelimited": "%7C"}.get(style, ",")
    return [f"{key}=" + sep.join(_items(value, enc, sep))]


def _deep(key: str, value: dict[str, Any], enc: Callable[[str], str]) -> list[str]:
    """``key[k]=v`` for each entry; nested objects go deeper (``key[a][b]``), lists repeat the key."""
    out: list[str] = []
    for k, v in value.items():
        sub = f"{key}%5B{encode(str(k))}%5D"
        if isinstance(v, dict) and v:
            out.extend(_deep(sub, v, enc))
        elif isinstance(v, list) and v:
            out.extend(f"{sub}={enc(text_of(item))}" for item in v)
        else:
            out.append(f"{sub}={enc(text_of(v))}")
    return out


def join_query(items: Iterable[str]) -> str:
    return "&".join(items)


# ------------------------------------------------------------------ header and cookie
def header_value(name: str, value: Any, explode: bool) -> str:
    """A header's value (``simple``, never percent-encoded).

    Raises:
        SerializeError: the value holds a control character (CR, LF ...), which no header may carry.
    """
    if isinstance(value, dict):
        text = ",".join(f"{k}={text_of(v)}" if explode else f"{k},{text_of(v)}" for k, v in value.items())
    elif isinstance(value, list):
        text = ",".join(text_of(v) for v in value)
    else:
        text = text_of(value)
    if _CONTROL.search(text):
        raise SerializeError(f"the header {name!r} cannot carry a control character")
    return text


def cookie_items(name: str, value: Any, explode: bool) -> list[str]:
    """The ``name=value`` pairs (``form``, percent-encoded) of cookie parameter ``name``."""
    key = encode(name)
    if _undefined(value):
        return [key + "="]
    if not isinstance(value, (list, dict)):
        return [f"{key}={encode(text_of(value))}"]
    if explode:
        if isinstance(value, dict):
            return [f"{encode(str(k))}={encode(text_of(v))}" for k, v in value.items()]
        return [f"{key}={encode(text_of(v))}" for v in value]
    return [f"{key}=" + ",".join(_items(value, encode, ","))]


__all__ = [
    "SerializeError", "cookie_items", "encode", "expand_path", "header_value", "join_query", "path_value",
    "query_items", "text_of",
]
