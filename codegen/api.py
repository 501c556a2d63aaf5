"""The public Python API: spec paths in, generated files (or diagnostics) out.

``generate()`` never touches the output folder; ``build()`` and ``check()`` add the
write / compare step from :mod:`codegen.emit`.  The CLI only wraps these functions.

Speed (see :mod:`codegen.cache` and ``bench/README.md``): each spec's finished result is
cached by content hash, specs that miss the cache are generated in parallel worker
processes, and ``build`` returns at once when a build stamp shows that neither the
inputs, the generator nor the output files changed.  The pipeline's heavy modules
(black, jinja2, jsonschema, datamodel-code-generator) are imported only when a spec is
actually generated.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import cache
from .diagnostics import Diagnostic, Level, has_errors, sort_key
from .options import DEFAULT, SHARED_RUNTIME, Options

if TYPE_CHECKING:
    from .emit import WriteReport
    from .ir import ProjectIR
    from .models import ModelsModule
    from .render import GeneratedFile
    from .spec.load import SourceDoc

JOBS_ENV = "MCP_CODEGEN_JOBS"

SPEC_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class Result:
    """What a generator run produced: files (only when there is no error) and diagnostics."""

    files: list[GeneratedFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    specs: list[str] = field(default_factory=list)
    #: every file the run read: spec files and their ``$ref`` targets
    inputs: list[Path] = field(default_factory=list)
    #: resolved path -> sha256 of the bytes the run used (what build stamps and caches record)
    input_hashes: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def _looks_like_spec(path: Path) -> bool:
    try:
        head = path.read_text("utf-8")[:4096]
    except (OSError, UnicodeDecodeError):
        return False
    return "mcp-codegen" in head


def discover(paths: Sequence[Path]) -> tuple[list[tuple[Path, str]], list[Diagnostic]]:
    """Spec files named by ``paths`` (files, or folders searched one level deep).

    Files in a folder that do not mention ``mcp-codegen`` are taken to be shared schema
    files (``$ref`` targets) and skipped.  Returns (path, display name) pairs.
    """
    found: list[tuple[Path, str]] = []
    diags: list[Diagnostic] = []
    for p in paths:
        if p.is_dir():
            for child in sorted(p.iterdir()):
                if child.suffix in SPEC_SUFFIXES and child.is_file() and _looks_like_spec(child):
                    found.append((child, f"{p.resolve().name}/{child.name}"))
        elif p.is_file():
            found.append((p, f"{p.resolve().parent.name}/{p.name}"))
        else:
            diags.append(Diagnostic(str(p), 0, 0, "E001", "no such file or folder", hint="check the path"))
    if not found and not diags:
        diags.append(Diagnostic(", ".join(map(str, paths)), 0, 0, "E052", "no spec files found",
                                hint="spec files are .yaml/.yml/.json files with a top-level `mcp-codegen: 1`"))
    return found, diags


@dataclass
class Lowered:
    """One spec file taken through load, validate and lower (and, optionally, models).

    ``ir`` is None when an error stopped the pipeline.  ``deps`` are the files read (the spec
    and every ``$ref`` target file), which ``watch`` uses for incremental rebuilds.
    """

    ir: ProjectIR | None
    doc: SourceDoc | None = None
    models: ModelsModule | None = None
    deps: tuple[Path, ...] = ()
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: sha256 of the bytes each dep was read as (empty when the pipeline stopped early)
    dep_hashes: dict[str, str] = field(default_factory=dict)


def lower_one(path: Path, display: str, *, with_models: bool = True) -> Lowered:
    """Load, validate and lower one spec file (no rendering); used by generate, diff and docs.

    Args:
        path: the spec file.
        display: its name in diagnostics and headers.
        with_models: also run the model generator (fills ``ToolIR.params``).

    Returns:
        The IR (None on errors) with its source document, dependencies and diagnostics.
    """
    from .lower import lower
    from .models import build_models, with_params
    from .spec.load import load_spec_file
    from .spec.validate import validate

    doc, diags = load_spec_file(path, display)
    if doc is None or any(d.is_error for d in diags):
        return Lowered(None, doc, diagnostics=diags, deps=(path,))
    spec, resolver, more = validate(doc)
    diags += more
    if spec is None or resolver is None:
        return Lowered(None, doc, diagnostics=diags, deps=(path,))
    ir, more = lower(spec, resolver, display)
    diags += more
    deps = tuple(sorted(Path(f) for f in resolver.docs))
    hashes = {str(Path(f).resolve()): d.sha for f, d in resolver.docs.items()}
    if ir is None or not with_models:
        return Lowered(ir, doc, diagnostics=diags, deps=deps, dep_hashes=hashes)
    models, more = build_models(ir)
    diags += more
    if models is None:
        return Lowered(None, doc, diagnostics=diags, deps=deps, dep_hashes=hashes)
    return Lowered(with_params(ir, models), doc, models, deps, diags, hashes)


def generate_one(path: Path, display: str, options: Options = DEFAULT) -> Result:
    """Run the whole pipeline for one spec file, in memory (no cache)."""
    from .emit import finalize
    from .lockfile import lock_file
    from .render import environment, render_package

    low = lower_one(path, display)
    diags = low.diagnostics
    inputs = list(low.deps)
    if low.ir is None or low.models is None:
        return Result(diagnostics=diags, specs=[display], inputs=inputs)
    ir = options.apply(low.ir)
    files, more = finalize([*render_package(ir, low.models, environment()), lock_file(ir)], display)
    diags += more
    if any(d.is_error for d in diags):
        return Result(diagnostics=diags, specs=[display], inputs=inputs)
    return Result(files=files, diagnostics=diags, specs=[display], inputs=inputs, input_hashes=low.dep_hashes)


def _diag_to_json(d: Diagnostic) -> dict[str, Any]:
    return {"file": d.file, "line": d.line, "col": d.col, "code": d.code, "message": d.message,
            "pointer": d.pointer, "hint": d.hint, "level": d.level.value}


def _diag_from_json(d: dict[str, Any]) -> Diagnostic:
    return Diagnostic(**{**d, "level": Level(d["level"])})


def _cached_one(path: Path, display: str, options: Options) -> Result | None:
    """The spec's result from the cache (identical to generating it), or None."""
    hit = cache.load_result(path, display, options.key())
    if hit is None:
        return None
    from .render import GeneratedFile

    files, diags, deps = hit
    return Result(files=[GeneratedFile(p, c, v) for p, c, v in files], diagnostics=[_diag_from_json(d) for d in diags],
                  specs=[display], inputs=[Path(d) for d in deps], input_hashes=dict(deps))


