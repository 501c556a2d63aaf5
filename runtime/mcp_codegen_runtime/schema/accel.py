"""The native argument check of the ``fast`` extra (``jsonschema-rs``), exact by construction.

With the accelerator on (:mod:`wire.accelerator`), a tool's arguments are validated once, in
native code, against the tool's original ``inputSchema``; only then is the typed model built
(pydantic-core, strict, as on the pure path).  The answer is the pure path's in every case:

* **valid** (the native check and the model both accept): the pure path accepts too (its
  model is the same model on the same data; its other checks, the schema or the patterns
  paired with the model, are the schema's), and the handler gets the same model;
* anything else (the native check refuses, the model refuses, the native library fails):
  the pure path runs from the start and gives its own answer and its own errors.

A tool stays on the pure path, decided when it is first called (then cached), when the
native check could differ from the pure one for its schema:

* formats are asserted (``server.formatAssertion``): jsonschema-rs checks formats its own way;
* the schema names a ``$schema`` other than draft 2020-12, or cannot be built offline (a
  remote ``$ref``: the pure path refuses to fetch it, and says so in its error);
* a ``patternProperties`` key is not in the plain subset below, or a pattern has no Python
  translation (the pure path then leaves it unenforced, with a warning).

Patterns keep their ECMA-262 meaning: a pattern in the plain subset (ASCII letters, digits,
space and ``_-:,`` literals, classes of those and of ranges such as ``A-Z``, ``{n}``/``{n,}``/``{n,m}``/``*``/``+``/``?``
quantifiers, ``^`` first and ``$`` last) means the same to Rust's regex, ECMA-262 and
Python, and is left to jsonschema-rs; any other ``pattern`` is replaced by a keyword that
calls the pure path's own translation (:mod:`schema.patterns`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..wire import accelerator
from ..wire.tools import ToolDef
from .patterns import PatternError, compile_pattern

#: The keyword that stands for a ``pattern`` outside the plain subset.
ECMA_KEYWORD = "x-mcp-codegen-ecma-pattern"
_DRAFT_2020_12 = {"https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"}
_PLAIN_ATOM = r"(?:[A-Za-z0-9 _:,-]|\[(?:[A-Za-z0-9]-[A-Za-z0-9]|[A-Za-z0-9 _:,])+\])"
_PLAIN = re.compile(r"\^?(?:" + _PLAIN_ATOM + r"(?:\{\d{1,4}(?:,\d{0,4})?\}|[*+?])?)*\$?")
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties")
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "$defs", "definitions", "dependentSchemas")

#: id(schema) -> (schema, the native check or None for the pure path).
_CHECKS: dict[int, tuple[Any, Callable[[Any], bool] | None]] = {}
#: How many tools each path took (tests make sure the accelerated run was accelerated).
counts = {"native": 0, "pure": 0}


def _reset() -> None:
    _CHECKS.clear()


accelerator.on_change(_reset)


class _Inexact(Exception):
    """The native check could differ from the pure path's for this schema."""


def plain_pattern(pattern: str) -> bool:
    """Whether ``pattern`` is in the subset Rust's regex, ECMA-262 and Python read alike."""
    return _PLAIN.fullmatch(pattern) is not None


class _EcmaPattern:
    """``pattern`` with the pure path's ECMA-262 translation (a jsonschema-rs keyword)."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        self.search = compile_pattern(value).search

    def validate(self, instance: Any) -> None:
        if isinstance(instance, str) and self.search(instance) is None:
            raise ValueError("does not match the pattern")


def _native_schema(schema: Any) -> Any:
    """``schema`` with every ``pattern`` outside the plain subset as :data:`ECMA_KEYWORD`
    (walked as :func:`schema.validation.python_patterns` walks it)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and not plain_pattern(pattern):
        try:
            compile_pattern(pattern)
        except PatternError:
            raise _Inexact(f"pattern {pattern!r} has no Python translation") from None
        del out["pattern"]
        out[ECMA_KEYWORD] = pattern
    props = schema.get("patternProperties")
    if isinstance(props, dict):
        for key in props:
            if not plain_pattern(key):
                raise _Inexact(f"patternProperties key {key!r}")
        out["patternProperties"] = {k: _native_schema(s) for k, s in props.items()}
    for key in _ONE:
        if key in schema:
            out[key] = _native_schema(schema[key])
    for key in _LIST:
        if isinstance(schema.get(key), list):
            out[key] = [_native_schema(s) for s in schema[key]]
    for key in _MAP:
        if isinstance(schema.get(key), dict):
            out[key] = {k: _native_schema(s) for k, s in schema[key].items()}
    return out


def _left_patterns(schema: Any) -> bool:
    """Whether a string ``pattern`` member outside the plain subset is left anywhere (a place
    the walk does not reach, or data such as a ``const``: either way the tool stays on the
    pure path)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            pattern = node.get("pattern")
            if isinstance(pattern, str) and not plain_pattern(pattern):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _build(tool: ToolDef, schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    rs = accelerator.module("jsonschema_rs")
    if rs is None:
        raise _Inexact("jsonschema-rs is not installed")
    if tool.assert_formats:
        raise _Inexact("formats are asserted")
    if not isinstance(schema, dict):
        raise _Inexact("the schema is not an object")
    declared = schema.get("$schema")
    if declared is not None and declared not in _DRAFT_2020_12:
        raise _Inexact(f"$schema {declared!r}")
    native = _native_schema(schema)
    if _left_patterns(native):
        raise _Inexact("a pattern the walk does not reach")
    try:
        validator = rs.validator_for(native, validate_formats=False, offline=True,
                                     keywords={ECMA_KEYWORD: _EcmaPattern})
        validator.is_valid({})  # resolves every $ref now: a missing one is found here
    except Exception as exc:  # the library's own errors (a remote $ref, a regex it cannot compile ...)
        raise _Inexact(f"jsonschema-rs: {type(exc).__name__}") from None
    is_valid: Callable[[Any], bool] = validator.is_valid
    return is_valid


def input_check(tool: ToolDef) -> Callable[[Any], bool] | None:
    """The native check of ``tool``'s arguments, or None: the pure path (no accelerator, or
    its answer could differ for this schema; see the module docstring)."""
    schema = tool.wire.get("inputSchema", {})
    cached = _CHECKS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    check: Callable[[Any], bool] | None
    if not accelerator.enabled():
        check = None
    else:
        try:
            check = _build(tool, schema)
        except _Inexact:
            check = None
        counts["native" if check is not None else "pure"] += 1
    _CHECKS[id(schema)] = (schema, check)
    return check


def accepts(check: Callable[[Any], bool], value: Any) -> bool:
    """Whether the native check accepts ``value`` (False when it cannot tell: the pure path decides)."""
    try:
        return bool(check(value))
    except Exception:  # a value the library cannot read (recursion, a type it refuses ...)
        return False
