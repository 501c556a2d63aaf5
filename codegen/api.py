"""The public Python API: spec paths in, generated files (or diagnostics) out.

``generate()`` never touches the output folder; ``build()`` and ``check()`` add the
write / compare step from :mod:`codegen.output.emit`.  The CLI only wraps these functions.

Speed (see :mod:`codegen.output.cache` and ``bench/README.md``): each spec's finished result is
cached by content hash, specs that miss the cache are generated in parallel worker
processes, and ``build`` returns at once when a build stamp shows that neither the
inputs, the generator nor the output files changed.  The pipeline's heavy modules
(black, jinja2, jsonschema, datamodel-code-generator) are imported only when a spec is
actually generated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .diagnostics import Diagnostic, Level
from .driver.batch import diag_from_json, diag_to_json, generate_all, logger, merge
from .driver.pipeline import Lowered, Result, generate_one, lower_one
from .options import DEFAULT, Options
from .output import cache
from .spec.discovery import SPEC_SUFFIXES, discover
from .spec.sources import one_read_per_file

if TYPE_CHECKING:
    from .output.emit import WriteReport

__all__ = ["SPEC_SUFFIXES", "Lowered", "Result", "build", "check", "discover", "generate", "generate_one", "lower_one",
           "scaffold"]


def generate(paths: Sequence[Path], progress: Callable[[str], None] | None = None,
             options: Options = DEFAULT) -> Result:
    """Generate every spec under ``paths``; collects all diagnostics of all specs."""
    with one_read_per_file():
        specs, diags = discover(paths)
        return merge(specs, generate_all(specs, progress, options), diags)


def build(paths: Sequence[Path], out: Path, progress: Callable[[str], None] | None = None,
          *, load_files: bool = True, waiting: Callable[[str], None] | None = None,
          options: Options = DEFAULT) -> tuple[Result, WriteReport | None]:
    """Generate and write into ``out``; nothing is written unless every spec succeeded.

    Returns at once, without generating, when the build stamp of the last build of the same
    ``paths`` into ``out`` shows that nothing changed (:func:`codegen.output.cache.stamp_matches`);
    ``result.files`` is then read back from ``out``, or left empty with ``load_files=False``
    (for callers that only need the report, like the CLI).

    Builds into one folder are serialized (``waiting`` hears it when this one has to wait);
    leftovers of a killed build are cleaned up first (:func:`codegen.output.emit.recover_leftovers`).
    """
    with one_read_per_file():
        return _build(paths, out, progress, load_files, waiting, options)


def _build(paths: Sequence[Path], out: Path, progress: Callable[[str], None] | None, load_files: bool,
           waiting: Callable[[str], None] | None, options: Options) -> tuple[Result, WriteReport | None]:
    specs, diags = discover(paths)
    if out.exists() and not out.is_dir():
        return Result(diagnostics=[*diags, Diagnostic(str(out), 0, 0, "E042", "the output path is a file, not a folder",
                                                      hint="pass a folder with -o (it is created if missing)")]), None
    if specs:
        try:  # unlocked (the common no-op is fast): a build writing meanwhile shows as a vanished file
            stamp = cache.stamp_matches(out, paths, specs, options.key())
            if stamp is not None:
                unchanged = _unchanged(out, stamp, load_files)
                logger.info("%s is up to date: no spec, $ref file, option or output file changed since the last build", out)
                return unchanged
        except OSError as exc:
            logger.info("%s changed while it was checked (%s): building under the lock", out, exc)
    from .output.emit import output_lock, plan_writes, recover_leftovers, write_tree

    result = generate(paths, progress, options)
    if not result.ok:
        return result, None
    try:
        with output_lock(out, waiting):
            recover_leftovers(out)
            if not _add_tree_files(result, out, options):
                return result, None
            stale, diags = plan_writes(result.files, out, ", ".join(result.specs))
            if diags:
                result.diagnostics += diags
                return result, None
            report = write_tree(result.files, out, stale)
            logger.info("wrote %s: %d created, %d updated, %d deleted, %d unchanged", out, len(report.created),
                        len(report.updated), len(report.deleted), len(report.unchanged))
            cache.write_stamp(out, paths, options.key(), specs, result.input_hashes, [f.path for f in result.files],
                              [diag_to_json(d) for d in result.diagnostics], result.specs)
    except OSError as exc:
        result.diagnostics.append(Diagnostic(str(out), 0, 0, "E043", f"cannot write the output folder: {exc}",
                                             hint="check the path and its permissions; the previous output is unchanged"))
        return result, None
    return result, report


def _unchanged(out: Path, stamp: dict[str, Any], load_files: bool) -> tuple[Result, WriteReport]:
    """What ``build`` returns when the stamp matched: the files as they are on disk."""
    from .output.emit import WriteReport

    rels = [entry[0] for entry in stamp["outputs"]]
    files = []
    if load_files:
        from .render.files import GeneratedFile

        files = [GeneratedFile(rel, (out / rel).read_bytes().decode("utf-8")) for rel in rels]
    result = Result(files=files, diagnostics=[diag_from_json(d) for d in stamp["diagnostics"]],
                    specs=list(stamp["names"]), inputs=[Path(p) for p in stamp["deps"]])
    return result, WriteReport(unchanged=rels)


def check(paths: Sequence[Path], out: Path, options: Options = DEFAULT) -> tuple[Result, list[str]]:
    """Compare what ``build`` would write with ``out``; returns unified diffs."""
    from .output.emit import diff_tree, output_lock

    result = generate(paths, options=options)
    if not result.ok:
        return result, []
    if not out.is_dir():
        _add_tree_files(result, out, options)
        return result, diff_tree(result.files, out)
    with output_lock(out, create=False):  # a build writing into ``out`` finishes first: one tree is compared
        if not _add_tree_files(result, out, options):
            return result, []
        return result, diff_tree(result.files, out)


def _add_tree_files(result: Result, out: Path, options: Options) -> bool:
    """Add the agent layout's shared files (``servers/__init__.py``, README, search helper), made
    from this build's servers and those already in ``out/servers/``; False on errors."""
    from .output.agent_tree import with_tree_files

    result.files, diags = with_tree_files(result.files, out, options.skill == "tree")
    result.diagnostics += diags
    return result.ok


