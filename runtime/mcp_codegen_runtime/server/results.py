"""Turn what a handler returned (or raised) into a ``CallToolResult`` dict.

Handlers may return the tool's output model (-> ``structuredContent`` plus one text block
holding its JSON), a :class:`~wire.content.ToolResult`, one content block or a list of them,
or a plain string (one text block).  Declared errors become ``isError`` results with
``_meta["mcp-codegen/error"] = {"code": ..., "data": ...}``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import BaseModel, PrivateAttr

from ..schema.validation import OutputInvalid, dump_output
from ..schema.violations import one
from ..wire import protocol as p
from ..wire.content import AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent, ToolResult
from ..wire.errors import InternalError
from ..wire.jsontext import encoder_of
from ..wire.sanitize import strip_controls
from ..wire.tools import ToolDef

logger = logging.getLogger("mcp_codegen.server")

_BLOCKS = (TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource)


def json_safe(value: Any) -> Any:
    """``value`` if it is plain JSON, else None (logged)."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        logger.warning("dropping non-JSON error data of type %s", type(value).__name__)
        return None
    return value


def error_result(message: str, code: str | None = None, data: Any = None) -> dict[str, Any]:
    """An ``isError: true`` result with one text block (and the error code in ``_meta``).

    The message is stripped of terminal control sequences (:mod:`wire.sanitize`).
    """
    result: dict[str, Any] = {"content": [{"type": "text", "text": strip_controls(message)}], "isError": True}
    if code is not None:
        info: dict[str, Any] = {"code": code}
        safe = json_safe(data) if data is not None else None
        if safe is not None:
            info["data"] = safe
        result["_meta"] = {p.META_TOOL_ERROR: info}
    return result


def _dump_block(block: BaseModel) -> dict[str, Any]:
    out: dict[str, Any] = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    return out


def _invalid(tool: ToolDef, why: str, errors: list[dict[str, str]]) -> InternalError:
    """-32603 ``mcp-codegen.invalid_output``: which fields broke and how (``errors``, no values)
    in the message and ``data.errors``; ``why`` (with values) goes to the server log only."""
    logger.error("tool %s returned an invalid result: %s", tool.name, why)
    details = "; ".join(f"{e['path']}: {e['message']}" if e["path"] else e["message"] for e in errors)
    return InternalError(f"Internal error: tool {tool.name} produced an invalid result: {strip_controls(details)}",
                         data={"code": p.ERROR_INVALID_OUTPUT, "errors": errors})


#: ``json.dumps(data, ensure_ascii=False)`` with the encoder built once (and called without
#: ``JSONEncoder.encode``'s set-up: :func:`wire.jsontext.encoder_of`).
_TEXT = json.JSONEncoder(ensure_ascii=False)
_text = encoder_of(_TEXT)


class CheckedResult(ToolResult):
    """A :class:`ToolResult` of structured content that the runtime checked against its tool's
    output schema when it made it (:func:`checked_result`), with the wire form made then:
    :func:`build_result` sends that form for the same tool without checking it again, unless the
    result was changed since (a subclass's handler may edit what ``super()`` returned), which is
    then checked like any other result."""

    _wire: tuple[ToolDef, TextContent, str] | None = PrivateAttr(default=None)
    #: Kept and sent again (a mock's answer): each send gets its own copy of the content.
    _kept: bool = PrivateAttr(default=False)

    def sent_as(self, tool: ToolDef) -> dict[str, Any] | None:
        """The wire form made with the result, when this result for ``tool`` is still what it was
        made as (its structured content still has the JSON text of its one text block)."""
        private = self.__pydantic_private__  # read directly: pydantic's __getattr__ is slow
        made: tuple[ToolDef, TextContent, str] | None = private.get("_wire") if private else None
        if made is None or made[0] is not tool or self.isError or self.meta is not None or self.__pydantic_extra__:
            return None
        _, block, text = made
        content = self.content
        if (len(content) != 1 or content[0] is not block or block.text is not text or block.annotations is not None
                or block.meta is not None or block.__pydantic_extra__):
            return None
        data = self.structuredContent
        try:
            if _text(data) != text:
                return None
        except (TypeError, ValueError):
            return None
        kept = private is not None and private.get("_kept") is True
        return {"content": [{"type": "text", "text": text}], "structuredContent": json.loads(text) if kept else data}


