"""A fast yes/no for JSON Schema 2020-12: a schema compiled once into nested closures.

``jsonschema`` walks the schema for every value and builds an object per keyword it
visits; for the common answer ("valid") that is most of a schema-checked call.
:func:`compile_check` turns a schema into one predicate that answers whether a value is
valid, with jsonschema's semantics (its type checks, its equality for ``enum``, ``const``
and ``uniqueItems``, its ``multipleOf``, ECMA-262 patterns through :mod:`schema.patterns`).
It covers the keywords of the validation, applicator and core vocabularies except
``unevaluated*``, dynamic references and embedded ``$id``/anchors; for a schema using
those (or an older draft, or asserted formats) it returns None and jsonschema alone
decides.  A value it finds invalid is always handed to jsonschema, which names the
violations; only "valid" is answered here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from .patterns import PatternError, compile_pattern
from .residual import local_target

Check = Callable[[Any], bool]

_IGNORED = frozenset({"$schema", "$comment", "$defs", "definitions", "title", "description", "default", "examples",
                      "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding", "contentSchema",
                      "format", "$vocabulary"})
_UNSUPPORTED = frozenset({"unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$dynamicAnchor", "$anchor",
                          "$recursiveRef", "$recursiveAnchor", "$id"})
_KNOWN = frozenset({"type", "enum", "const", "properties", "patternProperties", "additionalProperties", "required",
                    "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
                    "items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems",
                    "uniqueItems", "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
                    "exclusiveMaximum", "multipleOf", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref"})


#: Size keywords: the type they apply to, and whether they are an upper bound.
_SIZES: dict[str, tuple[type[dict[Any, Any]] | type[list[Any]] | type[str], bool]] = {"minProperties": (dict, False), "maxProperties": (dict, True),
                                        "minItems": (list, False), "maxItems": (list, True),
                                        "minLength": (str, False), "maxLength": (str, True)}


class _Unsupported(Exception):
    pass


def compile_check(schema: Any, formats: bool = False) -> Check | None:
    """The predicate "valid under ``schema``", or None when this module cannot decide it."""
    if isinstance(schema, Mapping):
        draft = schema.get("$schema")
        if draft is not None and (not isinstance(draft, str) or "/draft/2020-12/" not in draft):
            return None
    try:
        return _Compiler(schema, formats).compile(schema, root=True)
    except (_Unsupported, PatternError, RecursionError, TypeError, ValueError):
        return None


# -- jsonschema's notions of type and equality ---------------------------------------------

def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_integer(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


_TYPES: dict[str, Check] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": _is_integer,
    "number": _is_number,
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _equal(one: Any, two: Any) -> bool:
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return one.keys() == two.keys() and all(_equal(one[k], two[k]) for k in one)
    if isinstance(one, bool) or isinstance(two, bool):
        return False  # ``one is two`` already covered True/True and False/False
    return bool(one == two)


def _unique(items: list[Any]) -> bool:
    seen: list[Any] = []
    for item in items:
        if any(_equal(item, other) for other in seen):
            return False
        seen.append(item)
    return True


def _multiple(value: Any, divisor: int | float) -> bool:
    if isinstance(divisor, float):
        quotient = value / divisor
        try:
            return bool(int(quotient) == quotient)
        except OverflowError:
            return (Fraction(value) / Fraction(divisor)).denominator == 1
    return not value % divisor


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(c(v) for c in checks)


def _int(node: Mapping[str, Any], key: str) -> int:
    value = node[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or int(value) != value:
        raise _Unsupported(key)
    return int(value)


def _num(node: Mapping[str, Any], key: str) -> int | float:
    value = node[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Unsupported(key)
    return value


class _Compiler:
    def __init__(self, root: Any, formats: bool) -> None:
        self.root = root
        self.formats = formats
        self.refs: dict[str, Check] = {}

    def compile(self, node: Any, root: bool = False) -> Check:
        if node is True:
            return lambda v: True
        if node is False:
            return lambda v: False
        if not isinstance(node, Mapping):
            raise _Unsupported("schema")
        for key in node:
            if key in _UNSUPPORTED and not (key == "$id" and root):
                raise _Unsupported(key)
            if key == "format" and self.formats:
                raise _Unsupported(key)
        checks = [self._keyword(key, node) for key in node if key in _KNOWN]
        return _all([c for c in checks if c is not None])

    def _subs(self, node: Any) -> list[Check]:
        if not isinstance(node, list):
            raise _Unsupported("list")
        return [self.compile(n) for n in node]

    def _ref(self, ref: Any) -> Check:
        if not isinstance(ref, str):
            raise _Unsupported("$ref")
        if ref not in self.refs:
            try:
                target = local_target(self.root, ref)
            except LookupError:
                raise _Unsupported(ref) from None
            compiled: list[Check] = []
            self.refs[ref] = lambda v: compiled[0](v)  # recursive schemas reach it while compiling
            compiled.append(self.compile(target))
        return self.refs[ref]

    def _keyword(self, key: str, node: Mapping[str, Any]) -> Check | None:
        value = node[key]
        if key == "type":
            names = [value] if isinstance(value, str) else value
            if not isinstance(names, list) or not all(isinstance(n, str) and n in _TYPES for n in names):
                raise _Unsupported("type")
            tests = [_TYPES[n] for n in names]
            return tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests))
        if key == "enum":
            if not isinstance(value, list):
                raise _Unsupported("enum")
            return lambda v: any(_equal(v, e) for e in value)
        if key == "const":
            return lambda v: _equal(v, value)
        if key == "$ref":
            return self._ref(value)
        if key in ("allOf", "anyOf", "oneOf"):
            subs = self._subs(value)
            if key == "allOf":
                return _all(subs)
            if key == "anyOf":
                return lambda v: any(s(v) for s in subs)
            return lambda v: sum(1 for s in subs if s(v)) == 1
        if key == "not":
            sub = self.compile(value)
            return lambda v: not sub(v)
        if key == "if":
            cond = self.compile(value)
            then = self.compile(node["then"]) if "then" in node else None
            other = self.compile(node["else"]) if "else" in node else None
            return lambda v: (then is None or then(v)) if cond(v) else (other is None or other(v))
        if key in ("then", "else"):
            return None  # with ``if``; alone they do nothing
        return self._typed(key, node, value)

    def _typed(self, key: str, node: Mapping[str, Any], value: Any) -> Check | None:
        if key in ("properties", "patternProperties", "additionalProperties"):
            return self._object_members(node) if key == _first_of(node, ("properties", "patternProperties",
                                                                           "additionalProperties")) else None
        if key == "required":
            if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
                raise _Unsupported(key)
            return lambda v: not isinstance(v, dict) or all(n in v for n in value)
        if key == "propertyNames":
            sub = self.compile(value)
            return lambda v: not isinstance(v, dict) or all(sub(k) for k in v)
        if key in _SIZES:
            kind, upper = _SIZES[key]
            n = _int(node, key)
            if upper:
                return lambda v: not isinstance(v, kind) or len(v) <= n
            return lambda v: not isinstance(v, kind) or len(v) >= n
        if key == "dependentRequired":
            if not isinstance(value, Mapping) or not all(isinstance(r, list) for r in value.values()):
                raise _Unsupported(key)
            deps = dict(value)
            return lambda v: not isinstance(v, dict) or all(all(r in v for r in req) for k, req in deps.items() if k in v)
        if key == "dependentSchemas":
            if not isinstance(value, Mapping):
                raise _Unsupported(key)
            schemas = {k: self.compile(s) for k, s in value.items()}
            return lambda v: not isinstance(v, dict) or all(s(v) for k, s in schemas.items() if k in v)
        if key in ("items", "prefixItems"):
            return self._array_items(node) if key == _first_of(node, ("prefixItems", "items")) else None
        if key == "contains":
            sub = self.compile(value)
            least = _int(node, "minContains") if "minContains" in node else 1
            most = _int(node, "maxContains") if "maxContains" in node else None

            def contains(v: Any) -> bool:
                if not isinstance(v, list) or least == 0 and most is None:
                    return True
                matches = sum(1 for item in v if sub(item))
                return (least == 0 or matches >= least) and (most is None or matches <= most)
            return contains
        if key in ("minContains", "maxContains"):
            return None  # with ``contains``
        if key == "uniqueItems":
            if not isinstance(value, bool):
                raise _Unsupported(key)
            return (lambda v: not isinstance(v, list) or _unique(v)) if value else None
        if key == "pattern":
            if not isinstance(value, str):
                raise _Unsupported(key)
            search = compile_pattern(value).search
            return lambda v: not isinstance(v, str) or search(v) is not None
        if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
            bound = _num(node, key)
            if key == "minimum":
                return lambda v: not _is_number(v) or v >= bound
            if key == "maximum":
                return lambda v: not _is_number(v) or v <= bound
            if key == "exclusiveMinimum":
                return lambda v: not _is_number(v) or v > bound
            if key == "exclusiveMaximum":
                return lambda v: not _is_number(v) or v < bound
            if bound <= 0:
                raise _Unsupported(key)
            return lambda v: not _is_number(v) or _multiple(v, bound)
        raise _Unsupported(key)

    def _object_members(self, node: Mapping[str, Any]) -> Check:
        """``properties``, ``patternProperties`` and ``additionalProperties`` together."""
        props = node.get("properties", {})
        patterns = node.get("patternProperties", {})
        if not isinstance(props, Mapping) or not isinstance(patterns, Mapping):
            raise _Unsupported("properties")
        named = {name: self.compile(sub) for name, sub in props.items()}
        by_pattern = [(compile_pattern(p).search, self.compile(sub)) for p, sub in patterns.items()]
        extra = self.compile(node["additionalProperties"]) if "additionalProperties" in node else None

        def members(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for key, item in v.items():
                check = named.get(key)
                if check is not None and not check(item):
                    return False
                matched = False
                for search, sub in by_pattern:
                    if search(key) is not None:
                        matched = True
                        if not sub(item):
                            return False
                if extra is not None and check is None and not matched and key not in named and not extra(item):
                    return False
            return True
        return members

    def _array_items(self, node: Mapping[str, Any]) -> Check:
        prefix = self._subs(node["prefixItems"]) if "prefixItems" in node else []
        if "items" in node and isinstance(node["items"], list):
            raise _Unsupported("items")
        rest = self.compile(node["items"]) if "items" in node else None
        count = len(prefix)

        def items(v: Any) -> bool:
            if not isinstance(v, list):
                return True
            for check, item in zip(prefix, v, strict=False):
                if not check(item):
                    return False
            return rest is None or all(rest(item) for item in v[count:])
        return items


def _first_of(node: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    """The first of ``keys`` present in ``node`` (several keywords compiled as one check)."""
    return next(k for k in keys if k in node)
