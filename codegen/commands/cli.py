"""The ``mcp-codegen`` command line (typer).  Thin: every command calls the API in api.py."""

from __future__ import annotations

import logging
import os
import shlex
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from .._version import __version__
from ..api import Result, build, check, generate
from ..api import scaffold as scaffold_stubs
from ..diagnostics import Level, relocate
from ..options import Options
from ..spec.discovery import discover
from .cli_sync import register as register_sync_commands
from .cli_sync import run_watch
from .config import resolve
from .starter import SCHEMA_COPY, spec_format_schema, starter_spec

app = typer.Typer(
    name="mcp-codegen",
    help="Generate typed MCP servers and clients from declarative tool specs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: wraps at any width instead of truncating option names
)
out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)
register_sync_commands(app, out_console, err_console)  # diff, docs (codegen/commands/cli_sync.py)


class Target(str, Enum):
    server = "server"
    client = "client"
    both = "both"


def _show_version(value: bool) -> None:
    if value:
        out_console.print(f"mcp-codegen {__version__}", markup=False)
        raise typer.Exit()


@app.callback()
def _global_options(
    version: Annotated[bool, typer.Option("--version", "-V", help="Print the version and exit.", callback=_show_version,
                                          is_eager=True)] = False,
) -> None:
    """Generate typed MCP servers and clients from declarative tool specs."""

SpecsArg = Annotated[Optional[list[Path]], typer.Argument(help="Spec files or folders (default: the specs setting of [tool.mcp-codegen] in pyproject.toml).", show_default=False)]
VerboseOpt = Annotated[bool, typer.Option("-v", "--verbose", help="Also print what the build decided: cache hits, up-to-date checks, timings, the options in effect.")]
TargetOpt = Annotated[Optional[Target], typer.Option("--target", help="Generate the server side, the client side or both (default: each spec's server.target, else both). The runtime copy holds only what the target needs.", show_default=False)]
SharedOpt = Annotated[Optional[bool], typer.Option("--shared-runtime/--private-runtime", help="Write the runtime once as OUT/mcp_codegen_runtime (shared by every package there: one exception hierarchy), or a private _runtime copy per package (default: shared-runtime of [tool.mcp-codegen], else private).", show_default=False)]
OutOpt = Annotated[Optional[Path], typer.Option("-o", "--output", help="Output folder (default: the output setting of [tool.mcp-codegen] in pyproject.toml).")]


def _print_diagnostics(result: Result, paths: list[Path] | None = None) -> None:
    """Print the diagnostics, located relative to the working directory when ``paths`` (the
    spec paths given) say where the spec folders are."""
    diags = result.diagnostics
    if paths:
        diags = relocate(diags, discover(paths)[0], Path.cwd())
    for d in diags:
        style = "red" if d.level is Level.ERROR else "yellow"
        err_console.print(d.render(), style=style, markup=False)
    errors = sum(d.level is Level.ERROR for d in result.diagnostics)
    warnings = len(result.diagnostics) - errors
    if result.diagnostics:
        err_console.print(f"{errors} error(s), {warnings} warning(s) in {len(result.specs)} spec(s)", markup=False)


def _config(specs: list[Path] | None, output: Path | None, need_output: bool = True, target: Target | None = None,
            shared_runtime: bool | None = None) -> tuple[list[Path], Path, Options]:
    cfg, error = resolve(specs, output if need_output else output or Path("."), Path.cwd(),
                         target=target.value if target else None, shared_runtime=shared_runtime)
    if cfg is None:
        err_console.print(f"error: {error}", style="red", markup=False)
        raise typer.Exit(2)
    return list(cfg.specs), cfg.output, cfg.options


class _ToStderr(logging.Handler):
    """Writes to whatever ``sys.stderr`` is when a record comes (not when the handler was made)."""

    def emit(self, record: logging.LogRecord) -> None:
        err_console.print(f"  {record.getMessage()}", style="dim", markup=False)


def _verbose(on: bool) -> None:
    """``--verbose``: the build's decisions (cache hits, stamps, timings, options) on stderr."""
    log = logging.getLogger("mcp_codegen.build")
    for handler in [h for h in log.handlers if isinstance(h, _ToStderr)]:
        log.removeHandler(handler)
    log.setLevel(logging.INFO if on else logging.NOTSET)
    if on:
        log.addHandler(_ToStderr())


def _progress(total_hint: int) -> object:
    def report(name: str) -> None:
        err_console.print(f"  generating {name}", style="dim", markup=False)
    return report


