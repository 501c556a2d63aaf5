"""MCP Apps on the client (``io.modelcontextprotocol/ui``, ``wire/apps.py``): a tool's UI resource.

:meth:`AppCalls.ui_resource` finds the UI resource a tool links (``_meta.ui.resourceUri`` of
the generated tool table, else of the server's live listing) and reads it;
:meth:`AppCalls.read_ui_resource` reads one by URI.  Either returns a :class:`UiResource`: the
HTML document and its typed ``_meta.ui``, after checking what the extension requires of the
answer (``contents[0]`` with the same URI, MIME type ``text/html;profile=mcp-app``, the
document as ``text`` or base64 ``blob``).  A generated client whose tools link UI resources
declares the extension (``client_capabilities``), so the server sends it the links.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from pydantic import ValidationError

from ..wire.apps import UI_MIME_TYPE, McpUiResourceMeta, McpUiToolMeta, UiResource, tool_ui
from ..wire.content import BlobResourceContents
from ..wire.errors import ProtocolError, ResourceNotFoundError, UnknownToolError
from .catalog import CatalogCalls


class AppCalls(CatalogCalls):
    """The MCP Apps calls of :class:`~client.async_client.ClientBase` (see the module docstring)."""

    async def _wire_tools(self, refresh: bool, max_pages: int = 1000) -> list[dict[str, Any]]:
        raise NotImplementedError  # ClientBase lists the tools

    def tool_ui(self, tool: str) -> McpUiToolMeta | None:
        """The typed ``_meta.ui`` of ``tool`` as known without a request (the generated table,
        else the last ``list_tools``); None for a tool without a UI link or not known yet."""
        tool_def = self._by_name.get(tool)
        wire = tool_def.wire if tool_def is not None else self._live_tools.get(tool)
        ui = tool_ui(wire) if wire is not None else None
        return McpUiToolMeta.model_validate(ui) if ui is not None else None

    async def ui_resource(self, tool: str, *, timeout: float | None = None) -> UiResource:
        """The UI resource rendering ``tool``'s results, read (``resources/read``) and checked.

        Raises:
            UnknownToolError: the server has no tool ``tool``.
            ResourceNotFoundError: the tool links no UI resource, or the server does not serve it.
            ProtocolError: the answer is not what the extension requires.
        """
        if tool not in self._by_name and tool not in self._live_tools:
            await self._wire_tools(False)
            if tool not in self._live_tools:
                raise UnknownToolError(f"Unknown tool: {tool}", data={"tool": tool})
        try:
            ui = self.tool_ui(tool)
        except ValidationError:
            raise ProtocolError(f"tool {tool!r}: _meta.ui is not an McpUiToolMeta") from None
        if ui is None or not ui.resource_uri:
            raise ResourceNotFoundError(f"tool {tool!r} links no UI resource", data={"tool": tool})
        return await self.read_ui_resource(ui.resource_uri, timeout=timeout)

    async def read_ui_resource(self, uri: str, *, timeout: float | None = None) -> UiResource:
        """UI resource ``uri``: its HTML and typed ``_meta.ui`` (see :meth:`ui_resource`)."""
        contents = await self.read_resource(uri, timeout=timeout)
        first = contents[0] if contents else None
        if first is None or first.uri != uri or first.mimeType != UI_MIME_TYPE:
            got = (first.uri, first.mimeType) if first is not None else "nothing"
            raise ProtocolError(f"resources/read {uri}: contents[0] must be {uri} as {UI_MIME_TYPE}, got {got}")
        if isinstance(first, BlobResourceContents):
            try:
                html = base64.b64decode(first.blob, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                raise ProtocolError(f"resources/read {uri}: the blob is not base64 UTF-8 HTML") from None
        else:
            html = first.text
        ui = (first.meta or {}).get("ui")
        try:
            meta = McpUiResourceMeta.model_validate(ui if ui is not None else {})
        except ValidationError:
            raise ProtocolError(f"resources/read {uri}: _meta.ui is not an McpUiResourceMeta") from None
        return UiResource(uri=uri, mime_type=first.mimeType, html=html, meta=meta)


__all__ = ["AppCalls"]
