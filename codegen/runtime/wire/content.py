"""Content blocks and tool results, as typed pydantic models (all protocol versions).

Handlers may return these instead of (or beside) the output model; the client returns a
:class:`ToolResult` for tools without an output schema.  Unknown extra fields are kept
(``extra="allow"``) so results from newer servers survive a round trip.
"""

from __future__ import annotations

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
