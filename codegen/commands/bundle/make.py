"""``bundle()``: one spec to one ``.mcpb``, every failure a located diagnostic (E180-E184).

Steps: lower the spec; render its package's server side with a private runtime (what ``build
--target server --private-runtime`` writes, plus the ``pyproject.toml`` whose dependencies are
vendored); find the implementation module (the spec's ``server.implementation``, else the
``build --scaffold`` module) beside the spec, unless the generated base is complete; stage the
contents (:mod:`.stage`); write ``manifest.json`` (:mod:`.manifest`); zip (:mod:`.archive`).
Nothing is written to the output folder until the archive is complete."""

from __future__ import annotations

import base64
import binascii
import re
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcp_codegen_runtime.wire.launch import StdioLaunch, stdio_launch

from ...diagnostics import Diagnostic
from ...driver.pipeline import lower_one
from ...ir.nodes import EnvVarIR, ProjectIR
from ...options import Options
from ...spec.load import SourceDoc
from ...spec.sources import beside
from . import stage
from .archive import write_archive
from .manifest import Author, Runtime, build_manifest, user_config_key

#: PNG files start with these bytes (what ``mcpb validate`` checks of an icon).
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: The icon's path in the bundle.
ICON = "icon.png"


@dataclass
class BundleOptions:
    """What ``bundle`` takes besides the spec: see the command's help."""

    author: str | None = None
    icon: Path | None = None
    impl_dir: Path | None = None
    python: str = sys.executable
    pip_cache: Path | None = None
    constraints: Path | None = None


@dataclass
class BundleResult:
    path: Path | None = None
    manifest: dict[str, Any] | None = None
    entries: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)


def bundle_file_name(name: str, version: str) -> str:
    """``<name>-<version>.mcpb``, with characters a file name should not hold as ``-``, runs of dots
    as one, and no leading ``-`` or ``.`` (a file a command line would read as an option, or hide)."""
    stem = re.sub(r"\.{2,}", ".", re.sub(r"[^A-Za-z0-9._-]+", "-", f"{name}-{version}"))
    stem = re.sub(r"-{2,}", "-", stem).strip("-.")
    return (stem or "server") + ".mcpb"


def launch(ir: ProjectIR) -> StdioLaunch[EnvVarIR]:
    """The server's arguments after the launcher and its environment variables: the one launch
    table every launcher reads (host config, server.json, bundle)."""
    return stdio_launch(ir.server.env)


def parse_author(text: str) -> Author:
    """``Name``, ``Name <email>`` or ``Name <email> (url)``."""
    m = re.fullmatch(r"\s*([^<(]*?)\s*(?:<([^>]*)>)?\s*(?:\(([^)]*)\))?\s*", text)
    if not m or not m.group(1):
        return Author(text.strip())
    return Author(m.group(1), m.group(2) or None, m.group(3) or None)


def _default_author(ir: ProjectIR) -> Author | None:
    """The owner of a GitHub repository named in the registry section."""
    repository = ir.server.registry.repository if ir.server.registry is not None else None
    url = repository.get("url", "") if isinstance(repository, dict) else ""
    m = re.match(r"https://github\.com/([A-Za-z0-9-]+)/", url)
    return Author(m.group(1), url=f"https://github.com/{m.group(1)}") if m else None


