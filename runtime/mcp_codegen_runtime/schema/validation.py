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
the schema allows beyond the declared ones are kept (``model_extra``).  The typed client
checks its arguments before sending with :func:`check_arguments`: the same rules and errors,
without building the model.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from ..wire.tools import ToolDef
from .accel import accepts, input_check
from .compiled import Check, compile_check
from .jsonints import json_integers, plain_json_integers
from .nulls import drop_invalid_nulls, null_violations
from .patterns import PatternError, compile_pattern, to_python
from .residual import PatternCheck, pattern_checks, pattern_errors
from .strictpy import check_strict, validate_strict
from .violations import location, model_errors, one, redacted, without_instance

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
    return _checkers(schema, formats)[0]


def _checkers(schema: Mapping[str, Any], formats: bool) -> tuple[Any, Check | None]:
    """jsonschema's validator of ``schema`` and its compiled check (:mod:`schema.compiled`,
    None where it declines), built once per schema."""
    key = (id(schema), formats)
    cached = _VALIDATORS.get(key)
    if cached is not None and cached[0] is schema:
        return cached[1], cached[2]
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
    check = compile_check(schema, formats)
    _VALIDATORS[key] = (schema, validator, check)
    return validator, check


def schema_errors(schema: Mapping[str, Any], value: Any, formats: bool = False, *,
                  values: bool = True) -> list[dict[str, str]]:
    """Violations of ``schema`` by ``value`` (empty list when valid; at most 10).

    The compiled check (:mod:`schema.compiled`) answers "valid" for the schemas it covers;
    jsonschema walks the rest, and every value found invalid, to name the violations.
    Without ``values`` the messages name no failing instance (it becomes ``value``).
    """
    validator, check = _checkers(schema, formats)
    if check is not None:
        try:
            if check(value):
                return []
        except RecursionError:
            pass
    try:
        errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    except LookupError as exc:  # a $ref the schema does not contain
        return [{"path": "", "message": f"schema cannot be evaluated: {exc}"}]
    return [{"path": location(list(e.absolute_path)), "message": _spec_patterns(e.message if values else without_instance(e))}
            for e in errors[:10]]


def _spec_patterns(message: str) -> str:
    """``message`` quoting the spec's patterns, not their Python translation."""
    if "(?a)" in message:
        for translated, original in _ORIGINAL_PATTERNS.items():
            message = message.replace(repr(translated), repr(original))
    return message


_PATTERNS: dict[int, tuple[Any, tuple[PatternCheck, ...] | None]] = {}


def _pattern_checks(schema: Any) -> tuple[PatternCheck, ...] | None:
    cached = _PATTERNS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    checks = pattern_checks(schema)
    _PATTERNS[id(schema)] = (schema, checks)
    return checks


def _model_judged(tool: ToolDef, key: str) -> tuple[PatternCheck, ...] | None:
    """The pattern checks that complete the model for ``tool.wire[key]``; None when the
    original schema must judge (``schema_checked``, or a pattern the models cannot pair with)."""
    if tool.schema_checked:
        return None
    return _pattern_checks(tool.wire.get(key, {}))


def _located(errors: list[tuple[tuple[int | str, ...], str]]) -> list[dict[str, str]]:
    return [{"path": location(at), "message": message} for at, message in errors]


def beyond_model_errors(tool: ToolDef, key: str, value: Any, *, values: bool = True) -> list[dict[str, str]]:
    """Violations of ``tool.wire[key]`` by ``value`` that the model does not see: the whole
    schema's when it is the judge (``schema_checked``), else its pattern checks'.  Without
    ``values``, client-safe for a result (:func:`~schema.violations.redacted`)."""
    patterns = _model_judged(tool, key)
    if patterns is None:
        errors = schema_errors(tool.wire.get(key, {}), value, tool.assert_formats, values=values)
    else:
        errors = _located(pattern_errors(patterns, value))[:10]
    return errors if values else redacted(errors, value)


def _judged_before_model(tool: ToolDef, arguments: dict[str, Any]) -> tuple[Any, tuple[PatternCheck, ...] | None]:
    """What is checked before the input model: JSON-ness, then the whole schema when it is
    the judge, else explicit nulls.  Returns the data for the model (integral floats as
    ints) and the pattern checks that complete it (None: the schema judged)."""
    schema = tool.wire.get("inputSchema", {})
    data, has_null = json_integers(arguments)
    patterns = _model_judged(tool, "inputSchema")
    if patterns is None:
        errs = schema_errors(schema, arguments, tool.assert_formats)
        if errs:
            raise ArgumentsInvalid(tool.name, errs)
    elif has_null:
        errs = null_violations(schema, arguments)
        if errs:
            raise ArgumentsInvalid(tool.name, errs)
    return data, patterns


def _refused_by_model(tool: ToolDef, exc: ValidationError, patterns: tuple[PatternCheck, ...], data: Any) -> ArgumentsInvalid:
    """The model's violations, and the patterns' beside them."""
    return ArgumentsInvalid(tool.name, model_errors(exc, data) + _located(pattern_errors(patterns, data)))


def _pattern_violations(tool: ToolDef, patterns: tuple[PatternCheck, ...], data: Any) -> None:
    errs = _located(pattern_errors(patterns, data))
    if errs:
        raise ArgumentsInvalid(tool.name, errs[:10])


