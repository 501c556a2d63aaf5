"""Example values of a JSON Schema (2020-12): what a mock server answers (``server.mock``).

:func:`example` is pure and deterministic: the same schema and ``seed`` give the same value, in
every process.  The schema's own ``examples`` come first (the first that is valid, in an order
the seed rotates), then its ``default``; otherwise a value is generated from the keywords:
``const`` and ``enum``; ``type`` (a list: a non-null type first); objects with their required
properties and, above :data:`MAX_DEPTH`, the optional ones too (``minProperties``,
``dependentRequired``, ``patternProperties``, ``propertyNames``; every other draw leaves the
optional ones out, for schemas such as ``oneOf: [{required: [a]}, {required: [b]}]``); arrays within ``minItems`` /
``maxItems`` (``prefixItems``, ``uniqueItems``, ``contains``); strings of their ``format``, their
``pattern`` (:mod:`schema.strings`) or a word, within ``minLength`` / ``maxLength``; numbers
within the bounds and ``multipleOf``; ``allOf`` merged, one branch of ``anyOf`` / ``oneOf``,
the ``then`` or ``else`` of ``if``; local ``$ref`` followed, recursion cut off past
:data:`MAX_DEPTH` (only what is required is generated there).

Every value is checked before it is returned, with the runtime's own validation (the compiled
check of :mod:`schema.compiled`, else ``jsonschema`` through :mod:`schema.validation` when it is
installed); a value that fails is drawn again, a few times, and then :class:`ExampleError`
says the schema could not be satisfied.
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Callable, Mapping
from typing import Any

from .compiled import compile_check
from .residual import local_target
from .strings import PatternUnsatisfiable, format_string, pattern_string

#: Nesting depth (objects, arrays, ``$ref``) past which only required parts are generated.
MAX_DEPTH = 4
#: Past this depth a schema that still requires more nesting is unsatisfiable here.
HARD_DEPTH = 40
#: Draws of a whole value before :class:`ExampleError`.
ATTEMPTS = 25

_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")
_ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default", "deprecated", "readOnly",
                          "writeOnly", "$schema", "$id", "$defs", "definitions"})
_LOWER = {"minimum": max, "exclusiveMinimum": max, "minLength": max, "minItems": max, "minProperties": max,
          "minContains": max}
_UPPER = {"maximum": min, "exclusiveMaximum": min, "maxLength": min, "maxItems": min, "maxProperties": min,
          "maxContains": min}

Check = Callable[[Any], bool]


class ExampleError(ValueError):
    """No value valid against the schema was found (an unsatisfiable or unsupported schema)."""


class _Impossible(Exception):
    """This draw cannot go on (a ``false`` schema, recursion too deep, an impossible pattern)."""


def example(schema: Any, *, seed: int = 0, root: Any = None) -> Any:
    """A value valid against ``schema``: its ``examples`` first, else generated (module docstring).

    Args:
        schema: the JSON Schema (a dict or a boolean).
        seed: the draw; the same seed gives the same value.
        root: the document its local ``$ref`` s point into (default: ``schema`` itself).

    Raises:
        ExampleError: no valid value was found in :data:`ATTEMPTS` draws.
    """
    return Examples(schema, root).draw(seed)


class Examples:
    """The examples of one schema, drawn as often as asked with the checks compiled once (a mock
    keeps one per tool); ``draw(seed)`` is :func:`example` with that seed.  The schema must not
    change while it is used."""

    def __init__(self, schema: Any, root: Any = None) -> None:
        self.schema = schema
        self._maker = _Maker(schema if root is None else root)
        self._valid = self._maker.check(schema)

    def draw(self, seed: int = 0) -> Any:
        """A value valid against the schema (see :func:`example`).

        Raises:
            ExampleError: no valid value was found in :data:`ATTEMPTS` draws.
        """
        maker, problem = self._maker, "every draw was invalid"
        for attempt in range(ATTEMPTS):
            rng = random.Random(seed * 7919 + attempt)
            maker.minimal = attempt % 2 == 1  # every other draw: required properties only
            try:
                value = maker.value(self.schema, rng, 0)
            except _Impossible as exc:
                problem = str(exc) or problem
                continue
            if self._valid(value):
                return value
        raise ExampleError(f"no value satisfying the schema was found ({problem})")


def validity(schema: Any, root: Any = None) -> Check:
    """The runtime's predicate "valid under ``schema``" (``$ref`` s into ``root``): the compiled
    check, else ``jsonschema`` (when installed), else one that accepts everything."""
    return _Maker(schema if root is None else root).check(schema)


class _Maker:
    """Draws values of subschemas of one document (``root``), checking them with its predicates;
    ``minimal``: objects get their required properties only (as past :data:`MAX_DEPTH`)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.minimal = False
        self._checks: dict[int, tuple[Any, Check]] = {}

    # -- validity ------------------------------------------------------------------------
    def check(self, schema: Any) -> Check:
        cached = self._checks.get(id(schema))
        if cached is not None and cached[0] is schema:
            return cached[1]
        doc: Any = schema
        if schema is not self.root and isinstance(schema, Mapping) and isinstance(self.root, Mapping):
            doc = {key: self.root[key] for key in ("$defs", "definitions") if key in self.root}
            doc["allOf"] = [schema]
        compiled = compile_check(doc)
        if compiled is None:
            compiled = _jsonschema_check(doc)
        self._checks[id(schema)] = (schema, compiled)
        return compiled

    def fits(self, schema: Any, value: Any) -> bool:
        try:
            return self.check(schema)(value)
        except RecursionError:
            return False

    # -- values --------------------------------------------------------------------------
    def value(self, schema: Any, rng: random.Random, depth: int) -> Any:
        if depth > HARD_DEPTH:
            raise _Impossible("recursion deeper than the generator follows")
        if schema is True or schema is None:
            return rng.choice(_WORDS)
        if schema is False:
            raise _Impossible("a false schema accepts nothing")
        if not isinstance(schema, Mapping):
            return rng.choice(_WORDS)
        if "$ref" in schema:
            return self.value(self.resolve(schema), rng, depth + 1)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        chosen = self.given(schema, rng)
        if chosen is not None:
            return chosen[0]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            fitting = [v for v in schema["enum"] if self.fits(schema, v)] or list(schema["enum"])
            return copy.deepcopy(rng.choice(fitting))
        if isinstance(schema.get("allOf"), list):
            merged = self.resolve({k: v for k, v in schema.items() if k != "allOf"})
            for part in schema["allOf"]:
                merged = merge(merged, self.resolve(part) if isinstance(part, Mapping) else {})
            return self.value(merged, rng, depth)
        for key in ("oneOf", "anyOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                return self.branch(schema, key, rng, depth)
        if "if" in schema:
            base = {k: v for k, v in schema.items() if k not in ("if", "then", "else")}
            for part in ("then", "else"):
                sub = schema.get(part)
                candidate = self.value(merge(base, self.resolve(sub)) if isinstance(sub, Mapping) else base, rng, depth)
                if self.fits(schema, candidate):
                    return candidate
            return candidate
        kind = self.pick_type(schema, rng)
        return getattr(self, "make_" + kind)(schema, rng, depth)

    def given(self, schema: Mapping[str, Any], rng: random.Random) -> tuple[Any] | None:
        """The schema's own ``examples`` (rotated by the draw), then its ``default``, if one fits."""
        found = schema.get("examples")
        candidates = list(found) if isinstance(found, list) else []
        if candidates:
            start = rng.randrange(len(candidates))
            candidates = candidates[start:] + candidates[:start]
        if "default" in schema:
            candidates.append(schema["default"])
        for candidate in candidates:
            if self.fits(schema, candidate):
                return (copy.deepcopy(candidate),)
        return None

    def resolve(self, schema: Mapping[str, Any]) -> Any:
        """``schema`` with its ``$ref`` followed (and merged with the keywords beside it)."""
        seen = 0
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and seen < HARD_DEPTH:
            try:
                target = local_target(self.root, schema["$ref"])
            except LookupError:
                raise _Impossible(f"$ref {schema['$ref']!r} cannot be followed") from None
            rest = {k: v for k, v in schema.items() if k != "$ref" and k not in _ANNOTATIONS}
            schema = merge(target, rest) if rest and isinstance(target, Mapping) else target
            seen += 1
        return schema

    def branch(self, schema: Mapping[str, Any], key: str, rng: random.Random, depth: int) -> Any:
        base = {k: v for k, v in schema.items() if k != key}
        branches = list(schema[key])
        rng.shuffle(branches)
        candidate: Any = None
        for sub in branches:
            part = self.resolve(sub) if isinstance(sub, Mapping) else sub
            if part is False:
                continue
            try:
                candidate = self.value(merge(base, part) if isinstance(part, Mapping) else base, rng, depth)
            except _Impossible:
                continue
            if self.fits(schema, candidate):
                return candidate
        if candidate is None:
            raise _Impossible(f"no branch of {key} could be generated")
        return candidate

    def pick_type(self, schema: Mapping[str, Any], rng: random.Random) -> str:
        declared = schema.get("type")
        types = [declared] if isinstance(declared, str) else list(declared) if isinstance(declared, list) else []
        if not types:
            if any(k in schema for k in ("properties", "required", "additionalProperties", "patternProperties",
                                         "minProperties", "maxProperties", "propertyNames", "dependentRequired")):
                return "object"
            if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems")):
                return "array"
            if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
                return "number"
            return "string"
        real = [t for t in types if t != "null"]
        return rng.choice(real) if real else "null"

    # -- one per type --------------------------------------------------------------------
    def make_null(self, schema: Mapping[str, Any], rng: random.Random, depth: int) -> Any:
        return None

    def make_boolean(self, schema: Mapping[str, Any], rng: random.Random, depth: int) -> Any:
        return rng.random() < 0.5

    def make_string(self, schema: Mapping[str, Any], rng: random.Random, depth: int) -> Any:
        low = _int(schema.get("minLength"), 0)
        high = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else None
        if isinstance(schema.get("pattern"), str):
            try:
                return pattern_string(schema["pattern"], rng, low, high)
            except PatternUnsatisfiable as exc:
                raise _Impossible(str(exc)) from None
        text = format_string(schema["format"], rng) if isinstance(schema.get("format"), str) else None
        if text is None:
            text = rng.choice(_WORDS)
        if len(text) < low:
            text += "x" * (low - len(text))
        return text if high is None else text[:high]

    def make_integer(self, schema: Mapping[str, Any], rng: random.Random, depth: int) -> Any:
        low, high = _bounds(schema, integer=True)
        step = schema.get("multipleOf")
        if isinstance(step, (int, float)) and step > 0:
            first, last = math.ceil(low / step), math.floor(high / step)
            if first > last:
                raise _Impossible("no multiple of multipleOf within the bounds")
            value = rng.randint(first, last) * step
            return int(value) if float(value).is_integer() else value
        if low > high:
            raise _Impossible("minimum above maximum")
        return rng.randint(int(low), int(high))

    def make_number(self, schema: Mapping[str, Any], rng: random.Random, depth: int) -> Any:
        step = schema.get("multipleOf")
        if isinstance(step, (int, float)) and step > 0:
            return self.make_integer(schema, rng, depth)
        low, high = _bounds(schema, integer=False)
        if low > high:
            raise _Impossible("minimum above maximum")
        value = round(rng.uniform(low, high), 2)
        return value if low <= value <= high else low

    def make_object(self, schema: Mapping[str, Any], rng: random.Random, depth: int) -> Any:
        props = _mapping(schema.get("properties"))
        required = [k for k in _list(schema.get("required")) if isinstance(k, str)]
        deep = depth >= MAX_DEPTH or self.minimal
        out: dict[str, Any] = {}
        wanted = [k for k in props if k in required or not deep] + [k for k in required if k not in props]
        dependent = _mapping(schema.get("dependentRequired"))
        for key in list(wanted):
            for extra in _list(dependent.get(key)):
                if extra not in wanted:
                    wanted.append(extra)
        for key in wanted:
            out[key] = self.value(self.property_schema(schema, key), rng, depth + 1)
        least = _int(schema.get("minProperties"), 0)
        spare = [k for k in props if k not in out]
        n = 0
        while len(out) < least:
            key = spare.pop(0) if spare else self.new_key(schema, rng, n)
            n += 1
            if key in out:
                continue
            out[key] = self.value(self.property_schema(schema, key), rng, depth + 1)
            if n > least + 20:
                raise _Impossible("minProperties cannot be reached")
        most = schema.get("maxProperties")
        if isinstance(most, int):
            for key in [k for k in reversed(list(out)) if k not in required]:
                if len(out) <= most:
                    break
                del out[key]
        return out

    def property_schema(self, schema: Mapping[str, Any], key: str) -> Any:
        props = _mapping(schema.get("properties"))
        if key in props:
            return props[key]
        patterns = _mapping(schema.get("patternProperties"))
        for pattern, sub in patterns.items():
            try:
                from .patterns import search

                if search(pattern, key):
                    return sub
            except ValueError:
                continue
        extra = schema.get("additionalProperties", True)
        return True if extra is False else extra

    def new_key(self, schema: Mapping[str, Any], rng: random.Random, n: int) -> str:
        """A name for one more property (of ``patternProperties``, ``propertyNames`` or a word)."""
        names = schema.get("propertyNames")
        if isinstance(names, Mapping):
            name = self.value(names, rng, HARD_DEPTH - 1)
            if isinstance(name, str):
                return name
        patterns = _mapping(schema.get("patternProperties"))
        if patterns and schema.get("additionalProperties", True) is False:
            try:
                return pattern_string(rng.choice(list(patterns)), rng, 1)
            except PatternUnsatisfiable as exc:
                raise _Impossible(str(exc)) from None
        return f"{rng.choice(_WORDS)}_{n}"

    def make_array(self, schema: Mapping[str, Any], rng: random.Random, depth: int) -> Any:
        prefix = _list(schema.get("prefixItems"))
        items = schema.get("items", True)
        low = _int(schema.get("minItems"), 0)
        high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else None
        if items is False:
            high = len(prefix) if high is None else min(high, len(prefix))
        count = low if depth >= MAX_DEPTH else max(low, rng.randint(1, 2))
        if high is not None:
            count = min(count, high)
        unique = schema.get("uniqueItems") is True
        out: list[Any] = []
        for index in range(count):
            sub = prefix[index] if index < len(prefix) else items
            item = self.value(sub, rng, depth + 1)
            tries = 0
            while unique and any(_same(item, other) for other in out) and tries < 12:
                item = self.value(sub, rng, depth + 1)
                tries += 1
            if unique and any(_same(item, other) for other in out):
                if index >= low:
                    break
                raise _Impossible("uniqueItems cannot be satisfied")
            out.append(item)
        contains = schema.get("contains")
        if contains is not None and contains is not True and not any(self.fits(contains, v) for v in out):
            item = self.value(contains, rng, depth + 1)
            if high is not None and len(out) >= high and out:
                out[-1] = item
            else:
                out.append(item)
        return out


def merge(one: Any, two: Any) -> Any:
    """Both schemas as one (what ``allOf`` requires, for drawing; the check judges the result)."""
    if not isinstance(one, Mapping) or not isinstance(two, Mapping):
        return two if isinstance(one, Mapping) or one is True else one
    out = dict(one)
    for key, value in two.items():
        if key not in out:
            out[key] = value
        elif key == "properties" and isinstance(value, Mapping) and isinstance(out[key], Mapping):
            props = dict(out[key])
            for name, sub in value.items():
                props[name] = {"allOf": [props[name], sub]} if name in props else sub
            out[key] = props
        elif key == "required" and isinstance(value, list) and isinstance(out[key], list):
            out[key] = list(dict.fromkeys([*out[key], *value]))
        elif key == "type":
            mine = {out[key]} if isinstance(out[key], str) else set(out[key])
            theirs = {value} if isinstance(value, str) else set(value)
            both = mine & theirs | ({"integer"} if "integer" in mine | theirs and "number" in mine | theirs else set())
            out[key] = sorted(both) if both else value
        elif key in _LOWER or key in _UPPER:
            pick = _LOWER.get(key) or _UPPER[key]
            out[key] = pick(out[key], value)
        elif key == "enum" and isinstance(value, list) and isinstance(out[key], list):
            common = [v for v in out[key] if any(_same(v, w) for w in value)]
            out[key] = common or value
        elif key in ("items", "additionalProperties", "contains"):
            out[key] = {"allOf": [out[key], value]}
        elif key == "allOf" and isinstance(value, list) and isinstance(out[key], list):
            out[key] = [*out[key], *value]
        else:
            out[key] = value
    return out


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _same(one: Any, two: Any) -> bool:
    return json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _bounds(schema: Mapping[str, Any], *, integer: bool) -> tuple[float, float]:
    """The closed range of a number (exclusive bounds moved inwards), 0..100 when open."""
    low: float | None = None
    high: float | None = None
    nudge = 1 if integer else 0.01
    if isinstance(schema.get("minimum"), (int, float)):
        low = schema["minimum"]
    if isinstance(schema.get("exclusiveMinimum"), (int, float)):
        low = max(low if low is not None else -math.inf, schema["exclusiveMinimum"] + nudge)
    if isinstance(schema.get("maximum"), (int, float)):
        high = schema["maximum"]
    if isinstance(schema.get("exclusiveMaximum"), (int, float)):
        high = min(high if high is not None else math.inf, schema["exclusiveMaximum"] - nudge)
    if low is None and high is None:
        low, high = 0, 100
    elif low is None:
        assert high is not None
        low = high - 100
    elif high is None:
        high = low + 100
    if integer:
        return math.ceil(low), math.floor(high)
    return low, high


def _jsonschema_check(schema: Any) -> Check:
    """``jsonschema``'s answer through :mod:`schema.validation`, or "valid" without it installed."""
    from .validation import SchemaCheckUnavailable, schema_errors

    def check(value: Any) -> bool:
        try:
            return not schema_errors(schema, value)
        except SchemaCheckUnavailable:
            return True

    return check


__all__ = ["ATTEMPTS", "MAX_DEPTH", "ExampleError", "Examples", "example", "merge", "validity"]
