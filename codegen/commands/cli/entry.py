"""The ``mcp-codegen`` entry point: an up-to-date ``build`` is answered before typer is imported,
and a plain ``pull --stdio CMD`` starts its server before the command line is imported.

Re-running ``mcp-codegen build SPECS -o OUT`` on unchanged inputs is the most common build, and
its answer ("nothing to do") takes a few milliseconds once the build stamp is read; importing
the command line (typer, click, rich, the generator's API) took three times as long as the whole
rest.  So :func:`main` first tries :func:`quick_build`: for a ``build`` command line made only
of spec paths, ``-o/--output``, ``-q/--quiet``, ``--target``, ``--layout``, ``--skill`` and
``--private-runtime/--library-runtime``, it resolves the configuration, discovers the specs and
checks the build stamp exactly as :func:`codegen.api.build` does, with the standard library
and the generator's small modules only.  When the stamp matches it prints what ``build``
prints (through :mod:`codegen.commands.report`, the same code) and exits 0.  Anything else —
another command or flag, a repeated or odd option, a configuration error, no stamp, any change
at all, any unexpected exception — falls through to the full command line, which decides and
reports as it always did.  ``MCP_CODEGEN_FAST_PATH=0`` turns the shortcut off.

Then, for a plain ``pull --stdio CMD``, the server process is started at once
(:mod:`codegen.commands.pull.spawn`: its start-up overlaps ours) and a command line with the
``pull`` command alone runs (:func:`.app.pull_main`: the same command, options and output,
without importing the build API first).

Whatever runs, the process's heap is frozen at exit (``gc.freeze`` from :mod:`atexit`, after
the commands' own exit handlers): the interpreter then tears its modules down without a full
garbage collection over everything the command imported, which took 0.1-0.15 s of every exit
(a third of a pull of a fast server).
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from pathlib import Path
from typing import Any

FAST_PATH_ENV = "MCP_CODEGEN_FAST_PATH"

_FLAGS = {"-q": ("quiet", True), "--quiet": ("quiet", True),
          "--private-runtime": ("runtime", "private"), "--library-runtime": ("runtime", "library")}
_VALUES = {"-o": "output", "--output": "output", "--target": "target", "--layout": "layout", "--skill": "skill"}
_CHOICES = {"target": ("server", "client", "both"), "layout": ("package", "agent"), "skill": ("server", "tree")}


def parse_build(argv: list[str]) -> dict[str, Any] | None:
    """The options of a plain ``build`` command line, or None for anything else.

    Only forms whose meaning is certain are accepted: ``-o OUT``, ``--output OUT``,
    ``--output=OUT`` (and the same for the choice options, with a valid choice), each at most
    once; flags; positional spec paths that are not empty and do not start with ``-``.
    ``--``, combined short options, ``--help``, ``--watch``, ``-v`` and every other option
    return None (the full command line handles them).
    """
    if not argv or argv[0] != "build":
        return None
    parsed: dict[str, Any] = {"specs": [], "quiet": False}
    seen: set[str] = set()
    rest = iter(argv[1:])
    for arg in rest:
        if arg in _FLAGS:
            name, value = _FLAGS[arg]
            if name in seen and parsed[name] != value:
                return None
            seen.add(name)
            parsed[name] = value
            continue
        option, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if option in _VALUES:
            name = _VALUES[option]
            text = inline if eq else next(rest, None)
            if name in seen or text is None or text == "" or text.startswith("-"):
                return None
            if name in _CHOICES and text not in _CHOICES[name]:
                return None
            seen.add(name)
            parsed[name] = Path(text) if name == "output" else text
            continue
        if arg == "" or arg.startswith("-"):
            return None
        parsed["specs"].append(Path(arg))
    return parsed


def quick_build(argv: list[str]) -> int | None:
    """Answer an up-to-date ``build`` (exit status 0), or None: the full command line decides."""
    if os.environ.get(FAST_PATH_ENV, "") == "0":
        return None
    parsed = parse_build(argv)
    if parsed is None:
        return None
    try:
        found = _up_to_date(parsed)
    except Exception:  # (a shortcut: whatever went wrong, the full build decides and reports)
        return None
    if found is None:
        return None
    paths, out, stamp = found
    _print_unchanged(parsed["quiet"], paths, out, stamp)
    return 0


def _up_to_date(parsed: dict[str, Any]) -> tuple[list[Path], Path, dict[str, Any]] | None:
    """What :func:`codegen.api.build` checks before it generates anything, in the same order."""
    from ...options import RUNTIME_PACKAGE
    from ...output import cache
    from ...spec.discovery import discover
    from ...spec.sources import one_read_per_file
    from ..config import resolve

    cfg, _ = resolve(parsed["specs"] or None, parsed.get("output"), Path.cwd(), target=parsed.get("target"),
                     runtime=parsed.get("runtime"), layout=parsed.get("layout"),
                     skill=parsed.get("skill"))
    if cfg is None:
        return None
    paths, out = list(cfg.specs), cfg.output
    if (out / RUNTIME_PACKAGE).is_dir():  # maybe an earlier version's shared runtime: the full build says what to do
        return None
    with one_read_per_file():
        specs, diags = discover(paths)
        if diags or not specs or not out.is_dir():
            return None
        stamp = cache.stamp_matches(out, paths, specs, cfg.options.key())
    return None if stamp is None else (paths, out, stamp)


def _print_unchanged(quiet: bool, paths: list[Path], out: Path, stamp: dict[str, Any]) -> None:
    """What ``build`` prints when nothing changed (main.py ``build_cmd``, no ``-v``): the progress
    line cleared, the diagnostics the last build had, the summary line."""
    from ...diagnostics import Diagnostic, Level

    diagnostics = [Diagnostic(**{**d, "level": Level(d["level"])}) for d in stamp["diagnostics"]]
    names, outputs = list(stamp["names"]), stamp["outputs"]
    if quiet and not diagnostics:
        return  # nothing to print: rich is not even imported
    from .. import report

    out_console, err_console = report.consoles()
    if not quiet:
        report.end_progress(err_console)
    report.print_diagnostics(err_console, diagnostics, len(names), paths)
    if not quiet:
        out_console.print(report.summary(len(names), out, 0, 0, 0, len(outputs)), markup=False)


def main() -> None:
    """Console-script entry point (``mcp-codegen``, ``python -m codegen``)."""
    atexit.register(gc.freeze)  # registered first, so it runs last of the exit handlers
    code = quick_build(sys.argv[1:])
    if code is not None:
        raise SystemExit(code)
    from ..pull.spawn import start_early

    if start_early(sys.argv[1:]):
        from .app import pull_main

        pull_main()  # only the pull command: the build API is not imported
        return
    from .main import main as cli_main

    cli_main()
