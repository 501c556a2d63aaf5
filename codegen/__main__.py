"""``python -m codegen`` = ``mcp-codegen``."""

from .commands.cli import main

main()
