"""Client input: answering the server's elicitation, sampling and roots requests.

The ``elicitation=``, ``sampling=`` and ``roots=`` handlers (see ``client/types.py``) answer
them in both eras:

* legacy: the server sends a JSON-RPC request to the client (no handler: -32601);
  :func:`answer_input` gives its result;
* 2026-07-28: ``tools/call`` answers ``resultType: "input_required"`` with
  ``inputRequests`` and/or ``requestState``; :func:`run_input_rounds` answers each
  request and calls again (a new JSON-RPC id per round, ``requestState`` echoed
  unchanged, at most ``max_rounds`` rounds, then :class:`InputRequiredLoopError`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..wire import protocol as p
from ..wire.errors import InputRequiredLoopError, InvalidParamsError, MethodNotFoundError, ProtocolError
from ..wire.tools import ToolDef
from .hooks import call_user
from .types import (
    ElicitationHandler,
    ElicitationRequest,
    ElicitationResponse,
    Root,
    RootsHandler,
    SamplingHandler,
    SamplingRequest,
    SamplingResponse,
)

R = TypeVar("R", bound=BaseModel)

#: Sends one ``tools/call`` round: its params -> the raw result.
RoundSender = Callable[[dict[str, Any]], Awaitable[Any]]
#: Answers one input request: ``(method, params, key)`` -> its response.
InputAnswerer = Callable[[str, Any, str], Awaitable[dict[str, Any]]]


async def answer_input(
    method: str,
    params: Any,
    *,
    tool: str | None,
    key: str | None,
    tool_def: ToolDef | None,
    elicitation: ElicitationHandler | None,
    sampling: SamplingHandler | None,
    roots: RootsHandler | Sequence[Root] | None,
) -> dict[str, Any]:
    """Answer one elicitation / sampling / roots request with the user's handler.

    Args:
        method: ``elicitation/create``, ``sampling/createMessage`` or ``roots/list``.
        params: the request's params.
        tool: the tool call it belongs to, if known.
        key: its key in ``inputRequests`` (2026), if any.
        tool_def: the tool's definition, if known (its declared inputs name the request).
        elicitation: the client's elicitation handler.
        sampling: the client's sampling handler.
        roots: the client's roots handler, or a fixed list of roots.

    Returns:
        The response, as wire JSON.

    Raises:
        MethodNotFoundError: no handler for ``method``.
        InvalidParamsError: malformed params.
    """
    params = params if isinstance(params, dict) else {}
    if method == "elicitation/create":
        if elicitation is None:
            raise MethodNotFoundError("elicitation is not supported by this client", data=method)
        input_def = tool_def.inputs.get(key) if (tool_def is not None and key is not None) else None
        if input_def is None and tool_def is not None and key is None:
            for cand in tool_def.inputs.values():
                if cand.method == method and cand.params.get("message") == params.get("message"):
                    input_def, key = cand, cand.key
                    break
        request = _parse_params(ElicitationRequest, method, params)
        request.tool, request.key, request.input_def = tool, key, input_def
        return await _respond(elicitation, request, ElicitationResponse)
    if method == "sampling/createMessage":
        if sampling is None:
            raise MethodNotFoundError("sampling is not supported by this client", data=method)
        sreq = _parse_params(SamplingRequest, method, params)
        sreq.tool, sreq.key = tool, key
        return await _respond(sampling, sreq, SamplingResponse)
    if method == "roots/list":
        if roots is None:
            raise MethodNotFoundError("roots are not supported by this client", data=method)
        if callable(roots):
            listed = await call_user(roots)
        else:
            listed = list(roots)
        return {"roots": [dump_model(r) for r in listed]}
    raise MethodNotFoundError(f"unsupported client request {method}", data=method)


def _parse_params(model: type[R], method: str, params: dict[str, Any]) -> R:
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise InvalidParamsError(f"malformed {method} params", data=str(exc)) from None


async def _respond(handler: Callable[..., Any], request: BaseModel, response_model: type[BaseModel]) -> dict[str, Any]:
    """The handler's answer to ``request`` (a mapping is read as ``response_model`` first)."""
    answer = await call_user(handler, request)
    if isinstance(answer, Mapping):
        answer = response_model.model_validate(answer)
    return dump_model(answer)


def dump_model(value: Any) -> dict[str, Any]:
    """A handler's answer as wire JSON (a model by alias without ``None`` fields, or a mapping)."""
    if isinstance(value, BaseModel):
        dumped: dict[str, Any] = value.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"handler returned {type(value).__name__}, expected a model or a mapping")


async def run_input_rounds(
    name: str, arguments: dict[str, Any], send: RoundSender, answer: InputAnswerer, max_rounds: int
) -> tuple[dict[str, Any], int]:
    """Call a tool until its result is complete, answering ``input_required`` rounds.

    Args:
        name: the tool.
        arguments: its arguments (sent unchanged in every round).
        send: sends one round's params and returns the raw result.
        answer: answers one entry of ``inputRequests``.
        max_rounds: the most rounds before giving up.

    Returns:
        The complete result and the number of rounds it took.

    Raises:
        ProtocolError: a malformed result or input request.
        InputRequiredLoopError: still ``input_required`` after ``max_rounds`` rounds.
    """
    extra: dict[str, Any] = {}
    for round_no in range(1, max_rounds + 1):
        result = await send({"name": name, "arguments": arguments, **extra})
        if not isinstance(result, dict):
            raise ProtocolError(f"{name}: malformed tools/call result", data=result)
        rtype = result.get("resultType", p.RESULT_COMPLETE)
        if rtype in (p.RESULT_COMPLETE, "task"):  # "task": a CreateTaskResult (client/tasks/handle.py)
            return result, round_no
        if rtype != p.RESULT_INPUT_REQUIRED:
            raise ProtocolError(f"{name}: unknown resultType {rtype!r}", data=result)
        requests = result.get("inputRequests")
        state = result.get("requestState")
        if requests is None and state is None:
            raise ProtocolError(f"{name}: input_required without inputRequests or requestState", data=result)
        if requests is not None and not isinstance(requests, dict):
            raise ProtocolError(f"{name}: inputRequests is not an object", data=result)
        if state is not None and not isinstance(state, str):
            raise ProtocolError(f"{name}: requestState is not a string", data=result)
        responses: dict[str, Any] = {}
        for key, req in (requests or {}).items():
            if not isinstance(req, dict) or not isinstance(req.get("method"), str):
                raise ProtocolError(f"{name}: malformed input request {key!r}", data=req)
            responses[key] = await answer(req["method"], req.get("params"), key)
        extra = {}
        if responses:
            extra["inputResponses"] = responses
        if state is not None:
            extra["requestState"] = state
    raise InputRequiredLoopError(
        f"{name}: the server still asked for input after {max_rounds} rounds",
        data={"tool": name, "rounds": max_rounds},
    )
