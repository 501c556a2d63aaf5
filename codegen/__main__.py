"""``python -m codegen`` = ``mcp-codegen``."""

from .commands.cli.entry import main

main()