def bundle(spec: Path, out: Path, options: BundleOptions, progress: Callable[[str], None] = lambda _: None) -> BundleResult:
    """Write ``out/<name>-<version>.mcpb`` for ``spec``; diagnostics instead when it cannot."""
    display = spec.as_posix()
    low = lower_one(spec, display)
    result = BundleResult(diagnostics=list(low.diagnostics))
    if low.ir is None or low.models is None or low.doc is None:
        return result
    doc, ir = low.doc, low.ir
    problems = _check(doc, ir, options)
    if problems:
        result.diagnostics += problems
        return result
    ir = Options(target="server", runtime="private", layout="package").apply(ir)
    ir = replace(ir, server=replace(ir.server, project=True, skill=None))
    impl, diags = _implementation(doc, ir, spec, options)
    result.diagnostics += diags
    if diags:
        return result
    if out.exists() and not out.is_dir():
        result.diagnostics.append(Diagnostic(str(out), 0, 0, "E184", "the output path is a file, not a folder",
                                             hint="pass a folder with -o (it is created if missing)"))
        return result
    progress(f"generating {ir.server.package} (server side, private runtime)")
    from ...output.emit import finalize
    from ...render.package import render_package, shared_environment

    files, diags = finalize(render_package(ir, low.models, shared_environment()), display)
    result.diagnostics += diags
    if any(d.is_error for d in diags):
        return result
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-bundle-") as tmp:
        return _stage_and_zip(doc, ir, files, impl, spec, out, options, progress, result, Path(tmp))


def _check(doc: SourceDoc, ir: ProjectIR, options: BundleOptions) -> list[Diagnostic]:
    """What makes a spec unbundlable before anything is generated (E180, E183)."""
    if ir.server.target == "client":
        return [doc.diag("E180", "the spec describes only a client (server.target: client): a bundle serves the server "
                         "side", "/server/target", hint="set server.target to server or both")]
    problems = []
    if options.icon is not None and not _is_png(options.icon):
        problems.append(Diagnostic(str(options.icon), 0, 0, "E183", "--icon is not a PNG file (hosts show PNG icons only)",
                                   hint="pass a .png file (512x512 pixels is what Claude Desktop recommends)"))
    if options.author is None and _default_author(ir) is None:
        problems.append(doc.diag("E183", "the bundle's manifest needs an author (MCPB manifests require author.name)",
                                 "/server", hint="pass --author 'Name <email>' (or a GitHub repository in "
                                 "server.registry.repository, whose owner is then the author)"))
    keys: dict[str, str] = {}
    for var in launch(ir).env:
        if var.name == "PYTHONPATH":
            problems.append(doc.diag("E183", "the environment variable PYTHONPATH is the bundle's own (it points at "
                                     "server/lib)", "/server/env/PYTHONPATH", hint="rename the variable"))
        clash = keys.setdefault(user_config_key(var.name), var.name)
        if clash != var.name:
            problems.append(doc.diag("E183", f"environment variables {clash} and {var.name} differ only in case: the "
                                     f"manifest's user_config key {user_config_key(var.name)!r} would name both",
                                     f"/server/env/{var.name}", hint="rename one of them"))
    return problems


def _implementation(doc: SourceDoc, ir: ProjectIR, spec: Path, options: BundleOptions) -> tuple[Path | None, list[Diagnostic]]:
    """The implementation module's file or package folder to include (None: the base serves)."""
    folders = [options.impl_dir] if options.impl_dir is not None else [spec.parent]
    where = " or ".join(str(f) for f in folders)
    named = ir.server.implementation
    module = (named or f"{ir.server.impl_module}:{ir.server.impl_class}").partition(":")[0]
    found = stage.find_module(module, folders)
    if found is not None:
        return found, []
    complete = ir.upstream is not None and ir.upstream.complete
    if named:
        return None, [doc.diag("E181", f"the implementation module {module} (server.implementation {named}) is not in "
                               f"{where}", "/server/implementation",
                               hint="put it beside the spec, or pass --impl-dir with the folder holding it")]
    if complete:
        return None, []
    return None, [doc.diag("E181", f"no implementation to bundle: the spec sets no server.implementation and "
                           f"{module}.py (build --scaffold's module) is not in {where}", "/server",
                           hint="set server.implementation: module:Class and put the module beside the spec (or pass "
                           "--impl-dir); a spec whose tools all call the upstream needs none")]


