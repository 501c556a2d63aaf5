"""``tools/call`` on the server: rate limit, validation, authorization, the handler, and the
mapping of what it returned or raised to a result (a mixin of :class:`~server.dispatch.ServerCore`).

Order of checks: unknown or disabled tool (-32602), 2026 ``requestState`` /
``inputResponses`` (-32602 when malformed or forged), the client's rate limit (``isError``),
arguments (``isError``, or -32602 for 2025-03-26/2025-06-18 clients), :meth:`authorize`
(``isError``), then the handler under ``call_timeout`` and ``max_concurrent_calls``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..schema.validation import ArgumentsInvalid, SchemaCheckUnavailable, validate_arguments
from ..wire import jsonrpc
from ..wire import protocol as p
from ..wire.errors import (
    DeclaredToolError,
    InvalidParamsError,
    MissingCapabilityError,
    ProtocolError,
    ToolError,
    UnknownToolError,
)
from ..wire.tools import ToolDef
from ..wire.versions import call_result_for_version
from .admission import Limits
from .connection import Connection
from .context import Context, InputRequired, InputUnavailableError
from .eager import within
from .input_required import RequestStateCodec
from .results import build_result, error_result
from .settings import ServerSettings

if TYPE_CHECKING:
    from .tasks.manager import TaskManager  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

logger = logging.getLogger("mcp_codegen.server")
JsonObject = dict[str, Any]

#: Versions whose clients get invalid arguments as a -32602 error (later ones: ``isError``).
_STRICT_ARG_ERRORS = frozenset({p.V2025_03_26, p.V2025_06_18})


class RequestEnv:
    """What one request tells about its client: version, capabilities, log level."""

    def __init__(
        self,
        version: str,
        caps: dict[str, Any],
        client_info: dict[str, Any] | None,
        log_level: str | None,
        meta: dict[str, Any],
    ) -> None:
        self.version = version
        self.caps = caps
        self.client_info = client_info
        self.log_level = log_level
        self.meta = meta
        self.modern = version in p.MODERN_VERSIONS


class ToolCalls:
    """The ``tools/call`` half of :class:`~server.dispatch.ServerCore` (which sets these attributes)."""

    settings: ServerSettings
    _tools: dict[str, ToolDef]
    _disabled: dict[str, set[str]]
    _limits: Limits
    _states: RequestStateCodec

    def _tasks(self) -> TaskManager:
        """The tasks extension (:class:`~server.dispatch.ServerCore` makes it on first use)."""
        raise NotImplementedError

    def authorize(self, principal: Any, tool: ToolDef, args: BaseModel) -> bool | Awaitable[bool]:
        """Override to restrict calls; False gives an ``isError`` "not authorized" result."""
        return True

    async def _call_tool(self, params: JsonObject, rid: jsonrpc.RequestId, conn: Connection, env: RequestEnv) -> JsonObject:
        name = params.get("name")
        if not isinstance(name, str):
            raise InvalidParamsError("Invalid params: tools/call needs a string name")
        args = params.get("arguments")
        args = {} if args is None else args
        if not isinstance(args, dict):
            raise InvalidParamsError("Invalid params: arguments must be an object")
        tool = self._tools.get(name)
        if tool is None or name in self._disabled["tools"]:
            raise UnknownToolError(f"Unknown tool: {name}", data={"tool": name})
        # -32021 for a task-only tool and a client without tasks; no tasks extension for other tools
        as_task = tool.task_support != "forbidden" and self._tasks().as_task(tool, env)
        answers: dict[str, Any] | None = None
        if env.modern:
            answers = self._input_required_answers(params, name, args, conn)
        admitted = self._limits.admit_now(conn.client_key)  # None: the bucket is in Redis
        if not (await self._limits.admit(conn.client_key) if admitted is None else admitted):
            return self._finish(error_result("Rate limit exceeded; retry later", p.TOOL_ERROR_RATE_LIMITED), env)
        try:
            model = validate_arguments(tool, args, plain=conn.decoded)
        except ArgumentsInvalid as exc:
            if env.version in _STRICT_ARG_ERRORS:
                raise InvalidParamsError(str(exc), data={"tool": name, "errors": exc.errors}) from None
            return self._finish(error_result(str(exc), p.TOOL_ERROR_INVALID_ARGUMENTS, {"errors": exc.errors}), env)
        except (TypeError, ValueError) as exc:  # not JSON data (in process: NaN, infinity, a set ...)
            raise InvalidParamsError(f"Invalid params: arguments are not JSON data ({exc})", data={"tool": name}) from None
        except SchemaCheckUnavailable as exc:  # never run a handler on unchecked input
            logger.error("tool %s cannot be called: %s", name, exc)
            return self._finish(error_result(f"Tool {name} failed with an internal error", p.TOOL_ERROR_INTERNAL), env)
        allowed = self.authorize(conn.principal, tool, model)
        if allowed is not True and allowed is not False and inspect.isawaitable(allowed):
            allowed = await allowed
        if not allowed:
            return self._finish(error_result(f"Not authorized to call {name}", p.TOOL_ERROR_FORBIDDEN), env)
        if as_task:  # declared inputs first (an input_required round), then the task (server.tasks)
            missing = self._tasks().declared_inputs_missing(tool, env, answers or {})
            if missing:
                return self._ask(name, args, conn, answers or {}, missing)
        kind: type[Context] = Context
        if as_task:
            from .tasks.manager import TaskContext  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
            kind = TaskContext
        ctx = kind(conn=conn, request_id=rid, tool=tool, meta=env.meta, protocol_version=env.version,
                   client_capabilities=env.caps, client_info=env.client_info, log_level=env.log_level,
                   client_request_timeout=self.settings.client_request_timeout, answers=answers)
        if as_task:
            assert isinstance(ctx, TaskContext)
            return self._finish_task(await self._tasks().start(self, tool, model, ctx, env, conn), env)
        try:
            value = await within(self.settings.call_timeout, self._run_handler(tool, model, ctx, conn.client_key))
        except InputRequired:
            return self._ask(name, args, conn, ctx.answers, ctx.missing)
        except asyncio.CancelledError:
            ctx.cancelled_by_peer = True
            raise
        except BaseException as exc:
            if isinstance(exc, TimeoutError):
                ctx.cancelled_by_peer = True  # abandoned: a plain ``def`` handler still running sees ctx.cancelled
            return self._finish(self._error_for(tool, exc, env), env)
        return self._finish(build_result(tool, value), env)

    def _input_required_answers(self, params: JsonObject, name: str, args: JsonObject, conn: Connection) -> dict[str, Any]:
        return self._states.answers(params, name, args, conn.principal)

    def _run_handler(self, tool: ToolDef, model: BaseModel, ctx: Context, client_key: str | None = None) -> Coroutine[Any, Any, Any]:
        """The handler's run under the concurrency limits, to await (no coroutine of its own:
        one frame fewer per call); NotImplementedError at once when the base is not subclassed."""
        handler: Callable[..., Any] | None = getattr(self, tool.method, None)
        if handler is None:
            raise NotImplementedError(tool.method)
        return self._limits.run(handler, model, ctx, client_key=client_key)


    def _error_for(self, tool: ToolDef, exc: BaseException, env: RequestEnv) -> JsonObject:
        if isinstance(exc, InputUnavailableError):
            if env.modern:
                raise MissingCapabilityError(
                    f"Missing client capability: {exc.method} needs {list(exc.required_capabilities)}",
                    data={"requiredCapabilities": exc.required_capabilities},
                ) from None
            return error_result(exc.message, p.TOOL_ERROR_INPUT_UNAVAILABLE)
        if isinstance(exc, DeclaredToolError):
            return error_result(exc.message, exc.error_code, exc.data)
        if isinstance(exc, ProtocolError):
            raise exc
        if isinstance(exc, ToolError):  # its tool-error code, when it has one, reaches the client
            return error_result(exc.message, exc.code if isinstance(exc.code, str) else None, exc.data)
        if isinstance(exc, NotImplementedError):
            return error_result(f"Tool {tool.name} is not implemented", p.TOOL_ERROR_NOT_IMPLEMENTED)
        if isinstance(exc, TimeoutError):
            return error_result(f"Tool {tool.name} timed out", p.TOOL_ERROR_TIMEOUT)
        if not isinstance(exc, Exception):
            raise exc
        logger.error("tool %s failed", tool.name, exc_info=exc)
        return error_result(f"Tool {tool.name} failed with an internal error", p.TOOL_ERROR_INTERNAL)

    def _ask(self, name: str, args: Any, conn: Connection, answers: dict[str, Any], requests: Any) -> JsonObject:
        """An ``input_required`` result asking ``requests``, its signed ``requestState`` carrying ``answers``."""
        state = self._states.issue(name, args, conn.principal, answers)
        return {"resultType": p.RESULT_INPUT_REQUIRED, "inputRequests": requests, "requestState": state}

    def _finish_task(self, result: JsonObject, env: RequestEnv) -> JsonObject:
        return result if result.get("resultType") == "task" else self._finish(result, env)

    def _finish(self, result: JsonObject, env: RequestEnv) -> JsonObject:
        """``result`` (just built for this call: nobody else holds it) for the request's version;
        a 2026 one is the newest shape already, so it is returned as it is, not copied."""
        return result if env.modern else call_result_for_version(result, env.version)
