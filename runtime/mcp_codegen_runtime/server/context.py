"""The ``ctx`` argument of every tool handler: progress, logging, cancellation, client input.

The same handler code runs in both protocol eras:

* legacy (2025-03-26 … 2025-11-25): :meth:`Context.elicit`, :meth:`Context.sample` and
  :meth:`Context.list_roots` send real JSON-RPC requests to the client and await the answer;
* 2026-07-28 (MRTR): when the retried request's ``inputResponses`` hold no answer yet, the
  handler is aborted (a ``BaseException`` the handler should not catch), the server
  returns ``resultType: "input_required"`` with every request asked so far, and re-runs
  the handler on the client's retry, when the same call returns the answer.  Handlers
  must therefore ask for input *before* doing side effects, and ask in the same order
  each run (keys identify the requests: declared inputs use their spec key, ad-hoc ones
  ``elicit-1``, ``sample-1``, ``roots-1``… by order of asking).

Input the client did not declare a capability for raises
:class:`InputUnavailableError`; a handler may catch it and carry on, otherwise the call
fails (2026: JSON-RPC ``-32021`` naming the capability; legacy: an ``isError`` result).

Sync handlers run in a worker thread; they can still use the async methods through
:meth:`Context.run`, e.g. ``ctx.run(ctx.progress(1, 2))``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError

from ..wire import protocol as p
from ..wire.apps import declares_ui
from ..wire.errors import McpError, ProtocolError, ToolError
from ..wire.tools import InputDef, ToolDef

if TYPE_CHECKING:
    from ..wire.jsonrpc import RequestId
    from .connection import Connection

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
ElicitAction = Literal["accept", "decline", "cancel"]

_CAPABILITY = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
_AUTO_PREFIX = {"elicitation/create": "elicit", "sampling/createMessage": "sample", "roots/list": "roots"}


@dataclass(frozen=True)
class Elicited(Generic[T]):
    """The client's answer to an elicitation: ``action`` and, when accepted, the content."""

    action: ElicitAction
    content: T | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept" and self.content is not None


class InputUnavailableError(ToolError):
    """The client did not declare the capability an input request needs."""

    def __init__(self, method: str, required: dict[str, Any]) -> None:
        super().__init__(f"The client does not support {method}", code=None, data=None)
        self.method = method
        #: A ClientCapabilities object such as ``{"elicitation": {}}``.
        self.required_capabilities = required


class ClientInputError(ToolError):
    """The client refused an input request or answered it with something malformed."""


class InputRequired(BaseException):
    """Raised inside a 2026 handler to stop it until the client supplies input (internal)."""


def _level_index(level: str | None) -> int:
    try:
        return p.LOG_LEVELS.index(level) if level is not None else len(p.LOG_LEVELS)
    except ValueError:
        return 0


