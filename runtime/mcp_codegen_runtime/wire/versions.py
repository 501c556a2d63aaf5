"""Version gating: shape Tool objects, results and serverInfo for one protocol version.

``ToolDef.wire`` and handler results are written for the newest protocol; the functions
here drop or adapt what an older negotiated version does not define (TOOLS-PROTOCOL §1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from . import protocol as p
from .tools import ServerInfo

_TOOL_FIELDS: dict[str, frozenset[str]] = {
    p.V2025_03_26: frozenset({"name", "description", "inputSchema", "annotations"}),
    p.V2025_06_18: frozenset(
        {"name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta"}
    ),
    p.V2025_11_25: frozenset(
        {
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "icons",
            "execution",
            "_meta",
        }
    ),
    p.V2026_07_28: frozenset(
        {
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "icons",
            "_meta",
        }
    ),
}

_IMPL_FIELDS: dict[str, tuple[str, ...]] = {
    p.V2025_03_26: ("name", "version"),
    p.V2025_06_18: ("name", "version", "title"),
    p.V2025_11_25: ("name", "version", "title", "description"),
    p.V2026_07_28: ("name", "version", "title", "description"),
}


def is_modern(version: str) -> bool:
    return version in p.MODERN_VERSIONS


def object_schema(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "object"


def _ref_target(schema: Mapping[str, Any], ref: Any) -> Any:
    """The target of a local ``#/...`` pointer inside ``schema``, or ``None``."""
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    node: Any = schema
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def legacy_output_schema(schema: Any) -> Any:
    """``schema`` in a form a 2025-era client accepts (``type: "object"`` at the root), or ``None``.

    A root ``$ref`` (through a chain of local ``$ref``s) to an object schema gets ``type: "object"``
    beside it: the ``$ref`` still applies, so validation is identical.  Other roots without an object
    ``type`` cannot be sent before 2026.
    """
    if object_schema(schema):
        return schema
    if not isinstance(schema, Mapping) or "type" in schema:
        return None
    node: Any = schema
    for _ in range(32):
        if not isinstance(node, Mapping) or "$ref" not in node:
            break
        node = _ref_target(schema, node["$ref"])
    if object_schema(node) and "$ref" in schema:
        return {"type": "object", **schema}
    return None


#: Every Tool field some protocol version defines; other keys are vendor keys.
_KNOWN_TOOL_FIELDS = frozenset().union(*_TOOL_FIELDS.values())


def tool_for_version(wire: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The Tool object of ``wire`` as ``version`` defines it: protocol fields ``version`` does
    not have are dropped, vendor keys (the spec's unknown Tool keys, W105) are kept."""
    fields = _TOOL_FIELDS.get(version, _TOOL_FIELDS[p.LATEST])
    tool = {k: v for k, v in wire.items() if k in fields or k not in _KNOWN_TOOL_FIELDS}
    if not is_modern(version) and "outputSchema" in tool:
        legacy = legacy_output_schema(tool["outputSchema"])  # before 2026: type "object" at the root
        if legacy is None:
            del tool["outputSchema"]
        else:
            tool["outputSchema"] = legacy
    return tool


def implementation(info: ServerInfo, version: str) -> dict[str, Any]:
    """The ``Implementation`` object (serverInfo) for ``version``."""
    out: dict[str, Any] = {}
    for key in _IMPL_FIELDS.get(version, _IMPL_FIELDS[p.LATEST]):
        value = getattr(info, key)
        if value is not None:
            out[key] = value
    return out


def _block_for_version(block: dict[str, Any], version: str) -> dict[str, Any]:
    if version == p.V2025_03_26:
        block = {k: v for k, v in block.items() if k != "_meta"}
        if block.get("type") == "resource_link":
            # 2025-03-26 has no resource links: degrade to a text mention of the URI.
            return {"type": "text", "text": f"{block.get('name', '')} <{block.get('uri', '')}>"}
        ann = block.get("annotations")
        if isinstance(ann, dict) and "lastModified" in ann:
            block["annotations"] = {k: v for k, v in ann.items() if k != "lastModified"}
    if version != p.V2025_11_25 and not is_modern(version) and block.get("type") == "resource_link":
        block.pop("icons", None)
    return block


def call_result_for_version(result: dict[str, Any], version: str) -> dict[str, Any]:
    """Adapt a CallToolResult (newest shape) to ``version``."""
    out = dict(result)
    out["content"] = [_block_for_version(dict(b), version) for b in out.get("content", [])]
    if "structuredContent" in out:
        sc = out["structuredContent"]
        if version == p.V2025_03_26 or (not is_modern(version) and not isinstance(sc, dict)):
            del out["structuredContent"]
            if not out["content"]:
                out["content"] = [{"type": "text", "text": json.dumps(sc, ensure_ascii=False)}]
    return out
