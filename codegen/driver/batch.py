"""Many specs at once: each spec's result from the cache when it is there, the others generated
in parallel (forked worker processes) and stored; then merged into one :class:`Result` with the
cross-spec checks (one package per name)."""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, Level, sort_key
from ..options import DEFAULT, Options
from ..output import cache
from ..output.fmtpool import available_jobs
from ..render.files import owner_folder
from .collect import fewer_collections
from .pipeline import Result, generate_one

#: What a build decided and why (``mcp-codegen build --verbose`` shows it).
logger = logging.getLogger("mcp_codegen.build")


def diag_to_json(d: Diagnostic) -> dict[str, Any]:
    return {"file": d.file, "line": d.line, "col": d.col, "code": d.code, "message": d.message,
            "pointer": d.pointer, "hint": d.hint, "level": d.level.value}


def diag_from_json(d: dict[str, Any]) -> Diagnostic:
    return Diagnostic(**{**d, "level": Level(d["level"])})


def _cached_one(path: Path, display: str, options: Options) -> Result | None:
    """The spec's result from the cache (identical to generating it), or None."""
    hit = cache.load_result(path, display, options.key())
    if hit is None:
        return None
    from ..render.files import GeneratedFile

    files, diags, deps = hit
    return Result(files=[GeneratedFile(p, c, v) for p, c, v in files], diagnostics=[diag_from_json(d) for d in diags],
                  specs=[display], inputs=[Path(d) for d in deps], input_hashes=dict(deps))


def _generate_and_store(spec: tuple[Path, str], options: Options = DEFAULT) -> Result:
    """:func:`generate_one`, then remember an error-free result (runs in worker processes)."""
    path, display = spec
    one = generate_one(path, display, options)
    spec_sha = one.input_hashes.get(str(path.resolve()))
    if spec_sha and one.ok and one.files:  # keyed and checked by the bytes actually used
        cache.store_result(path, display, options.key(), spec_sha, one.input_hashes, [(f.path, f.content, f.verbatim) for f in one.files],
                           [diag_to_json(d) for d in one.diagnostics])
    return one


def _jobs(work: int) -> int:
    """Worker processes for ``work`` uncached specs (``$MCP_CODEGEN_JOBS``, default: CPUs).

    Workers are forked, so only when fork is available and safe: no other thread running.
    """
    return available_jobs(work)


def generate_all(specs: list[tuple[Path, str]], progress: Callable[[str], None] | None,
                  options: Options = DEFAULT) -> list[Result]:
    """Results of ``specs`` in order: cache hits first, the rest in parallel when it pays
    (with fewer garbage collections meanwhile, :mod:`.collect`)."""
    with fewer_collections():
        return _generate_all(specs, progress, options)


def _generate_all(specs: list[tuple[Path, str]], progress: Callable[[str], None] | None,
                  options: Options) -> list[Result]:
    results: list[Result | None] = [_cached_one(path, display, options) for path, display in specs]
    misses = [i for i, r in enumerate(results) if r is None]
    for (_, display), hit in zip(specs, results, strict=True):
        if hit is not None:
            logger.info("%s: from the build cache (%s)", display, options.describe())
    started = time.monotonic()
    if progress:
        for _, display in specs:
            progress(display)
    generated = len(misses)
    jobs = _jobs(len(misses))
    if jobs > 1:
        # The first spec here, before forking: what a process pays once (DCG's and black's first
        # calls, the templates, the runtime's compile check) is then paid once, not per worker.
        results[misses[0]] = _generate_and_store(specs[misses[0]], options)
        misses = misses[1:]
        jobs = _jobs(len(misses))
    if jobs > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        import datamodel_code_generator  # noqa: F401 (import once; workers inherit it)

        from ..ir import lower
        from ..output import emit  # noqa: F401  (the same)
        from ..render import (
            lockfile,  # noqa: F401  (the same)
            package,  # noqa: F401  (the same)
        )
        from ..spec import validate  # noqa: F401  (the same)

        lower.runtime_member_names()  # imports the runtime client and server once, for every worker

        gc.freeze()  # the workers' collections skip what they inherit (fewer copy-on-write copies)
        try:
            with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
                work = [specs[i] for i in misses]
                for i, one in zip(misses, pool.map(_generate_and_store, work, [options] * len(work)), strict=True):
                    results[i] = one
        finally:
            gc.unfreeze()
    else:
        for i in misses:
            results[i] = _generate_and_store(specs[i], options)
    if generated:
        logger.info("generated %d spec(s) in %.2f s with %d worker process(es) (%s)", generated,
                    time.monotonic() - started, jobs, options.describe())
    return [r for r in results if r is not None]


def merge(specs: list[tuple[Path, str]], results: list[Result], diags: list[Diagnostic]) -> Result:
    """One result of many specs: E032 when two specs make the same package."""
    merged = Result(diagnostics=list(diags))
    packages: dict[str, str] = {}
    for (_, display), one in zip(specs, results, strict=True):
        merged.specs += one.specs
        merged.diagnostics += one.diagnostics
        merged.inputs += one.inputs
        merged.input_hashes.update(one.input_hashes)
        for f in one.files:
            pkg = owner_folder(f.path)
            if packages.setdefault(pkg, display) != display:
                merged.diagnostics.append(Diagnostic(display, 1, 1, "E032",
                    f"package {pkg!r} is also generated from {packages[pkg]}",
                    hint="give one of the servers another name, or set server.package"))
                break
        merged.files += one.files
    merged.diagnostics.sort(key=sort_key)
    if not merged.ok:
        merged.files = []
    return merged
