"""Argument and output validation for tools: exactly what the JSON Schema says.

Two cases, decided by the generator per tool (``ToolDef.schema_checked``):

* the models express the schema exactly: arguments are validated by the input model in
  pydantic's strict JSON mode (``"5"`` is not an integer, ``0`` is not ``false``), plus a
  check for explicit ``null`` where the schema does not allow it;
* otherwise the original ``inputSchema`` is the judge (``jsonschema``, draft 2020-12, no
  remote ``$ref`` retrieval, patterns with ECMA-262 semantics, formats asserted only when
  ``ToolDef.assert_formats``); the models, looser than the schema by construction, then
  only give the handler its typed view of the same data.

Either way the handler's model holds the data as sent: integral floats (``1.0``) are read
as integers (JSON Schema makes no difference), nothing else is converted, and properties
the schema allows beyond the declared ones are kept (``model_extra``).  The same function
validates the typed client's arguments before they are sent.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from ..wire.tools import ToolDef
from .nulls import drop_invalid_nulls, null_violations
from .patterns import PatternError, compile_pattern, to_python

_log = logging.getLogger(__name__)
_VALIDATORS: dict[tuple[int, bool], Any] = {}

#: Keywords whose value is one subschema / a list of them / a name -> subschema map.
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties")
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "$defs", "definitions", "dependentSchemas")


class SchemaCheckUnavailable(ImportError):
    """A schema-checked tool was used without the ``jsonschema`` package installed."""


class ArgumentsInvalid(Exception):
    """Arguments failed validation; ``errors`` lists ``{"path", "message"}`` items."""

    def __init__(self, tool: str, errors: list[dict[str, str]]) -> None:
        self.tool = tool
        self.errors = errors
        details = "; ".join(f"{e['path']}: {e['message']}" if e["path"] else e["message"] for e in errors)
        super().__init__(f"Invalid arguments for tool {tool}: {details}")


def _path(loc: tuple[int | str, ...] | list[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _pydantic_errors(exc: ValidationError) -> list[dict[str, str]]:
    return [
        {"path": _path(err["loc"]), "message": err["msg"]}
        for err in exc.errors(include_url=False, include_context=False, include_input=False)
    ]


#: Python form -> the spec's pattern, so error messages quote what the user wrote.
_ORIGINAL_PATTERNS: dict[str, str] = {}


def _python_pattern(pattern: str) -> str | None:
    try:
        translated = "(?a)" + to_python(pattern)
        _ORIGINAL_PATTERNS[translated] = pattern
        return translated
    except PatternError:
        _log.warning("pattern %r cannot be enforced (no Python equivalent)", pattern)
        return None


def python_patterns(schema: Any) -> Any:
    """Copy of ``schema`` with every ``pattern`` / ``patternProperties`` key in Python form.

    ``jsonschema`` matches patterns with Python's ``re``; the rewrite (see
    :mod:`schema.patterns`) makes it give the ECMA-262 answer.
    """
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if isinstance(schema.get("pattern"), str):
        translated = _python_pattern(schema["pattern"])
        if translated is None:
            del out["pattern"]
        else:
            out["pattern"] = translated
    if isinstance(schema.get("patternProperties"), dict):
        props: dict[str, Any] = {}
        for key, sub in schema["patternProperties"].items():
            translated = _python_pattern(key)
            props[translated if translated is not None else "(?!)"] = python_patterns(sub)
        out["patternProperties"] = props
    for key in _ONE:
        if key in schema:
            out[key] = python_patterns(schema[key])
    for key in _LIST:
        if isinstance(schema.get(key), list):
            out[key] = [python_patterns(s) for s in schema[key]]
    for key in _MAP:
        if isinstance(schema.get(key), dict):
            out[key] = {k: python_patterns(s) for k, s in schema[key].items()}
    return out


def _format_checker(jsonschema: Any) -> Any:
    """jsonschema's format checker, with ``regex`` meaning ECMA-262 (see :mod:`schema.patterns`)."""
    checker = jsonschema.FormatChecker()

    def is_regex(value: object) -> bool:
        if isinstance(value, str):
            compile_pattern(value)
        return True

    checker.checks("regex", raises=PatternError)(is_regex)
    return checker


def _schema_validator(schema: Mapping[str, Any], formats: bool = False) -> Any:
    key = (id(schema), formats)
    cached = _VALIDATORS.get(key)
    if cached is not None and cached[0] is schema:
        return cached[1]
    # Lazy (only schema-checked tools need it) and untyped on purpose (no stubs needed).
    try:
        jsonschema: Any = importlib.import_module("jsonschema")
        Registry: Any = importlib.import_module("referencing").Registry
    except ImportError as exc:
        raise SchemaCheckUnavailable(
            "this tool's schema needs the 'jsonschema' package to be checked exactly (pip install jsonschema)"
        ) from exc

    def _no_retrieve(uri: str) -> Any:
        raise LookupError(f"remote $ref not allowed: {uri}")

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    checker = _format_checker(jsonschema) if formats else None
    validator = cls(python_patterns(dict(schema)), registry=Registry(retrieve=_no_retrieve), format_checker=checker)
    _VALIDATORS[key] = (schema, validator)
    return validator


