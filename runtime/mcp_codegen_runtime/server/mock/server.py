""":func:`mock_server`: a generated server base class answering from its spec, with no implementation.

The mock is a subclass of the generated base whose every handler (tools, resources, resource
templates, prompts, completions) is written here; everything else is the normal server path:
arguments are validated exactly as the generated server validates them (the same errors),
outputs are checked against the output schema, both protocol eras and every transport work.

What each handler answers is in :mod:`.values`; a :class:`~.scenario.MockScenario` may make a
tool call wait, fail with a declared error, a tool error or a JSON-RPC error, or answer something
fixed.  With a cassette (``replay=``, :mod:`.replay`) recorded requests get their recorded
answers whatever the spec says; an unrecorded ``tools/call`` is a tool error and an unrecorded
``resources/read``, ``prompts/get`` or ``completion/complete`` a ``-32602`` error, each naming
the nearest recorded call (``_meta["mcp-codegen/error"].code`` / ``data.code``:
``mcp-codegen.unrecorded``); ``initialize`` and the lists are answered from the cassette when
recorded, else from the spec.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ...schema.examples import Examples
from ...wire import jsonrpc
from ...wire.content import ToolResult
from ...wire.errors import InvalidParamsError, ProtocolError, ToolError
from ...wire.tools import ToolDef
from ..base import ServerBase
from ..connection import Connection
from ..context import Context
from ..settings import ServerSettings
from .replay import REPLAYED_ONLY, Cassette
from .scenario import MockScenario, Rule, ScenarioError
from .values import (
    MockValueError,
    canonical,
    completion_values,
    prompt_text,
    resource_value,
    tool_output,
)

#: The tool-error / ``data.code`` of a request a replaying mock has no recording of.
UNRECORDED = "mcp-codegen.unrecorded"
#: The tool-error code of a mocked call whose output schema could not be satisfied.
UNSATISFIABLE = "mcp-codegen.mock_unsatisfiable"
#: Mocked outputs kept per server (they are deterministic: the same call, the same value).
_CACHED_OUTPUTS = 1024


class MockServer(ServerBase):
    """What every mock class adds to its generated base (see :func:`mock_server`)."""

    mock_seed: int = 0
    mock_scenario: MockScenario | None = None
    mock_cassette: Cassette | None = None

    def _mock_init(self, seed: int, scenario: MockScenario | None, cassette: Cassette | None) -> None:
        self.mock_seed = seed
        self.mock_scenario = scenario
        self.mock_cassette = cassette
        self._mock_outputs: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._mock_examples: dict[str, Examples] = {}  # per tool: its output schema's checks compiled once

    # -- tools ---------------------------------------------------------------------------
    async def mock_tool(self, tool: ToolDef, args: BaseModel, ctx: Context) -> Any:
        """The answer of one tool call (its arguments already validated by the server)."""
        raw = args.model_dump_json(by_alias=True, exclude_unset=True)  # the arguments as sent
        if self.mock_cassette is not None:
            raise ToolError(self.mock_cassette.unrecorded("tools/call", {"name": tool.name, "arguments": json.loads(raw)}),
                            code=UNRECORDED)
        if self.mock_scenario is not None:
            rule = self.mock_scenario.pick(tool.name, json.loads(raw))
            if rule is not None:
                if rule.delay:
                    await asyncio.sleep(rule.delay)
                fixed = _outcome(tool, rule)
                if fixed is not None:
                    return fixed
        return self._mock_output(tool, raw)

    def _mock_output(self, tool: ToolDef, raw: str) -> Any:
        """The generated output of a call, kept for the same arguments (the server's output check
        copies what a handler returns, so the kept value is never changed)."""
        key = (tool.name, raw)
        cached = self._mock_outputs.get(key)
        if cached is not None:
            self._mock_outputs.move_to_end(key)
            return cached
        examples = self._mock_examples.get(tool.name)
        if examples is None and tool.output_model is not None and "outputSchema" in tool.wire:
            examples = self._mock_examples[tool.name] = Examples(tool.wire["outputSchema"])
        try:
            value = tool_output(tool, json.loads(raw), self.mock_seed, examples)
        except MockValueError as exc:
            raise ToolError(str(exc), code=UNSATISFIABLE) from None
        self._mock_outputs[key] = value
        if len(self._mock_outputs) > _CACHED_OUTPUTS:
            self._mock_outputs.popitem(last=False)
        return value



class ReplayServer(MockServer):
    """A mock answering from a cassette first (the class of a ``replay=`` mock)."""

    async def _dispatch(self, method: str, params: dict[str, Any] | None, rid: jsonrpc.RequestId,
                        conn: Connection) -> Any:
        cassette = self.mock_cassette
        if cassette is None:
            return await super()._dispatch(method, params, rid, conn)
        found = cassette.answer(method, params)
        if found is None:
            unknown_tool = method == "tools/call" and (params or {}).get("name") not in self._tools
            if (method in REPLAYED_ONLY and method != "tools/call") or unknown_tool:
                near = cassette.nearest(method, params)
                raise InvalidParamsError(cassette.unrecorded(method, params), data={
                    "code": UNRECORDED, "nearest": {"method": near.method, "params": near.params} if near else None})
            return await super()._dispatch(method, params, rid, conn)
        if method == "initialize":  # the session starts as it would; the answer is the recorded one
            await super()._dispatch(method, params, rid, conn)
        if "error" in found.response:
            error = found.response["error"] if isinstance(found.response["error"], dict) else {}
            code = error.get("code")
            raise ProtocolError(str(error.get("message", "")), code=code if isinstance(code, int) else None,
                                data=error.get("data"))
        return copy.deepcopy(found.response["result"])


def _outcome(tool: ToolDef, rule: Rule) -> Any:
    """What a scenario rule makes of a call: raises its error, returns its fixed result, or None."""
    if rule.error is not None:
        cls = tool.errors[rule.error]
        doc = (cls.__doc__ or "").strip()
        raise cls(rule.message or doc or rule.error, data=rule.data)
    if rule.fail is not None:
        raise ToolError(rule.fail)
    if rule.protocol_error is not None:
        perr = rule.protocol_error
        raise ProtocolError(str(perr["message"]), code=int(perr["code"]), data=perr.get("data"))
    if not rule.has_result:
        return None
    result = rule.result
    if isinstance(result, Mapping) and ("content" in result or "structuredContent" in result):
        return ToolResult.model_validate(dict(result))
    if tool.output_model is None and not isinstance(result, str):
        return canonical(result)
    return copy.deepcopy(result)


# -- the handlers of a mock class -------------------------------------------------------------


def _tool_handler(tool: ToolDef) -> Callable[..., Any]:
    async def handler(self: MockServer, args: BaseModel, ctx: Context) -> Any:
        if self.mock_scenario is None and self.mock_cassette is None:  # the common case, without a further await
            return self._mock_output(tool, args.model_dump_json(by_alias=True, exclude_unset=True))
        return await self.mock_tool(tool, args, ctx)

    return handler


def _resource_handler(uri: str, mime_type: Any) -> Callable[..., Any]:
    async def handler(self: MockServer, ctx: Context) -> Any:
        return resource_value(uri, mime_type)

    return handler


def _template_handler(template: Any, mime_type: Any) -> Callable[..., Any]:
    async def handler(self: MockServer, variables: BaseModel, ctx: Context) -> Any:
        values = variables.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:
            uri = template.template.expand({k: str(v) for k, v in values.items()})
        except ValueError:
            uri = template.uri_template
        return resource_value(uri, mime_type, values)

    return handler


def _prompt_handler(name: str) -> Callable[..., Any]:
    async def handler(self: MockServer, args: BaseModel, ctx: Context) -> Any:
        return prompt_text(name, args.model_dump(mode="json", by_alias=True, exclude_none=True))

    return handler


def _completion_handler(model: type[BaseModel], argument: str) -> Callable[..., Any]:
    async def handler(self: MockServer, value: str, context: dict[str, str], ctx: Context) -> Any:
        return completion_values(model, argument, value)

    return handler


_CLASSES: dict[tuple[type[ServerBase], bool], type[MockServer]] = {}


def mock_class(base: type[ServerBase], replay: bool = False) -> type[MockServer]:
    """The mock subclass of a generated base class: one handler per tool, resource, resource
    template, prompt and completion it declares (made once per base; ``replay``: answering from
    a cassette first, :class:`ReplayServer`)."""
    made = _CLASSES.get((base, replay))
    if made is not None:
        return made
    namespace: dict[str, Any] = {"__module__": __name__, "__qualname__": f"Mock{base.__name__}"}
    for tool in base.tool_defs:
        namespace[tool.method] = _tool_handler(tool)
    for res in base.resource_defs:
        namespace[res.method] = _resource_handler(res.uri, res.wire.get("mimeType"))
    for tpl in base.resource_template_defs:
        namespace[tpl.method] = _template_handler(tpl, tpl.wire.get("mimeType"))
        for key, source in tpl.completions.items():
            if source.method:
                namespace[source.method] = _completion_handler(tpl.variables_model, key)
    for prompt in base.prompt_defs:
        namespace[prompt.method] = _prompt_handler(prompt.name)
        for key, source in prompt.completions.items():
            if source.method:
                namespace[source.method] = _completion_handler(prompt.arguments_model, key)
    cls: type[MockServer] = type(f"Mock{base.__name__}", (ReplayServer if replay else MockServer, base), namespace)
    _CLASSES[(base, replay)] = cls
    return cls


def mock_server(base: type[ServerBase], *, seed: int = 0, scenario: MockScenario | str | Path | None = None,
                replay: Path | str | None = None, settings: ServerSettings | None = None) -> ServerBase:
    """A server answering from the spec of ``base`` (a generated ``<Name>ServerBase``) with no
    implementation (see the module docstring).

    Args:
        base: the generated server base class.
        seed: the draw of generated values (the same seed and call give the same answer).
        scenario: rules for errors, delays and fixed results (a :class:`MockScenario` or its file).
        replay: a cassette (``mcp-codegen proxy --record``) whose recorded answers to give.
        settings: the server's settings (default: the defaults).

    Raises:
        ScenarioError: the scenario has mistakes, or names tools or error codes ``base`` lacks.
        CassetteError: the cassette cannot be read.
    """
    if isinstance(scenario, (str, Path)):
        scenario = MockScenario.load(scenario)
    if scenario is not None:
        problems = scenario.problems(base.tool_defs)
        if problems:
            raise ScenarioError(problems)
        scenario = MockScenario([dataclasses.replace(r) for r in scenario.rules], scenario.source)  # own counters
    cassette = Cassette.load(replay) if replay is not None else None
    server = mock_class(base, cassette is not None)(settings=settings)
    server._mock_init(seed, scenario, cassette)
    return server


__all__ = ["UNRECORDED", "UNSATISFIABLE", "MockServer", "ReplayServer", "mock_class", "mock_server"]
