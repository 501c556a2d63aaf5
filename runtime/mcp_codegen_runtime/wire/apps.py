"""MCP Apps (SEP-1865, extension ``io.modelcontextprotocol/ui``): names and shapes both sides share.

A server with UI resources (the spec's ``ui`` list) sets ``ui_resource_defs`` (one
:class:`UiResourceDef` each: the ``ui://`` URI, the HTML embedded at build time, its
``_meta.ui``); a tool links one with ``_meta.ui`` ``{resourceUri, visibility}`` in its wire
Tool.  The typed models (:class:`McpUiToolMeta`, :class:`McpUiResourceMeta` ...) are named as
the extension's ``schema.json`` names them; the client parses the wire into them.

The policy both sides follow (docs/apps.md):

* the server declares ``capabilities.extensions["io.modelcontextprotocol/ui"]`` (both eras:
  hosts send the extension in ``initialize`` too) with the MIME types it serves;
* a client that declares the extension with ``text/html;profile=mcp-app`` in ``mimeTypes``
  (:func:`declares_ui`) sees the tools as written: ``_meta.ui`` on linked tools, app-only
  tools listed (the host hides them from the model, as the extension requires of hosts);
* any other client sees the text-only server: linked tools without ``_meta.ui`` (their
  handlers return meaningful content either way) and no tool whose visibility lacks
  ``"model"`` (no app of that client could call it).  UI resources stay listed and readable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

#: The extension's identifier (capability key).
UI_EXTENSION = "io.modelcontextprotocol/ui"
#: The MIME type of a UI resource (listing and ``resources/read`` contents).
UI_MIME_TYPE = "text/html;profile=mcp-app"
#: The URI scheme reserved for UI resources.
UI_SCHEME = "ui://"
#: The deprecated flat key a tool's link had before ``_meta.ui`` (hosts still read it).
LEGACY_RESOURCE_URI_KEY = "ui/resourceUri"
#: Who may see and call a tool (``_meta.ui.visibility``); the default is both.
VISIBILITIES = ("model", "app")


@dataclass(frozen=True)
class UiResourceDef:
    """One UI resource a server serves: its ``ui://`` URI, names, the HTML document (embedded
    in the generated package at build time) and ``meta``, its ``_meta.ui``
    (``McpUiResourceMeta``: ``csp``, ``permissions``, ``domain``, ``prefersBorder``)."""

    uri: str
    name: str
    html: str
    meta: Mapping[str, Any] = field(default_factory=dict)
    title: str | None = None
    description: str | None = None

    def listing(self) -> dict[str, Any]:
        """The ``resources/list`` entry."""
        entry: dict[str, Any] = {"uri": self.uri, "name": self.name}
        if self.title is not None:
            entry["title"] = self.title
        if self.description is not None:
            entry["description"] = self.description
        entry["mimeType"] = UI_MIME_TYPE
        entry["size"] = len(self.html.encode("utf-8"))
        if self.meta:
            entry["_meta"] = {"ui": dict(self.meta)}
        return entry

    def contents(self) -> dict[str, Any]:
        """``contents[0]`` of its ``resources/read`` result."""
        item: dict[str, Any] = {"uri": self.uri, "mimeType": UI_MIME_TYPE, "text": self.html}
        if self.meta:
            item["_meta"] = {"ui": dict(self.meta)}
        return item


def declares_ui(caps: Mapping[str, Any] | None) -> bool:
    """True when client capabilities declare the extension with ``text/html;profile=mcp-app``
    among its ``mimeTypes`` (the settings the extension makes REQUIRED)."""
    extensions = caps.get("extensions") if isinstance(caps, Mapping) else None
    settings = extensions.get(UI_EXTENSION) if isinstance(extensions, Mapping) else None
    types = settings.get("mimeTypes") if isinstance(settings, Mapping) else None
    return isinstance(types, list) and UI_MIME_TYPE in types


def tool_ui(wire: Mapping[str, Any]) -> dict[str, Any] | None:
    """A wire Tool's ``_meta.ui`` (or the deprecated flat ``_meta["ui/resourceUri"]``, read as
    ``{"resourceUri": ...}``); None for a tool without a UI link."""
    meta = wire.get("_meta")
    if not isinstance(meta, Mapping):
        return None
    ui = meta.get("ui")
    if isinstance(ui, Mapping):
        return dict(ui)
    legacy = meta.get(LEGACY_RESOURCE_URI_KEY)
    return {"resourceUri": legacy} if isinstance(legacy, str) else None


def model_visible(wire: Mapping[str, Any]) -> bool:
    """False for a tool whose ``_meta.ui.visibility`` lacks ``"model"`` (only its app calls it)."""
    ui = tool_ui(wire)
    visibility = ui.get("visibility") if ui is not None else None
    return not isinstance(visibility, list) or "model" in visibility


def without_ui(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The wire Tool as a client without the extension sees it: no ``_meta.ui`` (nor the flat key)."""
    tool = dict(wire)
    meta = tool.get("_meta")
    if isinstance(meta, Mapping) and ("ui" in meta or LEGACY_RESOURCE_URI_KEY in meta):
        rest = {k: v for k, v in meta.items() if k not in ("ui", LEGACY_RESOURCE_URI_KEY)}
        if rest:
            tool["_meta"] = rest
        else:
            del tool["_meta"]
    return tool


