"""mcp-codegen: typed MCP servers and clients generated from declarative tool specs.

Public API::

    from codegen import generate, build, check
    result = generate([Path("specs")])       # in memory: result.files, result.diagnostics
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .diagnostics import CodegenError, Diagnostic, Level

if TYPE_CHECKING:
    from .api import Result, build, check, generate
    from .render.files import GeneratedFile

_LAZY = {"Result": "api", "build": "api", "check": "api", "generate": "api", "GeneratedFile": "render.files"}


def __getattr__(name: str) -> Any:
    """Import the API on first use (keeps ``mcp-codegen`` start-up, and no-op builds, fast)."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["CodegenError", "Diagnostic", "GeneratedFile", "Level", "Result", "__version__", "build", "check", "generate"]
