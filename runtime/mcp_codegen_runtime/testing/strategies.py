"""Hypothesis strategies made from JSON Schemas (draft 2020-12): the arguments of a tool.

:func:`from_schema` builds a strategy of JSON values for a schema; :func:`tool_arguments` the
strategy of a tool's input models, each value the model the server hands its handler
(:func:`~schema.validation.validate_arguments`, the server's own check, so a drawn model is
exactly what a real call would give).  Imported only when a test uses strategies: it needs
``hypothesis`` and ``jsonschema`` (``pip install hypothesis jsonschema``, or the ``testing``
extra of a generated package).

What is built directly (every draw valid by construction): ``type`` (and lists of types),
``const``, ``enum``, numeric bounds (``minimum``/``maximum``, the exclusive ones,
``multipleOf``), string lengths, ``format`` (dates, times, e-mail, URIs, UUIDs, IP addresses,
host names, durations, ``byte``), ``pattern`` (ECMA-262, through :mod:`~schema.patterns` and
``st.from_regex``), arrays (``items``, ``prefixItems``, sizes, ``uniqueItems``), objects
(``properties``, ``required``, ``additionalProperties``, ``patternProperties`` of declared
names), local ``$ref`` (recursion through ``st.deferred``), ``anyOf``/``oneOf`` (a branch each)
and ``allOf`` (merged).  Whatever else a schema says (``not``, ``if``/``then``, ``contains``,
``dependentRequired``, property counts, ``oneOf`` exclusivity, conflicting ``allOf`` parts) is
enforced by filtering the draws with ``jsonschema``, so every value validates.  A boolean
schema ``false`` (or a contradiction) gives ``st.nothing()``.

Why not ``hypothesis-jsonschema``: with the Hypothesis releases this runtime is tested on, its
object strategies fail; and building from the same keyword subset the runtime's models express
keeps draws inside what the server accepts.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

import jsonschema  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional: the testing extra
from hypothesis import strategies as st  # type: ignore[import-not-found, unused-ignore]  # optional: the testing extra
from pydantic import BaseModel

from ..schema.patterns import PatternError, compile_pattern
from ..schema.validation import ArgumentsInvalid, python_patterns, validate_arguments
from ..wire.tools import ToolDef

M = TypeVar("M", bound=BaseModel)

#: The integers drawn when a schema gives no bound: I-JSON's exact range, what every peer reads alike.
SAFE_INT = 2**53 - 1
#: Extra items or properties drawn beyond the minimum (keeps recursive schemas small).
EXTRA = 3
#: Keywords :func:`from_schema` does not build from: a schema with one is filtered by ``jsonschema``.
_FILTERED = frozenset({"not", "if", "then", "else", "contains", "minContains", "maxContains", "dependentRequired",
                       "dependentSchemas", "minProperties", "maxProperties", "propertyNames", "unevaluatedProperties",
                       "unevaluatedItems"})
#: Keywords that say nothing about validity.
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
                          "$comment", "$schema", "$id", "$anchor", "$defs", "definitions", "contentMediaType",
                          "x-python-name"})

_LABEL = "[a-z][a-z0-9]{0,7}"
#: format -> how to draw it (values every common checker and pydantic accept).
_FORMATS: dict[str, Callable[[], st.SearchStrategy[str]]] = {
    "date-time": lambda: st.datetimes(datetime(1970, 1, 1), datetime(2100, 1, 1)).map(
        lambda d: d.replace(microsecond=0, tzinfo=UTC).isoformat().replace("+00:00", "Z")),
    "date": lambda: st.dates(datetime(1970, 1, 1).date(), datetime(2100, 1, 1).date()).map(lambda d: d.isoformat()),
    "time": lambda: st.times().map(lambda t: t.replace(microsecond=0).isoformat() + "Z"),
    "email": lambda: st.from_regex(rf"\A{_LABEL}@{_LABEL}\.(com|org|net)\Z"),
    "idn-email": lambda: st.from_regex(rf"\A{_LABEL}@{_LABEL}\.(com|org|net)\Z"),
    "hostname": lambda: st.from_regex(rf"\A{_LABEL}(\.{_LABEL}){{0,2}}\Z"),
    "idn-hostname": lambda: st.from_regex(rf"\A{_LABEL}(\.{_LABEL}){{0,2}}\Z"),
    "uri": lambda: st.from_regex(rf"\Ahttps://{_LABEL}\.example(/[a-z0-9]{{1,8}}){{0,3}}\Z"),
    "iri": lambda: st.from_regex(rf"\Ahttps://{_LABEL}\.example(/[a-z0-9]{{1,8}}){{0,3}}\Z"),
    "url": lambda: st.from_regex(rf"\Ahttps://{_LABEL}\.example(/[a-z0-9]{{1,8}}){{0,3}}\Z"),
    "uri-reference": lambda: st.from_regex(r"\A(/[a-z0-9]{1,8}){0,3}\Z"),
    "iri-reference": lambda: st.from_regex(r"\A(/[a-z0-9]{1,8}){0,3}\Z"),
    "uri-template": lambda: st.from_regex(rf"\Ahttps://{_LABEL}\.example/\{{[a-z]{{1,5}}\}}\Z"),
    "json-pointer": lambda: st.from_regex(r"\A(/[a-z0-9]{1,5}){0,3}\Z"),
    "relative-json-pointer": lambda: st.from_regex(r"\A[0-9](/[a-z0-9]{1,5}){0,3}\Z"),
    "uuid": lambda: st.uuids().map(str),
    "ipv4": lambda: st.ip_addresses(v=4).map(str),
    "ipv6": lambda: st.ip_addresses(v=6).map(str),
    "duration": lambda: st.from_regex(r"\AP[1-9][0-9]{0,2}D\Z"),
    "regex": lambda: st.from_regex(r"\A[a-z]{1,5}\Z"),
    "byte": lambda: st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode("ascii")),
}


def _json_key(value: Any) -> Any:
    """What JSON Schema compares for ``uniqueItems`` and ``enum`` (1 == 1.0, but true != 1)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, float) and value.is_integer():
        return ("n", int(value))
    if isinstance(value, (int, float)):
        return ("n", value)
    if isinstance(value, list):
        return ("a", tuple(_json_key(v) for v in value))
    if isinstance(value, dict):
        return ("o", tuple(sorted((k, _json_key(v)) for k, v in value.items())))
    return ("s", value)


