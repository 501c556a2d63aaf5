"""JSON data as the models read it: integral floats as integers, ``null`` located, and
values JSON cannot carry refused (in process, a handler or caller may hand over anything)."""

from __future__ import annotations

import math
from typing import Any

from ..wire import accelerator


def _scan(value: Any) -> tuple[bool, bool]:
    """(holds ``null``, holds an integral float) for a JSON value; no copying.

    Dict keys are not checked: every caller has them from JSON or made them strings.

    Raises:
        TypeError: it holds something JSON cannot carry (a set, a date ...).
        ValueError: it holds NaN or an infinity.
    """
    has_null = has_integral = False
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        t = type(item)
        if t is str or t is int or t is bool:
            continue
        if t is dict:
            push(item.values())
        elif t is float:
            if not _finite(item):
                raise ValueError("Out of range float values are not JSON compliant")
            if not has_integral and item.is_integer():
                has_integral = True
        elif t is list:
            push(item)
        elif item is None:
            has_null = True
        elif isinstance(item, dict):
            push(item.values())
        elif isinstance(item, list):
            push(item)
        elif isinstance(item, float):
            push([float(item)])
        elif not isinstance(item, (str, int)):
            raise TypeError(f"Object of type {type(item).__name__} is not JSON serializable")
    return has_null, has_integral


_finite = math.isfinite


def _as_int(item: Any) -> Any:
    if isinstance(item, float) and item.is_integer():
        return int(item)
    if isinstance(item, dict):
        return {k: _as_int(v) for k, v in item.items()}
    if isinstance(item, list):
        return [_as_int(v) for v in item]
    return item


def json_integers(value: Any) -> tuple[Any, bool]:
    """``value`` with integral floats as ints (``1.0`` -> ``1``), and whether it holds ``null``.

    JSON Schema's ``integer`` accepts ``1.0``; pydantic's strict ``int`` does not.  The value
    is copied only when it holds such a float (the common call has none).

    Raises:
        TypeError, ValueError: ``value`` is not JSON data (see :func:`_scan`).
    """
    has_null, has_integral = _scan(value)
    return (_as_int(value) if has_integral else value), has_null


def _clean_text(text: bytes) -> bool:
    """Whether orjson's text of plain JSON data holds no ``null`` (also how it writes NaN and
    infinities) and none of what every integral float it writes holds (``1.0``, ``-0.0``:
    ``.0`` and no digit after it; ``1e+16``: ``e+``).  Strings may hold them too: then the
    walk answers.  Substring searches at C speed (a regex alternation is much slower here)."""
    if b"null" in text or b"e+" in text:
        return False
    at = text.find(b".0")
    while at != -1:
        if not text[at + 2:at + 3].isdigit():
            return False
        at = text.find(b".0", at + 2)
    return True


_PASSTHROUGH: list[int] = []


def _passthrough(orjson: Any) -> int:
    if not _PASSTHROUGH:  # what orjson writes natively beyond JSON types, it refuses instead
        _PASSTHROUGH.append(orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATETIME
                            | orjson.OPT_PASSTHROUGH_DATACLASS)
    return _PASSTHROUGH[0]


def plain_json_integers(value: Any) -> tuple[Any, bool]:
    """:func:`json_integers` of ``value`` whose containers are exact ``dict`` and ``list`` and whose
    other values are exact ``str``, ``int``, ``float``, ``bool`` or ``None`` (the caller's
    promise: no tuple, no enum, no subclass), answered from orjson's text when the
    accelerator is on.

    For such a value the walk raises only for NaN and infinities, which orjson writes as
    ``null``; so a text without ``null`` and without the marks of an integral float is the
    walk's answer ``(value, False)``.  Anything else (orjson refuses the value, a mark is
    found) is the walk's own answer.
    """
    orjson = accelerator.module("orjson")
    if orjson is not None:
        try:
            text = orjson.dumps(value, option=_passthrough(orjson))
        except TypeError:  # orjson.JSONEncodeError: beyond 64 bits, a lone surrogate, too deep ...
            return json_integers(value)
        if _clean_text(text):
            return value, False
    return json_integers(value)
