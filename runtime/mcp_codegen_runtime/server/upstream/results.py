"""The upstream's answer as the tool's result (``/work/contract-openapi.md``, "Results").

* 2xx JSON (``application/json``, ``*+json``): with an ``outputSchema``, ``structuredContent``
  (under ``http.wrap`` when set) checked as every tool's output is
  (:func:`schema.validation.dump_output`), plus its JSON text; a body that breaks the schema is
  a tool error naming the failing paths (never the values), not an internal error.  Without
  one: the JSON text.
* 2xx text (``text/*``, XML, other textual types): text content; ``image/*``: image content;
  ``audio/*``: audio content; anything else: an embedded resource (``blob``) whose URI is the
  request URL without its query (where an API key may be) and without user information.
* An empty 2xx body: no content, or a tool error when the tool promises structured content.
* Non-2xx: the declared error ``http.errors`` maps the status to (exact status, then ``4XX``,
  then ``default``), message ``"<reason> (HTTP N)"``; else a tool error
  ``mcp-codegen.upstream`` ``"the upstream answered HTTP N <reason>"``; both with data
  ``{"status": N, "body": <JSON or text, at most 64 KiB>}``.
"""

from __future__ import annotations

import base64
import json
import logging
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...schema.validation import OutputInvalid
from ...wire import protocol as p
from ...wire.content import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    TextContent,
    ToolResult,
)
from ...wire.errors import ToolError
from ...wire.tools import ToolDef
from ..results import checked_result
from .binding import HttpBinding
from .body import is_json, media_type
from .client import Answer

logger = logging.getLogger("mcp_codegen.server.upstream")

#: At most this much of an error answer's body goes into the error's data.
MAX_ERROR_BODY = 64 * 1024
_TEXTUAL = frozenset({"application/xml", "application/javascript", "application/ecmascript", "application/yaml",
                      "application/x-yaml", "application/toml", "application/graphql", "application/sql",
                      "application/x-www-form-urlencoded", "application/x-ndjson", "application/csv"})


def upstream_error(message: str, data: Any = None) -> ToolError:
    """A tool error of an upstream call (code ``mcp-codegen.upstream``)."""
    return ToolError(message, code=p.TOOL_ERROR_UPSTREAM, data=data)


def is_text(mime: str) -> bool:
    return mime.startswith("text/") or mime.endswith("+xml") or mime in _TEXTUAL


def _charset(content_type: str) -> str:
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return "utf-8"


def _decode(body: bytes, content_type: str) -> str:
    try:
        return body.decode(_charset(content_type), errors="replace")
    except LookupError:  # an unknown charset
        return body.decode("utf-8", errors="replace")


def public_url(url: str) -> str:
    """``url`` without query, fragment and user information."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def success(tool: ToolDef, binding: HttpBinding, answer: Answer, url: str) -> ToolResult:
    """The result of a 2xx answer (module docstring).

    Raises:
        ToolError: a body the tool's schema refuses, malformed JSON, or no body where one is due.
    """
    ctype = answer.headers.get("content-type", "")
    mime = media_type(ctype)
    structured = tool.output_model is not None
    if not answer.body:
        if structured:
            raise upstream_error(f"the upstream answered HTTP {answer.status} with no body, but the tool's result "
                                 "is documented to hold one", {"status": answer.status})
        return ToolResult(content=[])
    if is_json(mime) or (structured and not mime):
        try:
            data = json.loads(answer.body.decode(_charset(ctype), errors="strict"))
        except (ValueError, LookupError):
            raise upstream_error("the upstream's answer is not valid JSON", {"status": answer.status}) from None
        if not structured:
            return ToolResult(content=[TextContent(text=json.dumps(data, ensure_ascii=False))])
        if binding.wrap is not None:
            data = {binding.wrap: data}
        try:  # checked once: the server sends this result as it is (CheckedResult)
            return checked_result(tool, data, fresh=True)
        except OutputInvalid as exc:
            logger.info("tool %s: the upstream's answer breaks the output schema: %s", tool.name, exc.errors)
            paths = "; ".join(f"{e['path']}: {e['message']}" if e["path"] else e["message"] for e in exc.errors)
            raise upstream_error(f"the upstream's answer does not match the documented response schema: {paths}",
                                 {"status": answer.status, "errors": exc.errors}) from None
    if structured:
        raise upstream_error(f"the upstream answered {mime or 'a body without a media type'}, not the JSON the "
                             "tool's result is documented to be", {"status": answer.status})
    if is_text(mime) or not mime:
        return ToolResult(content=[TextContent(text=_decode(answer.body, ctype))])
    data64 = base64.b64encode(answer.body).decode("ascii")
    if mime.startswith("image/"):
        return ToolResult(content=[ImageContent(data=data64, mimeType=mime)])
    if mime.startswith("audio/"):
        return ToolResult(content=[AudioContent(data=data64, mimeType=mime)])
    resource = BlobResourceContents(uri=public_url(url), mimeType=mime, blob=data64)
    return ToolResult(content=[EmbeddedResource(resource=resource)])


def _error_body(answer: Answer) -> Any:
    ctype = answer.headers.get("content-type", "")
    body = answer.body[:MAX_ERROR_BODY]
    if is_json(media_type(ctype)) and len(answer.body) <= MAX_ERROR_BODY:
        try:
            return json.loads(body.decode(_charset(ctype)))
        except (ValueError, LookupError):
            pass
    return _decode(body, ctype) if body else None


def _declared_code(binding: HttpBinding, status: int) -> str | None:
    errors = binding.errors
    return errors.get(str(status)) or errors.get(f"{status // 100}XX") or errors.get("default")


def failure(tool: ToolDef, binding: HttpBinding, answer: Answer) -> ToolError:
    """The error of a non-2xx answer (module docstring)."""
    try:
        reason = answer.reason or HTTPStatus(answer.status).phrase
    except ValueError:
        reason = ""
    data = {"status": answer.status, "body": _error_body(answer)}
    code = _declared_code(binding, answer.status)
    cls = tool.errors.get(code) if code is not None else None
    if cls is not None:
        return cls(f"{reason or 'Error'} (HTTP {answer.status})", data=data)
    if code is not None:
        logger.warning("tool %s: http.errors maps HTTP %s to %r, which the tool does not declare",
                       tool.name, answer.status, code)
    return upstream_error(f"the upstream answered HTTP {answer.status} {reason}".rstrip(), data)


__all__ = ["MAX_ERROR_BODY", "failure", "public_url", "success", "upstream_error"]
