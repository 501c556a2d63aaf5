"""Re-pulling keeps the spec's ``overlays`` (client-side output types the server does not publish).

``mcp-codegen pull --force`` into an existing spec reads that file's ``overlays`` and writes them
into the new spec, with the ``$defs`` entries they refer to (``#/$defs/Name``, followed through
other entries).  An overlay is dropped, with a note, when its tool is gone or now publishes an
``outputSchema`` of its own (the server's type wins); a referenced ``$defs`` entry whose name the
new spec already uses for another body keeps the new one, with a note.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from ...spec.load import CONSTRUCT_ERRORS
from .notes import INFO, Note

_DEFS = "#/$defs/"


def read_overlays(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``overlays`` and ``$defs`` of the spec at ``path`` (empty when it has none or cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8")
        if "overlays" not in text and "\\" not in text:
            return {}, {}  # no key can spell it (only a double-quoted escape could, and there is none)
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, *CONSTRUCT_ERRORS):
        return {}, {}
    if not isinstance(data, dict) or not isinstance(data.get("overlays"), dict):
        return {}, {}
    defs = data.get("$defs")
    return dict(data["overlays"]), dict(defs) if isinstance(defs, dict) else {}


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFS):
            yield ref[len(_DEFS):].split("/", 1)[0]
        for item in value.values():
            yield from _refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)


def keep_overlays(overlays: Mapping[str, Any], old_defs: Mapping[str, Any], tools: list[dict[str, Any]],
                  shared: dict[str, Any]) -> tuple[dict[str, Any], list[Note]]:
    """The overlays still usable against the new ``tools``; the ``$defs`` they need are added to ``shared``.

    Args:
        overlays: the old spec's ``overlays``.
        old_defs: the old spec's ``$defs``.
        tools: the new spec's tool entries.
        shared: the new spec's ``$defs`` (updated in place).

    Returns:
        The overlays to write, and notes on what was dropped or not carried over.
    """
    by_name = {t["name"]: t for t in tools}
    kept: dict[str, Any] = {}
    notes: list[Note] = []
    for name in sorted(overlays):
        tool = by_name.get(name)
        if tool is None:
            notes.append(Note("", "/overlays", INFO, f"overlay for {name!r} dropped: the server no longer lists it"))
        elif "outputSchema" in tool:
            notes.append(Note("", "/overlays", INFO,
                              f"overlay for {name!r} dropped: the server now publishes its outputSchema"))
        else:
            kept[name] = copy.deepcopy(overlays[name])
    work = [n for n in _refs(kept)]
    seen: set[str] = set()
    while work:
        ref = work.pop()
        if ref in seen or ref not in old_defs:
            continue
        seen.add(ref)
        if ref in shared and shared[ref] != old_defs[ref]:
            notes.append(Note("", "/overlays", INFO, f"$defs entry {ref!r} of the overlays now holds the "
                              "server's definition; check the overlays that use it"))
            continue
        shared[ref] = copy.deepcopy(old_defs[ref])
        work += list(_refs(old_defs[ref]))
    return kept, notes


__all__ = ["keep_overlays", "read_overlays"]
