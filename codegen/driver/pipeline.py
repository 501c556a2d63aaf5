"""One spec file through every stage, in memory: load, validate, lower, models, render,
format (no cache, no output folder).  :mod:`codegen.driver.batch` runs it for many specs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic, has_errors
from ..options import DEFAULT, Options

if TYPE_CHECKING:
    from ..ir.nodes import ProjectIR
    from ..models.generate import ModelsModule
    from ..render.files import GeneratedFile
    from ..spec.load import SourceDoc


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
        with_models: also run the model generator, which completes the IR (``ToolIR.params``);
            only dependency tracking (``watch``) leaves it out.  Everything that reads the IR
            (render, docs, diff, scaffold) gets it complete.

    Returns:
        The IR (None on errors) with its source document, dependencies and diagnostics.
    """
    from ..ir.lower import lower
    from ..models.generate import build_models, with_params
    from ..spec.load import load_spec_file
    from ..spec.validate import validate

    doc, diags = load_spec_file(path, display)
    if doc is None or any(d.is_error for d in diags):
        return Lowered(None, doc, diagnostics=diags, deps=(path,))
    spec, resolver, more = validate(doc)
    diags += more
    if spec is None or resolver is None:
        return Lowered(None, doc, diagnostics=diags, deps=(path,))
    ir, more = lower(spec, resolver, display)
    diags += more
    read = spec.skill_deps | spec.ui_deps  # the files of skills and UI resources
    deps = tuple(sorted({*(Path(f) for f in resolver.docs), *(Path(f) for f in read)}))
    hashes = {str(Path(f).resolve()): d.sha for f, d in resolver.docs.items()} | read
    if ir is None or not with_models:
        return Lowered(ir, doc, diagnostics=diags, deps=deps, dep_hashes=hashes)
    models, more = build_models(ir)
    diags += more
    if models is None:
        return Lowered(None, doc, diagnostics=diags, deps=deps, dep_hashes=hashes)
    return Lowered(with_params(ir, models), doc, models, deps, diags, hashes)


def generate_one(path: Path, display: str, options: Options = DEFAULT) -> Result:
    """Run the whole pipeline for one spec file, in memory (no cache)."""
    from ..output.emit import finalize
    from ..render.lockfile import lock_file
    from ..render.package import render_package, shared_environment

    low = lower_one(path, display)
    diags = low.diagnostics
    inputs = list(low.deps)
    if low.ir is None or low.models is None:
        return Result(diagnostics=diags, specs=[display], inputs=inputs)
    ir = options.apply(low.ir)
    rendered = [*render_package(ir, low.models, shared_environment()), lock_file(ir)]
    if ir.server.layout == "agent":  # the server's folder of the servers/ tree (docs/agents.md)
        from ..render.agent import agent_names, render_agent

        tools, more = agent_names(ir, low.models)
        diags += more
        if tools is None:
            return Result(diagnostics=diags, specs=[display], inputs=inputs)
        rendered += render_agent(ir, low.models, tools, shared_environment())
    files, more = finalize(rendered, display)
    diags += more
    if any(d.is_error for d in diags):
        return Result(diagnostics=diags, specs=[display], inputs=inputs)
    return Result(files=files, diagnostics=diags, specs=[display], inputs=inputs, input_hashes=low.dep_hashes)
