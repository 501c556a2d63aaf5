"""Typed-call argument values as JSON data (for :func:`~client.results.wire_arguments`).

A model is its ``model_dump(mode="json", by_alias=True, exclude_unset=True)``, an enum its
value, a mapping or a list/tuple the same of each member.  A list whose members are all
models of one class whose dump is plain JSON data is dumped in one call, by a
``TypeAdapter(list[cls])`` built once per class: the same serializer runs for each member
with the same options (the list's own schema adds nothing), so the data is the members'
own dumps, without a Python call per member.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter

from ..schema.strictpy import json_native

_SCALARS = frozenset({str, int, float, bool, type(None)})
#: Model class -> whether its JSON-mode dump is plain JSON data (see :func:`plain_dump`).
_PLAIN_DUMPS: dict[type, bool] = {}
#: Model class -> the ``dump_python`` of ``TypeAdapter(list[cls])``, or None (plain dumps only).
_LIST_DUMPS: dict[type, Any] = {}


def plain_dump(cls: type[BaseModel]) -> bool:
    """Whether the JSON-mode dump of a ``cls`` instance is plain JSON data: its core schema
    holds only JSON-native nodes and string enums (:func:`~schema.strictpy.json_native`),
    and no serializer of its own or computed field (which could return anything)."""
    found = _PLAIN_DUMPS.get(cls)
    if found is None:
        schema = getattr(cls, "__pydantic_core_schema__", None)
        found = _PLAIN_DUMPS[cls] = isinstance(schema, dict) and json_native(schema) \
            and not _holds_key(schema, ("serialization", "computed_fields"))
    return found


def _holds_key(node: Any, keys: tuple[str, ...]) -> bool:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if any(item.get(key) for key in keys):
                return True
            stack.extend(v for k, v in item.items() if k not in ("cls", "metadata"))
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def _list_dump(cls: type[BaseModel]) -> Any:
    """``TypeAdapter(list[cls]).dump_python`` for a class with a plain dump, else None."""
    if cls not in _LIST_DUMPS:
        dump = None
        if plain_dump(cls):
            try:
                dump = TypeAdapter(list[cls]).dump_python  # type: ignore[valid-type]
            except Exception:  # a class pydantic cannot adapt (not fully defined ...): one by one
                dump = None
        _LIST_DUMPS[cls] = dump
    return _LIST_DUMPS[cls]


def jsonable(value: Any, odd: list[Any]) -> Any:
    """``value`` as JSON data; ``odd`` hears of every part that may not be plain JSON data
    (a value of another type, the dump of a model with serializers of its own)."""
    if type(value) is list and value and isinstance(value[0], BaseModel):
        cls = type(value[0])
        if all(type(item) is cls for item in value):
            dump = _list_dump(cls)
            if dump is not None:
                return dump(value, mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, BaseModel):
        if not plain_dump(type(value)):
            odd.append(value)
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, enum.Enum):
        return jsonable(value.value, odd)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v, odd) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v, odd) for v in value]
    if type(value) not in _SCALARS:
        odd.append(value)
    return value


__all__ = ["jsonable", "plain_dump"]
