"""Tool-call results: from a ``tools/call`` answer to a value or an exception.

:meth:`~client.async_client.ClientBase.call_raw` returns the full result as a
:class:`~wire.content.ToolResult` (unknown fields kept; ``isError`` results are returned,
not raised).  :meth:`~client.async_client.ClientBase.call_tool` and the typed methods raise
instead:

* ``isError`` with ``_meta["mcp-codegen/error"] = {"code": c, "data": d}``: the
  tool's declared error class for ``c`` (from ``ToolDef.errors``, carrying ``.data``
  and ``.result``); ``c == "mcp-codegen.invalid_arguments"``
  (``protocol.TOOL_ERROR_INVALID_ARGUMENTS``): :class:`InvalidArgumentsError`;
* ``isError`` without the marker: :class:`InvalidArgumentsError` when the text is
  recognisably an argument-validation failure of the official SDKs, the
  SDK's ``Unknown tool: <name>`` text: :class:`UnknownToolError`, anything else:
  :class:`ToolExecutionError`;
* JSON-RPC errors: the class of ``errors.from_wire``; on ``tools/call`` a -32602
  naming an unknown tool is :class:`UnknownToolError`, one about the arguments
  (or whose arguments fail the local input model) :class:`InvalidArgumentsError`;
* :class:`OutputValidationError` when ``structuredContent`` breaks the output model (its
  ``errors``: the failing fields and why, never the values; ``result``: the result).

Typed outputs accept the ``{"result": value}`` wrapping some SDKs use for non-object
outputs; without ``structuredContent`` the JSON text block is parsed instead.
"""

from __future__ import annotations

import enum
import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..schema.validation import ArgumentsInvalid, SchemaCheckUnavailable, beyond_model_errors, check_arguments
from ..schema.violations import model_errors, one, redacted
from ..wire import protocol as p
from ..wire.content import TextContent, ToolResult
from ..wire.errors import (
    DeclaredToolError,
    InvalidArgumentsError,
    InvalidParamsError,
    McpError,
    OutputValidationError,
    ProtocolError,
    ToolExecutionError,
    UnknownToolError,
)
from ..wire.tools import ToolDef
from .dumps import jsonable

logger = logging.getLogger("mcp_codegen.client")

M = TypeVar("M", bound=BaseModel)

#: Marker code for invalid arguments inside ``_meta["mcp-codegen/error"]``.
INVALID_ARGUMENTS_CODE: str = getattr(p, "TOOL_ERROR_INVALID_ARGUMENTS", "mcp-codegen.invalid_arguments")

_UNKNOWN_TOOL_RE = re.compile(r"unknown tool|no such tool|tool\b.{0,80}\bnot found|not found.{0,20}\btool", re.I | re.S)
_INVALID_ARGS_RE = re.compile(
    r"invalid arguments?|argument validation|input validation error|validation errors? for"
    r"|does not match (the )?(input )?schema|required (property|argument)",
    re.I,
)
#: isError texts of the official SDKs that mean "the arguments failed validation".
_SDK_INVALID_ARGS_TEXT = (
    re.compile(r"^Error executing tool \S+: \d+ validation errors? for ", re.S),  # Python SDK
    re.compile(r"Input validation error", re.I),  # TypeScript SDK
    re.compile(r"^Invalid arguments for tool ", re.I),
)


