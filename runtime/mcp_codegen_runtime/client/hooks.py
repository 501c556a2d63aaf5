"""Call hooks: confirmation before a tool call, progress during it, an audit record after it.

``confirm=`` is asked before any tool that is not read-only (or is destructive, or
is not one of the generated tools); a refusal raises
:class:`ConfirmationDeniedError` and nothing is sent.  ``audit=`` receives an
:class:`~client.types.AuditRecord` per call (default: :func:`default_audit_hook`, a log
line on the ``mcp_codegen.client.audit`` logger; ``audit=None`` disables it).
``progress=`` receives progress notifications as :class:`~client.types.Progress`.

Hooks may be plain functions or coroutine functions; :func:`call_user` runs plain
confirm/input handlers in a worker thread so a blocking prompt does not stall the loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any

from ..wire.errors import (
    ConfirmationDeniedError,
    DeclaredToolError,
    McpError,
    McpTimeoutError,
    ToolError,
    TransportClosedError,
)
from ..wire.tools import ToolDef, canonical_json
from .session import ProgressHandler
from .types import AuditHook, AuditRecord, ConfirmHook, Progress, ProgressCallback, ToolCallInfo

logger = logging.getLogger("mcp_codegen.client")
audit_logger = logging.getLogger("mcp_codegen.client.audit")


def _audit_level(outcome: str) -> int:
    return logging.INFO if outcome in ("ok", "tool_error") else logging.WARNING


def audit_wanted(hook: AuditHook | None, outcome: str) -> bool:
    """Whether a call with this outcome needs its :class:`AuditRecord` built: there is a
    hook, and it is not the default one with its log level disabled (it would drop it)."""
    if hook is None:
        return False
    return hook is not default_audit_hook or audit_logger.isEnabledFor(_audit_level(outcome))


def default_audit_hook(record: AuditRecord) -> None:
    """Log one line per tool call on ``mcp_codegen.client.audit`` (INFO, WARNING if not ok)."""
    level = _audit_level(record.outcome)
    audit_logger.log(
        level,
        "tool=%s outcome=%s error=%s duration=%.3fs args_sha256=%s era=%s version=%s rounds=%d",
        record.tool,
        record.outcome,
        record.error or "-",
        record.duration_s,
        record.arguments_sha256,
        record.era or "-",
        record.protocol_version or "-",
        record.rounds,
    )


def arguments_digest(arguments: Mapping[str, Any] | None) -> str:
    """sha256 of the canonical JSON of tool arguments (what the audit hook records)."""
    return hashlib.sha256(canonical_json(dict(arguments or {})).encode("utf-8")).hexdigest()


async def call_user(fn: Callable[..., Any], *args: Any) -> Any:
    """Call a user hook: coroutine functions are awaited, plain ones run in a thread.

    Args:
        fn: the hook or handler.
        *args: its arguments.

    Returns:
        What it returned (awaited if it returned an awaitable).
    """
    if inspect.iscoroutinefunction(fn):
        out = await fn(*args)
    else:
        out = await asyncio.to_thread(fn, *args)
    if inspect.isawaitable(out):
        out = await out
    return out


async def confirm_call(
    hook: ConfirmHook | None,
    name: str,
    arguments: Mapping[str, Any],
    tool_def: ToolDef | None,
    live_tool: Mapping[str, Any],
) -> None:
    """Ask the confirm hook before a call that may change something.

    Args:
        hook: the ``confirm=`` hook (``None``: every call goes ahead).
        name: the tool to call.
        arguments: its arguments.
        tool_def: its generated definition, if it is one of the generated tools.
        live_tool: its wire ``Tool`` from the last ``tools/list`` (used without ``tool_def``).

    Raises:
        ConfirmationDeniedError: the hook refused.
    """
    if hook is None:
        return
    if tool_def is None:
        reason: str | None = "unknown tool"
    elif tool_def.destructive:
        reason = "destructive"
    elif not tool_def.read_only:
        reason = "not read-only"
    else:
        reason = None
    if reason is None:
        return
    wire: Mapping[str, Any] = tool_def.wire if tool_def is not None else live_tool
    ann = wire.get("annotations")
    info = ToolCallInfo(
        tool=name,
        arguments=arguments,
        reason=reason,
        tool_def=tool_def,
        annotations=ann if isinstance(ann, Mapping) else {},
        title=wire.get("title") if isinstance(wire.get("title"), str) else None,
        description=wire.get("description") if isinstance(wire.get("description"), str) else None,
    )
    if not await call_user(hook, info):
        raise ConfirmationDeniedError(f"call of {name} refused by the confirm hook", data={"tool": name})


def progress_handler(callback: ProgressCallback | None) -> ProgressHandler | None:
    """Adapt a ``progress=`` callback to the session's ``(value, total, message)`` handler.

    Args:
        callback: the user's callback, or ``None``.

    Returns:
        The session-level handler, or ``None`` when there is no callback.
    """
    if callback is None:
        return None
    cb = callback

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        out = cb(Progress(value, total, message))
        if inspect.isawaitable(out):
            await out

    return on_progress


async def run_audit(hook: AuditHook | None, record: AuditRecord) -> None:
    """Give ``record`` to the audit hook; a failing hook is logged, never raised."""
    if hook is None:
        return
    try:
        out = hook(record)
        if inspect.isawaitable(out):
            await out
    except Exception:
        logger.exception("audit hook failed")


def error_code(exc: BaseException) -> int | str | None:
    """The ``error_code`` of an audit record: a declared error's code or the JSON-RPC code."""
    if isinstance(exc, DeclaredToolError):
        return exc.error_code or None
    if isinstance(exc, McpError):
        return exc.code
    return None


def outcome_of(exc: BaseException) -> str:
    """The ``outcome`` of an audit record for a call that raised ``exc``."""
    if isinstance(exc, ConfirmationDeniedError):
        return "denied"
    if isinstance(exc, McpTimeoutError):
        return "timeout"
    if isinstance(exc, TransportClosedError):
        return "transport_closed"
    if isinstance(exc, ToolError):
        return "tool_error"
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled"
    return "error"
