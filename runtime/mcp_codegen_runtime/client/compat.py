"""``check_compat`` for resources, resource templates and prompts: the generated tables against
the server's live lists.

What a typed client relies on, and so what is reported as a break (``removed`` / ``changed``):
a fixed resource URI it reads, a template (by name) whose ``uriTemplate`` it expands, and a
prompt (by name) whose arguments it sends — an argument the server no longer declares, or one the
server now requires that the client does not.  Entries only on the server are ``added`` (safe).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..wire.apps import UI_SCHEME
from ..wire.resources import PromptDef, ResourceDef, ResourceTemplateDef
from ..wire.skills import SKILL_SCHEME
from .types import CatalogChange


def _arguments(prompt: Mapping[str, Any]) -> dict[str, bool]:
    """A wire Prompt's arguments: name -> required."""
    args = prompt.get("arguments")
    return {a["name"]: a.get("required") is True for a in args or [] if isinstance(a, dict) and isinstance(a.get("name"), str)}


def catalog_changes(
    resources: Sequence[ResourceDef],
    templates: Sequence[ResourceTemplateDef],
    prompts: Sequence[PromptDef],
    live_resources: Sequence[Mapping[str, Any]],
    live_templates: Sequence[Mapping[str, Any]],
    live_prompts: Sequence[Mapping[str, Any]],
) -> tuple[CatalogChange, ...]:
    """What differs between the generated catalog and the live lists (see the module docstring)."""
    out: list[CatalogChange] = []
    # skill:// files belong to the Skills extension (verified by digest there, client/skills/calls.py), ui://
    # views to MCP Apps (checked when read, client/apps.py)
    uris = {r.get("uri") for r in live_resources if not str(r.get("uri", "")).startswith((SKILL_SCHEME, UI_SCHEME))}
    out += [CatalogChange("resource", r.uri, "removed") for r in resources if r.uri not in uris]
    known = {r.uri for r in resources}
    out += [CatalogChange("resource", str(u), "added") for u in sorted(str(u) for u in uris) if u not in known]

    live_t = {t.get("name"): t for t in live_templates}
    for t in templates:
        got = live_t.get(t.name)
        if got is None:
            out.append(CatalogChange("template", t.name, "removed"))
        elif got.get("uriTemplate") != t.uri_template:
            out.append(CatalogChange("template", t.name, "changed", f"uriTemplate is now {got.get('uriTemplate')!r}"))
    out += [CatalogChange("template", str(n), "added") for n in sorted(map(str, live_t)) if n not in {t.name for t in templates}]

    live_p = {pr.get("name"): pr for pr in live_prompts}
    for prompt in prompts:
        got = live_p.get(prompt.name)
        if got is None:
            out.append(CatalogChange("prompt", prompt.name, "removed"))
            continue
        mine, theirs = _arguments(prompt.wire), _arguments(got)
        details = [f"argument {a!r} is no longer declared" for a in mine if a not in theirs]
        details += [f"argument {a!r} is now required" for a, req in theirs.items() if req and not mine.get(a)]
        if details:
            out.append(CatalogChange("prompt", prompt.name, "changed", "; ".join(details)))
    out += [CatalogChange("prompt", str(n), "added") for n in sorted(map(str, live_p)) if n not in {p.name for p in prompts}]
    return tuple(out)


__all__ = ["catalog_changes"]
