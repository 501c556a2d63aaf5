"""Checks of the spec's ``overlays`` section: client-side output types for tools whose server
publishes no ``outputSchema`` (never sent, never part of a fingerprint; README spec reference).
"""

from __future__ import annotations

import difflib

from ..diagnostics import Diagnostic
from .load import SourceDoc
from .model import SpecFile
from .pointer import join_pointer


def overlay_checks(doc: SourceDoc, spec: SpecFile) -> list[Diagnostic]:
    """An overlay names a tool of the spec that publishes no ``outputSchema`` of its own."""
    tools = {t.name: t for t in spec.tools}
    out = []
    for name in sorted(spec.overlays):
        ptr = join_pointer("/overlays", name)
        if name not in tools:
            close = difflib.get_close_matches(name, list(tools), 1)
            out.append(doc.diag("E011", f"overlay for {name!r}, which is not a tool of this spec", ptr,
                                hint=f"did you mean {close[0]!r}?" if close else "name a tool listed under `tools`"))
        elif "outputSchema" in tools[name].wire:
            out.append(doc.diag("E010", f"tool {name!r} has its own outputSchema: an overlay only types a tool "
                                "whose server publishes none", ptr, hint="remove the overlay (or the tool's outputSchema)"))
    return out