class Unset(enum.Enum):
    """Type of :data:`UNSET`, the default of every optional typed-call argument."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


#: "Leave this argument out": distinguishes omitting an argument from sending ``null``.
UNSET = Unset.UNSET


_UNCHECKED: set[str] = set()  # tools whose client-side check was skipped (no jsonschema), warned once


def wire_arguments(tool: ToolDef, values: Mapping[str, Any]) -> dict[str, Any]:
    """The wire ``arguments`` of a typed call, checked exactly as the server checks them.

    Args:
        tool: the tool's generated definition.
        values: keyword arguments by wire name; :data:`UNSET` ones are left out, ``None``
            is sent as ``null``, models as the fields that were set, enums as values.

    Returns:
        The arguments as JSON data, unchanged otherwise (no coercion, no defaults added).

    Raises:
        InvalidArgumentsError: they break the tool's input schema (nothing is sent).
    """
    odd: list[Any] = []
    arguments = {key: jsonable(value, odd) for key, value in values.items() if value is not UNSET}
    try:
        check_arguments(tool, arguments, plain=not odd)
    except SchemaCheckUnavailable as exc:  # the server still judges; say once why we cannot
        if tool.name not in _UNCHECKED:
            _UNCHECKED.add(tool.name)
            logger.warning("tool %s: arguments not checked before sending: %s", tool.name, exc)
    except ArgumentsInvalid as exc:
        raise InvalidArgumentsError(str(exc), data={"tool": tool.name, "errors": exc.errors}) from None
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidArgumentsError(f"Invalid arguments for tool {tool.name}: not JSON data ({type(exc).__name__}: {exc})",
                                    data={"tool": tool.name}) from None
    return arguments


def parse_call_result(name: str, raw: dict[str, Any]) -> ToolResult:
    """Read a complete ``CallToolResult``.

    Args:
        name: the tool's name (for the error message).
        raw: the result as received.

    Returns:
        The result as a :class:`ToolResult`.

    Raises:
        ProtocolError: the result is malformed.
    """
    try:
        return ToolResult.model_validate(raw)
    except ValidationError as exc:
        raise ProtocolError(
            f"{name}: malformed CallToolResult",
            data={"errors": exc.errors(include_url=False, include_context=False)},
        ) from None


def tool_error(
    name: str, tool_def: ToolDef | None, result: ToolResult, raw: dict[str, Any], all_defs: Sequence[ToolDef]
) -> McpError:
    """The exception an ``isError`` result maps to (see the module docstring).

    Args:
        name: the tool's name.
        tool_def: its generated definition, if known.
        result: the parsed result (``isError`` is true).
        raw: the result as received (kept on the exception as ``.result``).
        all_defs: every tool definition of the server (an error code may be declared by another tool).

    Returns:
        The exception to raise (not raised here).
    """
    message = result.text() or f"tool {name} failed"
    meta = result.meta or {}
    marker = meta.get(p.META_TOOL_ERROR)
    if isinstance(marker, dict) and isinstance(marker.get("code"), str):
        code = marker["code"]
        data = marker.get("data")
        if code == INVALID_ARGUMENTS_CODE:
            return InvalidArgumentsError(message, data=data, result=raw)
        cls = declared_error(code, tool_def, all_defs)
        if cls is not None:
            return cls(message, data=data, result=raw)
        return ToolExecutionError(message, code=code, data=marker, result=raw)
    if message == f"Unknown tool: {name}":  # the Python SDK's unknown-tool result
        return UnknownToolError(message, data={"name": name})
    if any(rx.search(message) for rx in _SDK_INVALID_ARGS_TEXT):
        return InvalidArgumentsError(message, result=raw)
    return ToolExecutionError(message, result=raw)


def declared_error(code: str, tool_def: ToolDef | None, all_defs: Sequence[ToolDef]) -> type[DeclaredToolError] | None:
    """The declared error class for ``code``: the tool's own first, then any other tool's.

    Args:
        code: the error code of the ``isError`` marker.
        tool_def: the called tool's definition, if known.
        all_defs: every tool definition of the server.

    Returns:
        The class, or ``None`` when no tool declares ``code``.
    """
    if tool_def is not None and code in tool_def.errors:
        return tool_def.errors[code]
    for td in all_defs:  # a code declared by another tool of the same server
        if code in td.errors:
            return td.errors[code]
    return None


def classify_invalid_params(
    exc: InvalidParamsError, name: str, arguments: dict[str, Any], tool_def: ToolDef | None
) -> McpError:
    """Refine a -32602 answer to ``tools/call``: unknown tool, invalid arguments, or neither.

    Args:
        exc: the error received.
        name: the called tool.
        arguments: the arguments sent.
        tool_def: the tool's definition, if known (its input model is checked locally).

    Returns:
        An :class:`UnknownToolError`, an :class:`InvalidArgumentsError`, or ``exc`` itself.
    """
    if isinstance(exc, UnknownToolError):
        return exc
    text = exc.message + " " + json.dumps(exc.data, default=str)
    if _UNKNOWN_TOOL_RE.search(text):
        return UnknownToolError(exc.message, code=exc.code, data=exc.data)
    locally_invalid = False
    if tool_def is not None:
        try:
            tool_def.input_model.model_validate(arguments)
        except ValidationError:
            locally_invalid = True
    if locally_invalid or _INVALID_ARGS_RE.search(text):
        return InvalidArgumentsError(exc.message, code=exc.code, data=exc.data)
    return exc


def parse_output(tool: ToolDef, result: ToolResult, raw: dict[str, Any], model: type[M], *, validate_output: bool) -> M:
    """The typed output of a tool with an ``outputSchema``.

    Args:
        tool: the tool's definition.
        result: the parsed (successful) result.
        raw: the result as received.
        model: the output model.
        validate_output: also check the value against the wire ``outputSchema``
            (for tools whose schema the model cannot fully express).

    Returns:
        ``structuredContent`` (or the JSON text block) parsed into ``model``.

    Raises:
        OutputValidationError: no candidate value matches the model or the schema.
    """
    candidates: list[Any] = []
    if "structuredContent" in raw and raw["structuredContent"] is not None:
        candidates.append(raw["structuredContent"])
    else:
        for block in result.content:
            if isinstance(block, TextContent):
                try:
                    candidates.append(json.loads(block.text))
                except ValueError:
                    continue
    if not candidates:
        raise OutputValidationError(
            f"{tool.name}: the result has neither structuredContent nor a JSON text block",
            data={"tool": tool.name, "errors": one("neither structuredContent nor a JSON text block")}, result=raw,
        )
    errors: list[list[dict[str, str]]] = []
    for value in candidates:
        attempts = [value]
        if isinstance(value, dict) and set(value) == {"result"}:
            attempts.append(value["result"])
        for attempt in attempts:
            try:
                parsed = model.model_validate(attempt)
            except ValidationError as exc:
                errors.append(redacted(model_errors(exc, attempt), attempt))
                if tool.schema_checked and validate_output and _schema_accepts(tool, attempt):
                    # valid by the schema, which is the judge; a model narrower than its schema
                    # must not refuse it (the value is passed through unconverted)
                    return _unvalidated(model, attempt)
                continue
            if validate_output:
                try:
                    check_output_schema(tool, attempt)
                except OutputValidationError as exc:
                    exc.result = raw
                    raise
            return parsed
    raise OutputValidationError(
        f"{tool.name}: the result does not match the output model {model.__name__}",
        data={"tool": tool.name, "errors": errors[0] if errors else []}, result=raw,
    )


def _schema_accepts(tool: ToolDef, value: Any) -> bool:
    try:
        check_output_schema(tool, value)
    except OutputValidationError:
        return False
    return True


def _unvalidated(model: type[M], value: Any) -> M:
    if isinstance(value, dict) and "root" not in model.model_fields:
        return model.model_construct(**value)
    return model.model_construct(root=value)


def check_output_schema(tool: ToolDef, value: Any) -> None:
    """Check ``value`` for what the output model does not express, exactly as the server does
    (:func:`~schema.validation.beyond_model_errors`: the whole ``outputSchema`` of a
    schema-checked tool, else its patterns; ECMA-262 patterns, no retrieval).

    Args:
        tool: the tool's definition.
        value: the output value.

    Raises:
        OutputValidationError: the value breaks the schema.
    """
    schema = tool.wire.get("outputSchema")
    if not isinstance(schema, dict):
        return
    try:
        problems = beyond_model_errors(tool, "outputSchema", value, values=False)
    except SchemaCheckUnavailable:
        logger.warning("jsonschema is not installed; %s output checked by the model only", tool.name)
        return
    if problems:
        raise OutputValidationError(
            f"{tool.name}: the result does not match the output schema",
            data={"tool": tool.name, "errors": problems},
        )
