"""Resources, resource templates, prompts and completions on the client (the untyped API every
generated client inherits; :class:`~client.base.ClientBase` builds on :class:`CatalogCalls`).

Lists follow ``nextCursor`` to the end (at most ``max_pages`` pages).  ``read_resource``
returns typed contents; an unknown URI raises :class:`ResourceNotFoundError` in both eras
(-32002 up to 2025-11-25, -32602 with ``data.uri`` in 2026-07-28, SEP-2164).  A server without
the capability answers -32601: :class:`MethodNotFoundError`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..wire.content import BlobResourceContents, TextResourceContents
from ..wire.errors import InvalidArgumentsError, InvalidParamsError, ProtocolError, ResourceNotFoundError
from ..wire.resources import PromptDef, PromptResult, ResourceTemplateDef
from .core import ClientCore
from .inputs import run_input_rounds
from .results import UNSET

ResourceContents = TextResourceContents | BlobResourceContents
_CONTENTS = TypeAdapter(list[ResourceContents])


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
    try:
        model.model_validate(texts)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise InvalidArgumentsError(f"{what}: {where}: {first.get('msg', 'invalid')}") from None
    return texts


class CatalogCalls(ClientCore):
    """``resources/*``, ``prompts/*`` and ``completion/complete`` (see the module docstring)."""

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

    async def list_resources(self, *, max_pages: int = 1000) -> list[dict[str, Any]]:
        """Every Resource the server lists (``resources/list``, all pages)."""
        return await self._all_pages("resources/list", "resources", max_pages)

    async def list_resource_templates(self, *, max_pages: int = 1000) -> list[dict[str, Any]]:
        """Every ResourceTemplate the server lists (``resources/templates/list``, all pages)."""
        return await self._all_pages("resources/templates/list", "resourceTemplates", max_pages)

    async def list_prompts(self, *, max_pages: int = 1000) -> list[dict[str, Any]]:
        """Every Prompt the server lists (``prompts/list``, all pages)."""
        return await self._all_pages("prompts/list", "prompts", max_pages)

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

    # -- what the typed methods of a generated client call -------------------------------
    async def _read_template(self, template: ResourceTemplateDef, values: Mapping[str, Any]) -> list[ResourceContents]:
        """Read the resource a template names for ``values`` (checked by its variables model)."""
        texts = _checked(template.variables_model, values, template.uri_template)
        return await self.read_resource(template.template.expand(texts))

    async def _typed_prompt(self, prompt: PromptDef, values: Mapping[str, Any]) -> PromptResult:
        """Get a prompt with ``values`` (checked by its arguments model)."""
        return await self.get_prompt(prompt.name, _checked(prompt.arguments_model, values, prompt.name))
