"""``python -m codegen`` = ``mcp-codegen``."""

from .cli import main

main()
