"""Every mistake in one run: the parts of a spec with a structural error set aside, the rest checked.

A structural error (E010: a missing key, a value of the wrong type) used to end validation,
so the schema checks (E023, E029, ``$ref`` s), the names (E020, E021) and the catalog checks
(E080-E082) of the rest of the spec showed only in a later run.  :func:`sound_copy` makes a
copy of the document where each entry holding such an error is set aside: a tool, resource,
template or prompt becomes ``None`` (the spec model skips it and the others keep their
pointers), a ``$defs`` or ``overlays`` entry is removed, a broken ``server`` becomes a
placeholder and a missing or broken list becomes empty.  The copy passes the structural
check (:func:`codegen.spec.validate.validate` checks that, and stops as before otherwise), so
the later checks run on it as on any valid spec; the placeholder never reaches a build,
because the set-aside errors stay errors.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from .load import SourceDoc
from .model import FORMAT_VERSION
from .pointer import split_pointer

#: Top-level lists whose entries can be set aside one by one.
_LISTS = ("tools", "resources", "resourceTemplates", "prompts", "skills", "ui")
#: Top-level mappings whose entries can be set aside one by one.
_MAPS = ("$defs", "overlays")
#: What stands in for a server entry with a structural error.
_PLACEHOLDER_SERVER = {"name": "server", "version": "0"}


def sound_copy(doc: SourceDoc, pointers: list[str]) -> SourceDoc | None:
    """A copy of ``doc`` with every entry that a structural error (at one of ``pointers``)
    lies in set aside, or None when an error cannot be placed in one entry."""
    data = doc.data
    if not isinstance(data, dict):
        return None
    out = dict(data)
    aside: dict[str, set[str]] = {}
    for pointer in pointers:
        path = split_pointer(pointer)
        if not path:
            continue  # a missing top-level key: filled in below
        key = path[0]
        if len(path) > 1 and (key in _LISTS and isinstance(out.get(key), list) or key in _MAPS and isinstance(out.get(key), dict)):
            aside.setdefault(key, set()).add(path[1])
        elif key == "server":
            out["server"] = None
        elif key in _LISTS or key in _MAPS:
            out.pop(key, None)
        else:
            return None
    for key, items in aside.items():
        if isinstance(out.get(key), list):
            out[key] = [None if str(i) in items else entry for i, entry in enumerate(out[key])]
        else:
            out[key] = {name: entry for name, entry in out[key].items() if name not in items}
    if not isinstance(out.get("server"), dict):
        out["server"] = copy.deepcopy(_PLACEHOLDER_SERVER)
    if not isinstance(out.get("tools"), list):
        out["tools"] = []
    out.setdefault("mcp-codegen", FORMAT_VERSION)
    doc.positions  # noqa: B018  (read now: the copy shares them)
    return replace(doc, data=out)


def without_set_aside(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` of a :func:`sound_copy` without the ``None`` that mark entries set aside (what
    the structural check of the copy reads)."""
    return {k: [e for e in v if e is not None] if k in _LISTS and isinstance(v, list) else v for k, v in data.items()}


__all__ = ["sound_copy", "without_set_aside"]