def _generate_and_store(spec: tuple[Path, str], options: Options = DEFAULT) -> Result:
    """:func:`generate_one`, then remember an error-free result (runs in worker processes)."""
    path, display = spec
    one = generate_one(path, display, options)
    spec_sha = one.input_hashes.get(str(path.resolve()))
    if spec_sha and one.ok and one.files:  # keyed and checked by the bytes actually used
        cache.store_result(path, display, options.key(), spec_sha, one.input_hashes, [(f.path, f.content, f.verbatim) for f in one.files],
                           [_diag_to_json(d) for d in one.diagnostics])
    return one


def _jobs(work: int) -> int:
    """Worker processes for ``work`` uncached specs (``$MCP_CODEGEN_JOBS``, default: CPUs).

    Workers are forked, so only when fork is available and safe: no other thread running.
    """
    try:
        wanted = int(os.environ.get(JOBS_ENV, "0")) or (os.cpu_count() or 1)
    except ValueError:
        wanted = 1
    if sys.platform == "win32" or threading.active_count() > 1:
        return 1
    return max(1, min(wanted, work))


def _generate_all(specs: list[tuple[Path, str]], progress: Callable[[str], None] | None,
                  options: Options = DEFAULT) -> list[Result]:
    """Results of ``specs`` in order: cache hits first, the rest in parallel when it pays."""
    results: list[Result | None] = [_cached_one(path, display, options) for path, display in specs]
    misses = [i for i, r in enumerate(results) if r is None]
    if progress:
        for _, display in specs:
            progress(display)
    jobs = _jobs(len(misses))
    if jobs > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        import datamodel_code_generator  # noqa: F401 (import once; workers inherit it)

        from . import emit, lockfile, lower, render  # noqa: F401
        from .spec import validate  # noqa: F401

        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            work = [specs[i] for i in misses]
            for i, one in zip(misses, pool.map(_generate_and_store, work, [options] * len(work)), strict=True):
                results[i] = one
    else:
        for i in misses:
            results[i] = _generate_and_store(specs[i], options)
    return [r for r in results if r is not None]


