"""The frontmatter of a ``SKILL.md`` a server sent, read within bounds.

The server chooses the file *and* the entry it is checked against, so a matching size and digest
prove nothing about the content: the frontmatter is hostile input.  :func:`read_frontmatter`
reads it with the runtime's own subset reader (``wire.skills.parse_frontmatter``); a block that
reader does not know (lists, flow style, block scalars: what other servers write) is read with
PyYAML when it is installed, but only after a pass over its events has refused

* anchors and aliases (``&a`` / ``*a``: the "billion laughs" alias bomb expands a few hundred
  bytes into gigabytes when the value is walked or printed),
* more than :data:`MAX_NODES` nodes or nesting deeper than :data:`MAX_DEPTH`,

and a block larger than :data:`MAX_FRONTMATTER_BYTES` is refused before any parsing.  Messages
show values through :func:`shown` (at most :data:`SHOWN_CHARS` characters), never whole.
"""

from __future__ import annotations

import importlib
from typing import Any

from ...wire.skills import FrontmatterError, frontmatter_block, parse_frontmatter

#: The largest frontmatter block read (bytes of UTF-8); the Agent Skills fields are a few KB.
MAX_FRONTMATTER_BYTES = 64 * 1024
#: The most YAML nodes (scalars, maps, lists) and the deepest nesting accepted.
MAX_NODES = 4096
MAX_DEPTH = 16
#: The most characters of a value an error message shows.
SHOWN_CHARS = 120


class UnreadableFrontmatter(ValueError):
    """The frontmatter is missing, too large, or YAML this reader refuses (the text says why)."""


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters; a container's repr is built only as far as
    needed (a value can be large even without aliases)."""
    text = _bounded_repr(value, limit + 1)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _bounded_repr(value: Any, limit: int) -> str:
    if isinstance(value, dict):
        parts, size = [], 2
        for key, item in value.items():
            if size > limit:
                break
            part = f"{_bounded_repr(key, limit)}: {_bounded_repr(item, limit)}"
            parts.append(part)
            size += len(part) + 2
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list | tuple):
        parts, size = [], 2
        for item in value:
            if size > limit:
                break
            part = _bounded_repr(item, limit)
            parts.append(part)
            size += len(part) + 2
        return "[" + ", ".join(parts) + "]"
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit])
    return repr(value)[:limit]


def _check_events(yaml: Any, block: str) -> None:
    """Refuse anchors, aliases, too many nodes and too deep nesting (before anything is built)."""
    nodes = depth = 0
    for event in yaml.parse(block, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise UnreadableFrontmatter("YAML anchors and aliases are not accepted in a skill's frontmatter")
        if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise UnreadableFrontmatter(f"frontmatter nested deeper than {MAX_DEPTH} levels")
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            depth -= 1
        if isinstance(event, yaml.NodeEvent):
            nodes += 1
            if nodes > MAX_NODES:
                raise UnreadableFrontmatter(f"frontmatter of more than {MAX_NODES} YAML nodes")


def read_frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter of a ``SKILL.md`` (see the module docstring).

    Raises:
        UnreadableFrontmatter: no block, a block too large, or YAML outside the bounds.
    """
    block = frontmatter_block(text)
    if block is None:
        raise UnreadableFrontmatter("SKILL.md does not begin with a --- delimited YAML frontmatter block")
    if len(block[0].encode("utf-8", "replace")) > MAX_FRONTMATTER_BYTES:
        raise UnreadableFrontmatter(f"frontmatter larger than {MAX_FRONTMATTER_BYTES} bytes")
    try:
        return parse_frontmatter(text)
    except FrontmatterError as exc:
        strict = shown(str(exc)).strip("'\"")
    try:  # a server's frontmatter may use more YAML than the runtime's own reader knows
        yaml = importlib.import_module("yaml")  # optional: PyYAML, when installed
    except ImportError:
        raise UnreadableFrontmatter(strict) from None
    try:
        _check_events(yaml, block[0])
        data = yaml.safe_load(block[0])
    except UnreadableFrontmatter:
        raise
    except Exception as exc:  # yaml.YAMLError, RecursionError ...
        raise UnreadableFrontmatter(f"{strict}; not YAML either ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise UnreadableFrontmatter(f"{strict}; the YAML is not a map")
    if not all(isinstance(key, str) for key in data):  # the entry's frontmatter is JSON: string keys
        raise UnreadableFrontmatter(f"{strict}; a key that is not a string")
    return data


__all__ = ["MAX_DEPTH", "MAX_FRONTMATTER_BYTES", "MAX_NODES", "SHOWN_CHARS", "UnreadableFrontmatter",
           "read_frontmatter", "shown"]
