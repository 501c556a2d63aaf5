"""``mcp-codegen openapi``: a spec from an OpenAPI 3.0/3.1 or Swagger 2.0 document (the command's
options and its output; the conversion is :mod:`codegen.commands.openapi`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console

from ...driver.pipeline import Result


def register(app: typer.Typer, out_console: Console, err_console: Console,
             print_diagnostics: Callable[[Result], Any]) -> None:
    """Add the ``openapi`` command to ``app``."""

    @app.command("openapi")
    def openapi_cmd(
        source: Annotated[Path, typer.Argument(help="The OpenAPI 3.0/3.1 or Swagger 2.0 document (YAML or JSON; $refs into local files).")],
        output: Annotated[Path, typer.Option("-o", "--output", help="Spec file to write, e.g. specs/NAME.yaml ('-' prints it). An existing converted spec keeps its `openapi` curation section.")],
        name: Annotated[Optional[str], typer.Option("--name", help="server.name (default: the output file's stem); also the prefix of the environment variables (NAME_API_KEY ...).")] = None,
        base_url: Annotated[Optional[str], typer.Option("--base-url", help="The upstream's base URL, replacing the document's servers (needed when the document's server URL is relative).")] = None,
        overlay: Annotated[Optional[Path], typer.Option("--overlay", help="YAML/JSON file with an `openapi` curation section (include, exclude, tools); wins over the output's section key by key.")] = None,
        force: Annotated[bool, typer.Option("--force", help="Replace an output file that is not a spec converted by this command.")] = False,
    ) -> None:
        """Write a spec from an OpenAPI document: one tool per operation, calling the REST API (then `mcp-codegen build`)."""
        from ..openapi.convert import convert, write

        to_stdout = str(output) == "-"
        result = convert(source, None if to_stdout else output, name=name, base_url=base_url, overlay=overlay, force=force)
        diags = list(result.diagnostics)
        if result.ok and not to_stdout:
            diags += write(result, output)
        print_diagnostics(Result(diagnostics=diags, specs=[str(source)]))
        if not result.ok or any(d.is_error for d in diags):
            err_console.print(f"{source}: not converted; fix the errors above", style="red", markup=False)
            raise typer.Exit(1)
        assert result.text is not None
        if to_stdout:
            out_console.print(result.text, markup=False, end="", soft_wrap=True)
            return
        out_console.print(f"wrote {output} ({len(result.tools)} tool(s) from {source}); next: "
                          f"mcp-codegen build {output} -o generated", markup=False)
