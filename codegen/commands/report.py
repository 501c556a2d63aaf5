"""What ``build`` prints, shared by the typer command (cli/main.py) and the no-op fast path (cli/entry.py).

Both print through these functions and consoles made by :func:`consoles`, so an up-to-date build
answered by the fast path prints byte for byte what the full command prints.  Imports rich only
when :func:`consoles` is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic, Level, relocate
from ..spec.discovery import discover

if TYPE_CHECKING:
    from rich.console import Console


def consoles() -> tuple[Console, Console]:
    """(stdout console, stderr console) as every command prints through them."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True), Console(stderr=True, highlight=False, soft_wrap=True)


def print_diagnostics(err_console: Console, diagnostics: Sequence[Diagnostic], spec_count: int,
                      paths: Sequence[Path] | None = None) -> None:
    """Print the diagnostics, located relative to the working directory when ``paths`` (the
    spec paths given) say where the spec folders are; then the count line."""
    diags = list(dict.fromkeys(diagnostics))  # one finding reached by two checks is printed once
    if paths:
        diags = relocate(diags, discover(paths)[0], Path.cwd())
    for d in diags:
        style = "red" if d.level is Level.ERROR else "yellow"
        err_console.print(d.render(), style=style, markup=False)
    errors = sum(d.level is Level.ERROR for d in diags)
    warnings = len(diags) - errors
    if diags:
        err_console.print(f"{errors} error(s), {warnings} warning(s) in {spec_count} spec(s)", markup=False)


def end_progress(err_console: Console) -> None:
    """Clear the transient progress line (on a terminal)."""
    if err_console.is_terminal:
        err_console.print("\r\x1b[2K", end="", markup=False)


def summary(spec_count: int, out: Path, created: int, updated: int, deleted: int, unchanged: int) -> str:
    """The one line a build prints (unless ``--quiet``)."""
    return (f"{spec_count} spec(s) -> {out}: {created} created, {updated} updated, "
            f"{deleted} deleted, {unchanged} unchanged")
