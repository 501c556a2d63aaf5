"""The in-process copy of a message through JSON, natively with the ``fast`` extra, exact by
construction.

An in-process connection copies every message through JSON (``jsonrpc.decode(jsonrpc.encode(m))``),
so neither side aliases the other's data and what JSON cannot carry fails as on a wire.
:func:`json_copy` gives that copy's value, or raises its exception, and takes orjson's round
trip only where the two are the same value: a message made of plain JSON data alone (exact
``dict`` with exact ``str`` keys, ``list``, ``str``, ``int``, finite ``float``, ``bool``,
``None``: no subclass, no enum, no tuple), which orjson writes and reads back (it refuses
integers beyond 64 bits, lone surrogates and nesting past 255 levels; those go to the pure
copy, which gives its own value or error).  For plain data the standard encoder and decoder
give back equal strings, integers and floats (both write a float's shortest round-trip form)
in the same key order, so both copies are equal.  The pure copy's encoder recurses once per
level of nesting: the native copy is taken only while the interpreter allows 1,000 frames.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from ..wire import accelerator, jsonrpc

#: The interpreter's recursion limit below which every copy is the pure one.
MIN_RECURSION_LIMIT = 1000
_finite = math.isfinite


def plain_json(value: Any) -> bool:
    """Whether ``value`` is plain JSON data (see the module docstring); no copying."""
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        t = type(item)
        if t is str or t is int or t is bool or item is None:
            continue
        if t is dict:
            push(item)  # keys: an int, float, bool or None one passes here and orjson refuses it
            push(item.values())
        elif t is list:
            push(item)
        elif t is not float or not _finite(item):
            return False
    return True


def json_copy(message: Any) -> Any:
    """``jsonrpc.decode(jsonrpc.encode(message))``: its value, or its exception.

    Raises:
        TypeError, ValueError: ``message`` is not JSON data (from ``jsonrpc.encode``).
        ParseError: the encoded text cannot be read back (from ``jsonrpc.decode``).
    """
    return json_copy_measured(message)[0]


def json_copy_measured(message: Any) -> tuple[Any, bytes]:
    """:func:`json_copy`, and the JSON text the copy was read from (orjson's or
    ``jsonrpc.encode``'s: one valid JSON text, for ``server.sizelimits.measured_within``).

    Raises:
        As :func:`json_copy`.
    """
    orjson = accelerator.module("orjson")
    if orjson is not None and sys.getrecursionlimit() >= MIN_RECURSION_LIMIT and plain_json(message):
        try:
            text = orjson.dumps(message)
            return orjson.loads(text), text
        except (TypeError, ValueError):  # beyond 64 bits, a lone surrogate, too deep: the pure copy
            pass
    text = jsonrpc.encode(message)
    return jsonrpc.decode(text), text


__all__ = ["json_copy", "json_copy_measured", "plain_json"]
