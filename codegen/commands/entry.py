"""The ``mcp-codegen`` program's entry point: a plain ``pull --stdio CMD`` starts its server
before the command line is even imported (``pull_spawn.py``), then the command line runs."""

from __future__ import annotations

import sys


def main() -> None:
    """Run ``mcp-codegen`` (``codegen/commands/cli.py``)."""
    from .pull_spawn import start_early

    start_early(sys.argv[1:])
    from .cli import main as cli_main

    cli_main()
