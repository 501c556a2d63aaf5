"""Typed list entries: what the client returns for ``tools/list``, ``resources/list``,
``resources/templates/list`` and ``prompts/list``.

Attributes are named as the official Python SDK names them (``input_schema``, ``mime_type``,
``uri_template``, ``meta`` for ``_meta``, ...).  Unknown keys of newer servers are kept as
extras; :attr:`Listed.raw` is the entry exactly as the server sent it.  Dict access
(``tool["name"]``, ``tool.get("title")``, ``"x" in tool``) reads :attr:`Listed.raw`: it is the
shape these lists had before they were typed, kept for old code and deprecated
(a :class:`DeprecationWarning`; use the attributes or ``.raw``).

Fields are strict (``"yes"`` is not a boolean, ``"5"`` not an integer).  An entry with a field
of the wrong type (a numeric ``description``) keeps its other fields: the bad field is left at its default (the wire value stays in ``.raw``); an entry without its
identifying fields (``name``, ``uri``, ``uriTemplate``) is left out with a warning.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from ..wire.apps import McpUiToolMeta, tool_ui

logger = logging.getLogger("mcp_codegen.client")

L = TypeVar("L", bound="Listed")


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, strict=True)  # "yes" is not a boolean


class Icon(_Part):
    """An icon (``src``, ``mimeType``, ``sizes``, ``theme``)."""

    src: str
    mime_type: str | None = Field(default=None, alias="mimeType")
    sizes: list[str] | None = None
    theme: str | None = None


class ToolAnnotations(_Part):
    """A tool's behaviour hints (``readOnlyHint``, ...): hints, never guarantees."""

    title: str | None = None
    read_only_hint: bool | None = Field(default=None, alias="readOnlyHint")
    destructive_hint: bool | None = Field(default=None, alias="destructiveHint")
    idempotent_hint: bool | None = Field(default=None, alias="idempotentHint")
    open_world_hint: bool | None = Field(default=None, alias="openWorldHint")


class Annotations(_Part):
    """Annotations of a resource or template (``audience``, ``priority``, ``lastModified``)."""

    audience: list[str] | None = None
    priority: float | None = None
    last_modified: str | None = Field(default=None, alias="lastModified")


class Listed(_Part):
    """One entry of a list: the typed fields, plus :attr:`raw`, the entry as received."""

    _raw: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def from_wire(cls: type[L], data: Mapping[str, Any]) -> L:
        """The typed entry of ``data``; fields of the wrong type fall back to their default.

        Raises:
            ValidationError: a required field (``name``, ``uri``, ...) is missing or unusable.
        """
        values = dict(data)
        for _ in range(len(values) + 1):
            try:
                item = cls.model_validate(values)
                break
            except ValidationError as exc:
                bad = {str(e["loc"][0]) for e in exc.errors() if e.get("loc")}
                fields = {f.alias or name for name, f in cls.model_fields.items() if f.is_required()}
                if not bad or bad & fields or not bad & set(values):
                    raise
                values = {k: v for k, v in values.items() if k not in bad}
        else:  # pragma: no cover - each round removes a key
            item = cls.model_validate(values)
        item._raw = dict(data)
        return item

    @property
    def raw(self) -> dict[str, Any]:
        """The entry exactly as the server sent it (a copy)."""
        return dict(self._raw)

    def _old(self) -> None:
        warnings.warn(f"{type(self).__name__} is typed now: dict access is deprecated, use its "
                      "attributes or .raw", DeprecationWarning, stacklevel=3)

    def __getitem__(self, key: str) -> Any:
        """Deprecated: the wire key ``key`` of :attr:`raw`."""
        self._old()
        return self._raw[key]

    def get(self, key: str, default: Any = None) -> Any:
        """Deprecated: ``raw.get(key, default)``."""
        self._old()
        return self._raw.get(key, default)

    def __contains__(self, key: object) -> bool:
        """Deprecated: ``key in raw``."""
        self._old()
        return key in self._raw


class Tool(Listed):
    """A ``tools/list`` entry."""

    name: str
    title: str | None = None
    description: str | None = None
    input_schema: dict[str, Any] = Field(default_factory=dict, alias="inputSchema")
    output_schema: dict[str, Any] | None = Field(default=None, alias="outputSchema")
    annotations: ToolAnnotations | None = None
    icons: list[Icon] | None = None
    execution: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")

    @property
    def ui(self) -> McpUiToolMeta | None:
        """MCP Apps: the typed ``_meta.ui`` (the UI resource rendering the tool's results and who
        may see and call it), None without one or when it is not an ``McpUiToolMeta``."""
        ui = tool_ui(self._raw)
        try:
            return McpUiToolMeta.model_validate(ui) if ui is not None else None
        except ValidationError:
            return None


class Resource(Listed):
    """A ``resources/list`` entry."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = Field(default=None, alias="mimeType")
    size: int | None = None
    annotations: Annotations | None = None
    icons: list[Icon] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ResourceTemplate(Listed):
    """A ``resources/templates/list`` entry."""

    uri_template: str = Field(alias="uriTemplate")
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = Field(default=None, alias="mimeType")
    annotations: Annotations | None = None
    icons: list[Icon] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class PromptArgument(_Part):
    """An argument of a prompt (strings on the wire)."""

    name: str
    title: str | None = None
    description: str | None = None
    required: bool | None = None


class Prompt(Listed):
    """A ``prompts/list`` entry."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] | None = None
    icons: list[Icon] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


def typed(kind: type[L], entries: Iterable[Mapping[str, Any]]) -> list[L]:
    """``entries`` as ``kind`` objects; unusable entries are logged and left out."""
    out: list[L] = []
    for entry in entries:
        try:
            out.append(kind.from_wire(entry))
        except ValidationError:
            logger.warning("ignoring a malformed %s entry: %.200r", kind.__name__, entry)
    return out


__all__ = ["Annotations", "Icon", "Listed", "Prompt", "PromptArgument", "Resource", "ResourceTemplate", "Tool",
           "ToolAnnotations", "typed"]