@app.command("build")
def build_cmd(specs: SpecsArg = None, output: OutOpt = None, quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Print only diagnostics and failures (no progress, no file list).")] = False,
              verbose: VerboseOpt = False,
              watch: Annotated[bool, typer.Option("--watch", help="Keep running; rebuild the specs that change (Ctrl-C stops).")] = False,
              interval: Annotated[float, typer.Option("--interval", help="--watch: seconds between polls.", min=0.05)] = 0.5,
              scaffold: Annotated[bool, typer.Option("--scaffold", help="Also write OUT/<package>_impl.py, a handler class with one stub per tool, if it does not exist (it is yours from then on).")] = False,
              target: TargetOpt = None, shared_runtime: SharedOpt = None) -> None:
    """Generate the packages of SPECS into the output folder (atomic; hand-written files untouched)."""
    _verbose(verbose)
    paths, out, options = _config(specs, output, target=target, shared_runtime=shared_runtime)
    if watch:
        raise typer.Exit(run_watch(paths, out, interval, quiet, out_console, err_console, options))
    result, report = build(paths, out, None if quiet else _progress(0), load_files=False,  # type: ignore[arg-type]
                           waiting=lambda message: err_console.print(message, style="yellow", markup=False),
                           options=options)
    _print_diagnostics(result, paths)
    if report is None:
        err_console.print("build failed: nothing was written", style="red", markup=False)
        raise typer.Exit(1)
    if scaffold:
        written, kept, _ = scaffold_stubs(paths, out)
        for path in written:
            out_console.print(f"  wrote    {path} (yours from now on; fill in the handlers)", markup=False)
        for path in kept:
            out_console.print(f"  kept     {path} (exists; never overwritten)", markup=False)
    if not quiet:
        for label, items, style in (("created", report.created, "green"), ("updated", report.updated, "yellow"), ("deleted", report.deleted, "red")):
            for item in items:
                out_console.print(f"  {label:8} {item}", style=style, markup=False)
        out_console.print(
            f"{len(result.specs)} spec(s) -> {out}: {len(report.created)} created, {len(report.updated)} updated, "
            f"{len(report.deleted)} deleted, {len(report.unchanged)} unchanged", markup=False)


@app.command("check")
def check_cmd(specs: SpecsArg = None, output: OutOpt = None, target: TargetOpt = None,
              shared_runtime: SharedOpt = None, verbose: VerboseOpt = False) -> None:
    """Exit 0 when the output folder matches what build would write; else print a diff and exit 1."""
    _verbose(verbose)
    paths, out, options = _config(specs, output, target=target, shared_runtime=shared_runtime)
    result, diffs = check(paths, out, options)
    _print_diagnostics(result, paths)
    if not result.ok:
        raise typer.Exit(1)
    if diffs:
        for d in diffs:
            out_console.print(d, markup=False, end="")
        err_console.print(f"{len(diffs)} file(s) out of date in {out}; run `mcp-codegen build` to regenerate", style="red", markup=False)
        from ..render.lockfile import version_drift

        for note in version_drift(out, sorted({f.path.split("/", 1)[0] for f in result.files})):
            err_console.print(f"note: {note} (see mcp-codegen.lock)", style="yellow", markup=False)
        raise typer.Exit(1)
    out_console.print(f"{out} is up to date ({len(result.files)} files from {len(result.specs)} spec(s))", markup=False)


@app.command("validate")
def validate_cmd(specs: SpecsArg = None, strict: Annotated[bool, typer.Option("--strict", help="Also fail on warnings.")] = False,
                 impl: Annotated[Optional[str], typer.Option("--impl", help="Also check this implementation (module:Class, importable from the working directory or the output folder) against the spec: every tool implemented, handlers taking (args, ctx). One server only.")] = None,
                 output: OutOpt = None) -> None:
    """Validate SPECS without writing anything (exit 1 on errors; with --strict also on warnings)."""
    paths, out, options = _config(specs, output, need_output=False)
    result = generate(paths, options=options)
    _print_diagnostics(result, paths)
    if not result.ok or (strict and result.diagnostics):
        raise typer.Exit(1)
    out_console.print(f"{len(result.specs)} spec(s) valid", markup=False)
    if impl is not None:
        raise typer.Exit(_check_implementation(result, impl, out))


