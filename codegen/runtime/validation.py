"""Argument and output validation for tools (pydantic models, optionally the raw schema).

Arguments are validated in pydantic's strict JSON mode (so ``"5"`` is not an integer,
as in JSON Schema); when ``ToolDef.schema_checked`` is set, also against the original
``inputSchema`` with ``jsonschema`` (imported lazily, no remote ``$ref`` retrieval).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from .nulls import drop_invalid_nulls, null_violations
from .tools import ToolDef

_VALIDATORS: dict[int, Any] = {}


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


def _schema_validator(schema: Mapping[str, Any]) -> Any:
    key = id(schema)
    cached = _VALIDATORS.get(key)
    if cached is not None and cached[0] is schema:
        return cached[1]
    # Lazy (only schema_checked tools need it) and untyped on purpose (no stubs needed).
    jsonschema: Any = importlib.import_module("jsonschema")
    Registry: Any = importlib.import_module("referencing").Registry

    def _no_retrieve(uri: str) -> Any:
        raise LookupError(f"remote $ref not allowed: {uri}")

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema, registry=Registry(retrieve=_no_retrieve))
    _VALIDATORS[key] = (schema, validator)
    return validator


def schema_errors(schema: Mapping[str, Any], value: Any) -> list[dict[str, str]]:
    """Violations of ``schema`` by ``value`` (empty list when valid)."""
    validator = _schema_validator(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    return [{"path": _path(list(e.absolute_path)), "message": e.message} for e in errors[:10]]


def _has_null(value: Any) -> bool:
    """Whether a JSON value contains ``null`` anywhere (cheap pre-check)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def validate_arguments(tool: ToolDef, arguments: dict[str, Any]) -> BaseModel:
    """The validated input model of ``arguments``.

    Raises:
        ArgumentsInvalid: with a precise, client-safe description.
    """
    if tool.schema_checked:
        errs = schema_errors(tool.wire.get("inputSchema", {}), arguments)
        if errs:
            raise ArgumentsInvalid(tool.name, errs)
    elif _has_null(arguments):
        errs = null_violations(tool.wire.get("inputSchema", {}), arguments)
        if errs:
            raise ArgumentsInvalid(tool.name, errs)
    try:
        return tool.input_model.model_validate_json(json.dumps(arguments), strict=True)
    except ValidationError as exc:
        raise ArgumentsInvalid(tool.name, _pydantic_errors(exc)) from None


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
        checked = model.model_validate_json(json.dumps(data, allow_nan=False), strict=True)
        data = checked.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if "outputSchema" in tool.wire and _has_null(data):
            data = drop_invalid_nulls(tool.wire["outputSchema"], data)
    except (ValidationError, ValueError, TypeError) as exc:
        raise OutputInvalid(str(exc)) from None
    if tool.schema_checked and "outputSchema" in tool.wire:
        errs = schema_errors(tool.wire["outputSchema"], data)
        if errs:
            raise OutputInvalid(str(errs))
    return data