def _stage_and_zip(doc: SourceDoc, ir: ProjectIR, files: list[Any], impl: Path | None, spec: Path, out: Path,
                   options: BundleOptions, progress: Callable[[str], None], result: BundleResult,
                   tmp: Path) -> BundleResult:
    from ...render.registry import json_text

    root = tmp / "bundle"
    lib = root / "server" / "lib"
    started = launch(ir)
    args, env = list(started.arguments), list(started.env)
    try:
        interpreter = stage.probe(options.python)
        stage.write_package(files, lib)
        stage.write_entry(root, ir.server.name, ir.server.version, ir.server.package, args)
        if impl is not None:
            stage.copy_implementation(impl, root / "server")
        pyproject = next(f for f in files if f.path == f"{ir.server.package}/pyproject.toml")
        requirements = list(tomllib.loads(pyproject.content)["project"]["dependencies"])
        progress(f"installing {', '.join(requirements)} into server/lib (pip, Python "
                 f"{'.'.join(map(str, interpreter.version))}, {interpreter.platform})")
        stage.vendor(interpreter, requirements, lib, cache=options.pip_cache, constraints=options.constraints)
    except stage.StageError as exc:
        result.diagnostics.append(doc.diag("E182", f"the bundle's dependencies cannot be vendored: {exc}", "/server",
                                           hint="check the network access to the package index (or --pip-cache), "
                                           "and --python"))
        return result
    if options.icon is not None:
        shutil.copyfile(options.icon, root / ICON)
        icon: str | None = ICON
    else:
        icon = _icon(spec_icons(doc, ir), spec.parent, root)
    native = stage.has_native(lib)
    major, minor = interpreter.version
    runtime = Runtime(f">={major}.{minor},<{major}.{minor + 1}" if native else ">=3.11",
                      interpreter.platform if native else None)
    author = parse_author(options.author) if options.author else _default_author(ir)
    assert author is not None  # _check
    manifest = build_manifest(ir, args=args, env=env, author=author, runtime=runtime, icon=icon)
    (root / "manifest.json").write_text(json_text(manifest), "utf-8")  # the layout of server.json and the card
    dest = out / bundle_file_name(ir.server.name, ir.server.version)
    progress(f"writing {dest}")
    try:
        out.mkdir(parents=True, exist_ok=True)
        result.entries = write_archive(root, dest)
    except OSError as exc:
        result.diagnostics.append(Diagnostic(str(out), 0, 0, "E184", f"cannot write the bundle: {exc}",
                                             hint="check the path and its permissions; nothing was written"))
        return result
    result.path, result.manifest = dest, manifest
    return result


def _is_png(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(len(PNG_MAGIC)) == PNG_MAGIC
    except OSError:
        return False


def spec_icons(doc: SourceDoc, ir: ProjectIR) -> list[Any]:
    """The registry section's icons, else the spec's ``server.icons`` (as written: the IR keeps
    the server's icons only in the registry section)."""
    if ir.server.registry is not None and ir.server.registry.icons:
        return list(ir.server.registry.icons)
    server = doc.data.get("server") if isinstance(doc.data, dict) else None
    icons = server.get("icons") if isinstance(server, dict) else None
    return list(icons) if isinstance(icons, list) else []


def _icon(icons: list[Any], folder: Path, root: Path) -> str | None:
    """Copy the first PNG icon that is a local file (a path relative to the spec's folder) or a
    ``data:`` URI into the bundle; its path there, or None."""
    for icon in icons:
        src = str(icon.get("src", "")) if isinstance(icon, dict) else ""
        data: bytes | None = None
        if src.startswith("data:image/png;base64,"):
            try:
                data = base64.b64decode(src.split(",", 1)[1], validate=True)
            except (binascii.Error, ValueError):
                data = None
        elif src and ":" not in src.split("/")[0]:  # a relative path, no URL scheme, inside the spec's folder
            path = beside(folder.resolve(), src)
            data = path.read_bytes() if path is not None and path.is_file() else None
        if data is not None and data.startswith(PNG_MAGIC):
            (root / ICON).write_bytes(data)
            return ICON
    return None


__all__ = ["BundleOptions", "BundleResult", "bundle", "bundle_file_name", "launch", "parse_author"]
