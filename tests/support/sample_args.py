"""Valid arguments for a tool, made from its input schema, for the end-to-end OpenAPI tests.

:func:`sample` builds one deterministic instance of a JSON Schema (draft 2020-12, local
``$ref``s): the schema's ``const``/``enum``/``examples``/``default`` first, else a value made from
its type and bounds, formats and patterns included (patterns through Hypothesis' ``from_regex``,
shrunk to its simplest match, so the same schema gives the same value).  ``full`` fills every
optional property too (one item per array), so a call exercises every argument's serialisation.
:func:`valid_sample` checks the result with ``jsonschema`` and returns None when the schema is
beyond this maker (the caller counts such tools rather than sending a bad call).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import jsonschema
from hypothesis import HealthCheck, find, settings
from hypothesis import strategies as st

FORMATS = {
    "date-time": "2024-01-02T03:04:05Z", "date": "2024-01-02", "time": "03:04:05Z", "email": "a@example.com",
    "uri": "https://example.com/a", "url": "https://example.com/a", "uri-reference": "/a", "hostname": "example.com",
    "uuid": "123e4567-e89b-42d3-a456-426614174000", "ipv4": "127.0.0.1", "ipv6": "::1", "byte": "aGVsbG8=",
    "binary": "aGVsbG8=", "duration": "P1D", "password": "secret-1", "idn-email": "a@example.com",
}


@functools.lru_cache(maxsize=512)
def _regex_match(pattern: str, min_length: int, max_length: int | None) -> str | None:
    def fits(s: str) -> bool:
        return len(s) >= min_length and (max_length is None or len(s) <= max_length)

    try:
        return str(find(st.from_regex(pattern, fullmatch=True), fits,
                        settings=settings(database=None, max_examples=400, suppress_health_check=list(HealthCheck))))
    except Exception: # an unsupported regex or no match: no sample
        return None


def _fits(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def _resolve(ref: str, root: Any) -> Any:
    node = root
    for part in ref.lstrip("#/").split("/") if ref != "#" else []:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _number(schema: dict[str, Any], integer: bool) -> int | float:
    lo = schema.get("minimum", schema.get("exclusiveMinimum"))
    hi = schema.get("maximum", schema.get("exclusiveMaximum"))
    step = schema.get("multipleOf")
    value: float = 1 if lo is None else lo + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
    if hi is not None and value > hi:
        value = hi
    if step:
        value = (-(-value // step)) * step
    return int(value) if integer else float(value)


def sample(schema: Any, root: Any | None = None, *, full: bool = True, depth: int = 0, examples: bool = True) -> Any:
    """One instance of ``schema`` (see the module docstring); ``examples=False`` ignores the
    schema's own examples (a document's example may break its own format)."""
    root = schema if root is None else root
    if not isinstance(schema, dict) or depth > 12:
        return None
    if "$ref" in schema:
        target = _resolve(schema["$ref"], root)
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        if isinstance(target, dict) and "properties" in schema:  # siblings add to the target's properties
            merged["properties"] = {**target.get("properties", {}), **schema["properties"]}
            merged["required"] = [*target.get("required", []), *schema.get("required", [])]
        return sample(merged, root, full=full, depth=depth + 1, examples=examples)
    for key in ("const",):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return next((v for v in schema["enum"] if v is not None), schema["enum"][0])
    if examples and schema.get("examples"):
        return schema["examples"][0]
    if "default" in schema and not full:
        return schema["default"]
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = sample(part, root, full=full, depth=depth + 1, examples=examples)
            if isinstance(value, dict):
                merged.update(value)
        rest = sample({k: v for k, v in schema.items() if k != "allOf"}, root, full=full, depth=depth + 1, examples=examples)
        return {**merged, **rest} if isinstance(rest, dict) else (merged or rest)
    for key in ("oneOf", "anyOf"):
        if key in schema:
            branches = [b for b in schema[key] if not (isinstance(b, dict) and b.get("type") == "null")] or schema[key]
            return sample({**branches[0], **{k: v for k, v in schema.items() if k != key}}, root, full=full,
                          depth=depth + 1, examples=examples)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((t for t in kind if t != "null"), "null")
    if kind is None:
        kind = ("object" if "properties" in schema else "array" if "items" in schema
                else "string" if {"minLength", "pattern", "format"} & set(schema) else "string")
    if kind == "object":
        props = schema.get("properties", {})
        names = list(props) if full else list(schema.get("required", []))
        names += [n for n in schema.get("required", []) if n not in names]
        return {n: sample(props.get(n, {}), root, full=full, depth=depth + 1, examples=examples) for n in names}
    if kind == "array":
        count = max(schema.get("minItems", 0), 2 if full else 0)  # two items: a list is seen as one
        if "maxItems" in schema:
            count = min(count, schema["maxItems"])
        items = schema.get("items", {})
        out = [sample(items, root, full=full, depth=depth + 1, examples=examples) for _ in range(count)]
        if schema.get("uniqueItems") and len(out) > 1:
            out = [(f"{v}{i}" if isinstance(v, str) else v + i if isinstance(v, int) else v) for i, v in enumerate(out)]
        return out
    if kind == "integer":
        return _number(schema, True)
    if kind == "number":
        return _number(schema, False)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    low, high = schema.get("minLength", 1), schema.get("maxLength")
    known = FORMATS.get(schema.get("format", ""))
    if known is not None and ("pattern" not in schema or _fits(schema["pattern"], known)):
        return known
    if "pattern" in schema:
        match = _regex_match(schema["pattern"], low, high)
        if match is not None:
            return match
    if schema.get("format") in FORMATS:
        return FORMATS[schema["format"]]
    if schema.get("contentEncoding") == "base64":
        return "aGVsbG8="
    text = "abc"
    if len(text) < low:
        text = text + "x" * (low - len(text))
    return text[:high] if high is not None else text


def valid_sample(schema: dict[str, Any], *, full: bool = True) -> dict[str, Any] | None:
    """:func:`sample` of an input schema, or None when it does not validate against it."""
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    for attempt, own in ((full, True), (full, False), (False, True), (False, False)):
        value = sample(schema, full=attempt, examples=own)
        try:
            jsonschema.Draft202012Validator(schema, format_checker=checker).validate(value)
        except jsonschema.ValidationError:
            continue
        except Exception: # a schema jsonschema cannot compile
            return None
        return value if isinstance(value, dict) else None
    return None
