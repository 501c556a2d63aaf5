"""OpenAPI's ``discriminator`` as JSON Schema can check it.

In OpenAPI the discriminator chooses the branch of a ``oneOf``/``anyOf``; JSON Schema ignores it
and asks that exactly one branch validate.  Branches that share a base schema (events that differ
only by their ``event_type`` value, as real documents write them) all validate, so a ``oneOf`` of
them refuses every value.  Each ``$ref`` branch gets the discriminator's value for it (its
``mapping`` tags, else the schema's own name, as OpenAPI's implicit mapping says) as a required
``const``/``enum`` beside the ``$ref``: the branches are apart, and a value valid in OpenAPI's sense
is valid in JSON Schema's.
"""

from __future__ import annotations

import re
from typing import Any

#: The request variant of a ``$defs`` entry (``PetInput``, ``PetInput_2``): its tags are the entry's.
_VARIANT = re.compile(r"Input(_\d+)?$")


def pin_branches(out: dict[str, Any]) -> dict[str, Any]:
    """``out`` (a converted schema with a ``discriminator``) with its ``$ref`` branches told apart."""
    disc = out.get("discriminator")
    prop = disc.get("propertyName") if isinstance(disc, dict) else None
    if not isinstance(prop, str):
        return out
    tags: dict[str, list[str]] = {}
    for tag, ref in (disc.get("mapping") or {}).items():
        tags.setdefault(_name(ref), []).append(tag)
    for key in ("oneOf", "anyOf"):
        branches = out.get(key)
        if not isinstance(branches, list):
            continue
        out[key] = [_pinned(b, prop, tags) for b in branches]
    return out


def _name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _pinned(branch: Any, prop: str, tags: dict[str, list[str]]) -> Any:
    if not (isinstance(branch, dict) and isinstance(branch.get("$ref"), str)) or "properties" in branch:
        return branch
    name = _name(branch["$ref"])
    # a branch the mapping leaves out (or no mapping) takes OpenAPI's implicit value: its schema's name
    values = tags.get(name) or tags.get(_VARIANT.sub("", name)) or [_VARIANT.sub("", name)]
    value: dict[str, Any] = {"const": values[0]} if len(values) == 1 else {"enum": sorted(values)}
    return {**branch, "properties": {prop: value}, "required": [prop]}
