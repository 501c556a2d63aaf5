"""CLI commands for keeping servers and clients in sync: ``diff`` and ``docs``.

Registered on the main typer app by :func:`register` (kept out of ``main.py`` so that file
stays small).  Thin: each command calls :mod:`codegen.commands.diff` or :mod:`codegen.commands.docs`.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from ...diagnostics import Diagnostic, Level, relocate
from ...options import DEFAULT, Options
from ...spec.discovery import discover
from ..config import docs_defaults


class DiffFormat(str, enum.Enum):
    table = "table"
    json = "json"
    junit = "junit"
    sarif = "sarif"


def _print_diags(diags: list[Diagnostic], err: Console) -> None:
    for d in diags:
        err.print(d.render(), style="red" if d.level is Level.ERROR else "yellow", markup=False)


def register(app: typer.Typer, out: Console, err: Console) -> None:
    """Add the ``diff`` and ``docs`` commands to ``app``."""

    @app.command("diff")
    def diff_cmd(
        old: Annotated[str, typer.Argument(help="Old side: spec file/folder or git:REV:PATH.", show_default=False)],
        new: Annotated[str, typer.Argument(help="New side: spec file/folder or git:REV:PATH.", show_default=False)],
        fmt: Annotated[DiffFormat, typer.Option("-f", "--format", help="Report printed on stdout.")] = DiffFormat.table,
        json_file: Annotated[Optional[Path], typer.Option("--json", help="Also write the JSON report here.")] = None,
        junit_file: Annotated[Optional[Path], typer.Option("--junit", help="Also write a JUnit XML report here.")] = None,
        sarif_file: Annotated[Optional[Path], typer.Option("--sarif", help="Also write a SARIF 2.1.0 report here.")] = None,
        allow: Annotated[Optional[list[str]], typer.Option("--allow", help="TOOL:KIND (globs; KIND may be `breaking` or `codegen`) that must not fail the diff; repeatable.")] = None,
        allow_all: Annotated[bool, typer.Option("--allow-all-breaking", help="Report, but never fail on breaking changes.")] = False,
        wire_only: Annotated[bool, typer.Option("--wire-only", help="Do not fail on changes that only break generated code (Python names).")] = False,
        breaking_only: Annotated[bool, typer.Option("--breaking-only", help="Table: hide safe changes.")] = False,
    ) -> None:
        """Classify every change between two versions of the specs; exit 1 on a breaking change.

        Inputs are judged contravariantly, outputs covariantly, on the bundled wire schemas.
        Exit status: 0 compatible (or allowed), 1 breaking, 2 a side could not be read.
        """
        from ..diff import diff, parse_allow
        from ..diff.report import RENDERERS, render_table

        rules = []
        for rule in allow or []:
            parsed = parse_allow(rule)
            if parsed is None:
                err.print(f"error: --allow {rule!r}: expected TOOL:KIND, e.g. get_weather:input-required-added", style="red", markup=False)
                raise typer.Exit(2)
            rules.append(parsed)
        if wire_only:
            rules.append(("*", "codegen"))
        result = diff(old, new, allow=rules, allow_all=allow_all)
        _print_diags(result.diagnostics, err)
        if not result.loaded:
            err.print("diff failed: a side could not be loaded", style="red", markup=False)
            raise typer.Exit(2)
        for note in result.notes:
            err.print(f"note: {note}", markup=False)
        for path, name in ((json_file, "json"), (junit_file, "junit"), (sarif_file, "sarif")):
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(RENDERERS[name](result), encoding="utf-8", newline="\n")
        if fmt is DiffFormat.table:
            render_table(result, out, show_safe=not breaking_only)
        else:
            out.print(RENDERERS[fmt.value](result), markup=False, end="", soft_wrap=True, highlight=False)
        if not result.ok:
            raise typer.Exit(1)

    @app.command("docs")
    def docs_cmd(
        specs: Annotated[Optional[list[Path]], typer.Argument(help="Spec files or folders (default: the specs setting of [tool.mcp-codegen] in pyproject.toml).", show_default=False)] = None,
        output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Folder for <package>.md and llms.txt (default: the docs setting of [tool.mcp-codegen], else docs/reference next to the pyproject).", show_default=False)] = None,
        check_only: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 when the folder is out of date.")] = False,
    ) -> None:
        """Write a Markdown reference per server (tools, arguments, outputs, errors, examples) and llms.txt."""
        from ...output.emit import diff_tree, write_tree
        from ..docs import build_docs, plan_docs

        specs, output, problem = docs_defaults(specs, output, Path.cwd())
        if problem:
            err.print(f"error: {problem}", style="red", markup=False)
            raise typer.Exit(2)
        files, diags = build_docs(specs)
        _print_diags(relocate(diags, discover(specs)[0], Path.cwd()), err)
        if not files:
            err.print("docs failed: nothing was written", style="red", markup=False)
            raise typer.Exit(1)
        if check_only:
            diffs = diff_tree(files, output)
            for d in diffs:
                out.print(d, markup=False, end="")
            if diffs:
                err.print(f"{len(diffs)} doc file(s) out of date in {output}; run `mcp-codegen docs`", style="red", markup=False)
                raise typer.Exit(1)
            out.print(f"{output} is up to date ({len(files)} files)", markup=False)
            return
        stale, problems = plan_docs(files, output)
        if problems:
            _print_diags(problems, err)
            raise typer.Exit(1)
        output.mkdir(parents=True, exist_ok=True)
        report = write_tree(files, output, stale)
        out.print(f"docs -> {output}: {len(report.created)} created, {len(report.updated)} updated, "
                  f"{len(report.deleted)} deleted, {len(report.unchanged)} unchanged", markup=False)


def run_watch(paths: list[Path], out_dir: Path, interval: float, quiet: bool, out: Console, err: Console,
              options: Options = DEFAULT) -> int:
    """``build --watch``: print each rebuild until Ctrl-C; returns the exit status (0)."""
    from ..watch import BuildEvent, Watcher

    def show(event: BuildEvent) -> None:
        _print_diags(event.result.diagnostics, err)
        for spec in event.removed:
            err.print(f"spec removed: {spec} (its generated package is left in place)", style="yellow", markup=False)
        if not event.specs:
            return
        what = "built" if event.initial else "rebuilt"
        if event.report is None:
            err.print(f"{what} {', '.join(event.specs)}: FAILED, previous output kept", style="red", markup=False)
            return
        r = event.report
        if not quiet:
            for label, items in (("created", r.created), ("updated", r.updated), ("deleted", r.deleted)):
                for item in items:
                    out.print(f"  {label:8} {item}", markup=False)
        out.print(f"{what} {', '.join(event.specs)} -> {out_dir}: {len(r.created)} created, {len(r.updated)} updated, "
                  f"{len(r.deleted)} deleted, {len(r.unchanged)} unchanged", markup=False)

    watcher = Watcher(paths, out_dir, show, options)
    out.print(f"watching {', '.join(map(str, paths))} (every {interval:g}s; Ctrl-C stops)", markup=False)
    watcher.run(interval)
    out.print("stopped watching", markup=False)
    return 0
