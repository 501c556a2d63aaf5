"""The public Python API: spec paths in, generated files (or diagnostics) out.

``generate()`` never touches the output folder; ``build()`` and ``check()`` add the
write / compare step from :mod:`codegen.emit`.  The CLI only wraps these functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostic, Level, sort_key
from .emit import WriteReport, diff_tree, finalize, plan_writes, write_tree
from .ir import ProjectIR
from .lockfile import lock_file
from .lower import lower
from .models import ModelsModule, build_models
from .render import GeneratedFile, environment, render_package
from .spec.load import SourceDoc, load_spec_file
from .spec.validate import validate

SPEC_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class Result:
    """What a generator run produced: files (only when there is no error) and diagnostics."""

    files: list[GeneratedFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    specs: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.level is Level.ERROR for d in self.diagnostics)


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


def lower_one(path: Path, display: str, *, with_models: bool = True) -> Lowered:
    """Load, validate and lower one spec file (no rendering); used by generate, diff and docs.

    Args:
        path: the spec file.
        display: its name in diagnostics and headers.
        with_models: also run the model generator (fills ``ToolIR.params``).

    Returns:
        The IR (None on errors) with its source document, dependencies and diagnostics.
    """
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
    if ir is None or not with_models:
        return Lowered(ir, doc, diagnostics=diags, deps=deps)
    models, more = build_models(ir)
    diags += more
    if models is None:
        return Lowered(None, doc, diagnostics=diags, deps=deps)
    return Lowered(_with_params(ir, models), doc, models, deps, diags)


def generate_one(path: Path, display: str) -> Result:
    """Run the whole pipeline for one spec file, in memory."""
    low = lower_one(path, display)
    diags = low.diagnostics
    if low.ir is None or low.models is None:
        return Result(diagnostics=diags, specs=[display])
    files, more = finalize([*render_package(low.ir, low.models, environment()), lock_file(low.ir)], display)
    diags += more
    if any(d.is_error for d in diags):
        return Result(diagnostics=diags, specs=[display])
    return Result(files=files, diagnostics=diags, specs=[display])


def _with_params(ir, models):  # type: ignore[no-untyped-def]
    from dataclasses import replace  # noqa: PLC0415

    tools = tuple(replace(t, params=models.fields.get(t.input_class, ())) for t in ir.tools)
    return replace(ir, tools=tools)


def generate(paths: Sequence[Path], progress: Callable[[str], None] | None = None) -> Result:
    """Generate every spec under ``paths``; collects all diagnostics of all specs."""
    specs, diags = discover(paths)
    result = Result(diagnostics=list(diags))
    packages: dict[str, str] = {}
    for path, display in specs:
        if progress:
            progress(display)
        one = generate_one(path, display)
        result.specs += one.specs
        result.diagnostics += one.diagnostics
        for f in one.files:
            pkg = f.path.split("/", 1)[0]
            if packages.setdefault(pkg, display) != display:
                result.diagnostics.append(Diagnostic(display, 1, 1, "E032",
                    f"package {pkg!r} is also generated from {packages[pkg]}",
                    hint="give one of the servers another name, or set server.package"))
                break
        result.files += one.files
    result.diagnostics.sort(key=sort_key)
    if not result.ok:
        result.files = []
    return result


def build(paths: Sequence[Path], out: Path, progress: Callable[[str], None] | None = None) -> tuple[Result, WriteReport | None]:
    """Generate and write into ``out``; nothing is written unless every spec succeeded."""
    result = generate(paths, progress)
    if not result.ok:
        return result, None
    stale, diags = plan_writes(result.files, out, ", ".join(result.specs))
    if diags:
        result.diagnostics += diags
        return result, None
    out.mkdir(parents=True, exist_ok=True)
    return result, write_tree(result.files, out, stale)


def check(paths: Sequence[Path], out: Path) -> tuple[Result, list[str]]:
    """Compare what ``build`` would write with ``out``; returns unified diffs."""
    result = generate(paths)
    if not result.ok:
        return result, []
    return result, diff_tree(result.files, out)
