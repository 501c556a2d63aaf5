"""The full ``mcp-codegen`` command line (typer): every command registered, and ``build``, ``check``,
``validate``, ``init``, ``dev``, ``schema``, ``version`` defined here.  Thin: every command calls the
API in api.py."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer._click.core import Context as ClickContext
from typer._click.exceptions import UsageError  # the click typer (pinned) runs on: its own copy, not the click package
from typer.core import TyperCommand

from ..._version import __version__
from ...api import Result, build, check, generate
from ...api import scaffold as scaffold_stubs
from ...diagnostics import relocate
from ...options import Options
from ...spec.discovery import discover
from .. import report as report_mod
from ..config import resolve
from ..dev import DEFAULT_OUTPUT as DEV_OUTPUT
from ..starter import SCHEMA_COPY, first_test, spec_format_schema, starter_spec
from .app import new_app, run
from .bundle import register as register_bundle_command
from .mock import check_cassette_cmd
from .mock import register as register_mock_commands
from .openapi import register as register_openapi_command
from .pull import register as register_pull_command
from .sync import register as register_sync_commands
from .sync import run_watch

out_console, err_console = report_mod.consoles()  # (the fast path of entry.py makes its own the same way)
app = new_app(out_console)
register_sync_commands(app, out_console, err_console)  # diff, docs (sync.py)
register_pull_command(app, out_console, err_console, lambda result: _print_diagnostics(result))  # pull.py
register_mock_commands(app, out_console, err_console,  # mock, proxy (mock.py)
                       lambda diags, spec: _print_diagnostics(Result(diagnostics=diags, specs=[str(spec)]), [spec]))
register_openapi_command(app, out_console, err_console, lambda result: _print_diagnostics(result))  # openapi.py
register_bundle_command(app, out_console, err_console, lambda result, paths: _print_diagnostics(result, paths))  # bundle.py


class Target(str, Enum):
    server = "server"
    client = "client"
    both = "both"


class Layout(str, Enum):
    package = "package"
    agent = "agent"


class Skill(str, Enum):
    server = "server"
    tree = "tree"


SpecsArg = Annotated[Optional[list[Path]], typer.Argument(help="Spec files or folders (default: the specs setting of [tool.mcp-codegen] in pyproject.toml).", show_default=False)]
VerboseOpt = Annotated[bool, typer.Option("-v", "--verbose", help="Also list every file written and what the build decided: cache hits, up-to-date checks, timings, the options in effect.")]
TargetOpt = Annotated[Optional[Target], typer.Option("--target", help="Generate the server side, the client side or both (default: each spec's server.target, else both). A --private-runtime copy holds only what the target needs.", show_default=False)]
PrivateOpt = Annotated[Optional[bool], typer.Option("--private-runtime/--library-runtime", help="Copy the runtime modules each package imports into it as _runtime (no dependency on mcp-codegen-runtime), or import the installed mcp-codegen-runtime library (default: runtime of [tool.mcp-codegen], else each spec's server.runtime, else library).", show_default=False)]
LayoutOpt = Annotated[Optional[Layout], typer.Option("--layout", help="package: the typed packages only; agent: also OUT/servers/<server>/<tool>.py, one typed function per tool, with an index and search_tools (extends an existing servers/ tree; see docs/agents.md). Default: each spec's server.layout, else package.", show_default=False)]
SkillOpt = Annotated[Optional[Skill], typer.Option("--skill", help="Agent layout: also write an Agent Skills folder (OUT/skills/<name>/SKILL.md): one per server (server) or one for the whole servers/ tree (tree).", show_default=False)]
OutOpt = Annotated[Optional[Path], typer.Option("-o", "--output", help="Output folder (default: the output setting of [tool.mcp-codegen] in pyproject.toml).")]


def _print_diagnostics(result: Result, paths: list[Path] | None = None) -> None:
    """Print the diagnostics, located relative to the working directory when ``paths`` (the
    spec paths given) say where the spec folders are."""
    report_mod.print_diagnostics(err_console, result.diagnostics, len(result.specs), paths)


def _config(specs: list[Path] | None, output: Path | None, need_output: bool = True, target: Target | None = None,
            private_runtime: bool | None = None, layout: Layout | None = None,
            skill: Skill | None = None) -> tuple[list[Path], Path, Options]:
    cfg, error = resolve(specs, output if need_output else output or Path("."), Path.cwd(),
                         target=target.value if target else None,
                         runtime=None if private_runtime is None else ('private' if private_runtime else 'library'),
                         layout=layout.value if layout else None, skill=skill.value if skill else None)
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


def _progress(verbose: bool) -> Callable[[str], None] | None:
    """Per-spec progress: a line each with ``-v``, a transient status line on a terminal, else none."""
    if verbose:
        def line(name: str) -> None:
            err_console.print(f"  generating {name}", style="dim", markup=False)
        return line
    if not err_console.is_terminal:
        return None

    def status(name: str) -> None:
        err_console.print(f"\r\x1b[2K  generating {name}", style="dim", markup=False, end="")
    return status


def _end_progress() -> None:
    report_mod.end_progress(err_console)


@app.command("build")
def build_cmd(specs: SpecsArg = None, output: OutOpt = None, quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Print only diagnostics and failures (no progress, no file list).")] = False,
              verbose: VerboseOpt = False,
              watch: Annotated[bool, typer.Option("--watch", help="Keep running; rebuild the specs that change (Ctrl-C stops).")] = False,
              interval: Annotated[float, typer.Option("--interval", help="--watch: seconds between polls.", min=0.05)] = 0.5,
              scaffold: Annotated[bool, typer.Option("--scaffold", help="Also write OUT/<package>_impl.py, a handler class with one typed stub per tool, resource, resource template, prompt and completion handler, if it does not exist (it is yours from then on).")] = False,
              target: TargetOpt = None, private_runtime: PrivateOpt = None, layout: LayoutOpt = None,
              skill: SkillOpt = None,
              verify_format: Annotated[bool, typer.Option("--verify-format", help="Then run black on every generated module and fail, naming the files, if it would change any (the writer's own style is checked, not trusted).")] = False) -> None:
    """Generate the packages of SPECS into the output folder (atomic; hand-written files untouched)."""
    _verbose(verbose)
    paths, out, options = _config(specs, output, target=target, private_runtime=private_runtime, layout=layout, skill=skill)
    if watch:
        raise typer.Exit(run_watch(paths, out, interval, quiet, out_console, err_console, options))
    result, report = build(paths, out, None if quiet else _progress(verbose), load_files=verify_format,
                           waiting=lambda message: err_console.print(message, style="yellow", markup=False),
                           options=options)
    if not quiet:
        _end_progress()
    _print_diagnostics(result, paths)
    if report is None:
        err_console.print("build failed: nothing was written", style="red", markup=False)
        raise typer.Exit(1)
    from ...output.emit import runtime_layout_notes

    for note in runtime_layout_notes(out, result.files, report.deleted):
        err_console.print(f"note: {note}", style="yellow", markup=False)
    if verify_format:
        _verify_format(result, out)
    if scaffold:
        written, kept, notes = scaffold_stubs(paths, out, options.target)
        for note in relocate(notes, discover(paths)[0], Path.cwd()):
            err_console.print(note.render(), style="yellow", markup=False)
        for path in written:
            package = path.name.removesuffix("_impl.py")
            out_console.print(f"  wrote    {path} (yours from now on; fill in the handlers; python -m {package} serves it "
                              "by default when the spec sets no server.implementation)", markup=False)
        for path in kept:
            out_console.print(f"  kept     {path} (exists; never overwritten)", markup=False)
    if verbose:
        for label, items, style in (("created", report.created, "green"), ("updated", report.updated, "yellow"), ("deleted", report.deleted, "red")):
            for item in items:
                out_console.print(f"  {label:8} {item}", style=style, markup=False)
    if not quiet:
        out_console.print(report_mod.summary(len(result.specs), out, len(report.created), len(report.updated),
                                             len(report.deleted), len(report.unchanged)), markup=False)


def _verify_format(result: Result, out: Path) -> None:
    """``build --verify-format``: exit 1 naming every generated module black would change."""
    from ...output.verify import verify_format

    changed = verify_format(result.files)
    if changed:
        for path in changed:
            err_console.print(f"  black would reformat {out / path}", style="red", markup=False)
        err_console.print(f"--verify-format: black would change {len(changed)} generated file(s) (listed above); the "
                          "writer's style and black's disagree: a generator bug, please report it with the spec",
                          style="red", markup=False)
        raise typer.Exit(1)


class ReportFormat(str, Enum):
    table = "table"
    json = "json"
    junit = "junit"
    sarif = "sarif"


@app.command("check")
def check_cmd(specs: SpecsArg = None, output: OutOpt = None, target: TargetOpt = None,
              private_runtime: PrivateOpt = None, verbose: VerboseOpt = False, layout: LayoutOpt = None,
              skill: SkillOpt = None,
              cassette: Annotated[Optional[Path], typer.Option("--cassette", help="Instead: check the calls recorded in this cassette (mcp-codegen proxy --record) against the one spec given: recorded results that no longer fit its output schemas, arguments its input schemas refuse, tools it lacks; reported as diff reports them, exit 1 on drift.", show_default=False)] = None,
              fmt: Annotated[ReportFormat, typer.Option("-f", "--format", help="--cassette: the report printed on stdout (as diff's).")] = ReportFormat.table) -> None:
    """Exit 0 when the output folder matches what build would write; else print a diff and exit 1."""
    if cassette is not None:
        check_cassette_cmd(cassette, specs, fmt.value, out_console, err_console,
                           lambda diags, spec: _print_diagnostics(Result(diagnostics=diags, specs=[str(spec)]), [spec]))
        return
    _verbose(verbose)
    paths, out, options = _config(specs, output, target=target, private_runtime=private_runtime, layout=layout, skill=skill)
    result, diffs = check(paths, out, options)
    _print_diagnostics(result, paths)
    if not result.ok:
        raise typer.Exit(1)
    from ...output.emit import runtime_layout_notes

    notes = runtime_layout_notes(out, result.files)
    if diffs or notes:
        for d in diffs:
            out_console.print(d, markup=False, end="")
        if diffs:
            err_console.print(f"{len(diffs)} file(s) out of date in {out}; run `mcp-codegen build` to regenerate", style="red",
                              markup=False)
        from ...render.lockfile import version_drift

        for note in version_drift(out, sorted({f.path.split("/", 1)[0] for f in result.files})):
            err_console.print(f"note: {note} (see mcp-codegen.lock)", style="yellow", markup=False)
        for note in notes:
            err_console.print(f"note: {note}", style="yellow", markup=False)
        raise typer.Exit(1)
    out_console.print(f"{out} is up to date ({len(result.files)} files from {len(result.specs)} spec(s))", markup=False)


@app.command("validate")
def validate_cmd(specs: SpecsArg = None, strict: Annotated[bool, typer.Option("--strict", help="Also fail on warnings.")] = False,
                 impl: Annotated[Optional[str], typer.Option("--impl", help="Also check this implementation (module:Class, importable from the working directory or the output folder) against the spec: every tool, resource, template, prompt and completion handler implemented, not a stub, taking the runtime's arguments. One server only.")] = None,
                 output: OutOpt = None,
                 host: Annotated[str, typer.Option("--host", metavar="PROFILE", help="Host limits to warn about (W111, see docs/hosts.md): common (the rules shared by two or more hosts), all, none, or host names: claude, openai, gemini, cursor, vscode (comma-separated).")] = "common") -> None:
    """Validate SPECS without writing anything (exit 1 on errors; with --strict also on warnings)."""
    from ...spec.hostlint import lint_paths
    from ...spec.hosts import select

    if select(host)[1]:
        err_console.print(f"error: --host: {select(host)[1]}", style="red", markup=False)
        raise typer.Exit(2)
    paths, out, options = _config(specs, output, need_output=False)
    result = generate(paths, options=options)
    if result.ok:
        result.diagnostics += lint_paths(paths, host)
    _print_diagnostics(result, paths)
    if not result.ok or (strict and result.diagnostics):
        raise typer.Exit(1)
    if impl is None:
        out_console.print(f"{len(result.specs)} spec(s) valid", markup=False)
        return
    status = _check_implementation(result, impl, out)
    if status:  # the summary agrees with the exit status
        err_console.print(f"{len(result.specs)} spec(s) valid, but implementation {impl} failed the check",
                          style="red", markup=False)
        raise typer.Exit(status)
    out_console.print(f"{len(result.specs)} spec(s) valid, implementation {impl} checked", markup=False)


def _check_implementation(result: Result, impl: str, out: Path) -> int:
    """Run the generated package's own ``--check`` on ``impl``, with the package built in a
    temporary folder (so the check sees exactly this spec, whatever the output folder holds);
    the implementation is imported from the working directory or the output folder."""
    import subprocess
    import tempfile

    from ...output.emit import MANIFEST

    packages = sorted({f.path.split("/", 1)[0] for f in result.files if f.path.endswith("/" + MANIFEST)} - {"mcp_codegen_runtime", "servers", "skills"})
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
    for line in lines:  # a usage error is its message alone ("; see --help" is about the package's flags)
        line = line.removeprefix(f"{packages[0]}: error: ").removesuffix("; see --help")
        err_console.print(line, style="red" if proc.returncode else None, markup=False)
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
    test = _write_first_test(target, directory.parent / "tests")
    cfg, _ = resolve([target], None, Path.cwd())
    out = cfg.output if cfg is not None else Path("generated")
    also = f", {test}" if test is not None else ""
    out_console.print(f"wrote {target} (and {schema} for editors{also}); next: mcp-codegen build {target} -o {out}",
                      markup=False)


def _write_first_test(spec: Path, folder: Path) -> Path | None:
    """``tests/test_<package>.py`` beside the spec folder, unless it exists (the names as ``build`` decides them)."""
    from ...driver.pipeline import lower_one

    ir = lower_one(spec, spec.name, with_models=False).ir
    if ir is None:
        return None
    test = folder / f"test_{ir.server.package}.py"
    if test.exists():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    impl = f"{ir.server.impl_module}:{ir.server.impl_class}"
    test.write_text(first_test(ir.server.name, ir.server.package, impl), encoding="utf-8")
    return test


class _ShortUsageErrors(TyperCommand):
    """A command whose usage errors are one line ending with "see ... --help" (no usage dump)."""

    @staticmethod
    def _short(exc: UsageError) -> UsageError:
        path = exc.ctx.command_path if exc.ctx is not None else "mcp-codegen"
        return UsageError(f"{exc.format_message().rstrip('.')}; see {path} --help")

    def make_context(self, info_name: str | None, args: list[str], parent: ClickContext | None = None,
                     **extra: Any) -> ClickContext:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except UsageError as exc:
            raise self._short(exc) from None


@app.command("dev", cls=_ShortUsageErrors)
def dev_cmd(spec: Annotated[Path, typer.Argument(help="The spec file of the server.", show_default=False)],
            output: Annotated[Optional[Path], typer.Option("-o", "--output", help=f"Output folder (default: the output setting of [tool.mcp-codegen] in pyproject.toml, else ./{DEV_OUTPUT}).", show_default=False)] = None,
            port: Annotated[int, typer.Option("--port", help="HTTP port on 127.0.0.1.")] = 8000,
            impl: Annotated[Optional[str], typer.Option("--impl", help="module:Class of the handlers (default: server.implementation, else the scaffold class <package>_impl:<Name>Service; its stub is written into the output folder only when that module is nowhere on the module path). The module path is the folder dev runs in, PYTHONPATH (relative entries from there), ./src when it exists, and the output folder.", show_default=False)] = None,
            inspector: Annotated[bool, typer.Option("--inspector", help="Also start the MCP Inspector's web UI connected to the server (npx -y @modelcontextprotocol/inspector; needs Node.js 22+).")] = False,
            interval: Annotated[float, typer.Option("--interval", help="Seconds between polls.", min=0.05)] = 0.5) -> None:
    """Build SPEC, serve it over HTTP, restart when the spec, a file it $refs or a module the server imported changes (Ctrl-C stops)."""
    from ..config import load_config_file
    from ..dev import DevLoop

    if not spec.is_file():
        err_console.print(f"error: {spec}: no such spec file; see mcp-codegen dev --help", style="red", markup=False)
        raise typer.Exit(2)
    defaulted = output is None and not load_config_file(Path.cwd())[0].output
    _, out, options = _config([spec], DEV_OUTPUT if defaulted else output)
    out_console.print(f"output folder: {out}" + (" (the default; -o OUT or [tool.mcp-codegen] output sets another)"
                                                 if defaulted else ""), markup=False)
    loop = DevLoop(spec, out, port, impl, lambda line: out_console.print(line, markup=False),
                   lambda diags: _print_diagnostics(Result(diagnostics=diags, specs=[str(spec)]), [spec]), options,
                   inspector=inspector)
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


@app.command("version")
def version_cmd() -> None:
    """Print the mcp-codegen version."""
    out_console.print(__version__, markup=False)


def main() -> None:
    """Console-script entry point."""
    run(app)