def generate(paths: Sequence[Path], progress: Callable[[str], None] | None = None,
             options: Options = DEFAULT) -> Result:
    """Generate every spec under ``paths``; collects all diagnostics of all specs."""
    specs, diags = discover(paths)
    result = Result(diagnostics=list(diags))
    packages: dict[str, str] = {}
    shared: set[str] = set()
    for (_, display), one in zip(specs, _generate_all(specs, progress, options), strict=True):
        result.specs += one.specs
        result.diagnostics += one.diagnostics
        result.inputs += one.inputs
        result.input_hashes.update(one.input_hashes)
        for f in one.files:
            pkg = f.path.split("/", 1)[0]
            if pkg == SHARED_RUNTIME:
                continue
            if packages.setdefault(pkg, display) != display:
                result.diagnostics.append(Diagnostic(display, 1, 1, "E032",
                    f"package {pkg!r} is also generated from {packages[pkg]}",
                    hint="give one of the servers another name, or set server.package"))
                break
        result.files += [f for f in one.files if f.path not in shared]  # one copy of the shared runtime
        shared.update(f.path for f in one.files if f.path.startswith(SHARED_RUNTIME + "/"))
    result.diagnostics.sort(key=sort_key)
    if not result.ok:
        result.files = []
    return result


def build(paths: Sequence[Path], out: Path, progress: Callable[[str], None] | None = None,
          *, load_files: bool = True, waiting: Callable[[str], None] | None = None,
          options: Options = DEFAULT) -> tuple[Result, WriteReport | None]:
    """Generate and write into ``out``; nothing is written unless every spec succeeded.

    Returns at once, without generating, when the build stamp of the last build of the same
    ``paths`` into ``out`` shows that nothing changed (:func:`codegen.cache.stamp_matches`);
    ``result.files`` is then read back from ``out``, or left empty with ``load_files=False``
    (for callers that only need the report, like the CLI).

    Builds into one folder are serialized (``waiting`` hears it when this one has to wait);
    leftovers of a killed build are cleaned up first (:func:`codegen.emit.recover_leftovers`).
    """
    specs, diags = discover(paths)
    if out.exists() and not out.is_dir():
        return Result(diagnostics=[*diags, Diagnostic(str(out), 0, 0, "E042", "the output path is a file, not a folder",
                                                      hint="pass a folder with -o (it is created if missing)")]), None
    if specs and (stamp := cache.stamp_matches(out, paths, specs, options.key())) is not None:
        return _unchanged(out, stamp, load_files)
    from .emit import output_lock, plan_writes, recover_leftovers, write_tree

    result = generate(paths, progress, options)
    if not result.ok:
        return result, None
    try:
        with output_lock(out, waiting):
            recover_leftovers(out)
            stale, diags = plan_writes(result.files, out, ", ".join(result.specs))
            if diags:
                result.diagnostics += diags
                return result, None
            report = write_tree(result.files, out, stale)
            cache.write_stamp(out, paths, options.key(), specs, result.input_hashes, [f.path for f in result.files],
                              [_diag_to_json(d) for d in result.diagnostics], result.specs)
    except OSError as exc:
        result.diagnostics.append(Diagnostic(str(out), 0, 0, "E043", f"cannot write the output folder: {exc}",
                                             hint="check the path and its permissions; the previous output is unchanged"))
        return result, None
    return result, report


def _unchanged(out: Path, stamp: dict[str, Any], load_files: bool) -> tuple[Result, WriteReport]:
    """What ``build`` returns when the stamp matched: the files as they are on disk."""
    from .emit import WriteReport

    rels = [entry[0] for entry in stamp["outputs"]]
    files = []
    if load_files:
        from .render import GeneratedFile

        files = [GeneratedFile(rel, (out / rel).read_bytes().decode("utf-8")) for rel in rels]
    result = Result(files=files, diagnostics=[_diag_from_json(d) for d in stamp["diagnostics"]],
                    specs=list(stamp["names"]), inputs=[Path(p) for p in stamp["deps"]])
    return result, WriteReport(unchanged=rels)


def check(paths: Sequence[Path], out: Path, options: Options = DEFAULT) -> tuple[Result, list[str]]:
    """Compare what ``build`` would write with ``out``; returns unified diffs."""
    from .emit import diff_tree

    result = generate(paths, options=options)
    if not result.ok:
        return result, []
    return result, diff_tree(result.files, out)


def scaffold(paths: Sequence[Path], out: Path) -> tuple[list[Path], list[Path], list[Diagnostic]]:
    """Write each server's implementation stub ``OUT/<package>_impl.py`` unless it exists.

    Returns:
        (files written, files kept because they exist, diagnostics).
    """
    from .emit import format_python, write_text_file
    from .render import render_scaffold

    specs, diags = discover(paths)
    written: list[Path] = []
    kept: list[Path] = []
    for path, display in specs:
        low = lower_one(path, display, with_models=False)
        diags += [d for d in low.diagnostics if d.is_error]
        if low.ir is None:
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