def validate_arguments(tool: ToolDef, arguments: dict[str, Any], *, plain: bool = False) -> BaseModel:
    """The validated input model of ``arguments`` (the server's view for the handler).
    ``plain``: they come from a JSON decoder (see :func:`check_arguments`).

    Raises:
        ArgumentsInvalid: with a precise, client-safe description.
        TypeError, ValueError: ``arguments`` is not JSON data.
    """
    native = input_check(tool)
    if native is not None:  # the fast extra (schema.accel): the pure path's answer, or the pure path
        model = _natively_validated(tool, native, arguments, plain)
        if model is not None:
            return model
    data, patterns = _judged_before_model(tool, arguments)
    try:
        model = validate_strict(tool.input_model, data)
    except ValidationError as exc:
        if patterns is not None:
            raise _refused_by_model(tool, exc, patterns, data) from None
        # The schema accepted the data, so it is valid: a model narrower than its schema
        # must not refuse it.  The handler gets the data unvalidated by the model.
        _log.warning("tool %s: input model narrower than the schema (%s); passing the data through",
                     tool.name, exc.errors(include_url=False)[:1])
        return tool.input_model.model_construct(**data)
    if patterns:
        _pattern_violations(tool, patterns, data)
    return model


def _natively_validated(tool: ToolDef, native: Any, arguments: dict[str, Any], plain: bool) -> BaseModel | None:
    """The model when the native check and the model accept ``arguments`` (nulls checked as
    on the pure path); None: let the pure path answer (it refuses, or it names the errors)."""
    data, has_null = plain_json_integers(arguments) if plain else json_integers(arguments)
    if not accepts(native, arguments):
        return None
    if has_null and not tool.schema_checked and null_violations(tool.wire.get("inputSchema", {}), arguments):
        return None
    try:
        return validate_strict(tool.input_model, data)
    except ValidationError:
        return None


def _natively_checked(tool: ToolDef, native: Any, arguments: dict[str, Any], plain: bool) -> bool:
    """:func:`_natively_validated` without the model: True when the native check, the nulls
    and (where the model judges) :func:`~schema.strictpy.check_strict` accept."""
    data, has_null = plain_json_integers(arguments) if plain else json_integers(arguments)
    if not accepts(native, arguments):
        return False
    if tool.schema_checked:
        return True
    if has_null and null_violations(tool.wire.get("inputSchema", {}), arguments):
        return False
    try:
        check_strict(tool.input_model, data)
    except ValidationError:
        return False
    return True


def check_arguments(tool: ToolDef, arguments: dict[str, Any], *, plain: bool = False) -> None:
    """Everything :func:`validate_arguments` refuses, refused with the same errors, but no
    model is built (the typed client's check before sending): where the schema judges, the
    model has nothing to add; elsewhere :func:`~schema.strictpy.check_strict` checks.
    ``plain``: the caller promises plain JSON data (exact ``dict`` and ``list``, no tuple, no
    enum, no subclass: :func:`~schema.jsonints.plain_json_integers`), as a JSON decoder gives.

    Raises:
        ArgumentsInvalid, TypeError, ValueError: as :func:`validate_arguments`.
    """
    native = input_check(tool)
    if native is not None and _natively_checked(tool, native, arguments, plain):
        return
    data, patterns = _judged_before_model(tool, arguments)
    if patterns is None:
        return
    try:
        check_strict(tool.input_model, data)
    except ValidationError as exc:
        raise _refused_by_model(tool, exc, patterns, data) from None
    if patterns:
        _pattern_violations(tool, patterns, data)


class OutputInvalid(Exception):
    """A handler's structured output does not match the tool's output schema: ``str()`` is for
    the server log, ``errors`` the client-safe ``{"path", "message"}`` records (no values)."""

    def __init__(self, detail: str, errors: list[dict[str, str]]) -> None:
        super().__init__(detail)
        self.errors = errors


def dump_output(tool: ToolDef, value: Any, *, fresh: bool = False) -> Any:
    """JSON ``structuredContent`` for a handler's output (model instance or plain data).
    ``fresh``: ``value`` is data nobody else holds (just parsed from JSON text), so it is
    checked without the copy a handler's data gets.

    Raises:
        OutputInvalid: the value does not validate against ``tool.output_model`` (or
            the original ``outputSchema`` when ``schema_checked``).
    """
    model = tool.output_model
    if model is None:
        raise OutputInvalid(f"tool {tool.name} declares no output schema", one("the tool declares no output schema"))
    patterns = _model_judged(tool, "outputSchema")
    data: Any = value
    try:
        if isinstance(value, model):
            data = value.model_dump(mode="json", by_alias=True, exclude_unset=True)
        elif isinstance(value, BaseModel):
            raise OutputInvalid(f"{type(value).__name__} is not {model.__name__}",
                                one(f"not an instance of the output model {model.__name__}"))
        elif not fresh:  # the handler's own data: a copy (JSON's view of it) that it cannot change later
            data = json.loads(json.dumps(value, allow_nan=False))
        data, has_null = json_integers(data)
        if patterns is not None:
            data = validate_strict(model, data).model_dump(mode="json", by_alias=True, exclude_unset=True)
        if "outputSchema" in tool.wire and has_null:
            data = drop_invalid_nulls(tool.wire["outputSchema"], data)
    except ValidationError as exc:
        raise OutputInvalid(str(exc), redacted(model_errors(exc, data), data)) from None
    except (ValueError, TypeError) as exc:
        raise OutputInvalid(str(exc), redacted(one(f"not JSON data: {exc}"), value)) from None
    # no pattern check completing the model (patterns == ()): nothing beyond the model to find
    errs = beyond_model_errors(tool, "outputSchema", data) if patterns is None or patterns else None
    if errs:
        raise OutputInvalid(str(errs), beyond_model_errors(tool, "outputSchema", data, values=False))
    return data
