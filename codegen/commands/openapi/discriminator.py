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

from collections.abc import Callable
from typing import Any


def pin_branches(out: dict[str, Any], entry_of: Callable[[str], str]) -> dict[str, Any]:
    """``out`` (a converted schema with a ``discriminator``) with its ``$ref`` branches told apart;
    ``entry_of`` names the ``$defs`` entry a branch's request variant was made from (its tags are
    the entry's)."""
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
        out[key] = [_pinned(b, prop, tags, entry_of) for b in branches]
    return out


def _name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _pinned(branch: Any, prop: str, tags: dict[str, list[str]], entry_of: Callable[[str], str]) -> Any:
    if not (isinstance(branch, dict) and isinstance(branch.get("$ref"), str)) or "properties" in branch:
        return branch
    name = entry_of(_name(branch["$ref"]))
    # a branch the mapping leaves out (or no mapping) takes OpenAPI's implicit value: its schema's name
    values = tags.get(name) or [name]
    value: dict[str, Any] = {"const": values[0]} if len(values) == 1 else {"enum": sorted(values)}
    return {**branch, "properties": {prop: value}, "required": [prop]}
