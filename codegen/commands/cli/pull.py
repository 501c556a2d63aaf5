"""``mcp-codegen pull``: a spec from a live server's tools/list (the command's options and its output)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console

from ...driver.pipeline import Result


class LayoutOption(str, Enum):
    spec = "spec"
    agent = "agent"


class SkillOption(str, Enum):
    server = "server"
    tree = "tree"


class EraOption(str, Enum):
    auto = "auto"
    modern = "modern"
    legacy = "legacy"


def _pairs(items: list[str], what: str, sep: str, err: Console) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(sep)
        if not found or not key.strip():
            err.print(f"error: {what} {item!r} is not KEY{sep}VALUE", style="red", markup=False)
            raise typer.Exit(2)
        out[key.strip()] = value.strip() if sep == ":" else value
    return out


def register(app: typer.Typer, out_console: Console, err_console: Console,
             print_diagnostics: Callable[[Result], Any]) -> None:
    """Add the ``pull`` command to ``app``."""

    @app.command("pull")
    def pull_cmd(
        output: Annotated[Path, typer.Option("-o", "--output", help="Spec file to write, e.g. specs/NAME.yaml ('-' prints it); with --layout agent, the output folder DIR.")],
        stdio: Annotated[Optional[str], typer.Option("--stdio", help='Server command line, e.g. "npx -y @modelcontextprotocol/server-everything".')] = None,
        http: Annotated[Optional[str], typer.Option("--http", help="URL of a Streamable HTTP server.")] = None,
        name: Annotated[Optional[str], typer.Option("--name", help="Python name of the pulled package (package NAME in snake_case, classes in PascalCase); serverInfo.name stays as the server reports it. Default: derived from serverInfo.name (see the README).")] = None,
        era: Annotated[EraOption, typer.Option("--era", help="auto: probe 2026-07-28, fall back to initialize.")] = EraOption.auto,
        force: Annotated[bool, typer.Option("--force", help="Replace an existing output file.")] = False,
        cwd: Annotated[Optional[Path], typer.Option("--cwd", help="Working directory of the --stdio server.")] = None,
        env: Annotated[Optional[list[str]], typer.Option("--env", help="KEY=VALUE for the --stdio server (repeatable).")] = None,
        header: Annotated[Optional[list[str]], typer.Option("--header", help="'Name: value' HTTP header for --http (repeatable).")] = None,
        timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for the server.")] = 30.0,
        check: Annotated[bool, typer.Option("--check", help="Also build the pulled spec (in a temporary folder) and report what build will say.")] = False,
        no_check: Annotated[bool, typer.Option("--no-check", hidden=True, help="The default since 2026-12 (kept for scripts).")] = False,
        oauth: Annotated[bool, typer.Option("--oauth", help="Log in with OAuth in the browser when the --http server asks (needs authlib).")] = False,
        oauth_client_id: Annotated[Optional[str], typer.Option("--oauth-client-id", help="Pre-registered OAuth client id (secret: $MCP_CODEGEN_OAUTH_CLIENT_SECRET); default: dynamic registration.")] = None,
        oauth_token_file: Annotated[Optional[Path], typer.Option("--oauth-token-file", help="Keep OAuth tokens in this file (mode 0600) instead of memory.")] = None,
        layout: Annotated[LayoutOption, typer.Option("--layout", help="spec: write the spec file -o names; agent: pull into the agent tree of the folder DIR (-o) in one step: the spec kept as DIR/specs/<package>.yaml, the typed package and DIR/servers/<server>/ built (other servers there kept), the connection written to DIR/servers/mcp.json with environment variable names only (see docs/agents.md).")] = LayoutOption.spec,
        skill: Annotated[Optional[SkillOption], typer.Option("--skill", help="With --layout agent: also write an Agent Skills folder, one per server (server) or one for the whole tree (tree).", show_default=False)] = None,
    ) -> None:
        """Write a spec from a live server's tools/list (then `mcp-codegen build` gives a typed client)."""
        from ..pull import flow as pull_mod

        if (stdio is None) == (http is None):
            err_console.print("error: give exactly one of --stdio COMMAND or --http URL", style="red", markup=False)
            raise typer.Exit(2)
        try:
            if stdio is not None:
                client = pull_mod.stdio_client(shlex.split(stdio), era=era.value, cwd=cwd, env=_pairs(env or [], "--env", "=", err_console), timeout=timeout)
            else:
                auth = None
                if oauth or oauth_client_id or oauth_token_file:
                    secret = os.environ.get("MCP_CODEGEN_OAUTH_CLIENT_SECRET") or None
                    auth = pull_mod.oauth_settings(client_id=oauth_client_id, client_secret=secret, token_file=oauth_token_file)
                client = pull_mod.http_client(str(http), era=era.value, headers=_pairs(header or [], "--header", ":", err_console), timeout=timeout, auth=auth)
        except (ValueError, pull_mod.PullError) as exc:
            err_console.print(f"error: {exc}", style="red", markup=False)
            raise typer.Exit(2) from None
        if layout is LayoutOption.agent:
            raise typer.Exit(_pull_agent(client, output, stdio, http, env or [], header or [], name, force, skill, timeout,
                                         cwd, out_console, err_console, print_diagnostics))
        to_stdout = str(output) == "-"
        result, diags = pull_mod.pull(client, None if to_stdout else output, name=name, force=force, build=check and not no_check, timeout=timeout * 2)
        print_diagnostics(Result(diagnostics=diags, specs=[str(output)]))
        if result is None:
            raise typer.Exit(1)
        for note in result.listing_notes:
            err_console.print(f"note: {note}", markup=False)
        if to_stdout:
            out_console.print(result.text, markup=False, end="")
        if any(d.is_error for d in diags):
            err_console.print(f"{'the pulled spec' if to_stdout else output} does not build; fix the errors above", style="red", markup=False)
            raise typer.Exit(1)
        if not to_stdout:
            tools = len(result.data["tools"])
            package, client = _package_of(result.data)
            out_console.print(f"wrote {output} ({tools} tool(s)) for the package {package} (`from {package} import "
                              f"{client}`); next: mcp-codegen build {output} -o generated", markup=False)


