"""``pattern`` checked beside the models, without a JSON Schema validator.

The generated models leave ``pattern`` out (pydantic's regex engine is not ECMA-262).  When
every ``pattern`` of a schema applies *unconditionally* (it is reached from the root only
through ``properties``, ``items``, the ``additionalProperties`` of an object without
``properties``, and local ``$ref``), the data is valid exactly when the model accepts it and
each string at those locations matches its pattern.  :func:`pattern_checks` finds those
locations once per schema; :func:`pattern_errors` applies them to one value.  Anywhere else
(under ``anyOf``, ``if``, ``patternProperties`` ..., in a recursive schema) a pattern's
reach depends on the data, and the whole schema is checked instead (``schema_checked``).

The generator and the runtime both call :func:`pattern_checks`, so they agree on which
tools need the full check.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from .patterns import PatternError, compile_pattern

#: One step from a value to the values a subschema applies to: a property by name, every
#: item of an array, every value of an object.
Step = tuple[str, str]
_ITEM: Step = ("items", "")
_VALUE: Step = ("values", "")
#: Keywords whose subschemas apply only to some of the data, or conditionally.
_CONDITIONAL_ONE = ("not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems",
                    "unevaluatedProperties", "additionalItems")
_CONDITIONAL_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_CONDITIONAL_MAP = ("patternProperties", "dependentSchemas", "dependencies")
_IDS = ("$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef")
_MAX_CHECKS = 1000
_RECENT_DRAFTS = ("/draft/2020-12/", "/draft/2019-09/")


class PatternCheck(NamedTuple):
    """Strings at ``steps`` from the root must match ``pattern`` (as the schema wrote it)."""

    steps: tuple[Step, ...]
    pattern: str
    regex: re.Pattern[str]


class _Unsupported(Exception):
    pass


def local_target(root: Any, ref: str) -> Any:
    """The subschema a same-document ``$ref`` (``#`` or ``#/a/b``) names in ``root``.

    Raises:
        LookupError: another document, an anchor, or a pointer to nothing.
    """
    if not ref.startswith("#") or (len(ref) > 1 and not ref.startswith("#/")):
        raise LookupError(ref)
    node = root
    for token in ref[2:].split("/") if len(ref) > 1 else []:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        elif isinstance(node, Mapping) and token in node:
            node = node[token]
        else:
            raise LookupError(ref)
    return node


def pattern_checks(schema: Any) -> tuple[PatternCheck, ...] | None:
    """The unconditional pattern checks of ``schema`` (empty when it has no pattern), or None
    when a pattern's reach depends on the data (or it cannot be compiled)."""
    found: list[PatternCheck] = []
    draft = schema.get("$schema") if isinstance(schema, Mapping) else None
    try:
        if isinstance(draft, str) and not any(d in draft for d in _RECENT_DRAFTS) and _has_pattern(schema, schema, set()):
            return None  # older drafts ignore the siblings of $ref: leave it to the full check
        _visit(schema, schema, (), [], found)
    except (_Unsupported, LookupError, PatternError, RecursionError):
        return None
    return tuple(found)


def _visit(node: Any, root: Any, steps: tuple[Step, ...] | None, path: list[int], found: list[PatternCheck]) -> None:
    """Collect the patterns under ``node``; ``steps`` is None under a conditional keyword."""
    if not isinstance(node, Mapping):
        return
    if id(node) in path:  # a recursive schema: its patterns apply at unbounded depth
        if _has_pattern(node, root, set()):
            raise _Unsupported("recursive")
        return
    if any(k in node for k in _IDS):
        if _has_pattern(node, root, set()):
            raise _Unsupported("$id")
    path.append(id(node))
    try:
        if "pattern" in node:
            if steps is None or not isinstance(node["pattern"], str) or len(found) >= _MAX_CHECKS:
                raise _Unsupported("pattern")
            found.append(PatternCheck(steps, node["pattern"], compile_pattern(node["pattern"])))
        ref = node.get("$ref")
        if isinstance(ref, str):
            _visit(local_target(root, ref), root, steps, path, found)
        props = node.get("properties")
        if isinstance(props, Mapping):
            for name, sub in props.items():
                _visit(sub, root, None if steps is None else (*steps, ("property", name)), path, found)
        items = node.get("items")
        if isinstance(items, list):  # draft-07 tuple form
            for sub in items:
                _visit(sub, root, None, path, found)
        elif items is not None:
            plain = steps is not None and "prefixItems" not in node
            _visit(items, root, (*steps, _ITEM) if plain and steps is not None else None, path, found)
        extra = node.get("additionalProperties")
        if extra is not None:
            plain = steps is not None and not props and "patternProperties" not in node
            _visit(extra, root, (*steps, _VALUE) if plain and steps is not None else None, path, found)
        for key in _CONDITIONAL_ONE:
            if key in node:
                _visit(node[key], root, None, path, found)
        for key in _CONDITIONAL_LIST:
            if isinstance(node.get(key), list):
                for sub in node[key]:
                    _visit(sub, root, None, path, found)
        for key in _CONDITIONAL_MAP:
            if isinstance(node.get(key), Mapping):
                if key == "patternProperties" and node[key]:
                    raise _Unsupported(key)  # its keys are patterns too
                for sub in node[key].values():
                    _visit(sub, root, None, path, found)
    finally:
        path.pop()


def _has_pattern(node: Any, root: Any, seen: set[int]) -> bool:
    """Whether a pattern is reachable from ``node`` (through any keyword or ref)."""
    if isinstance(node, list):
        return any(_has_pattern(n, root, seen) for n in node)
    if not isinstance(node, Mapping) or id(node) in seen:
        return False
    seen.add(id(node))
    if "pattern" in node or "patternProperties" in node:
        return True
    ref = node.get("$ref")
    if isinstance(ref, str):
        try:
            if _has_pattern(local_target(root, ref), root, seen):
                return True
        except LookupError:
            return True  # cannot tell: assume the worst
    return any(_has_pattern(v, root, seen) for k, v in node.items() if k not in ("enum", "const", "default", "examples"))


def pattern_errors(checks: tuple[PatternCheck, ...], value: Any) -> list[tuple[tuple[int | str, ...], str]]:
    """(location, message) of every string of ``value`` that breaks its pattern."""
    errors = []
    for check in checks:
        level: list[Any] = [value]
        for kind, name in check.steps:  # the values the pattern applies to, one step at a time
            nxt: list[Any] = []
            if kind == "property":
                nxt.extend(v[name] for v in level if isinstance(v, dict) and name in v)
            elif kind == "items":
                for v in level:
                    if isinstance(v, list):
                        nxt.extend(v)
            else:
                for v in level:
                    if isinstance(v, dict):
                        nxt.extend(v.values())
            level = nxt
        search = check.regex.search
        if all(not isinstance(text, str) or search(text) is not None for text in level):
            continue
        for text, at in _located(value, check.steps, ()):  # rare: find where, for the message
            if isinstance(text, str) and search(text) is None:
                errors.append((at, f"{text!r} does not match {check.pattern!r}"))
    return errors


def _located(value: Any, steps: tuple[Step, ...], at: tuple[int | str, ...]) -> Iterator[tuple[Any, tuple[int | str, ...]]]:
    if not steps:
        yield value, at
        return
    (kind, name), rest = steps[0], steps[1:]
    if kind == "property":
        if isinstance(value, dict) and name in value:
            yield from _located(value[name], rest, (*at, name))
    elif kind == "items":
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield from _located(item, rest, (*at, i))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _located(item, rest, (*at, key))
