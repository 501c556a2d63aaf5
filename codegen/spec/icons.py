"""Checks of every ``icons`` list of a spec (server, tools, resources, templates, prompts).

An icon's ``src`` goes to clients as written (``serverInfo``, ``tools/list`` ...), and MCP makes
it an http(s) URL or a ``data:`` URI.  A host that renders it must not meet another scheme:

====  ======================================================================================
E179  ``src`` empty, or with a scheme other than https, http or ``data:image/...``
      (``javascript:``, ``file:``, ``vbscript:`` ...)
W174  ``src`` a local path on a tool, resource, template or prompt: clients cannot fetch it
      (``server.icons`` may name a local PNG: ``mcp-codegen bundle`` packs it)
====  ======================================================================================

The registry's stricter rules for ``server.icons`` (https only) are E177 (:mod:`.registry`).  A
pulled spec (``mcp-codegen pull``) is not checked: its icons are what the live server sends.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..diagnostics import Diagnostic, Level, clipped
from .load import SourceDoc
from .pointer import join_pointer

#: The spec's lists whose entries may carry ``icons``.
_ENTRY_LISTS = ("tools", "resources", "resourceTemplates", "prompts")


def _sites(data: Any) -> list[tuple[str, Any, bool]]:
    """(pointer, icons list, on the server) for every ``icons`` of the spec."""
    sites: list[tuple[str, Any, bool]] = []
    server = data.get("server") if isinstance(data, dict) else None
    if isinstance(server, dict) and "icons" in server:
        sites.append(("/server/icons", server["icons"], True))
    for key in _ENTRY_LISTS:
        entries = data.get(key) if isinstance(data, dict) else None
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            if isinstance(entry, dict) and "icons" in entry:
                sites.append((join_pointer("", key, i, "icons"), entry["icons"], False))
    return sites


def _scheme(src: str) -> str | None:
    """``src``'s scheme (lower case; "" for a local path), None when clients must not meet it:
    empty, unparsable, another scheme, an http(s) URL without a host, a ``data:`` URI no image."""
    text = src.strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    fine = {"": bool(text), "https": bool(parts.netloc), "http": bool(parts.netloc),
            "data": text.lower().startswith("data:image/")}.get(scheme, False)
    return scheme if fine else None


def icon_checks(doc: SourceDoc) -> list[Diagnostic]:
    """E179 and W174 for ``doc`` (module docstring); the spec format reports a malformed list.
    A pulled spec records what its server sends, which is not the spec author's to fix: unchecked."""
    out: list[Diagnostic] = []
    if doc.pulled:
        return out
    for at, icons, on_server in _sites(doc.data):
        for i, icon in enumerate(icons if isinstance(icons, list) else []):
            src = icon.get("src") if isinstance(icon, dict) else None
            if not isinstance(src, str):
                continue
            where = join_pointer(at, i, "src")
            scheme = _scheme(src)
            if scheme is None:
                out.append(doc.diag("E179", f"icon src {clipped(src)!r} is not an https, http or data:image URI", where,
                                    hint="clients fetch or render it as written: use https://... or data:image/png;base64,..."))
            elif not scheme and not on_server:
                out.append(doc.diag("W174", f"icon src {src!r} is a local path, which clients cannot fetch", where,
                                    hint="use an https URL or a data:image URI (only server.icons may name a local PNG, "
                                    "for mcp-codegen bundle)", level=Level.WARNING))
    return out


__all__ = ["icon_checks"]