def scaffold(paths: Sequence[Path], out: Path, target: str | None = None) -> tuple[list[Path], list[Path], list[Diagnostic]]:
    """Write each server's implementation stub ``OUT/<package>_impl.py`` unless it exists.

    A spec built for the client side only (``target``, else its ``server.target``) has no
    server to implement: it gets no stub, and a W110 warning says so.  Nor does a spec whose
    tools all call its upstream (a complete base class): W112.

    Returns:
        (files written, files kept because they exist, diagnostics).
    """
    from .output.emit import write_text_file
    from .output.format import format_python
    from .render.package import render_scaffold

    specs, diags = discover(paths)
    written: list[Path] = []
    kept: list[Path] = []
    for path, display in specs:
        low = lower_one(path, display)
        diags += [d for d in low.diagnostics if d.is_error]
        if low.ir is None:
            continue
        if (target or low.ir.server.target) == "client":
            diags.append(Diagnostic(display, 0, 0, "W110", "no implementation stub: this build has no server side "
                                    "(target client)", level=Level.WARNING,
                                    hint="build with --target both (or server) to implement the server"))
            continue
        if low.ir.upstream is not None and low.ir.upstream.complete:
            diags.append(Diagnostic(display, 0, 0, "W112", "no implementation stub: every tool calls the upstream, so "
                                    f"the base class {low.ir.server.base_class} is complete and "
                                    f"`python -m {low.ir.server.package}` serves it as it is", level=Level.WARNING,
                                    hint="to override a handler, subclass the base class and pass --impl module:Class"))
            continue
        stub = render_scaffold(low.ir)
        target = out / stub.path
        try:
            write_text_file(target, format_python(stub.content))
        except FileExistsError:
            kept.append(target)
        else:
            written.append(target)
    return written, kept, diags
