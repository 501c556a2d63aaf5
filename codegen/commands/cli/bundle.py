"""``mcp-codegen bundle``: an MCP Bundle (``.mcpb``) of one spec's server (the command's options and
its output; the work is :mod:`codegen.commands.bundle`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console

from ...driver.pipeline import Result


def register(app: typer.Typer, out_console: Console, err_console: Console,
             print_diagnostics: Callable[[Result, list[Path]], Any]) -> None:
    """Add the ``bundle`` command to ``app``."""

    @app.command("bundle")
    def bundle_cmd(
        spec: Annotated[Path, typer.Argument(help="The spec file of the server.", show_default=False)],
        output: Annotated[Path, typer.Option("-o", "--output", help="Folder to write <name>-<version>.mcpb into (created if missing).")],
        author: Annotated[Optional[str], typer.Option("--author", help="The manifest's author: 'Name', 'Name <email>' or 'Name <email> (url)' (default: the owner of a GitHub repository in server.registry.repository).", show_default=False)] = None,
        icon: Annotated[Optional[Path], typer.Option("--icon", help="PNG icon the host shows (default: the spec's first icon that is a PNG file beside the spec or a data: URI; a registry section takes https icons only, so give the bundle's here).", show_default=False)] = None,
        impl_dir: Annotated[Optional[Path], typer.Option("--impl-dir", help="Folder holding the implementation module (server.implementation, else build --scaffold's <package>_impl.py); default: the spec's folder.", show_default=False)] = None,
        python: Annotated[Optional[str], typer.Option("--python", help="The interpreter whose version and platform the bundle is for: it installs the dependencies (pip) and sets compatibility (default: the one running mcp-codegen).", show_default=False)] = None,
        pip_cache: Annotated[Optional[Path], typer.Option("--pip-cache", help="pip's download cache (default: pip's own).", show_default=False)] = None,
        constraints: Annotated[Optional[Path], typer.Option("--constraints", help="pip constraints file pinning the vendored dependencies' versions.", show_default=False)] = None,
    ) -> None:
        """Write an MCP Bundle of SPEC's server for desktop hosts (manifest 0.3, server type python).

        The bundle holds the generated package (server side, private runtime), the implementation
        module and every dependency, installed into server/lib by pip with --python; the host runs
        python server/main.py --stdio with PYTHONPATH=server/lib and the spec's environment
        variables from user_config.  Dependencies with native code (pydantic-core) make the bundle
        specific to the platform, machine architecture and Python minor version it was built with:
        the manifest's compatibility states the platform and the Python range (a manifest cannot
        state the architecture), so build one bundle per platform and architecture, each on a
        machine of its kind.  Same inputs, same bytes."""
        from ..bundle.make import BundleOptions, bundle

        if not spec.is_file():
            found = sorted(p.name for p in spec.glob("*.y*ml")) + sorted(p.name for p in spec.glob("*.json")) \
                if spec.is_dir() else []
            why = (f"a folder; a bundle holds one server: name its spec file ({', '.join(found[:5])})" if found
                   else "a folder, not a spec file") if spec.is_dir() else "no such spec file"
            err_console.print(f"error: {spec}: {why}; see mcp-codegen bundle --help", style="red", markup=False)
            raise typer.Exit(2)
        options = BundleOptions(author=author, icon=icon, impl_dir=impl_dir, python=python or sys.executable, pip_cache=pip_cache,
                                constraints=constraints)
        result = bundle(spec, output, options, lambda line: err_console.print(f"  {line}", style="dim", markup=False))
        print_diagnostics(Result(diagnostics=result.diagnostics, specs=[str(spec)]), [spec])
        if result.path is None:
            err_console.print("bundle failed: nothing was written", style="red", markup=False)
            raise typer.Exit(1)
        manifest = result.manifest or {}
        platforms = manifest.get("compatibility", {}).get("platforms")
        python_range = manifest.get("compatibility", {}).get("runtimes", {}).get("python")
        where = f"{', '.join(platforms)} only, " if platforms else ""
        out_console.print(f"wrote {result.path} ({result.entries} files; runs on {where}Python {python_range})",
                          markup=False)
