"""Content blocks and tool results, as typed pydantic models (all protocol versions).

Handlers may return these instead of (or beside) the output model; the client returns a
:class:`ToolResult` for tools without an output schema.  Unknown extra fields are kept
(``extra="allow"``) so results from newer servers survive a round trip.
"""

from __future__ import annotations

import json as _json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .sanitize import strip_controls


class _Block(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class TextContent(_Block):
    type: Literal["text"] = "text"
    text: str


class ImageContent(_Block):
    type: Literal["image"] = "image"
    data: str
    mimeType: str


class AudioContent(_Block):
    type: Literal["audio"] = "audio"
    data: str
    mimeType: str


class ResourceLink(_Block):
    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mimeType: str | None = None
    size: int | None = None


class TextResourceContents(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    uri: str
    mimeType: str | None = None
    text: str
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class BlobResourceContents(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    uri: str
    mimeType: str | None = None
    blob: str
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class EmbeddedResource(_Block):
    type: Literal["resource"] = "resource"
    resource: TextResourceContents | BlobResourceContents


ContentBlock = Annotated[
    TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource,
    Field(discriminator="type"),
]


class ToolResult(BaseModel):
    """A ``CallToolResult``: content blocks, optional structured content, error flag."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    content: list[ContentBlock] = Field(default_factory=list)
    structuredContent: Any = None
    isError: bool = False
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")

    def text(self, *, raw: bool = False) -> str:
        """All text blocks joined by newlines, for display: terminal control sequences are
        stripped (a server may be hostile) unless ``raw``; ``content`` keeps the raw data."""
        joined = "\n".join(b.text for b in self.content if isinstance(b, TextContent))
        return joined if raw else strip_controls(joined)

    def json(self) -> Any:  # type: ignore[override]  # not pydantic v1's deprecated json()
        """The result's JSON value: ``structuredContent``, else its single text block parsed as JSON.

        Raises:
            ValueError: no ``structuredContent`` and not exactly one text block holding JSON
                (the message says what the result holds instead).
        """
        if self.structuredContent is not None:
            return self.structuredContent
        texts = [b for b in self.content if isinstance(b, TextContent)]
        if len(texts) != 1:
            kinds = ", ".join(sorted({b.type for b in self.content})) or "no content"
            raise ValueError(f"the result has no structuredContent and {len(texts)} text blocks, not one "
                             f"(content: {kinds}); read .content instead")
        try:
            return _json.loads(texts[0].text)
        except ValueError as exc:
            start = strip_controls(texts[0].text[:60])
            raise ValueError(f"the result has no structuredContent and its text block is not JSON "
                             f"({exc.args[0] if exc.args else exc}): {start!r}") from None
