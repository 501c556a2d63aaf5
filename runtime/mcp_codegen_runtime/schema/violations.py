"""Client-safe descriptions of how a tool's result breaks its output schema.

A result is the server's data, so the ``{"path", "message"}`` records that tell a client which
field broke (``data.errors`` of the -32603 ``mcp-codegen.invalid_output`` error, and the
client's own :class:`~wire.errors.OutputValidationError`) never carry a value of it: pydantic's
errors are taken without their ``input``, jsonschema's messages with the failing instance
replaced by ``value`` (:func:`~schema.validation.schema_errors` with ``values=False``), and,
as a last guard, every string of the result that still appears in a message is cut out.  At
most :data:`MAX_VIOLATIONS` records, each path and message at most :data:`MAX_TEXT` characters.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

#: At most this many records per error.
MAX_VIOLATIONS = 10
#: At most this many characters per path and per message.
MAX_TEXT = 200
#: Strings this short are too common to cut out of a message where they are not quoted.
_MIN_BARE = 8


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    """Every string in ``value`` (keys are field names, not values; models are dumped)."""
    if depth > 200:
        return
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True)
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item, depth + 1)


def _cap(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def scrub(message: str, strings: list[str]) -> str:
    """``message`` with each of ``strings`` it contains cut out (quoted ones become ``value``)."""
    for text in strings:
        if text not in message and repr(text) not in message:
            continue
        for quoted in (repr(text), '"' + text.replace('"', '\\"') + '"', "'" + text + "'"):
            message = message.replace(quoted, "value")
        if len(text) >= _MIN_BARE:
            message = message.replace(text, "…")
    return message


def redacted(errors: list[dict[str, str]], value: Any) -> list[dict[str, str]]:
    """``errors`` (``{"path", "message"}``) made safe to send: no string of ``value`` in a
    message, capped in number and length."""
    errors = errors[:MAX_VIOLATIONS]
    strings = sorted({s for s in _strings(value) if s}, key=len, reverse=True) if errors else []
    return [{"path": _cap(str(e.get("path", ""))), "message": _cap(scrub(str(e.get("message", "")), strings))}
            for e in errors]


def location(loc: tuple[int | str, ...] | list[Any]) -> str:
    """A field path as these records spell it: ``a.b[0]`` (``""`` for the whole value)."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


#: pydantic error types whose message names a model class: said in JSON's words instead.
_OBJECT_EXPECTED = frozenset({"model_type", "model_attributes_type", "dataclass_type", "dataclass_exact_type"})
#: pydantic error types whose last location part is a key the value lacks (or should not have).
_KEY_ERRORS = frozenset({"missing", "extra_forbidden"})


def field_path(loc: tuple[int | str, ...] | list[Any], value: Any, kind: str = "") -> tuple[int | str, ...]:
    """The part of pydantic's ``loc`` that is a path into ``value``: the tags pydantic adds for a
    union's member (``Author``, ``constrained-str``, ``list[int]``) are no field, so a step that
    the value does not have is left out (a key it lacks, named last by a ``missing`` error, stays)."""
    out: list[int | str] = []
    node = value
    for i, part in enumerate(loc):
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        elif not (i == len(loc) - 1 and kind in _KEY_ERRORS):
            continue  # a union member's tag
        out.append(part)
    return tuple(out)


def model_errors(exc: ValidationError, value: Any) -> list[dict[str, str]]:
    """A model's refusal of ``value`` as ``{"path", "message"}`` records, without pydantic's
    ``input`` and without its class names: the path is the field's only (:func:`field_path`)."""
    out: list[dict[str, str]] = []
    for err in exc.errors(include_url=False, include_context=False, include_input=False):
        message = "Input should be an object" if err["type"] in _OBJECT_EXPECTED else err["msg"]
        record = {"path": location(field_path(err["loc"], value, err["type"])), "message": message}
        if record not in out:
            out.append(record)
    return out


def without_instance(error: Any) -> str:
    """A jsonschema error's message with the failing instance (quoted by ``repr``) as ``value``."""
    shown = repr(error.instance)
    return str(error.message).replace(shown, "value") if shown else str(error.message)


def one(message: str) -> list[dict[str, str]]:
    """A single record about the whole value."""
    return [{"path": "", "message": message}]
