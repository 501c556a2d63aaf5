"""The ``mcp-codegen`` typer application itself: its settings, ``--version`` and the process
set-up every command runs under.  ``main.py`` adds every command to it; a plain ``pull --stdio``
(``entry.py``) adds only ``pull``, so that it does not import the build API first."""

# (no ``from __future__ import annotations``: typer reads the callback's annotations, which
# name a function local to :func:`new_app`)

import sys
from typing import Annotated

import typer
from rich.console import Console

from ..._version import __version__

#: Imported by ``jsonschema`` when installed (the ``format-nongpl`` extra), only for its
#: format checks: ``rfc3987_syntax`` (``iri``/``iri-reference``) builds 38 parser grammars on
#: import, about 2 s of CPU for every generator process; ``isoduration`` (``duration``, which
#: pulls in arrow and dateutil) and the others cost about 0.1 s together.  The generator
#: never checks formats (the runtime's ``format_checker`` is for generated packages, which run
#: in their own process), so the CLI process does without them.  (``idna`` stays: httpx needs it.)
_UNUSED_IMPORTS = ("rfc3987_syntax", "isoduration", "rfc3986_validator", "rfc3339_validator", "webcolors",
                   "uri_template", "jsonpointer", "fqdn")


def new_app(out_console: Console) -> typer.Typer:
    """The application with no command yet; ``--version`` prints on ``out_console``."""
    app = typer.Typer(
        name="mcp-codegen",
        help="Generate typed MCP servers and clients from declarative tool specs.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # plain help: wraps at any width instead of truncating option names
    )

    def show_version(value: bool) -> None:
        if value:
            out_console.print(f"mcp-codegen {__version__}", markup=False)
            raise typer.Exit()

    @app.callback()
    def _global_options(
        version: Annotated[bool, typer.Option("--version", "-V", help="Print the version and exit.",
                                              callback=show_version, is_eager=True)] = False,
    ) -> None:
        """Generate typed MCP servers and clients from declarative tool specs."""

    return app


def run(app: typer.Typer) -> None:
    """Run ``app`` on the process's arguments, after the set-up every command expects."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    if "jsonschema" not in sys.modules:
        for name in _UNUSED_IMPORTS:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]  # "import name" raises ImportError
    app()


def pull_main() -> None:
    """``mcp-codegen pull ...`` with the ``pull`` command alone (a plain ``pull --stdio``)."""
    from .. import report
    from .pull import register

    out_console, err_console = report.consoles()
    app = new_app(out_console)
    register(app, out_console, err_console,
             lambda result: report.print_diagnostics(err_console, result.diagnostics, len(result.specs), None))
    run(app)
