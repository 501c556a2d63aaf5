"""Log lines of a served package: plain text or one JSON object per line.

``python -m <package> --log-format json`` (or ``MCP_CODEGEN_LOG_FORMAT=json``) writes every
stderr log line as a JSON object: ``time`` (ISO 8601, UTC, milliseconds), ``level``,
``logger``, ``message``, ``exception`` (the traceback text, when there is one), then the
fields of the request being handled when there is one.  The HTTP transport sets those with
:func:`request_fields` for the duration of each request: ``http_method``, ``path``,
``client`` (address), ``mcp_method`` and ``tool`` (the tool name of a ``tools/call``); its
access line (logger ``mcp_codegen.http.access``, level INFO) adds ``status`` and
``duration_ms``.  Arguments, results, tokens, session ids and other header values are never
logged.

:func:`configure_logging` installs the handler (the command line and each worker process of
``--workers`` call it).
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

#: Fields of the request being handled (one dict per request task; None outside requests).
REQUEST_FIELDS: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("mcp_log_fields", default=None)

FORMATS = ("text", "json")


def request_fields() -> dict[str, Any] | None:
    """The log fields of the request being handled (mutable: add to it), or None."""
    return REQUEST_FIELDS.get()


class JsonLogFormatter(logging.Formatter):
    """One JSON object per log line (module docstring).  Extra fields come from the
    request being handled and from ``extra={"fields": {...}}`` of the logging call."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        for fields in (REQUEST_FIELDS.get(), getattr(record, "fields", None)):
            if isinstance(fields, dict):
                for key, value in fields.items():
                    entry.setdefault(key, value)
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure_logging(level: str = "WARNING", fmt: str = "text") -> None:
    """Send log records of ``level`` and above to stderr, as text or JSON lines.

    Args:
        level: a :mod:`logging` level name.
        fmt: ``"text"`` or ``"json"``.
    """
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonLogFormatter())
    logging.basicConfig(level=str(level).upper(), handlers=[handler])


__all__ = ["FORMATS", "REQUEST_FIELDS", "JsonLogFormatter", "configure_logging", "request_fields"]
