"""Whether a server's schema-checked tools can be checked: a server refuses to start without
``jsonschema`` rather than start healthy and refuse every call of those tools."""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from ..wire.tools import ToolDef

INSTALL = "pip install jsonschema"


def missing_schema_checker(tools: Iterable[ToolDef]) -> str | None:
    """One line saying which tools need ``jsonschema`` and how to install it, when it is not
    importable; None when no tool needs it or it is there."""
    names = [t.name for t in tools if t.schema_checked]
    if not names:
        return None
    try:
        importlib.import_module("jsonschema")
        importlib.import_module("referencing")
    except ImportError:
        which = f"tool {names[0]!r} needs" if len(names) == 1 else f"tools {', '.join(map(repr, names))} need"
        return (f"{which} the 'jsonschema' package to check arguments against the original schema, "
                f"and it is not installed: {INSTALL}")
    return None
