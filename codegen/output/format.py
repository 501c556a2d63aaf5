"""Formatting and compile checks of the generated Python files.

:func:`format_files` formats every ``.py`` file with black (pinned, explicit mode) and
``compile()``-checks it; in the modules the writer emits in black's style itself, only the
units it flags (:mod:`codegen.output.trust`).  Black runs per unit (:mod:`codegen.output.fmtunits`: top-level classes
and functions, methods), giving the same bytes as black on the whole file; units seen
earlier in the process are not formatted again (``--watch``), and the units of a big file
are spread over worker processes (:mod:`codegen.output.fmtpool`).  Black's output for a whole
file is also cached by content hash (:mod:`codegen.output.cache`); an entry is stored only after
its text compiled, so a hit skips both steps.  The runtime, copied verbatim, is
compile-checked once per process, not once per package.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic
from ..render.files import SKILL_FILES, GeneratedFile
from . import cache as build_cache
from .fmtunits import single_pass

if TYPE_CHECKING:
    import black


@cache
def black_mode() -> black.Mode:
    """The one black mode (black is imported lazily: a no-op rebuild never needs it)."""
    import black

    return black.Mode(target_versions={black.TargetVersion.PY311}, line_length=100, magic_trailing_comma=True)


def format_python(source: str) -> str:
    """Format with black (explicit mode; never reads a pyproject)."""
    import black

    return black.format_str(source, mode=black_mode())


def format_python_once(source: str) -> str:
    """One pass of black: ``format_str`` makes a second one when the first changed the text.

    ``_format_str_once`` is black's own (private; black is pinned, and
    ``tests/generator/test_fmtunits.py`` compares the result with ``format_str`` on the whole
    file).  Without it, ``format_str`` itself, which is just as correct, only slower.
    """
    import black

    once = getattr(black, "_format_str_once", None)
    return once(source, mode=black_mode()) if once is not None else black.format_str(source, mode=black_mode())


single_pass(format_python, format_python_once)


@cache
def _format_key() -> str:
    """Everything besides the text that decides black's output and the compile check."""
    import sys

    import black

    return f"black {black.__version__} {black_mode().get_cache_key()} python {sys.version_info[:2]}"


def _format_and_compile(source: str, path: str) -> str:
    from .fmtpool import runs_in_parallel
    from .fmtunits import format_units, parse
    from .trust import fits, models_file, models_fits, trusted_file

    trusted = (fits if trusted_file(path) else models_fits if models_file(path) else None) if _trusts(path) else None
    tree = parse(source)
    try:
        formatted = format_units(source, format_python, runs_in_parallel(format_python), trusted, tree)
    except ValueError:  # black's output could not be cut back into the units: black on the whole file
        formatted = format_python(source)
    # the compile check; when black changed nothing, from the tree already parsed (the same checks)
    compile(tree if tree is not None and formatted == source else formatted, path, "exec", dont_inherit=True)
    return formatted


#: ``MCP_CODEGEN_FORMAT_ALL=1``: black formats every unit of every file, as before the writer
#: was trusted (the same bytes, slower; ``bench/`` measures the two side by side).
FORMAT_ALL_ENV = "MCP_CODEGEN_FORMAT_ALL"


def _trusts(path: str) -> bool:
    import os

    from .trust import models_file, trusted_file

    return (trusted_file(path) or models_file(path)) and os.environ.get(FORMAT_ALL_ENV, "") in ("", "0")


_RUNTIME_COMPILED: set[str] = set()


def _compile_runtime(content: str, path: str) -> None:
    """Compile-check a runtime file; copies are byte-identical in every package, so each
    distinct text is compiled once per process."""
    key = build_cache.sha256(content)
    if key not in _RUNTIME_COMPILED:
        compile(content, path, "exec", dont_inherit=True)
        _RUNTIME_COMPILED.add(key)


def format_files(files: Iterable[GeneratedFile], spec_display: str) -> tuple[list[GeneratedFile], list[Diagnostic]]:
    """Every file, each ``.py`` one formatted and compile-checked (an E051 diagnostic, and the
    file left out, when it does not compile)."""
    import black

    out: list[GeneratedFile] = []
    diags: list[Diagnostic] = []
    for f in files:
        content = f.content
        if f.path.endswith(".py") and f"/{SKILL_FILES}/" not in f.path:  # skill files are data, as written
            try:
                if f.verbatim:  # the runtime is copied verbatim
                    _compile_runtime(content, f.path)
                else:
                    mode = " trusted" if _trusts(f.path) else ""  # the writer's own style, flagged units formatted
                    content = build_cache.format_cached(
                        content, lambda text, path=f.path: _format_and_compile(text, path), _format_key() + mode)
            except (black.InvalidInput, SyntaxError, ValueError) as exc:
                diags.append(Diagnostic(spec_display, 0, 0, "E051", f"generated {f.path} does not compile: {exc}",
                                        hint="this is a generator bug; please report it with the spec attached"))
                continue
        out.append(GeneratedFile(f.path, content, f.verbatim))
    return out, diags
