"""The catalog on the wire: static descriptions of a server's resources, resource templates,
prompts and completion sources (emitted by the generator into ``tools.py`` beside the tool
table) and the typed values their handlers return.

* :class:`ResourceDef` — one fixed URI; its handler ``(self, ctx)`` returns the contents.
* :class:`ResourceTemplateDef` — an RFC 6570 template; the URI's variables are parsed into the
  template's variables model, and the handler ``(self, variables, ctx)`` returns the contents.
* :class:`PromptDef` — a prompt; its arguments (strings on the wire) are validated into the
  arguments model, and the handler ``(self, args, ctx)`` returns the messages.
* :class:`CompletionDef` — completion values of one prompt argument or template variable:
  fixed ``values`` (filtered by prefix), or a handler ``(self, value, context, ctx)``.

Handler results: a resource handler may return ``str`` (text), ``bytes`` (blob), one
:class:`TextResourceContents` / :class:`BlobResourceContents`, or a list of them; a prompt
handler returns a :class:`PromptResult`, a list of :class:`PromptMessage`, or ``str`` (one
user text message).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .content import BlobResourceContents, ContentBlock, TextContent, TextResourceContents
from .uritemplate import UriTemplate, parse

#: At most this many completion values go into one answer (the protocol's limit).
MAX_COMPLETIONS = 100


@dataclass(frozen=True)
class CompletionDef:
    """Where completion values of one argument / variable come from."""

    values: tuple[str, ...] = ()
    method: str | None = None  # handler name, when values are computed


@dataclass(frozen=True)
class ResourceDef:
    """A resource with a fixed URI (``wire`` is its Resource object, as listed)."""

    uri: str
    name: str
    method: str
    wire: Mapping[str, Any]


@dataclass(frozen=True)
class ResourceTemplateDef:
    """A resource template (``wire`` is its ResourceTemplate object, as listed)."""

    uri_template: str
    name: str
    method: str
    wire: Mapping[str, Any]
    variables_model: type[BaseModel]
    completions: Mapping[str, CompletionDef] = field(default_factory=dict)

    @property
    def template(self) -> UriTemplate:
        return parse(self.uri_template)

    def match(self, uri: str) -> dict[str, str] | None:
        """The URI's variables when it is an expansion of this template."""
        return self.template.match(uri)


@dataclass(frozen=True)
class PromptDef:
    """A prompt (``wire`` is its Prompt object, as listed)."""

    name: str
    method: str
    wire: Mapping[str, Any]
    arguments_model: type[BaseModel]
    completions: Mapping[str, CompletionDef] = field(default_factory=dict)


class PromptMessage(BaseModel):
    """One message of a prompt: a role and one content block."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    role: Literal["user", "assistant"]
    content: ContentBlock


class PromptResult(BaseModel):
    """A ``GetPromptResult``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    description: str | None = None
    messages: list[PromptMessage] = Field(default_factory=list)
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


ResourceContents = TextResourceContents | BlobResourceContents


def resource_contents(value: Any, uri: str, mime_type: str | None) -> list[dict[str, Any]]:
    """The ``contents`` of a ``resources/read`` result for what a handler returned.

    Raises:
        TypeError: the handler returned something else.
    """
    items = value if isinstance(value, list) else [value]
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, str):
            item = TextResourceContents(uri=uri, mimeType=mime_type, text=item)
        elif isinstance(item, (bytes, bytearray)):
            item = BlobResourceContents(uri=uri, mimeType=mime_type, blob=base64.b64encode(bytes(item)).decode("ascii"))
        if not isinstance(item, (TextResourceContents, BlobResourceContents)):
            raise TypeError(f"a resource handler returned {type(item).__name__}; expected str, bytes or resource contents")
        out.append(item.model_dump(by_alias=True, exclude_none=True))
    return out


def prompt_result(value: Any, description: str | None) -> dict[str, Any]:
    """The ``prompts/get`` result for what a prompt handler returned.

    Raises:
        TypeError: the handler returned something else.
    """
    if isinstance(value, str):
        value = [PromptMessage(role="user", content=TextContent(text=value))]
    if isinstance(value, list):
        value = PromptResult(description=description, messages=value)
    if not isinstance(value, PromptResult):
        raise TypeError(f"a prompt handler returned {type(value).__name__}; expected PromptResult, messages or str")
    if value.description is None and description:
        value = value.model_copy(update={"description": description})
    dumped: dict[str, Any] = value.model_dump(by_alias=True, exclude_none=True)
    return dumped


def unknown_keys(model: type[BaseModel], values: Mapping[str, Any]) -> list[str]:
    """The keys of ``values`` that are not a wire name (alias) of ``model``'s fields: variables and
    arguments are matched by their wire names only, and undeclared ones are refused."""
    names = {f.alias or n for n, f in model.model_fields.items()}
    return sorted(k for k in values if k not in names)


def complete_from(values: tuple[str, ...] | list[str], prefix: str) -> dict[str, Any]:
    """A ``completion`` object: the values starting with ``prefix`` (at most 100, with the total)."""
    hits = [v for v in values if v.startswith(prefix)]
    shown = hits[:MAX_COMPLETIONS]
    return {"values": shown, "total": len(hits), "hasMore": len(hits) > len(shown)}
