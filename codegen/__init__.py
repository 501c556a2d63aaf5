"""mcp-codegen: typed MCP servers and clients generated from declarative tool specs.

Public API::

    from codegen import generate, build, check
    result = generate([Path("specs")])       # in memory: result.files, result.diagnostics
"""

from __future__ import annotations

from .api import Result, build, check, generate
from .diagnostics import CodegenError, Diagnostic, Level
from .render import GeneratedFile

__version__ = "0.1.0"

__all__ = ["CodegenError", "Diagnostic", "GeneratedFile", "Level", "Result", "__version__", "build", "check", "generate"]
