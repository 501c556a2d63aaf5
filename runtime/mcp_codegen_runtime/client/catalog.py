"""The client's catalog calls: resources, resource templates, prompts and completions.

The untyped API every generated client inherits; :class:`~client.async_client.ClientBase` builds
on :class:`CatalogCalls`.

Lists follow ``nextCursor`` to the end (at most ``max_pages`` pages).  ``read_resource``
returns typed contents; an unknown URI raises :class:`ResourceNotFoundError` in both eras
(-32002 up to 2025-11-25, -32602 with ``data.uri`` in 2026-07-28, SEP-2164).  A server without
the capability answers -32601: :class:`MethodNotFoundError`.  :meth:`CatalogCalls.subscribe`
follows resource updates and list changes (:mod:`client.subscriptions`); when the HTTP
transport replaces a lost legacy session (404), the URIs of open subscriptions are subscribed
again on the new one and every open subscription gets a change for each URI and list it
follows (what changed in between was announced to the lost session).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..wire.content import BlobResourceContents, TextResourceContents
from ..wire.errors import (
    InvalidArgumentsError,
    InvalidParamsError,
    McpError,
    MethodNotFoundError,
    ProtocolError,
    ResourceNotFoundError,
)
from ..wire.resources import PromptDef, PromptResult, ResourceDef, ResourceTemplateDef, unknown_keys
from .connection import ClientConnection
from .inputs import run_input_rounds
from .listing import Prompt, Resource, ResourceTemplate, typed
from .results import UNSET
from .session import Timeouts
from .subscriptions import Change, Subscription, route_change

logger = logging.getLogger("mcp_codegen.client")

ResourceContents = TextResourceContents | BlobResourceContents
_CONTENTS = TypeAdapter(list[ResourceContents])
#: The wire dicts of ``resources/list``, ``resources/templates/list`` and ``prompts/list``.
WireCatalog = tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]


class Completion(BaseModel):
    """A ``completion/complete`` answer: suggested values (at most 100), and how many there are."""

    model_config = ConfigDict(extra="allow")

    values: list[str] = Field(default_factory=list)
    total: int | None = None
    hasMore: bool | None = None


def _text(value: Any) -> str:
    """A template variable or prompt argument as the text it travels as."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return str(value.value)
    return str(value)


def _checked(model: type[BaseModel], values: Mapping[str, Any], what: str) -> dict[str, str]:
    """The set values as strings, after the model accepted them (else nothing is sent)."""
    texts = {k: _text(v) for k, v in values.items() if v is not UNSET and v is not None}
    extra = unknown_keys(model, texts)
    if extra:
        raise InvalidArgumentsError(f"{what}: no argument or variable {extra[0]!r}")
    try:
        model.model_validate(texts)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise InvalidArgumentsError(f"{what}: {where}: {first.get('msg', 'invalid')}") from None
    return texts