def _package_of(data: dict[str, Any]) -> tuple[str, str]:
    """The package and client class names a pulled spec builds (the naming service's)."""
    from ...ir.naming.core import class_stem, package_name, server_names, unshadowed_package

    server = data.get("server") or {}
    package = unshadowed_package(package_name(str(server.get("name", "")), server.get("package")))
    return package, server_names(package, class_stem(str(server.get("name", "")), server.get("class_name")))["client_class"]


def _pull_agent(client: Any, output: Path, stdio: str | None, http: str | None, env: list[str], header: list[str],
                name: str | None, force: bool, skill: SkillOption | None, timeout: float, cwd: Path | None,
                out: Console, err: Console, print_diagnostics: Callable[[Result], Any]) -> int:
    """``pull --layout agent``: the exit status (0, or 1 when nothing or a broken tree was built)."""
    from ..pull.agent import http_entry, pull_into, stdio_entry

    if str(output) == "-":
        err.print("error: --layout agent writes a folder; -o - (print the spec) is for the spec layout", style="red", markup=False)
        return 2
    if stdio is not None:
        env_pairs = _pairs(env, "--env", "=", err)
        command = shlex.split(stdio)

        def entry(server: str) -> tuple[dict[str, Any], list[str]]:
            return stdio_entry(command, env_pairs, cwd)
    else:
        headers = _pairs(header, "--header", ":", err)

        def entry(server: str) -> tuple[dict[str, Any], list[str]]:
            return http_entry(str(http), headers, server)
    done = pull_into(client, output, entry, name=name, force=force, skill=skill.value if skill else None,
                     timeout=timeout * 2)
    print_diagnostics(Result(diagnostics=done.diagnostics, specs=[str(done.spec or output)]))
    if done.result is None or any(d.is_error for d in done.diagnostics):
        err.print("pull failed: " + ("nothing was written" if done.result is None else
                                     f"{done.spec} was written but does not build; fix the errors above"),
                  style="red", markup=False)
        return 1
    for note in done.result.listing_notes:
        err.print(f"note: {note}", markup=False)
    tools = len(done.result.data["tools"])
    out.print(f"pulled {done.server} ({tools} tool(s)) into {output}: spec {done.spec}, functions in "
              f"{output / 'servers' / done.server}/, connection in {output / 'servers' / 'mcp.json'}", markup=False)
    if done.env_names:
        out.print("set these environment variables before calling the functions (mcp.json names them, never their values): "
                  + ", ".join(done.env_names), markup=False)
    return 0
