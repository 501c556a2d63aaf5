"""JSON pointers (RFC 6901): joining tokens into one, following one into a document, naming
the first value nested too deep.

A shared leaf: it imports nothing of the generator, so every stage may use it.
"""

from __future__ import annotations

from typing import Any


def escape_pointer_token(token: str | int) -> str:
    """``token`` escaped for a pointer (``~`` as ``~0``, ``/`` as ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def join_pointer(base: str, *tokens: str | int) -> str:
    """``base`` followed by each token, escaped."""
    return base + "".join("/" + escape_pointer_token(t) for t in tokens)


def split_pointer(pointer: str) -> list[str]:
    """The unescaped tokens of a JSON pointer (``""`` has none)."""
    if pointer in ("", "#"):
        return []
    return [raw.replace("~1", "/").replace("~0", "~") for raw in pointer.lstrip("#").lstrip("/").split("/")]


def resolve_pointer(data: Any, pointer: str) -> tuple[bool, Any]:
    """Follow a JSON pointer; (False, None) when it does not exist."""
    if pointer in ("", "#"):
        return True, data
    node = data
    for raw in pointer.lstrip("/").split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False, None
    return True, node


def depth_exceeded(value: Any, limit: int) -> str | None:
    """Pointer of the first value nested deeper than ``limit`` levels, else None."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        node, ptr, depth = stack.pop()
        if depth > limit:
            return ptr
        if isinstance(node, dict):
            stack.extend((v, join_pointer(ptr, k), depth + 1) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, join_pointer(ptr, i), depth + 1) for i, v in enumerate(node))
    return None