class _UiModel(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class McpUiResourceCsp(_UiModel):
    """The origins a UI resource's view may reach (``_meta.ui.csp``)."""

    connect_domains: list[str] | None = Field(default=None, alias="connectDomains")
    resource_domains: list[str] | None = Field(default=None, alias="resourceDomains")
    frame_domains: list[str] | None = Field(default=None, alias="frameDomains")
    base_uri_domains: list[str] | None = Field(default=None, alias="baseUriDomains")


class McpUiResourcePermissions(_UiModel):
    """Browser capabilities a view asks for (``_meta.ui.permissions``; each present one is ``{}``)."""

    camera: dict[str, Any] | None = None
    microphone: dict[str, Any] | None = None
    geolocation: dict[str, Any] | None = None
    clipboard_write: dict[str, Any] | None = Field(default=None, alias="clipboardWrite")


class McpUiResourceMeta(_UiModel):
    """A UI resource's ``_meta.ui``."""

    csp: McpUiResourceCsp | None = None
    permissions: McpUiResourcePermissions | None = None
    domain: str | None = None
    prefers_border: bool | None = Field(default=None, alias="prefersBorder")


class McpUiToolMeta(_UiModel):
    """A tool's ``_meta.ui``: the UI resource rendering its results, and who may see and call it."""

    resource_uri: str | None = Field(default=None, alias="resourceUri")
    visibility: list[Literal["model", "app"]] | None = None

    @property
    def model_visible(self) -> bool:
        """The agent may see and call the tool (visibility omitted, or naming ``"model"``)."""
        return self.visibility is None or "model" in self.visibility

    @property
    def app_callable(self) -> bool:
        """The tool's UI may call it (visibility omitted, or naming ``"app"``)."""
        return self.visibility is None or "app" in self.visibility


class UiResource(BaseModel):
    """A UI resource as read: its URI, MIME type, the HTML document and its typed ``_meta.ui``."""

    model_config = ConfigDict(frozen=True)

    uri: str
    mime_type: str
    html: str
    meta: McpUiResourceMeta = Field(default_factory=McpUiResourceMeta)


__all__ = [
    "LEGACY_RESOURCE_URI_KEY", "UI_EXTENSION", "UI_MIME_TYPE", "UI_SCHEME", "VISIBILITIES", "McpUiResourceCsp",
    "McpUiResourceMeta", "McpUiResourcePermissions", "McpUiToolMeta", "UiResource", "UiResourceDef", "declares_ui",
    "model_visible", "tool_ui", "without_ui",
]
