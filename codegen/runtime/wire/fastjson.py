"""Native JSON parsing with ``orjson`` (the ``fast`` extra), used only where its value is
exactly the pure path's (:func:`wire.jsonrpc.decode`).

``orjson.loads`` and the standard decoder give the same value for any text both accept,
except: an integer beyond 64 bits (orjson makes it a float), and nesting past the
interpreter's recursion limit (the standard decoder refuses it, orjson reads up to 1024
levels).  So a text holding a run of 19 or more digits anywhere (strings included), or
nested deeper than :func:`max_depth` (counted on the parsed value when the text holds more
opening brackets than that), is left to the pure decoder, and so is everything
orjson refuses (invalid UTF-8 or JSON, lone surrogates, NaN, numbers beyond a double's
range, ...): the pure decoder then gives its own value or its own error.
"""

from __future__ import annotations

import sys
from typing import Any

from . import accelerator

#: Sentinel: orjson's answer is not taken (:func:`loads`).
MISS: Any = object()
#: Nesting beyond which the text goes to the pure decoder (it refuses deep nesting).
MAX_OPEN = 400
#: Digits -> ``0``, anything else -> space: a run of digits becomes a run of ``0``.
_DIGITS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"0" * 19
_loads: list[Any] = []


def _reset() -> None:
    _loads.clear()


accelerator.on_change(_reset)


def max_depth() -> int:
    """The deepest nesting taken from orjson: :data:`MAX_OPEN`, or less under a recursion
    limit lowered below twice that (the pure decoder's limit is the interpreter's)."""
    return min(MAX_OPEN, sys.getrecursionlimit() // 2)


def _within_depth(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return False
        for child in node.values() if type(node) is dict else node:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return True


def loads(data: bytes) -> Any:
    """``data`` parsed by orjson when that is exactly the pure decoder's value, else MISS."""
    if not _loads:
        orjson = accelerator.module("orjson")
        _loads.append(orjson.loads if orjson is not None else None)
    native = _loads[0]
    if native is None or _LONG_RUN in data.translate(_DIGITS):
        return MISS
    try:
        value = native(data)
    except ValueError:  # orjson.JSONDecodeError
        return MISS
    limit = max_depth()
    if data.count(b"[") + data.count(b"{") > limit and (type(value) is dict or type(value) is list) \
            and not _within_depth(value, limit):
        return MISS
    return value