def _check_implementation(result: Result, impl: str, out: Path) -> int:
    """Run the generated package's own ``--check`` on ``impl``, with the package built in a
    temporary folder (so the check sees exactly this spec, whatever the output folder holds);
    the implementation is imported from the working directory or the output folder."""
    import subprocess
    import tempfile

    from ..output.emit import MANIFEST

    packages = sorted({f.path.split("/", 1)[0] for f in result.files if f.path.endswith("/" + MANIFEST)} - {"mcp_codegen_runtime"})
    if len(packages) != 1:
        err_console.print(f"error: --impl needs exactly one server; these specs make {len(packages)}", style="red", markup=False)
        return 2
    if not any(f.path == f"{packages[0]}/__main__.py" for f in result.files):
        err_console.print("error: --impl checks a server implementation, but this spec's target is client "
                          "(set server.target: both in the spec, or target = \"both\" in [tool.mcp-codegen])", style="red", markup=False)
        return 2
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-validate-") as tmp:
        for f in result.files:
            target = Path(tmp) / f.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f.content, encoding="utf-8")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([tmp, str(Path.cwd()), str(out.resolve()), env.get("PYTHONPATH", "")])
        proc = subprocess.run([sys.executable, "-m", packages[0], "--check", "--impl", impl], env=env,
                              capture_output=True, text=True, timeout=300)
    lines = proc.stderr.replace(tmp, "<built>").strip().splitlines()
    shown = lines[-1:] if proc.returncode == 2 else lines  # a usage error: only its message
    for line in shown:
        err_console.print(line.removeprefix(f"{packages[0]}: error: "), style="red" if proc.returncode else None, markup=False)
    return 0 if proc.returncode == 0 else 1


@app.command("init")
def init_cmd(name: Annotated[str, typer.Argument(help="Server name, e.g. notes.")], directory: Annotated[Path, typer.Option("-d", "--dir", help="Folder for the spec.")] = Path("specs")) -> None:
    """Write a starter spec NAME.yaml (never overwrites an existing file)."""
    text, error = starter_spec(name)
    if error:
        err_console.print(f"error: {error}", style="red", markup=False)
        raise typer.Exit(2)
    target = directory / f"{name}.yaml"
    if target.exists():
        err_console.print(f"error: {target} already exists; not overwriting it", style="red", markup=False)
        raise typer.Exit(1)
    directory.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    schema = directory / SCHEMA_COPY
    if not schema.exists():  # what the spec's yaml-language-server line points editors to
        schema.parent.mkdir(parents=True, exist_ok=True)
        schema.write_text(spec_format_schema(), encoding="utf-8")
    cfg, _ = resolve([target], None, Path.cwd())
    out = cfg.output if cfg is not None else Path("generated")
    out_console.print(f"wrote {target} (and {schema} for editors); next: mcp-codegen build {target} -o {out}",
                      markup=False)


@app.command("dev")
def dev_cmd(spec: Annotated[Path, typer.Argument(help="The spec file of the server.", show_default=False)],
            output: OutOpt = None,
            port: Annotated[int, typer.Option("--port", help="HTTP port on 127.0.0.1.")] = 8000,
            impl: Annotated[Optional[str], typer.Option("--impl", help="module:Class of the handlers (default: server.implementation, else the <package>_impl stub, written if missing).")] = None,
            interval: Annotated[float, typer.Option("--interval", help="Seconds between polls.", min=0.05)] = 0.5) -> None:
    """Build SPEC, serve it over HTTP, restart on spec or implementation changes (Ctrl-C stops)."""
    from .dev import DevLoop

    _, out, options = _config([spec], output)
    loop = DevLoop(spec, out, port, impl, lambda line: out_console.print(line, markup=False),
                   lambda diags: _print_diagnostics(Result(diagnostics=diags, specs=[str(spec)]), [spec]), options)
    raise typer.Exit(loop.run(interval))


