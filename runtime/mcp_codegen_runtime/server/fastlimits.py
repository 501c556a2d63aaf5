"""The message size limits (string length, nesting depth) checked in native code with the
``fast`` extra (``jsonschema-rs``), exact by construction.

:func:`exceeds_limits` asks jsonschema-rs first, with a schema that says what the pure walk
(:func:`server.security.exceeds_limits`) checks: every string value and object key at most
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
from .security import exceeds_limits as pure_exceeds_limits

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
    :func:`server.security.exceeds_limits`."""
    native = _native(max_string, max_depth)
    if native is not None:
        try:
            if native(value):
                return None
        except Exception:  # a value the library cannot read: the pure walk decides
            pass
    return pure_exceeds_limits(value, max_string, max_depth)


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


__all__ = ["exceeds_limits", "limits_schema", "measured_within"]
