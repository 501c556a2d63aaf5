"""2026-07-28 Streamable HTTP request headers: ``Mcp-Name``, ``Mcp-Param-*``, the Base64 sentinel.

Shared by the HTTP server (validation) and the HTTP client (mirroring); stdlib only.

* :func:`header_params` reads the ``x-mcp-header`` annotations of an ``inputSchema``:
  ``(params, None)`` for a valid schema, ``({}, reason)`` for an invalid one (a client
  drops such a tool; a server skips header validation for it).  Valid: a non-empty
  RFC 9110 token, unique case-insensitively within the schema, on a property of type
  ``string``, ``integer`` or ``boolean`` that is reached from the root through
  ``properties`` only (never through ``items``, composition, conditionals, ``$ref``...).
* :func:`encode_value` renders a body value as a header value (strings as-is unless they
  need the ``=?base64?...?=`` sentinel, integers in decimal, booleans ``true``/``false``);
  :func:`decode_value` undoes it strictly (a malformed sentinel gives ``None``).
* :func:`value_matches` compares a decoded header value with a body value (integers
  numerically).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PARAM_PREFIX = "Mcp-Param-"
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_SENTINEL = re.compile(r"^=\?base64\?(.*)\?=$", re.S)
_INTEGER = re.compile(r"^-?[0-9]+(\.0+)?$")
_PRIMITIVE = ("string", "integer", "boolean")
MAX_SAFE_INTEGER = 2**53 - 1


@dataclass(frozen=True)
class HeaderParam:
    """One ``x-mcp-header`` annotated argument: where it sits, its header, its type."""

    path: tuple[str, ...]
    header: str
    type: str

    @property
    def header_name(self) -> str:
        return PARAM_PREFIX + self.header

    def value_in(self, arguments: Mapping[str, Any]) -> Any:
        """The argument value at :attr:`path` (None when absent)."""
        value: Any = arguments
        for key in self.path:
            if not isinstance(value, Mapping):
                return None
            value = value.get(key)
        return value


def _count_annotations(node: Any) -> int:
    if isinstance(node, dict):
        return int("x-mcp-header" in node) + sum(_count_annotations(v) for v in node.values())
    if isinstance(node, list):
        return sum(_count_annotations(v) for v in node)
    return 0


def header_params(schema: Any) -> tuple[tuple[HeaderParam, ...], str | None]:
    """The annotated arguments of an ``inputSchema``, or the reason it is invalid."""
    found: list[HeaderParam] = []
    reason: str | None = None

    def walk(node: Any, path: tuple[str, ...]) -> None:
        nonlocal reason
        props = node.get("properties") if isinstance(node, dict) else None
        if not isinstance(props, dict):
            return
        for key, sub in props.items():
            if not isinstance(sub, dict):
                continue
            here = (*path, str(key))
            if "x-mcp-header" in sub:
                name = sub["x-mcp-header"]
                kind = sub.get("type")
                if not isinstance(name, str) or not name:
                    reason = reason or f"x-mcp-header of {'.'.join(here)!r} is empty or not a string"
                elif not _TOKEN.match(name):
                    reason = reason or f"x-mcp-header {name!r} of {'.'.join(here)!r} is not an HTTP token"
                elif kind not in _PRIMITIVE:
                    reason = reason or f"x-mcp-header {name!r} is on {'.'.join(here)!r} of type {kind!r}"
                else:
                    found.append(HeaderParam(here, name, kind))
            walk(sub, here)

    if not isinstance(schema, dict):
        return (), None
    walk(schema, ())
    if reason is None and _count_annotations(schema) != len(found):
        reason = "x-mcp-header is only allowed on properties reached through 'properties'"
    if reason is None:
        seen: set[str] = set()
        for param in found:
            low = param.header.lower()
            if low in seen:
                reason = f"x-mcp-header {param.header!r} is used twice (case-insensitively)"
                break
            seen.add(low)
    if reason is not None:
        return (), reason
    return tuple(found), None


def needs_base64(value: str) -> bool:
    """True when ``value`` cannot travel as a plain header value."""
    if value != value.strip(" \t"):
        return True
    if any(ord(c) < 0x20 or ord(c) > 0x7E for c in value):
        return True
    return _SENTINEL.match(value) is not None


def encode_text(value: str) -> str:
    """A string as a header value, Base64-wrapped when needed."""
    if needs_base64(value):
        return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="
    return value


def encode_value(value: Any) -> str | None:
    """A body value as a header value (None: not a string, integer or boolean)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
        return str(int(value))
    if isinstance(value, str):
        return encode_text(value)
    return None


def decode_value(raw: str) -> str | None:
    """The value a header carries (OWS stripped, sentinel decoded); None if malformed."""
    text = raw.strip(" \t")
    match = _SENTINEL.match(text)
    if match is None:
        return text
    try:
        return base64.b64decode(match.group(1), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def value_matches(kind: str | None, body: Any, decoded: str) -> bool:
    """Does the decoded header value stand for the body value?"""
    if isinstance(body, bool):
        return decoded == ("true" if body else "false")
    if isinstance(body, (int, float)) and kind in ("integer", None) and _INTEGER.match(decoded):
        try:
            return int(decoded.split(".")[0]) == body
        except ValueError:
            return False
    if isinstance(body, str):
        return decoded == body
    rendered = encode_value(body)
    return rendered is not None and decoded == rendered


def name_source(method: str, params: Any) -> str | None:
    """The body value ``Mcp-Name`` mirrors for ``method`` (None: no Mcp-Name)."""
    if not isinstance(params, dict):
        return None
    key = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
           # the tasks extension (SEP-2663): the task id
           "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}.get(method)
    if key is None:
        return None
    value = params.get(key)
    return value if isinstance(value, str) else None


__all__ = [
    "HeaderParam",
    "PARAM_PREFIX",
    "decode_value",
    "encode_text",
    "encode_value",
    "header_params",
    "name_source",
    "needs_base64",
    "value_matches",
]
