"""A live server's ``resources/list``, ``resources/templates/list`` and ``prompts/list`` into the
spec's ``resources``, ``resourceTemplates`` and ``prompts``: unknown keys and unusable entries
left out with a note, Python names that would clash numbered."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp_codegen_runtime.wire.uritemplate import TemplateError
from mcp_codegen_runtime.wire.uritemplate import parse as parse_template

from ...ir.naming.core import handler_stem, tool_method
from .notes import Note

_RESOURCE_KEYS = ("uri", "name", "title", "description", "mimeType", "size", "annotations", "icons", "_meta")
_TEMPLATE_KEYS = ("uriTemplate", "name", "title", "description", "mimeType", "annotations", "icons", "_meta")
_PROMPT_KEYS = ("name", "title", "description", "icons", "_meta", "arguments")
_ARGUMENT_KEYS = ("name", "title", "description", "required")


def _kept(raw: Mapping[str, Any], keys: tuple[str, ...], at: str, notes: list[Note]) -> dict[str, Any]:
    """The entry with the keys the spec format knows (others noted: the spec cannot hold them)."""
    dropped = sorted(k for k in raw if k not in keys)
    if dropped:
        notes.append(Note("", at, "W104", f"{', '.join(map(repr, dropped))} left out (not in the spec format)"))
    return {k: raw[k] for k in keys if k in raw}


def _typed(entry: dict[str, Any], types: dict[str, type]) -> dict[str, Any]:
    """``entry`` without text fields that are not strings and typed fields of the wrong type
    (the spec format would refuse them)."""
    out = {}
    for k, v in entry.items():
        want = types.get(k, str) if k in ("title", "description", "mimeType", *types) else None
        if want is None or (isinstance(v, want) and not (want is int and isinstance(v, bool))):
            out[k] = v
    return out


def _stems(entries: list[dict[str, Any]], prefix: str, notes: list[Note], key: str, tools: set[str]) -> None:
    """Give entries whose handler names would clash (with each other or with a tool's method)
    a ``python_name`` (numbered)."""
    used: set[str] = set()
    for i, entry in enumerate(entries):
        stem = handler_stem(str(entry["name"]))
        chosen, n = stem, 2
        while chosen in used or f"{prefix}_{chosen}" in tools:
            chosen, n = f"{stem}_{n}", n + 1
        used.add(chosen)
        if chosen != stem:
            entry["python_name"] = chosen
            notes.append(Note("", f"/{key}/{i}/name", "W104", f"{entry['name']!r}: Python name {prefix}_{chosen} "
                              "(another entry has the same one)"))


def normalize_catalog(resources: list[Any], templates: list[Any], prompts: list[Any],
                      tools: Sequence[dict[str, Any]] = ()) -> tuple[dict[str, list[dict[str, Any]]], list[Note]]:
    """Spec ``resources`` / ``resourceTemplates`` / ``prompts`` from the server's lists: unknown keys
    and unusable entries (no uri or name, duplicates, templates beyond RFC 6570 level 3) left out
    with a note; names that would give one Python name twice numbered."""
    notes: list[Note] = []
    out: dict[str, list[dict[str, Any]]] = {}
    seen: set[tuple[str, str]] = set()

    def usable(raw: Any, key: str, ident: str, i: int) -> bool:
        ok = isinstance(raw, dict) and isinstance(raw.get(ident), str) and raw.get(ident) and \
            isinstance(raw.get("name"), str) and raw.get("name")
        if not ok:
            notes.append(Note("", f"/{key}", "W104", f"entry {i} has no {ident} or name; left out"))
            return False
        names = "prompt" if key == "prompts" else "resource"  # resources and templates share names
        if (key, raw[ident]) in seen or (names + "#name", raw["name"]) in seen:
            notes.append(Note("", f"/{key}", "W104", f"duplicate {raw[ident]!r} / {raw['name']!r}; left out"))
            return False
        seen.update({(key, raw[ident]), (names + "#name", raw["name"])})
        return True

    res = [_kept(r, _RESOURCE_KEYS, f"/resources/{i}", notes) for i, r in enumerate(resources)
           if usable(r, "resources", "uri", i)]
    tpls = []
    for i, r in enumerate(templates):
        if not usable(r, "resourceTemplates", "uriTemplate", i):
            continue
        try:
            parse_template(r["uriTemplate"])
        except TemplateError as exc:
            notes.append(Note("", "/resourceTemplates", "W104", f"template {r['uriTemplate']!r} left out: {exc}"))
            continue
        tpls.append(_kept(r, _TEMPLATE_KEYS, f"/resourceTemplates/{i}", notes))
    prs = []
    for i, r in enumerate(prompts):
        if not usable(r, "prompts", "name", i):
            continue
        entry = _typed(_kept(r, _PROMPT_KEYS, f"/prompts/{i}", notes), {})
        args = entry.get("arguments")
        if args is not None:
            good, names_seen = [], set()
            for a in args if isinstance(args, list) else []:
                if isinstance(a, dict) and isinstance(a.get("name"), str) and a["name"] and a["name"] not in names_seen:
                    names_seen.add(a["name"])
                    good.append(_typed(_kept(a, _ARGUMENT_KEYS, f"/prompts/{i}/arguments", notes), {"required": bool}))
            entry["arguments"] = good
        prs.append(entry)
    res = [_typed(r, {"size": int}) for r in res]
    tpls = [_typed(x, {}) for x in tpls]
    taken = {tool_method(str(t["name"]), t.get("python_name"), frozenset()) for t in tools}
    _stems([*res, *tpls], "read", notes, "resources", taken)
    _stems(prs, "prompt", notes, "prompts", taken)
    for key, entries in (("resources", res), ("resourceTemplates", tpls), ("prompts", prs)):
        if entries:
            out[key] = entries
    return out, notes