class Context:
    """Per-call services for a handler (see module docstring).  Built by the server core."""

    def __init__(
        self,
        *,
        conn: Connection,
        request_id: RequestId,
        tool: ToolDef | None,
        meta: Mapping[str, Any],
        protocol_version: str,
        client_capabilities: Mapping[str, Any],
        client_info: Mapping[str, Any] | None,
        log_level: str | None,
        client_request_timeout: float,
        answers: dict[str, Any] | None = None,
    ) -> None:
        self._conn = conn
        self.request_id = request_id
        self.tool = tool
        #: The request's ``params._meta`` (read-only view; may be empty).
        self.meta: Mapping[str, Any] = meta
        self.protocol_version = protocol_version
        self.client_capabilities: Mapping[str, Any] = client_capabilities
        self.client_info = client_info
        self._log_threshold = _level_index(log_level)
        self._timeout = client_request_timeout
        self._loop = asyncio.get_running_loop()
        self._last_progress: float | None = None
        self._counters: dict[str, int] = {}
        self.modern = protocol_version in p.MODERN_VERSIONS
        #: 2026: answers known so far (previous rounds and this request's inputResponses).
        self.answers: dict[str, Any] = dict(answers or {})
        #: 2026: requests asked in this run and not answered yet.
        self.missing: dict[str, dict[str, Any]] = {}
        #: 2026: the capability an unanswerable request needed (when not caught).
        self.missing_capability: dict[str, Any] | None = None
        #: Set by the core when the client cancelled the request.
        self.cancelled_by_peer = False

    # -- request facts -------------------------------------------------------------
    @property
    def principal(self) -> Any:
        """The authenticated identity of the caller (``None`` on stdio)."""
        return self._conn.principal

    @property
    def request_headers(self) -> Mapping[str, str]:
        """The headers of the caller's HTTP request (lower-case names, read-only; empty on
        stdio and in process).  They may hold the caller's credentials: never log them."""
        return self._conn.request_headers

    @property
    def supports_ui(self) -> bool:
        """MCP Apps: the client declared ``io.modelcontextprotocol/ui`` with ``text/html;profile=mcp-app``, so it
        renders the tool's UI resource; the content a handler returns must be meaningful either way."""
        return declares_ui(self.client_capabilities)

    @property
    def progress_token(self) -> str | int | None:
        token = self.meta.get(p.META_PROGRESS_TOKEN)
        return token if isinstance(token, (str, int)) and not isinstance(token, bool) else None

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled this request, or the server gave up on it (its timeout, a
        cancelled task): poll it in long plain ``def`` handlers, whose thread is not stopped."""
        return self.cancelled_by_peer or self.request_id in self._conn.cancelled_ids

    def raise_if_cancelled(self) -> None:
        if self.cancelled:
            raise asyncio.CancelledError()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run one of the async methods from a sync handler's worker thread."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            coro.close()
            raise RuntimeError("Context.run is for sync handlers; await the coroutine instead")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    # -- notifications -------------------------------------------------------------
    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress (sent only when the request carried a ``progressToken``)."""
        token = self.progress_token
        if token is None or self.cancelled:
            return
        if self._last_progress is not None and progress <= self._last_progress:
            return  # progress must increase
        self._last_progress = progress
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None and self.protocol_version != p.V2025_03_26:
            params["message"] = message
        await self._conn.notify("notifications/progress", params, related_to=self.request_id)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send ``notifications/message`` if the client's level lets it through.

        Legacy: threshold from ``logging/setLevel``; 2026: only when the request carried
        ``_meta["io.modelcontextprotocol/logLevel"]``.
        """
        if level not in p.LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}")
        if self.cancelled or _level_index(level) < self._log_threshold:
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._conn.notify("notifications/message", params, related_to=self.request_id)

    # -- client input --------------------------------------------------------------
    def _has_capability(self, method: str) -> bool:
        cap = _CAPABILITY[method]
        value = self.client_capabilities.get(cap)
        if not isinstance(value, dict):
            return False
        if method == "elicitation/create":
            if self.protocol_version == p.V2025_03_26:
                return False
            return not value or "form" in value
        return True

    async def request_input(
        self, method: str, params: Mapping[str, Any] | None = None, *, key: str | None = None
    ) -> Any:
        """Ask the client (``elicitation/create``, ``sampling/createMessage``, ``roots/list``).

        Returns the raw result object.  Prefer the typed helpers below.
        """
        if method not in _CAPABILITY:
            raise ValueError(f"not a client input method: {method}")
        key = self._key(method, key)
        if not self._has_capability(method):
            required: dict[str, Any] = {_CAPABILITY[method]: {}}
            self.missing_capability = required
            raise InputUnavailableError(method, required)
        if self.modern:
            if key in self.answers and isinstance(self.answers[key], dict):
                return self.answers[key]
            self.answers.pop(key, None)
            self._ask(key, method, params)
        try:
            return await self._conn.request(
                method, dict(params) if params is not None else None, timeout=self._timeout, related_to=self.request_id
            )
        except ProtocolError as exc:
            raise ClientInputError(f"The client refused {method}: {exc.message}") from None
        except McpError as exc:
            raise ClientInputError(f"No answer to {method}: {exc.message}") from None

    def _key(self, method: str, key: str | None) -> str:
        if key is not None:
            return key
        prefix = _AUTO_PREFIX[method]
        self._counters[prefix] = self._counters.get(prefix, 0) + 1
        return f"{prefix}-{self._counters[prefix]}"

    def _ask(self, key: str, method: str, params: Mapping[str, Any] | None) -> NoReturn:
        entry: dict[str, Any] = {"method": method}
        if params is not None:
            entry["params"] = dict(params)
        self.missing[key] = entry
        raise InputRequired()

    def _reask(self, key: str, method: str, params: Mapping[str, Any] | None) -> NoReturn:
        """2026: an answer was malformed; ask again (legacy: fail the call)."""
        if not self.modern:
            raise ClientInputError(f"Malformed answer to {method}")
        self.answers.pop(key, None)
        self._ask(key, method, params)

    async def elicit(
        self, message: str, requested_schema: Mapping[str, Any], *, key: str | None = None
    ) -> Elicited[dict[str, Any]]:
        """Form elicitation: ask the user for values matching ``requested_schema``."""
        params = {"message": message, "requestedSchema": dict(requested_schema)}
        key = self._key("elicitation/create", key)
        raw = await self.request_input("elicitation/create", params, key=key)
        action = raw.get("action") if isinstance(raw, dict) else None
        content = raw.get("content") if isinstance(raw, dict) else None
        if action not in ("accept", "decline", "cancel") or (content is not None and not isinstance(content, dict)):
            self._reask(key, "elicitation/create", params)
        return Elicited(action=action, content=content if action == "accept" else None)

    async def elicit_declared(self, input_def: InputDef, model: type[M]) -> Elicited[M]:
        """Ask for a declared elicitation input; the content comes back as ``model``."""
        params = dict(input_def.params)
        answer = await self.elicit(params.get("message", ""), params.get("requestedSchema", {}), key=input_def.key)
        if answer.action != "accept":
            return Elicited(action=answer.action)
        try:
            content = model.model_validate_json(json.dumps(answer.content or {}))
        except ValidationError:
            self._reask(input_def.key, input_def.method, params)
        return Elicited(action="accept", content=content)

    async def request_declared(self, input_def: InputDef) -> Any:
        """Ask for any declared input (raw result object)."""
        return await self.request_input(input_def.method, input_def.params, key=input_def.key)

    async def sample(
        self, messages: list[dict[str, Any]], max_tokens: int, *, key: str | None = None, **params: Any
    ) -> dict[str, Any]:
        """``sampling/createMessage``: ask the client's LLM; returns the raw result."""
        body = {"messages": messages, "maxTokens": max_tokens, **params}
        key = self._key("sampling/createMessage", key)
        raw = await self.request_input("sampling/createMessage", body, key=key)
        if not isinstance(raw, dict) or "content" not in raw:
            self._reask(key, "sampling/createMessage", body)
        result: dict[str, Any] = raw
        return result

    async def list_roots(self, *, key: str | None = None) -> list[dict[str, Any]]:
        """``roots/list``: the client's roots (``[{"uri": ..., "name"?: ...}]``)."""
        key = self._key("roots/list", key)
        raw = await self.request_input("roots/list", None, key=key)
        roots = raw.get("roots") if isinstance(raw, dict) else None
        if not isinstance(roots, list):
            self._reask(key, "roots/list", None)
        return [r for r in roots if isinstance(r, dict)]
