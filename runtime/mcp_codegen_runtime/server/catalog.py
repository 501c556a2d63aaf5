"""The catalog on the server: resources, resource templates, prompts and completions (a mixin
of :class:`~server.dispatch.ServerCore`, declaring every attribute it reads).

``resources/list``, ``resources/templates/list`` and ``prompts/list`` are paginated like
``tools/list`` (signed cursors) and carry the 2026 caching hints.  ``resources/read`` looks the
URI up among the fixed resources first, then the templates in spec order; an unknown URI is
-32002 with ``data.uri`` up to 2025-11-25 and -32602 with ``data.uri`` in 2026-07-28
(SEP-2164).  ``prompts/get`` validates the arguments into the prompt's model (-32602 when they
do not fit; an unknown prompt is -32602 too).  ``completion/complete`` answers from the fixed
values of the argument / variable, or its handler; unknown references are -32602.  Disabled
resources, templates and prompts (:mod:`server.changes`) are neither listed nor served.

Requests that run a handler pass the client's rate limit and :meth:`Catalog.authorize_catalog`
first (-32600 with ``data.code`` ``mcp-codegen.rate_limited`` / ``mcp-codegen.forbidden``), and
run in the ``max_concurrent_calls`` slots under ``call_timeout``, like tool calls.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from ..wire import jsonrpc
from ..wire import protocol as p
from ..wire.apps import UiResourceDef
from ..wire.errors import (
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    McpError,
    MethodNotFoundError,
    ResourceNotFoundError,
)
from ..wire.resources import (
    CompletionDef,
    PromptDef,
    ResourceDef,
    ResourceTemplateDef,
    complete_from,
    prompt_result,
    resource_contents,
    unknown_keys,
)
from ..wire.skills import SkillDef
from .admission import Limits
from .calls import RequestEnv
from .changes import MAX_SUBSCRIPTIONS, Notifications
from .connection import Connection
from .context import Context, InputRequired
from .input_required import RequestStateCodec
from .settings import ServerSettings
from .signing import Signer

logger = logging.getLogger("mcp_codegen.server")
JsonObject = dict[str, Any]

#: The methods this mixin serves (both eras).
CATALOG_METHODS = frozenset({"resources/list", "resources/read", "resources/templates/list", "prompts/list",
                             "prompts/get", "completion/complete"})
#: Resource subscriptions, a legacy-era request (2026-07-28 has ``subscriptions/listen`` instead).
SUBSCRIBE_METHODS = frozenset({"resources/subscribe", "resources/unsubscribe"})


class Catalog(Notifications):
    """The resources / prompts / completions half of the server (see the module docstring)."""

    settings: ServerSettings
    resource_defs: ClassVar[tuple[ResourceDef, ...]]
    resource_template_defs: ClassVar[tuple[ResourceTemplateDef, ...]]
    prompt_defs: ClassVar[tuple[PromptDef, ...]]
    skill_defs: ClassVar[tuple[SkillDef, ...]]
    #: MCP Apps UI resources (the spec's ``ui``): listed and read like fixed resources (``wire/apps.py``)
    ui_resource_defs: ClassVar[tuple[UiResourceDef, ...]] = ()
    #: Whether clients may subscribe to resources (the spec's ``server.subscribe``).
    resource_subscribe: ClassVar[bool] = False
    _cursors: Signer
    _states: RequestStateCodec
    _limits: Limits

    # -- capabilities ----------------------------------------------------------------------
    def catalog_capabilities(self) -> JsonObject:
        """The ``resources`` / ``prompts`` / ``completions`` capabilities for what is declared
        (lists can change: ``enable_*`` / ``disable_*``, see :mod:`server.changes`)."""
        caps: JsonObject = {}
        if self.resource_defs or self.resource_template_defs or self.skill_defs or self.ui_resource_defs:
            caps["resources"] = {"listChanged": True, **({"subscribe": True} if self.resource_subscribe else {})}
        if self.prompt_defs:
            caps["prompts"] = {"listChanged": True}
        if any(d.completions for d in self.prompt_defs) or any(d.completions for d in self.resource_template_defs):
            caps["completions"] = {}
        return caps

    async def serve_catalog(self, method: str, params: JsonObject, rid: jsonrpc.RequestId, conn: Connection,
                            env: RequestEnv) -> JsonObject:
        """Answer one of :data:`CATALOG_METHODS` (-32601 when the server declares none of it)."""
        caps = self.catalog_capabilities()
        if method == "resources/list" and "resources" in caps:
            ui = [d.listing() for d in self.ui_resource_defs]  # skill files and UI resources are resources too
            return self._page("resources", self._offered("resources", self.resource_defs) + ui + self.skill_resources(), params, env)
        if method == "resources/templates/list" and "resources" in caps:
            return self._page("resourceTemplates", self._offered("resources", self.resource_template_defs), params, env)
        if method == "prompts/list" and "prompts" in caps:
            return self._page("prompts", self._offered("prompts", self.prompt_defs), params, env)
        if method == "resources/read" and "resources" in caps:
            try:
                result = await self._read(params, rid, conn, env)
            except ResourceNotFoundError as exc:  # the handler's too: each era's code
                uri = params.get("uri")
                if env.modern or env.version not in p.LEGACY_VERSIONS:
                    raise InvalidParamsError(exc.message, data={"uri": uri}) from None
                raise ResourceNotFoundError(exc.message, data={"uri": uri}) from None
            if env.modern:  # 2026: a read result carries caching hints like the lists
                result["ttlMs"] = self.settings.list_ttl_ms
                result["cacheScope"] = self.settings.cache_scope
            return result
        if method == "prompts/get" and "prompts" in caps:
            return await self._get_prompt(params, rid, conn, env)
        if method == "completion/complete" and "completions" in caps:
            return await self._complete(params, rid, conn, env)
        raise MethodNotFoundError(f"Method not found: {method}")

    def skill_resources(self) -> list[JsonObject]:
        """The ``resources/list`` entries of the server's skills (:class:`~server.dispatch.ServerCore` serves them)."""
        return []

    def _offered(self, kind: str, defs: tuple[Any, ...]) -> list[JsonObject]:
        return [dict(d.wire) for d in defs if self.enabled(kind, d.name)]

    # -- who may: rate limit and authorization ---------------------------------------------
    def authorize_catalog(self, principal: Any, method: str, target: str, args: BaseModel | None) -> bool | Awaitable[bool]:
        """Override to restrict ``resources/read`` (``target``: the URI; ``args``: a template's
        variables), ``prompts/get`` (the prompt's name and arguments) and ``completion/complete``
        (the prompt's name or the template).  False refuses the request with -32600."""
        return True

    async def _admit(self, conn: Connection, method: str, target: str, args: BaseModel | None) -> None:
        if not await self._limits.admit(conn.client_key):
            raise InvalidRequestError("Rate limit exceeded; retry later", data={"code": p.TOOL_ERROR_RATE_LIMITED})
        allowed = self.authorize_catalog(conn.principal, method, target, args)
        if inspect.isawaitable(allowed):
            allowed = await allowed
        if not allowed:
            raise InvalidRequestError(f"Not authorized: {method} {target}", data={"code": p.TOOL_ERROR_FORBIDDEN})

    # -- subscriptions (legacy era) --------------------------------------------------------
    def subscription(self, method: str, params: JsonObject, conn: Connection) -> JsonObject:
        """``resources/subscribe`` / ``unsubscribe`` of a legacy session: a known resource URI
        (fixed, or matching a template) is added to / removed from the session's set."""
        if not self.resource_subscribe:
            raise MethodNotFoundError(f"Method not found: {method}")
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise InvalidParamsError(f"Invalid params: {method} needs a string uri")
        if method == "resources/unsubscribe":
            conn.resource_subscriptions.discard(uri)
            return {}
        if not self.knows_resource(uri):
            raise ResourceNotFoundError("Resource not found", data={"uri": uri})
        if uri not in conn.resource_subscriptions and len(conn.resource_subscriptions) >= MAX_SUBSCRIPTIONS:
            raise InvalidParamsError(f"Invalid params: at most {MAX_SUBSCRIPTIONS} subscriptions per session")
        conn.resource_subscriptions.add(uri)
        return {}

    # -- lists -----------------------------------------------------------------------------
    def _page(self, key: str, items: list[JsonObject], params: JsonObject, env: RequestEnv) -> JsonObject:
        start = 0
        cursor = params.get("cursor")
        if cursor is not None:
            offset = self._cursors.verify(cursor, "cursor").get(key)  # a cursor of one list only
            if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
                raise InvalidParamsError("Invalid cursor")
            start = offset
        end = start + self.settings.page_size
        result: JsonObject = {key: items[start:end]}
        if end < len(items):
            result["nextCursor"] = self._cursors.sign({key: end})
        if env.modern:
            result["ttlMs"] = self.settings.list_ttl_ms
            result["cacheScope"] = self.settings.cache_scope
        return result

    # -- resources/read --------------------------------------------------------------------
    async def _read(self, params: JsonObject, rid: jsonrpc.RequestId, conn: Connection, env: RequestEnv) -> JsonObject:
        """The contents of a URI; raises :class:`ResourceNotFoundError` for an unknown one (the
        caller gives it each era's code)."""
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise InvalidParamsError("Invalid params: resources/read needs a string uri")
        for ui in self.ui_resource_defs:  # MCP Apps: the HTML embedded at build time
            if ui.uri == uri:
                await self._admit(conn, "resources/read", uri, None)
                return {"contents": [ui.contents()]}
        ctx = self._catalog_context(rid, conn, env)
        for res in self.resource_defs:
            if res.uri == uri and self.enabled("resources", res.name):
                await self._admit(conn, "resources/read", uri, None)
                value = await self._run(res.method, ctx, client_key=conn.client_key)
                return {"contents": self._contents(value, uri, res.wire.get("mimeType"))}
        for tpl in self.resource_template_defs:
            found = tpl.match(uri) if self.enabled("resources", tpl.name) else None
            if found is None:
                continue
            try:
                variables = tpl.variables_model.model_validate(found)
            except ValidationError as exc:
                raise InvalidParamsError(f"Invalid params: {uri} does not fit {tpl.uri_template}: "
                                         f"{exc.errors()[0].get('msg', 'invalid')}", data={"uri": uri}) from None
            await self._admit(conn, "resources/read", uri, variables)
            value = await self._run(tpl.method, variables, ctx, client_key=conn.client_key)
            return {"contents": self._contents(value, uri, tpl.wire.get("mimeType"))}
        raise ResourceNotFoundError("Resource not found", data={"uri": uri})

    @staticmethod
    def _contents(value: Any, uri: str, mime_type: Any) -> list[JsonObject]:
        contents = resource_contents(value, uri, mime_type if isinstance(mime_type, str) else None)
        if not contents:  # SEP-2164: never an empty contents array
            raise ResourceNotFoundError("Resource not found", data={"uri": uri})
        return contents

    # -- prompts/get -----------------------------------------------------------------------
    async def _get_prompt(self, params: JsonObject, rid: jsonrpc.RequestId, conn: Connection, env: RequestEnv) -> JsonObject:
        name = params.get("name")
        prompt = next((d for d in self.prompt_defs if d.name == name and self.enabled("prompts", d.name)), None)
        if prompt is None:
            raise InvalidParamsError(f"Invalid params: unknown prompt {name!r}", data={"name": name})
        raw = params.get("arguments")
        raw = {} if raw is None else raw
        if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
            raise InvalidParamsError("Invalid params: prompt arguments must map names to strings")
        try:
            extra = unknown_keys(prompt.arguments_model, raw)
            if extra:
                raise InvalidParamsError(f"Invalid params: prompt {name!r} has no argument {extra[0]!r}")
            args = prompt.arguments_model.model_validate(raw)
        except ValidationError as exc:
            where = ".".join(str(x) for x in exc.errors()[0].get("loc", ()))
            raise InvalidParamsError(f"Invalid params: argument {where!r} of prompt {name!r}: "
                                     f"{exc.errors()[0].get('msg', 'invalid')}") from None
        bound = ["prompt", prompt.name]  # never equal to a tool's name (a string)
        answers = self._states.answers(params, bound, raw, conn.principal) if env.modern else None
        await self._admit(conn, "prompts/get", prompt.name, args)
        ctx = self._catalog_context(rid, conn, env, answers)
        try:
            value = await self._run(prompt.method, args, ctx, client_key=conn.client_key)
        except InputRequired:  # 2026: ask the client, then the retry carries the answers (SEP-2322)
            state = self._states.issue(bound, raw, conn.principal, ctx.answers)
            return {"resultType": p.RESULT_INPUT_REQUIRED, "inputRequests": ctx.missing, "requestState": state}
        description = prompt.wire.get("description")
        return prompt_result(value, description if isinstance(description, str) else None)

    # -- completion/complete ---------------------------------------------------------------
    async def _complete(self, params: JsonObject, rid: jsonrpc.RequestId, conn: Connection, env: RequestEnv) -> JsonObject:
        ref, argument = params.get("ref"), params.get("argument")
        if not isinstance(ref, dict) or not isinstance(argument, dict):
            raise InvalidParamsError("Invalid params: completion/complete needs ref and argument")
        name, value = argument.get("name"), argument.get("value")
        if not isinstance(name, str) or not isinstance(value, str):
            raise InvalidParamsError("Invalid params: argument needs a string name and value")
        target, source = self._completion_source(ref, name)
        context = params.get("context")
        known = context.get("arguments") if isinstance(context, dict) else None
        known = {k: v for k, v in known.items() if isinstance(v, str)} if isinstance(known, dict) else {}
        await self._admit(conn, "completion/complete", target, None)
        if source.method is None:
            return {"completion": complete_from(source.values, value)}
        found = await self._run(source.method, value, known, self._catalog_context(rid, conn, env),
                                client_key=conn.client_key)
        values = [str(v) for v in (found or [])]
        return {"completion": complete_from(values, "")}

    def _completion_source(self, ref: JsonObject, name: str) -> tuple[str, CompletionDef]:
        """What is completed (a prompt's name or a template) and where its values come from."""
        kind = ref.get("type")
        target: Any = None
        defs: dict[str, CompletionDef] | None = None
        if kind == "ref/prompt":
            prompt = next((d for d in self.prompt_defs if d.name == ref.get("name") and self.enabled("prompts", d.name)), None)
            target, defs = ref.get("name"), dict(prompt.completions) if prompt is not None else None
        elif kind == "ref/resource":
            tpl = next((d for d in self.resource_template_defs
                        if d.uri_template == ref.get("uri") and self.enabled("resources", d.name)), None)
            target, defs = ref.get("uri"), dict(tpl.completions) if tpl is not None else None
        if defs is None:
            raise InvalidParamsError(f"Invalid params: no prompt or resource template {ref.get('name') or ref.get('uri')!r}")
        source = defs.get(name)
        return str(target), source if source is not None else CompletionDef()

    # -- handlers --------------------------------------------------------------------------
    def _catalog_context(self, rid: jsonrpc.RequestId, conn: Connection, env: RequestEnv,
                         answers: dict[str, Any] | None = None) -> Context:
        return Context(conn=conn, request_id=rid, tool=None, meta=env.meta, protocol_version=env.version,
                       client_capabilities=env.caps, client_info=env.client_info, log_level=env.log_level,
                       client_request_timeout=self.settings.client_request_timeout, answers=answers)

    async def _run(self, method: str, *args: Any, client_key: str | None = None) -> Any:
        """Call a handler (async, or plain in a worker thread) in a concurrency slot, under the
        call timeout; a handler's McpError passes through, anything else is an internal error (logged)."""
        handler: Callable[..., Any] | None = getattr(self, method, None)
        if handler is None:
            raise InternalError(f"{method} is not implemented")
        try:
            async with asyncio.timeout(self.settings.call_timeout):
                value = await self._limits.run(handler, *args, client_key=client_key)
        except (McpError, InputRequired):
            raise
        except NotImplementedError:
            raise InternalError(f"{method} is not implemented") from None
        except TimeoutError:
            raise InternalError(f"{method} timed out") from None
        except Exception:
            logger.exception("%s failed", method)
            raise InternalError(f"{method} failed with an internal error") from None
        return value