def schema_errors(schema: Mapping[str, Any], value: Any, formats: bool = False) -> list[dict[str, str]]:
    """Violations of ``schema`` by ``value`` (empty list when valid; at most 10)."""
    validator = _schema_validator(schema, formats)
    try:
        errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    except LookupError as exc:  # a $ref the schema does not contain
        return [{"path": "", "message": f"schema cannot be evaluated: {exc}"}]
    return [{"path": _path(list(e.absolute_path)), "message": _spec_patterns(e.message)} for e in errors[:10]]


def _spec_patterns(message: str) -> str:
    """``message`` quoting the spec's patterns, not their Python translation."""
    if "(?a)" in message:
        for translated, original in _ORIGINAL_PATTERNS.items():
            message = message.replace(repr(translated), repr(original))
    return message


def _scan(value: Any) -> tuple[bool, bool]:
    """(holds ``null``, holds an integral float) for a JSON value; no copying."""
    has_null = has_integral = False
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None:
            has_null = True
        elif isinstance(item, float):
            has_integral = has_integral or item.is_integer()
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return has_null, has_integral


def _as_int(item: Any) -> Any:
    if isinstance(item, float) and item.is_integer():
        return int(item)
    if isinstance(item, dict):
        return {k: _as_int(v) for k, v in item.items()}
    if isinstance(item, list):
        return [_as_int(v) for v in item]
    return item


def json_integers(value: Any) -> tuple[Any, bool]:
    """``value`` with integral floats as ints (``1.0`` -> ``1``), and whether it holds ``null``.

    JSON Schema's ``integer`` accepts ``1.0``; pydantic's strict ``int`` does not.  The value
    is copied only when it holds such a float (the common call has none).
    """
    has_null, has_integral = _scan(value)
    return (_as_int(value) if has_integral else value), has_null


def validate_arguments(tool: ToolDef, arguments: dict[str, Any]) -> BaseModel:
    """The validated input model of ``arguments`` (used by server and typed client).

    Raises:
        ArgumentsInvalid: with a precise, client-safe description.
    """
    schema = tool.wire.get("inputSchema", {})
    data, has_null = json_integers(arguments)
    if tool.schema_checked:
        errs = schema_errors(schema, arguments, tool.assert_formats)
        if errs:
            raise ArgumentsInvalid(tool.name, errs)
    elif has_null:
        errs = null_violations(schema, arguments)
        if errs:
            raise ArgumentsInvalid(tool.name, errs)
    try:
        return tool.input_model.model_validate_json(json.dumps(data), strict=True)
    except ValidationError as exc:
        if not tool.schema_checked:
            raise ArgumentsInvalid(tool.name, _pydantic_errors(exc)) from None
        # The schema accepted the data, so it is valid: a model narrower than its schema
        # must not refuse it.  The handler gets the data unvalidated by the model.
        _log.warning("tool %s: input model narrower than the schema (%s); passing the data through",
                     tool.name, exc.errors(include_url=False)[:1])
        return tool.input_model.model_construct(**data)


class OutputInvalid(Exception):
    """A handler's structured output does not match the tool's output schema."""


def dump_output(tool: ToolDef, value: Any) -> Any:
    """JSON ``structuredContent`` for a handler's output (model instance or plain data).

    Raises:
        OutputInvalid: the value does not validate against ``tool.output_model`` (or
            the original ``outputSchema`` when ``schema_checked``).
    """
    model = tool.output_model
    if model is None:
        raise OutputInvalid(f"tool {tool.name} declares no output schema")
    try:
        if isinstance(value, model):
            data = value.model_dump(mode="json", by_alias=True, exclude_unset=True)
        elif isinstance(value, BaseModel):
            raise OutputInvalid(f"{type(value).__name__} is not {model.__name__}")
        else:
            data = value
        data, has_null = json_integers(json.loads(json.dumps(data, allow_nan=False)))
        if not tool.schema_checked:
            checked = model.model_validate_json(json.dumps(data), strict=True)
            data = checked.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if "outputSchema" in tool.wire and has_null:
            data = drop_invalid_nulls(tool.wire["outputSchema"], data)
    except (ValidationError, ValueError, TypeError) as exc:
        raise OutputInvalid(str(exc)) from None
    if tool.schema_checked and "outputSchema" in tool.wire:
        errs = schema_errors(tool.wire["outputSchema"], data, tool.assert_formats)
        if errs:
            raise OutputInvalid(str(errs))
    return data
