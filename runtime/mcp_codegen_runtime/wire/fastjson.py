"""Native JSON parsing: ``orjson`` (the ``fast`` extra), used only where its value is exactly
the pure path's (:func:`wire.jsonrpc.decode`).

``orjson.loads`` and the standard decoder give the same value for any text both accept,
except: an integer beyond 64 bits (orjson makes it a float), and nesting past the
interpreter's recursion limit (the standard decoder refuses it, orjson reads up to 1024
levels).  So a text holding a run of 19 or more digits anywhere (strings included), or
nested deeper than :func:`max_depth` (counted on the text's brackets outside strings when it
holds more opening brackets than that: :func:`within_depth`), is left to the pure decoder, and so is everything
orjson refuses (invalid UTF-8 or JSON, lone surrogates, NaN, numbers beyond a double's
range, ...): the pure decoder then gives its own value or its own error.
"""

from __future__ import annotations

import sys
from array import array
from itertools import accumulate
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


#: Every byte but a backslash, a quote or a bracket (deleted from the skeleton of a text).
_NOT_SKELETON = bytes(b for b in range(256) if b not in b'\\"[]{}')
#: ``(`` -> 1, ``)`` -> -1 (as signed bytes).
_STEPS = bytes.maketrans(b"()", b"\x01\xff")
#: Opening bracket -> ``(``, closing bracket -> ``)``.
_PAIRS = bytes.maketrans(b"[{]}", b"(())")
#: Innermost pairs dropped before the brackets left are walked (:func:`within_depth`).
_PEEL = 8


def within_depth(data: bytes, limit: int) -> bool:
    """Whether no array or object of the valid JSON text ``data`` is nested deeper than
    ``limit`` (the top one at depth 1), read on the text at C speed.

    Outside strings, the brackets of a valid JSON text are its containers, nested as they
    are.  Inside a string a backslash always starts an escape, so dropping every escaped
    backslash (``\\\\``, paired from the left as the decoder reads them) and then every
    escaped quote leaves exactly the strings' delimiters as quotes.  In the skeleton (quotes
    and brackets only), dropping two adjacent quotes leaves every bracket inside or outside
    a string as it was (they open and close a string without brackets, or close one and
    open the next with nothing between); the quotes left then enclose the brackets of
    strings, dropped with them.
    """
    skeleton = data.translate(None, _NOT_SKELETON)
    if b"\\" in skeleton:  # escapes: dropped from the text itself (what follows a backslash matters)
        skeleton = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_SKELETON)
    skeleton = skeleton.replace(b'""', b"")
    if b'"' in skeleton:  # strings holding brackets: every other piece between quotes is outside them
        skeleton = b"".join(skeleton.split(b'"')[::2])
    # Each pass drops every innermost pair (a container at the deepest level holds no other):
    # one level less a pass; a few passes settle most texts without a walk over every bracket.
    skeleton = skeleton.translate(_PAIRS)
    peeled = min(limit, _PEEL)
    for _ in range(peeled):
        if not skeleton:
            return True
        skeleton = skeleton.replace(b"()", b"")
    if not skeleton:
        return True
    return peeled < limit and max(accumulate(array("b", skeleton.translate(_STEPS)))) <= limit - peeled


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
            and not within_depth(data, limit):
        return MISS
    return value