class CatalogCalls(ClientConnection):
    """``resources/*``, ``prompts/*`` and ``completion/complete`` (see the module docstring)."""

    #: The generated tables (``check_compat`` compares them with the server's lists).
    resource_defs: ClassVar[tuple[ResourceDef, ...]] = ()
    resource_template_defs: ClassVar[tuple[ResourceTemplateDef, ...]] = ()
    prompt_defs: ClassVar[tuple[PromptDef, ...]] = ()
    _resubscribing = False

    async def _all_pages(self, method: str, key: str, max_pages: int) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(max_pages):
            page = await self.request(method, {"cursor": cursor} if cursor is not None else {})
            if not isinstance(page, dict) or not isinstance(page.get(key), list):
                raise ProtocolError(f"{method}: the result has no {key} list")
            items += [i for i in page[key] if isinstance(i, dict)]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                return items
        raise ProtocolError(f"{method}: more than {max_pages} pages")

    async def list_resources(self, *, max_pages: int = 1000) -> list[Resource]:
        """Every Resource the server lists (``resources/list``, all pages), typed (``.raw``: the wire dict)."""
        return typed(Resource, await self._all_pages("resources/list", "resources", max_pages))

    async def list_resource_templates(self, *, max_pages: int = 1000) -> list[ResourceTemplate]:
        """Every ResourceTemplate the server lists (``resources/templates/list``, all pages), typed."""
        return typed(ResourceTemplate, await self._all_pages("resources/templates/list", "resourceTemplates", max_pages))

    async def list_prompts(self, *, max_pages: int = 1000) -> list[Prompt]:
        """Every Prompt the server lists (``prompts/list``, all pages), typed."""
        return typed(Prompt, await self._all_pages("prompts/list", "prompts", max_pages))

    async def wire_catalog(self) -> tuple[WireCatalog, tuple[str, ...]]:
        """The wire dicts of the resources, templates and prompts, and notes on lists left empty.

        A list whose capability the server does not declare is empty; so is one it declares but
        answers with -32601 (some servers of every era do, for ``resources/templates/list``
        most of all): a note says so, it is not a failure.
        """
        caps = self.server_capabilities
        notes: list[str] = []

        async def optional(cap: str, method: str, key: str) -> list[dict[str, Any]]:
            if cap not in caps:
                return []
            try:
                return await self._all_pages(method, key, 1000)
            except MethodNotFoundError:
                notes.append(f"the server declares {cap} but answers {method} with -32601: taken as empty")
                return []

        resources = await optional("resources", "resources/list", "resources")
        templates = await optional("resources", "resources/templates/list", "resourceTemplates")
        prompts = await optional("prompts", "prompts/list", "prompts")
        return (resources, templates, prompts), tuple(notes)

    async def read_resource(self, uri: str, *, timeout: float | None = None) -> list[ResourceContents]:
        """The contents of ``uri`` (``resources/read``).

        Raises:
            ResourceNotFoundError: the server does not know the URI (either era's code).
            ProtocolError: the result has no valid ``contents``.
        """
        try:
            result = await self.request("resources/read", {"uri": uri}, timeout=timeout)
        except InvalidParamsError as exc:
            if isinstance(exc.data, dict) and exc.data.get("uri") == uri:  # 2026: SEP-2164
                raise ResourceNotFoundError(exc.message, data=exc.data) from None
            raise
        contents = result.get("contents") if isinstance(result, dict) else None
        try:
            return _CONTENTS.validate_python(contents)
        except ValueError:
            raise ProtocolError(f"resources/read {uri}: the result has no valid contents") from None

    async def get_prompt(self, name: str, arguments: Mapping[str, str] | None = None, *,
                         timeout: float | None = None) -> PromptResult:
        """Prompt ``name`` with ``arguments`` (strings on the wire), as a typed result."""
        async def send(params: dict[str, Any]) -> Any:
            return await self.request("prompts/get", params, timeout=timeout)

        async def answer(method: str, params: Any, key: str) -> dict[str, Any]:
            return await self._fulfil(method, params, name, key, None)

        # 2026: a prompt may answer input_required like a tool (SEP-2322); the rounds are answered
        result, _ = await run_input_rounds(name, dict(arguments or {}), send, answer, self.max_input_rounds)
        try:
            return PromptResult.model_validate(result)
        except ValueError:
            raise ProtocolError(f"prompts/get {name}: the result is not a GetPromptResult") from None

    async def complete(self, ref: Mapping[str, Any], argument: str, value: str,
                       context: Mapping[str, str] | None = None, *, timeout: float | None = None) -> Completion:
        """Completion values for ``argument`` of a prompt (``{"type": "ref/prompt", "name": …}``)
        or a resource template (``{"type": "ref/resource", "uri": template}``)."""
        params: dict[str, Any] = {"ref": dict(ref), "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": dict(context)}
        result = await self.request("completion/complete", params, timeout=timeout)
        completion = result.get("completion") if isinstance(result, dict) else None
        try:
            return Completion.model_validate(completion)
        except ValueError:
            raise ProtocolError("completion/complete: the result has no valid completion") from None

    # -- following changes (see client/subscriptions.py) ------------------------------------
    def subscribe(self, *uris: str, tools: bool = False, prompts: bool = False, resources: bool = False,
                  max_queued: int = 1000) -> Subscription:
        """Follow resource ``uris`` (``notifications/resources/updated``) and list changes.

        Use as ``async with client.subscribe(uri) as changes: async for change in changes: ...``;
        each change is a :class:`Change` (``kind`` ``updated`` with its ``uri``, or the list).

        Raises (on entry):
            ResourceNotFoundError: legacy era, the server does not know a URI.
            MethodNotFoundError: the server offers no subscriptions.
        """
        lists = frozenset(k for k, on in (("tools", tools), ("prompts", prompts), ("resources", resources)) if on)
        return Subscription(self._open_subscription, tuple(dict.fromkeys(uris)), lists, max_queued)

    async def _open_subscription(self, sub: Subscription) -> Callable[[], Awaitable[None]]:
        await self.connect()
        self._subscriptions.add(sub)
        try:
            if self.era == "legacy":
                return await self._subscribe_legacy(sub)
            return await self._subscribe_modern(sub)
        except BaseException:
            self._subscriptions.discard(sub)
            raise

    async def _subscribe_legacy(self, sub: Subscription) -> Callable[[], Awaitable[None]]:
        await self.transport.ensure_listening()  # HTTP: updates come on the GET stream
        done: list[str] = []

        async def close() -> None:
            self._subscriptions.discard(sub)
            for uri in done:
                await self.request("resources/unsubscribe", {"uri": uri})

        try:
            for uri in sub.uris:
                await self.request("resources/subscribe", {"uri": uri})
                done.append(uri)
        except BaseException:
            with contextlib.suppress(Exception):
                await close()
            raise
        sub.honoured = sub.filter()
        return close

    async def _session_renewed(self, result: dict[str, Any]) -> None:
        """Also subscribe again on the new legacy session (module docstring).  A renewal caused
        by one of these requests (404 again) does not subscribe again: no cascade."""
        await super()._session_renewed(result)
        for method in ("notifications/prompts/list_changed", "notifications/resources/list_changed"):
            route_change(self._subscriptions, method, None)
        if self._resubscribing:
            return
        self._resubscribing = True
        try:
            for sub in list(self._subscriptions):
                for uri in sub.uris:
                    try:
                        await self.request("resources/subscribe", {"uri": uri})
                    except McpError as exc:
                        logger.warning("subscribing to %s on the new session failed: %s", uri, exc)
                    sub.offer(Change("updated", uri))
        finally:
            self._resubscribing = False

    async def _subscribe_modern(self, sub: Subscription) -> Callable[[], Awaitable[None]]:
        sub.listen_id = listen_id = self._session.next_id()
        self.task_notices.opening(listen_id)  # the stream also carries notifications/tasks
        listen = asyncio.ensure_future(self._session.request(
            "subscriptions/listen", self._params({"notifications": sub.filter()}),
            timeouts=Timeouts(idle=None, hard=None), request_id=listen_id))

        def ended(_: object) -> None:
            sub.end()
            self.task_notices.closed(listen_id)

        listen.add_done_callback(ended)

        async def close() -> None:
            self._subscriptions.discard(sub)
            listen.cancel()  # notifications/cancelled (stdio) or the stream closed (HTTP)
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await listen

        acked = asyncio.ensure_future(sub.acknowledged.wait())
        try:
            await asyncio.wait({listen, acked}, timeout=self._timeouts().idle, return_when=asyncio.FIRST_COMPLETED)
        finally:
            acked.cancel()
        if not sub.acknowledged.is_set():
            await close()
            error = listen.exception() if listen.done() and not listen.cancelled() else None
            if error is not None:
                raise error
            raise ProtocolError("subscriptions/listen: the server did not acknowledge the subscription")
        return close

    # -- what the typed methods of a generated client call -------------------------------
    async def _read_template(self, template: ResourceTemplateDef, values: Mapping[str, Any]) -> list[ResourceContents]:
        """Read the resource a template names for ``values`` (checked by its variables model)."""
        texts = _checked(template.variables_model, values, template.uri_template)
        return await self.read_resource(template.template.expand(texts))

    async def _typed_prompt(self, prompt: PromptDef, values: Mapping[str, Any]) -> PromptResult:
        """Get a prompt with ``values`` (checked by its arguments model)."""
        return await self.get_prompt(prompt.name, _checked(prompt.arguments_model, values, prompt.name))