def checked_result(tool: ToolDef, data: Any, *, fresh: bool = False, kept: bool = False) -> ToolResult:
    """The result of structured ``data`` for ``tool`` (the output check, then one text block of
    its JSON), as a handler's return value would give, checked once (see :class:`CheckedResult`).
    ``fresh``: ``data`` was just parsed from JSON text (:func:`~schema.validation.dump_output`);
    ``kept``: the result is kept and returned again (each answer then gets a copy of it).

    Raises:
        OutputInvalid: ``data`` breaks the tool's output schema.
    """
    checked = dump_output(tool, data, fresh=fresh)
    text = _text(checked)
    block = TextContent(text=text)  # validated construction: faster than pydantic's model_construct
    result = CheckedResult(content=[block], structuredContent=checked)
    result.__pydantic_private__ = {"_wire": (tool, block, text), "_kept": kept}
    return result


def _structured(tool: ToolDef, value: Any) -> dict[str, Any]:
    try:
        data = dump_output(tool, value)
    except OutputInvalid as exc:
        raise _invalid(tool, str(exc), exc.errors) from None
    text = _text(data)
    return {"content": [{"type": "text", "text": text}], "structuredContent": data}


def build_result(tool: ToolDef, value: Any) -> dict[str, Any]:
    """The CallToolResult (newest protocol shape) for a handler's return value.

    Text in content blocks is stripped of terminal control sequences unless the tool says
    ``raw_output`` (the spec's ``raw_output: true``); structured content is data and stays.

    Raises:
        InternalError: the value breaks the output schema or is of an unsupported type
            (-32603; the failing fields and why in ``data.errors``, never the values; the
            full details go to the server log only).
    """
    result = _build_result(tool, value)
    return result if tool.raw_output else sanitized(result)


def sanitized(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with the text of its content blocks (and embedded text resources) stripped
    of terminal control sequences."""
    blocks = result.get("content")
    if not isinstance(blocks, list):
        return result
    if len(blocks) == 1:  # the common result: one text block, usually clean (then no copy)
        block = blocks[0]
        if (type(block) is dict and "resource" not in block and type(block.get("text")) is str
                and strip_controls(block["text"]) is block["text"]):
            return result
    clean = []
    for block in blocks:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            block = {**block, "text": strip_controls(block["text"])}
        resource = block.get("resource") if isinstance(block, dict) else None
        if isinstance(resource, dict) and isinstance(resource.get("text"), str):
            block = {**block, "resource": {**resource, "text": strip_controls(resource["text"])}}
        clean.append(block)
    return {**result, "content": clean}


def _build_result(tool: ToolDef, value: Any) -> dict[str, Any]:
    if type(value) is CheckedResult:
        sent = value.sent_as(tool)
        if sent is not None:
            return sent
    if isinstance(value, ToolResult):
        result: dict[str, Any] = value.model_dump(mode="json", by_alias=True, exclude_none=True)
        if tool.output_model is not None and not value.isError:
            if value.structuredContent is None:
                raise _invalid(tool, "ToolResult without structuredContent for a tool with outputSchema",
                               one("structuredContent is missing (the tool declares an outputSchema)"))
            try:
                result["structuredContent"] = dump_output(tool, value.structuredContent)
            except OutputInvalid as exc:
                raise _invalid(tool, str(exc), exc.errors) from None
        if not result.get("isError"):
            result.pop("isError", None)
        return result
    if tool.output_model is not None:
        if isinstance(value, _BLOCKS) or isinstance(value, str):
            raise _invalid(tool, "content without structuredContent for a tool with outputSchema",
                           one("structuredContent is missing (the tool declares an outputSchema)"))
        return _structured(tool, value)
    if isinstance(value, _BLOCKS):
        return {"content": [_dump_block(value)]}
    if isinstance(value, str):
        return {"content": [{"type": "text", "text": value}]}
    if isinstance(value, list) and all(isinstance(b, _BLOCKS) for b in value):
        return {"content": [_dump_block(b) for b in value]}
    raise _invalid(tool, f"unsupported return type {type(value).__name__}",
                   one("unsupported return type (expected a ToolResult, content blocks or a string)"))
