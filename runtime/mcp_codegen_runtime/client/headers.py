"""Which headers a 2026-07-28 request carries (client side): ``MCP-Protocol-Version``,
``Mcp-Method``, ``Mcp-Name`` and one ``Mcp-Param-*`` per ``x-mcp-header`` argument.

The argument headers come from each tool's ``inputSchema``, learned from the generated tool
table and from every ``tools/list`` answer; a listed tool whose annotations are invalid is
dropped from the answer (the server would refuse its calls) and remembered with the reason.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from ..wire import protocol as p
from ..wire.headers import HeaderParam, encode_text, encode_value, header_params, name_source

logger = logging.getLogger("mcp_codegen.client.http")

JsonMessage = dict[str, Any] | list[Any]


class HeaderPlan:
    """The ``x-mcp-header`` parameters of the known tools, and the headers of a message."""

    def __init__(self, tools: Iterable[Mapping[str, Any]] = ()) -> None:
        self._params: dict[str, tuple[HeaderParam, ...]] = {}
        #: Tools dropped from ``tools/list`` for invalid ``x-mcp-header`` annotations -> why.
        self.dropped_tools: dict[str, str] = {}
        for tool in tools:
            self.learn(tool)

    def learn(self, tool: Mapping[str, Any]) -> str | None:
        """Remember a tool's header parameters; the reason they are invalid, or None."""
        name = tool.get("name")
        params, reason = header_params(tool.get("inputSchema"))
        if isinstance(name, str):
            if reason is None:
                self._params[name] = params
            else:
                self._params.pop(name, None)
        return reason

    def filter_list(self, message: JsonMessage) -> JsonMessage:
        """A ``tools/list`` response without the tools whose header annotations are invalid."""
        result = message.get("result") if isinstance(message, dict) else None
        if not isinstance(message, dict) or not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            return message
        kept = []
        for tool in result["tools"]:
            reason = self.learn(tool) if isinstance(tool, dict) else None
            if reason is None:
                kept.append(tool)
                continue
            name = str(tool.get("name"))
            self.dropped_tools[name] = reason
            logger.warning("dropping tool %r from tools/list: %s", name, reason)
        return {**message, "result": {**result, "tools": kept}}

    def modern_headers(self, message: JsonMessage) -> dict[str, str] | None:
        """The 2026 headers of a request naming its version in ``_meta``; None for others."""
        if not isinstance(message, dict):
            return None
        method = message.get("method")
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get(p.META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
        if not isinstance(version, str) or not isinstance(method, str):
            return None
        headers = {"mcp-protocol-version": version, "mcp-method": method}
        name = name_source(method, params)
        if name is not None:
            headers["mcp-name"] = encode_text(name)
        if method == "tools/call" and isinstance(params, dict) and isinstance(name, str):
            args = params.get("arguments")
            for spec in self._params.get(name, ()):
                value = spec.value_in(args) if isinstance(args, Mapping) else None
                rendered = encode_value(value) if value is not None else None
                if rendered is not None:
                    headers[spec.header_name] = rendered
        return headers
