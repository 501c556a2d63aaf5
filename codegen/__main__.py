"""``python -m codegen`` = ``mcp-codegen``."""

from .commands.entry import main

main()
