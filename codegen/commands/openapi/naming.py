"""Tool names and texts for operations: valid for every host, at most 64 characters, unique.

* ``operationId`` verbatim when it matches ``^[A-Za-z0-9_-]{1,64}$``; else with every other
  character as ``_`` (``pets.list`` -> ``pets_list``);
* no ``operationId``: ``<method>_<path words>`` (``GET /pets/{id}`` -> ``get_pets_id``);
* longer than 64: cut to 55 characters plus ``_`` and 8 hex digits of the SHA-256 of
  ``"<METHOD> <path>"`` (stable across runs and document versions);
* a name already taken (after sanitising, shortening or a rename): the same hash suffix, and
  W121 naming both operations.
"""

from __future__ import annotations

import hashlib
import re

from .ir import Operation, Tool
from .load import Document

VALID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_BAD = re.compile(r"[^A-Za-z0-9_-]")
_WORDS = re.compile(r"[A-Za-z0-9]+")
LIMIT = 64


def suffix(op: Operation) -> str:
    return "_" + hashlib.sha256(op.label.encode("utf-8")).hexdigest()[:8]


def base_name(op: Operation) -> str:
    """The tool name an operation asks for, before uniqueness."""
    if op.operation_id is not None:
        name = op.operation_id if VALID.fullmatch(op.operation_id) else _BAD.sub("_", op.operation_id)
    else:
        name = "_".join([op.method.lower(), *_WORDS.findall(op.path)])
    return shorten(name, op)


def shorten(name: str, op: Operation) -> str:
    name = name or "_"
    return name if len(name) <= LIMIT else name[:LIMIT - 9] + suffix(op)


def assign(doc: Document, tools: list[Tool]) -> None:
    """Make the tool names unique, in order; each clash is W121 naming both operations."""
    owner: dict[str, Operation] = {}
    for tool in tools:
        name = tool.name
        if name in owner:
            first = owner[name]
            unique = name[:LIMIT - 9] + suffix(tool.operation)
            n = 1
            while unique in owner:
                n += 1
                unique = f"{name[:LIMIT - 9 - len(str(n))]}{suffix(tool.operation)}{n}"
            doc.warn(tool.operation.where.doc, "W121", f"tool name {name!r} of {tool.operation.label} is taken by "
                     f"{first.label}; named {unique!r}", tool.operation.where.pointer,
                     "rename one of them in the spec's `openapi.tools` section to choose the names")
            name = unique
        owner[name] = tool.operation
        tool.name = name


def description(op: Operation, override: str | None = None) -> str:
    """Summary and description verbatim (or the curated text), a deprecation note and where
    the tool goes (``HTTP GET /pets/{id}``, operationId)."""
    parts = [override.strip()] if override is not None else [p.strip() for p in (op.summary, op.description) if p.strip()]
    if op.summary.strip() and op.description.strip().startswith(op.summary.strip()) and override is None:
        parts = [op.description.strip()]
    if op.deprecated:
        parts.append("Deprecated.")
    where = f"HTTP {op.label}"
    if op.operation_id is not None:
        where += f" (operationId {op.operation_id})"
    parts.append(where)
    return "\n\n".join(p for p in parts if p)


def hints(method: str) -> dict[str, bool]:
    """Hints from the method: safe methods read only, DELETE destructive and idempotent, PUT idempotent."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return {"readOnlyHint": True, "openWorldHint": True}
    if method == "DELETE":
        return {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": True}
    if method == "PUT":
        return {"readOnlyHint": False, "idempotentHint": True, "openWorldHint": True}
    return {"readOnlyHint": False, "openWorldHint": True}