@app.command("schema")
def schema_cmd(output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Write it to this file instead of printing it.")] = None) -> None:
    """Print the JSON Schema of the spec format (for editors and CI validation of spec files)."""
    text = spec_format_schema()
    if output is None:
        sys.stdout.write(text)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    out_console.print(f"wrote {output}", markup=False)


class EraOption(str, Enum):
    auto = "auto"
    modern = "modern"
    legacy = "legacy"


def _pairs(items: list[str], what: str, sep: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(sep)
        if not found or not key.strip():
            err_console.print(f"error: {what} {item!r} is not KEY{sep}VALUE", style="red", markup=False)
            raise typer.Exit(2)
        out[key.strip()] = value.strip() if sep == ":" else value
    return out


@app.command("pull")
def pull_cmd(
    output: Annotated[Path, typer.Option("-o", "--output", help="Spec file to write, e.g. specs/NAME.yaml ('-' prints it).")],
    stdio: Annotated[Optional[str], typer.Option("--stdio", help='Server command line, e.g. "npx -y @modelcontextprotocol/server-everything".')] = None,
    http: Annotated[Optional[str], typer.Option("--http", help="URL of a Streamable HTTP server.")] = None,
    name: Annotated[Optional[str], typer.Option("--name", help="Python name of the pulled package (package NAME in snake_case, classes in PascalCase); serverInfo.name stays as the server reports it. Default: derived from serverInfo.name (see the README).")] = None,
    era: Annotated[EraOption, typer.Option("--era", help="auto: probe 2026-07-28, fall back to initialize.")] = EraOption.auto,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing output file.")] = False,
    cwd: Annotated[Optional[Path], typer.Option("--cwd", help="Working directory of the --stdio server.")] = None,
    env: Annotated[Optional[list[str]], typer.Option("--env", help="KEY=VALUE for the --stdio server (repeatable).")] = None,
    header: Annotated[Optional[list[str]], typer.Option("--header", help="'Name: value' HTTP header for --http (repeatable).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for the server.")] = 30.0,
    no_check: Annotated[bool, typer.Option("--no-check", help="Do not build the pulled spec to check it.")] = False,
    oauth: Annotated[bool, typer.Option("--oauth", help="Log in with OAuth in the browser when the --http server asks (needs authlib).")] = False,
    oauth_client_id: Annotated[Optional[str], typer.Option("--oauth-client-id", help="Pre-registered OAuth client id (secret: $MCP_CODEGEN_OAUTH_CLIENT_SECRET); default: dynamic registration.")] = None,
    oauth_token_file: Annotated[Optional[Path], typer.Option("--oauth-token-file", help="Keep OAuth tokens in this file (mode 0600) instead of memory.")] = None,
) -> None:
    """Write a spec from a live server's tools/list (then `mcp-codegen build` gives a typed client)."""
    from . import pull as pull_mod

    if (stdio is None) == (http is None):
        err_console.print("error: give exactly one of --stdio COMMAND or --http URL", style="red", markup=False)
        raise typer.Exit(2)
    try:
        if stdio is not None:
            client = pull_mod.stdio_client(shlex.split(stdio), era=era.value, cwd=cwd, env=_pairs(env or [], "--env", "="), timeout=timeout)
        else:
            auth = None
            if oauth or oauth_client_id or oauth_token_file:
                secret = os.environ.get("MCP_CODEGEN_OAUTH_CLIENT_SECRET") or None
                auth = pull_mod.oauth_settings(client_id=oauth_client_id, client_secret=secret, token_file=oauth_token_file)
            client = pull_mod.http_client(str(http), era=era.value, headers=_pairs(header or [], "--header", ":"), timeout=timeout, auth=auth)
    except (ValueError, pull_mod.PullError) as exc:
        err_console.print(f"error: {exc}", style="red", markup=False)
        raise typer.Exit(2) from None
    to_stdout = str(output) == "-"
    result, diags = pull_mod.pull(client, None if to_stdout else output, name=name, force=force, build=not no_check, timeout=timeout * 2)
    _print_diagnostics(Result(diagnostics=diags, specs=[str(output)]))
    if result is None:
        raise typer.Exit(1)
    if to_stdout:
        out_console.print(result.text, markup=False, end="")
    if any(d.is_error for d in diags):
        err_console.print(f"{'the pulled spec' if to_stdout else output} does not build; fix the errors above", style="red", markup=False)
        raise typer.Exit(1)
    if not to_stdout:
        tools = len(result.data["tools"])
        out_console.print(f"wrote {output} ({tools} tool(s)); next: mcp-codegen build {output} -o generated", markup=False)


@app.command("version")
def version_cmd() -> None:
    """Print the mcp-codegen version."""
    out_console.print(__version__, markup=False)


#: Imported by ``jsonschema`` when installed (the ``format-nongpl`` extra), only for its
#: format checks: ``rfc3987_syntax`` (``iri``/``iri-reference``) builds 38 parser grammars on
#: import, about 2 s of CPU for every generator process; ``isoduration`` (``duration``, which
#: pulls in arrow and dateutil) and the others cost about 0.1 s together.  The generator
#: never checks formats (the runtime's ``format_checker`` is for generated packages, which run
#: in their own process), so the CLI process does without them.  (``idna`` stays: httpx needs it.)
_UNUSED_IMPORTS = ("rfc3987_syntax", "isoduration", "rfc3986_validator", "rfc3339_validator", "webcolors",
                   "uri_template", "jsonpointer", "fqdn")


def main() -> None:
    """Console-script entry point."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    if "jsonschema" not in sys.modules:
        for name in _UNUSED_IMPORTS:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]  # "import name" raises ImportError
    app()