def _json_values() -> st.SearchStrategy[Any]:
    """Any JSON value (a schema that says nothing)."""
    scalars = st.none() | st.booleans() | st.integers(-SAFE_INT, SAFE_INT) | st.floats(allow_nan=False, allow_infinity=False) | st.text()
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=EXTRA) | st.dictionaries(st.text(), inner, max_size=EXTRA),
                        max_leaves=8)


class SchemaStrategies:
    """The strategies of one schema document (``root``: where local ``$ref`` s resolve)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self._refs: dict[str, st.SearchStrategy[Any]] = {}
        # jsonschema reads patterns with Python's re: the runtime's ECMA-262 translation first
        self._validator: Any = jsonschema.Draft202012Validator(python_patterns(root) if isinstance(root, (dict, bool)) else {})

    # -- the document -----------------------------------------------------------------------

    def valid(self, schema: Any, *, formats: bool = False) -> Callable[[Any], bool]:
        """A predicate: ``schema`` (a part of the root) accepts the value (``formats``: asserted)."""
        check = self._validator.evolve(schema=python_patterns(schema))
        if formats:
            check = check.evolve(format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        return cast(Callable[[Any], bool], check.is_valid)

    def resolve(self, ref: str) -> Any:
        """The schema a local ``$ref`` (``#``, ``#/$defs/X`` ...) points to."""
        if not ref.startswith("#"):
            raise ValueError(f"only local $ref are supported, not {ref!r}")
        if len(ref) > 1 and ref[1] != "/":  # a plain-name fragment: the subschema with that $anchor
            return _anchored(self.root, ref[1:])
        node = self.root
        for token in (t for t in ref[1:].split("/") if t):
            token = token.replace("~1", "/").replace("~0", "~")
            node = node[int(token)] if isinstance(node, list) else node[token]
        return node

    def _ref(self, ref: str) -> st.SearchStrategy[Any]:
        """One deferred strategy per reference, so recursive schemas terminate."""
        if ref not in self._refs:
            self._refs[ref] = st.deferred(lambda: self.build(self.resolve(ref)))
        return self._refs[ref]

    # -- any schema -------------------------------------------------------------------------

    def build(self, schema: Any) -> st.SearchStrategy[Any]:
        """The strategy of ``schema`` (see the module docstring)."""
        if schema is True or schema == {}:
            return _json_values()
        if schema is False or not isinstance(schema, Mapping):
            return st.nothing()
        strategy = self._construct(schema)
        if _FILTERED & schema.keys():
            strategy = strategy.filter(self.valid(schema))
        return strategy

    def _construct(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        if "$ref" in schema:
            rest = {k: v for k, v in schema.items() if k != "$ref" and k not in _ANNOTATIONS}
            target = self._ref(schema["$ref"])
            return target if not rest else target.filter(self.valid(rest))
        if "const" in schema:
            return st.just(schema["const"]).filter(self.valid(schema))
        if "enum" in schema:
            values = list(schema["enum"])
            return st.sampled_from(values).filter(self.valid(schema)) if values else st.nothing()
        if "allOf" in schema:
            return self._all_of(schema)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                rest = {k: v for k, v in schema.items() if k != key}
                branches = [self.build(_merge(rest, b) if isinstance(b, Mapping) else b) for b in schema[key]]
                return st.one_of(branches).filter(self.valid(schema)) if branches else st.nothing()
        return self._typed(schema)

    def _all_of(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        parts = [{k: v for k, v in schema.items() if k != "allOf"}, *schema["allOf"]]
        if any(p is False for p in parts):
            return st.nothing()
        merged: dict[str, Any] = {}
        for part in parts:
            if isinstance(part, Mapping):
                merged = _merge(merged, self._inline(part))
        return self.build(merged).filter(self.valid(schema))

    def _inline(self, schema: Mapping[str, Any], depth: int = 0) -> Mapping[str, Any]:
        """``schema`` with a top-level ``$ref`` replaced by its target (to merge ``allOf`` parts)."""
        if "$ref" not in schema or depth > 8:
            return schema
        target = self.resolve(schema["$ref"])
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return _merge(self._inline(target, depth + 1), rest) if isinstance(target, Mapping) else rest

    def _typed(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        kinds = schema.get("type")
        if kinds is None:
            kinds = _implied_types(schema)
        elif isinstance(kinds, str):
            kinds = [kinds]
        makers: dict[str, Callable[[Mapping[str, Any]], st.SearchStrategy[Any]]] = {
            "null": lambda s: st.none(), "boolean": lambda s: st.booleans(), "integer": self._integer,
            "number": self._number, "string": self._string, "array": self._array, "object": self._object}
        options = [makers[k](schema) for k in kinds if k in makers]
        return st.one_of(options) if options else st.nothing()

    # -- scalars ----------------------------------------------------------------------------

    def _integer(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        low, high = _bounds(schema, integer=True)
        step = schema.get("multipleOf")
        if isinstance(step, (int, float)) and step > 0:
            first, last = math.ceil(low / step), math.floor(high / step)
            if first > last:
                return st.nothing()
            strategy = st.integers(first, last).map(lambda k: k * step)
            if isinstance(step, float):  # k * 0.5 may be 3.0: an integer in JSON, still a float here
                strategy = strategy.filter(lambda v: float(v).is_integer()).map(int)
            return strategy.filter(lambda v: low <= v <= high)
        return st.integers(low, high) if low <= high else st.nothing()

    def _number(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        step = schema.get("multipleOf")
        if isinstance(step, (int, float)) and step > 0:
            lowest, highest = _bounds(schema, integer=False)
            first = math.ceil(lowest / step)
            last = math.floor(highest / step)
            if first > last:
                return st.nothing()
            return st.integers(first, last).map(lambda k: k * step).filter(self.valid(_numeric(schema)))
        minimum, maximum = schema.get("minimum"), schema.get("maximum")
        exclusive_low, exclusive_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        low = max((v for v in (minimum, exclusive_low) if isinstance(v, (int, float))), default=None)
        high = min((v for v in (maximum, exclusive_high) if isinstance(v, (int, float))), default=None)
        floats = st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False,
                           exclude_min=low is not None and low == exclusive_low and low != minimum,
                           exclude_max=high is not None and high == exclusive_high and high != maximum)
        ints_low, ints_high = _bounds(schema, integer=True)
        integers = st.integers(ints_low, ints_high) if ints_low <= ints_high else st.nothing()
        return (integers | floats).filter(self.valid(_numeric(schema)))

    def _string(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        low = int(schema.get("minLength", 0))
        high = schema.get("maxLength")
        high = int(high) if isinstance(high, (int, float)) else None
        if high is not None and high < low:
            return st.nothing()

        def sized(s: str) -> bool:
            return len(s) >= low and (high is None or len(s) <= high)

        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            try:
                compiled = compile_pattern(pattern)
            except PatternError:
                return st.nothing()
            strategy = _from_regex(compiled, low, high)
            fmt = schema.get("format")
            if isinstance(fmt, str) and fmt in _FORMATS:  # both: the pattern draws, the format is checked
                strategy = strategy.filter(self.valid({"type": "string", "format": fmt}, formats=True))
            return strategy.filter(sized)
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            return _FORMATS[fmt]().filter(sized)
        if schema.get("contentEncoding") == "base64":
            return _FORMATS["byte"]().filter(sized)
        return st.text(min_size=low, max_size=high if high is not None else low + 12)

    # -- containers -------------------------------------------------------------------------

    def _array(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        low = int(schema.get("minItems", 0))
        high = schema.get("maxItems")
        high = int(high) if isinstance(high, (int, float)) else low + EXTRA
        prefix = [self.build(s) for s in schema.get("prefixItems", [])]
        items = schema.get("items", True)
        if items is False:
            high = min(high, len(prefix))
        if high < low:
            return st.nothing()
        unique = bool(schema.get("uniqueItems"))
        rest = self.build(items)
        if not prefix:
            return st.lists(rest, min_size=low, max_size=high, unique_by=_json_key if unique else None)
        head = st.tuples(*prefix[:high]).map(list)
        tail = st.lists(rest, min_size=max(0, low - len(prefix)), max_size=max(0, high - len(prefix)))
        strategy = st.builds(lambda h, t: h + t, head, tail).filter(lambda v: low <= len(v) <= high)
        if unique:
            strategy = strategy.filter(lambda v: len({_json_key(x) for x in v}) == len(v))
        return strategy

    def _object(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        properties: Mapping[str, Any] = schema.get("properties", {})
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        patterns: Mapping[str, Any] = schema.get("patternProperties", {})
        extra = schema.get("additionalProperties", True)

        def prop(name: str) -> st.SearchStrategy[Any]:
            own = [properties[name]] if name in properties else []
            matching = [s for p, s in patterns.items() if _searches(p, name)]
            if not own and not matching:
                own = [extra] if not isinstance(extra, bool) else [True]
            parts = own + matching
            return self.build(parts[0] if len(parts) == 1 else {"allOf": parts})

        names = list(dict.fromkeys([*properties, *required]))
        strategy = st.fixed_dictionaries({n: prop(n) for n in names if n in required},
                                         optional={n: prop(n) for n in names if n not in required})
        if isinstance(extra, Mapping) and extra:  # a schema for other names: a few of them
            keys = st.text(min_size=1, max_size=8).filter(
                lambda k: k not in properties and not any(_searches(p, k) for p in patterns))
            more = st.dictionaries(keys, self.build(extra), max_size=EXTRA)
            strategy = st.builds(lambda fixed, others: {**others, **fixed}, strategy, more)
        return strategy


def _anchored(node: Any, name: str) -> Any:
    """The subschema of ``node`` whose ``$anchor`` is ``name``."""
    stack = [node]
    while stack:
        here = stack.pop()
        if isinstance(here, dict):
            if here.get("$anchor") == name:
                return here
            stack.extend(here.values())
        elif isinstance(here, list):
            stack.extend(here)
    raise ValueError(f"no subschema has $anchor {name!r}")


def _searches(pattern: str, text: str) -> bool:
    try:
        return compile_pattern(pattern).search(text) is not None
    except PatternError:
        return False


def _from_regex(compiled: re.Pattern[str], low: int, high: int | None) -> st.SearchStrategy[str]:
    """Strings that ``compiled`` finds a match in (JSON Schema patterns are not anchored)."""
    if high is not None and high <= 64:
        return st.from_regex(compiled, fullmatch=True) | st.from_regex(compiled)
    return st.from_regex(compiled)


def _implied_types(schema: Mapping[str, Any]) -> list[str]:
    """The types a schema without ``type`` is about, from its keywords (all of them if none)."""
    keys = set(schema)
    implied = []
    if keys & {"properties", "required", "additionalProperties", "patternProperties"}:
        implied.append("object")
    if keys & {"items", "prefixItems", "minItems", "maxItems", "uniqueItems"}:
        implied.append("array")
    if keys & {"minLength", "maxLength", "pattern", "format"}:
        implied.append("string")
    if keys & {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}:
        implied.append("number")
    return implied or ["null", "boolean", "integer", "number", "string", "array", "object"]


def _numeric(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")}


def _bounds(schema: Mapping[str, Any], *, integer: bool) -> tuple[int, int]:
    """The integer range ``[low, high]`` a schema's numeric bounds allow (within :data:`SAFE_INT`)."""
    low, high = -SAFE_INT, SAFE_INT
    if isinstance(schema.get("minimum"), (int, float)):
        low = max(low, math.ceil(schema["minimum"]))
    if isinstance(schema.get("exclusiveMinimum"), (int, float)):
        low = max(low, math.floor(schema["exclusiveMinimum"]) + 1)
    if isinstance(schema.get("maximum"), (int, float)):
        high = min(high, math.floor(schema["maximum"]))
    if isinstance(schema.get("exclusiveMaximum"), (int, float)):
        high = min(high, math.ceil(schema["exclusiveMaximum"]) - 1)
    return low, high


def _merge(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """The conjunction of two schemas, as far as one schema can say it (the rest is filtered)."""
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
        elif key == "properties":
            merged = dict(out[key])
            for name, sub in value.items():
                merged[name] = {"allOf": [merged[name], sub]} if name in merged else sub
            out[key] = merged
        elif key == "required":
            out[key] = list(dict.fromkeys([*out[key], *value]))
        elif key == "type":
            first = {out[key]} if isinstance(out[key], str) else set(out[key])
            second = {value} if isinstance(value, str) else set(value)
            both = first & second | ({"integer"} if "integer" in first | second and "number" in first | second else set())
            out[key] = sorted(both & (first | second))
        elif key in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"):
            out[key] = max(out[key], value)
        elif key in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"):
            out[key] = min(out[key], value)
        elif key == "additionalProperties" and (value is False or out[key] is False):
            out[key] = False
        elif key in ("items", "additionalProperties") and value != out[key]:
            out[key] = {"allOf": [out[key], value]}
        elif key == "enum":
            keys = {_json_key(v) for v in value}
            out[key] = [v for v in out[key] if _json_key(v) in keys]
    return out


def from_schema(schema: Any, root: Any = None) -> st.SearchStrategy[Any]:
    """A strategy of JSON values valid against ``schema`` (``root``: the document its local
    ``$ref`` s resolve in; by default the schema itself)."""
    return SchemaStrategies(schema if root is None else root).build(schema)


def tool_arguments(tool: ToolDef, model: type[M]) -> st.SearchStrategy[M]:
    """The input models of ``tool``: arguments drawn from its ``inputSchema``, each validated
    exactly as the server validates a call's arguments (``model`` is the tool's input model)."""
    schema = tool.wire.get("inputSchema", {"type": "object"})

    def validated(arguments: Any) -> M | None:
        try:
            return cast(M, validate_arguments(tool, arguments))
        except ArgumentsInvalid:
            return None

    drawn: st.SearchStrategy[Any] = from_schema(schema).filter(lambda v: isinstance(v, dict)).map(validated)
    return cast(st.SearchStrategy[M], drawn.filter(lambda m: isinstance(m, model)))


__all__ = ["SchemaStrategies", "from_schema", "tool_arguments"]
