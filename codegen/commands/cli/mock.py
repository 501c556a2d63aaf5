"""CLI commands for testing without the real counterpart: ``mock`` and ``proxy`` (``check --cassette``
is an option of ``check``, in main.py).  Thin: each calls :mod:`codegen.commands.mock`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console

from ...diagnostics import Diagnostic


def register(app: typer.Typer, out: Console, err: Console,
             print_diagnostics: Callable[[list[Diagnostic], Path], Any]) -> None:
    """Add the ``mock`` and ``proxy`` commands to ``app``."""

    @app.command("mock")
    def mock_cmd(
        spec: Annotated[Path, typer.Argument(help="The spec file of the server to mock.", show_default=False)],
        stdio: Annotated[bool, typer.Option("--stdio", help="Serve over stdin/stdout (the default).")] = False,
        http: Annotated[bool, typer.Option("--http", help="Serve Streamable HTTP on 127.0.0.1 (--port).")] = False,
        port: Annotated[int, typer.Option("--port", help="HTTP port on 127.0.0.1.")] = 8000,
        seed: Annotated[int, typer.Option("--seed", help="Draw of the generated values: the same seed and call give the same answer.")] = 0,
        scenario: Annotated[Optional[Path], typer.Option("--scenario", help="YAML/JSON rules choosing errors, delays, failures or fixed results per call (docs/testing.md).", show_default=False)] = None,
        replay: Annotated[Optional[Path], typer.Option("--replay", help="Answer from this cassette (recorded by mcp-codegen proxy --record); unrecorded calls are refused naming the nearest recorded one.", show_default=False)] = None,
    ) -> None:
        """Serve SPEC with no implementation: arguments validated as the generated server does, results generated from the output schemas (examples first), or replayed from a cassette."""
        from ..mock.serve import MockOptions, prepare, serve

        if stdio and http:
            err.print("error: --stdio and --http exclude each other; see mcp-codegen mock --help", style="red", markup=False)
            raise typer.Exit(2)
        if not spec.is_file():
            err.print(f"error: {spec}: no such spec file; see mcp-codegen mock --help", style="red", markup=False)
            raise typer.Exit(2)
        options = MockOptions(spec, http=http, port=port, seed=seed, scenario=scenario, replay=replay)
        server, diagnostics = prepare(options)
        if diagnostics:
            print_diagnostics(diagnostics, spec)
        if server is None:
            err.print("mock failed: nothing is served", style="red", markup=False)
            raise typer.Exit(1)
        serve(server, options)

    @app.command("proxy", context_settings={"allow_interspersed_args": False})
    def proxy_cmd(
        record: Annotated[Path, typer.Option("--record", help="Cassette file to write (JSON lines; replaced).", show_default=False)],
        command: Annotated[Optional[list[str]], typer.Argument(help="-- COMMAND...: the real server, spawned (stdio).", show_default=False)] = None,
        upstream: Annotated[Optional[str], typer.Option("--upstream", help="URL of a real Streamable HTTP server (instead of COMMAND).", show_default=False)] = None,
        port: Annotated[int, typer.Option("--port", help="--upstream: the proxy's port on 127.0.0.1 (clients connect to http://127.0.0.1:PORT/mcp).")] = 8000,
        spec: Annotated[Optional[Path], typer.Option("--spec", help="The server's spec: the values of the environment variables it names for credentials (upstream.security[*].env) are redacted too.", show_default=False)] = None,
        redact_env: Annotated[Optional[list[str]], typer.Option("--redact-env", help="An environment variable whose value must never be written (repeatable).", show_default=False)] = None,
    ) -> None:
        """Sit between a client and a real server and record every exchange to a cassette (secrets redacted)."""
        from ..mock.cassette import Scrubber, spec_secret_envs

        if bool(command) == bool(upstream):
            err.print("error: give either -- COMMAND... (stdio) or --upstream URL (HTTP); see mcp-codegen proxy --help",
                      style="red", markup=False)
            raise typer.Exit(2)
        scrubber = Scrubber([*spec_secret_envs(spec), *(redact_env or [])])
        if upstream:
            from ..mock.proxy_http import run_http_proxy

            raise typer.Exit(run_http_proxy(upstream, port, record, scrubber))
        from ..mock.proxy_stdio import run_stdio_proxy

        raise typer.Exit(run_stdio_proxy(list(command or []), record, scrubber))


def check_cassette_cmd(cassette: Path, specs: list[Path] | None, fmt: str, out: Console, err: Console,
                       print_diagnostics: Callable[[list[Diagnostic], Path], Any]) -> None:
    """``check --cassette FILE SPEC``: exit 1 when recorded calls no longer fit the spec."""
    from ..diff.report import RENDERERS, render_table
    from ..mock.drift import check_cassette

    if not specs or len(specs) != 1 or not specs[0].is_file():
        err.print("error: check --cassette FILE takes one spec file; see mcp-codegen check --help", style="red", markup=False)
        raise typer.Exit(2)
    result = check_cassette(cassette, specs[0])
    if result.diagnostics:
        print_diagnostics(result.diagnostics, specs[0])
    if not result.loaded:
        err.print("check failed: the cassette or the spec could not be read", style="red", markup=False)
        raise typer.Exit(2)
    if fmt == "table":
        render_table(result, out)
    else:
        out.print(RENDERERS[fmt](result), markup=False, end="", soft_wrap=True, highlight=False)
    if not result.ok:
        raise typer.Exit(1)
