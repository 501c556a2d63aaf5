"""The message size limits (string length, nesting depth): a pure walk, and the same check in
native code with the ``fast`` extra (``jsonschema-rs``), exact by construction.

:func:`exceeds_limits` asks jsonschema-rs first, with a schema that says what the pure walk
(:func:`exceeds_limits_walk`) checks: every string value and object key at most
``max_string`` characters (code points, as ``len``), nothing deeper than ``max_depth`` (the
top value at depth 0; a value at depth ``max_depth`` may only be an empty array or object,
or no container).  When jsonschema-rs accepts, the pure walk accepts too (it checks a
subset: it does not look inside tuples, which jsonschema-rs reads as arrays); anything else
(a violation, a value jsonschema-rs cannot read such as a set, a lone surrogate or a
non-string key) goes to the pure walk, which gives its own answer or error.

:func:`measured_within` answers without any walk when the JSON text a message was decoded
from proves the limits hold (:func:`wire.jsonrpc.decode_measured`); when it cannot, the
caller runs :func:`exceeds_limits` as before.
"""

from __future__ import annotations

from typing import Any

from ..wire import accelerator, fastjson


def _within_limits(item: Any, max_string: int, depth_left: int) -> bool:
    """Fast recursive check used by :func:`exceeds_limits_walk` (True: no limit broken).

    Leaves are checked inline (no call per string or number): most of a message is leaves.
    """
    if depth_left < 0:
        return False
    t = type(item)
    if t is dict:
        if item and (depth_left == 0 or max(map(len, item)) > max_string):
            return False  # children one level too deep, or a key too long
        children: Any = item.values()
    elif t is list:
        if item and depth_left == 0:
            return False
        children = item
    elif isinstance(item, str):
        return len(item) <= max_string
    elif isinstance(item, (dict, list)):  # subclasses: the general walk
        return _within_limits(dict(item) if isinstance(item, dict) else list(item), max_string, depth_left)
    else:
        return True
    for v in children:
        t = type(v)
        if t is str:
            if len(v) > max_string:
                return False
        elif (t is dict or t is list or t not in _SCALARS) and not _within_limits(v, max_string, depth_left - 1):
            return False
    return True


_SCALARS = frozenset({int, float, bool, type(None)})


def exceeds_limits_walk(value: Any, max_string: int, max_depth: int) -> str | None:
    """Why ``value`` breaks the string-length or nesting limit, or None if it does not."""
    if max_depth <= 256 and _within_limits(value, max_string, max_depth):
        return None  # the common case, without the walk below (which names the violation)
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return f"nesting deeper than {max_depth}"
        if isinstance(item, str):
            if len(item) > max_string:
                return f"string longer than {max_string} characters"
        elif isinstance(item, dict):
            for k, v in item.items():
                if len(k) > max_string:
                    return f"string longer than {max_string} characters"
                stack.append((v, depth + 1))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return None

_CHECKS: dict[tuple[int, int], Any] = {}


def _reset() -> None:
    _CHECKS.clear()


accelerator.on_change(_reset)


def limits_schema(max_string: int, max_depth: int) -> dict[str, Any]:
    """The JSON Schema of a value within the limits (see the module docstring)."""
    defs: dict[str, Any] = {
        f"d{d}": {"maxLength": max_string, "propertyNames": {"maxLength": max_string},
                  "items": {"$ref": f"#/$defs/d{d + 1}"}, "additionalProperties": {"$ref": f"#/$defs/d{d + 1}"}}
        for d in range(max_depth)
    }
    defs[f"d{max_depth}"] = {"maxLength": max_string, "maxItems": 0, "maxProperties": 0}
    return {"$ref": "#/$defs/d0", "$defs": defs}


def _native(max_string: int, max_depth: int) -> Any:
    key = (max_string, max_depth)
    if key not in _CHECKS:
        rs = accelerator.module("jsonschema_rs")
        check = None
        if rs is not None and 0 <= max_depth <= 256:
            try:
                check = rs.validator_for(limits_schema(max_string, max_depth), offline=True).is_valid
            except Exception:  # the library refused the schema: the pure walk
                check = None
        _CHECKS[key] = check
    return _CHECKS[key]


def exceeds_limits(value: Any, max_string: int, max_depth: int) -> str | None:
    """Why ``value`` breaks the string-length or nesting limit, or None: the answer of
    :func:`exceeds_limits_walk`."""
    native = _native(max_string, max_depth)
    if native is not None:
        try:
            if native(value):
                return None
        except Exception:  # a value the library cannot read: the pure walk decides
            pass
    return exceeds_limits_walk(value, max_string, max_depth)


def measured_within(text: bytes | None, max_string: int, max_depth: int, *, member: bool = False) -> bool:
    """Whether the valid JSON text ``text`` alone proves that the value decoded from it (or,
    with ``member``, any member of its top object: a message's ``params``) is within the
    limits, i.e. :func:`exceeds_limits` would answer None.  False means "not proven" (the
    walk decides), never "too big"; ``text`` None (no text known) proves nothing.

    Every character of a decoded string or key comes from at least one byte of its text
    (an escape gives one character for two to twelve bytes, UTF-8 one for one to four), so
    a text of at most ``max_string`` bytes holds no longer string.  The containers of a
    valid JSON text are its brackets outside strings (:func:`wire.fastjson.within_depth`):
    when none is nested deeper than ``max_depth`` (top one at 1), every container is at
    depth ``max_depth - 1`` at most (the top value at 0) and every value at ``max_depth``
    at most; a member of the top object is one level down, hence ``max_depth + 1`` there.
    """
    if text is None or len(text) > max_string or max_depth < 0:
        return False
    return fastjson.within_depth(text, max_depth + 1 if member else max_depth)


__all__ = ["exceeds_limits", "exceeds_limits_walk", "limits_schema", "measured_within"]
