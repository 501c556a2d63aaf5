"""The two sides of ``mcp-codegen diff``: spec files or folders, or a git revision of one.

A side is written as:

* ``PATH``: a spec file or a folder of specs (as for ``build``), or an OpenAPI 3.x / Swagger
  2.0 document (converted in memory as ``mcp-codegen openapi`` would, then compared as a spec);
* ``git:REV:PATH``: the same path at a git revision (``git:main:specs``,
  ``git:HEAD~1:specs/weather.yaml``), read with ``git ls-tree``/``git cat-file`` into a
  temporary folder (nothing is checked out; the work tree is untouched);
* ``stdio:COMMAND`` (``"stdio:python -m weather --stdio"``) or an ``http://``/``https://``
  URL: a live server, read with :mod:`codegen.commands.pull.flow` (every ``tools/list`` page) and compared
  on the wire (:func:`~codegen.commands.diff.views.view_from_wire`; Python names are unknown there);
* an output folder built with ``--layout agent`` (or its ``servers/`` folder): the tools its
  per-tool modules were generated from, read from each ``servers/<server>/_index.json`` and
  compared on the wire (so ``diff DIR stdio:COMMAND`` shows how the live server drifted);
* ``PREFIX:...`` for any other prefix registered with :func:`register_side_loader`.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...diagnostics import Diagnostic
from .views import ServerView, view_from_ir, view_from_wire

#: Files copied out of a git revision (spec files and the schema files they reference).
SPEC_FILE_SUFFIXES = (".yaml", ".yml", ".json")
MAX_GIT_FILES = 2000
MAX_GIT_FILE_BYTES = 8 * 1024 * 1024


@dataclass
class Side:
    """One loaded side: the servers found, or diagnostics saying why not."""

    label: str
    views: list[ServerView] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: What was assumed while loading, not a failure (see :class:`codegen.commands.pull.read.ServerSnapshot`).
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


SideLoader = Callable[[str, Path], Side]
_LOADERS: dict[str, SideLoader] = {}


def register_side_loader(prefix: str, loader: SideLoader) -> None:
    """Make ``PREFIX:rest`` sides load through ``loader(rest, cwd)`` (e.g. live servers).

    Args:
        prefix: the scheme without the colon, e.g. ``stdio``.
        loader: returns a :class:`Side`; must not raise on bad input (diagnostics instead).
    """
    _LOADERS[prefix] = loader


def load_paths(paths: list[Path], cwd: Path, source_of: Callable[[Path, str], str] | None = None,
               display_of: Callable[[Path, str], str] | None = None, label: str = "") -> Side:
    """Lower every spec under ``paths`` into views (models included, for Python names)."""
    from ...driver.pipeline import lower_one
    from ...spec.discovery import discover

    side = Side(label or ", ".join(map(str, paths)))
    documents = [p for p in paths if is_openapi_file(p)]
    paths = [p for p in paths if p not in documents]
    for path in documents:
        shown = display_of(path, path.name) if display_of else _relative(path, cwd)
        source = source_of(path, path.name) if source_of else _relative(path, cwd)
        view = _openapi_view(path, shown, source, side)
        if view is not None:
            side.views.append(view)
    if not paths:
        return side
    specs, diags = discover(paths)
    side.diagnostics += diags
    for path, display in specs:
        shown = display_of(path, display) if display_of else display
        low = lower_one(path, shown)
        side.diagnostics += low.diagnostics
        if low.ir is not None:
            source = source_of(path, display) if source_of else _relative(path, cwd)
            side.views.append(view_from_ir(low.ir, low.doc, source))
    return side


#: The first lines of an OpenAPI or Swagger document (not of a converted spec, whose ``openapi``
#: key is a mapping): ``openapi: 3.x`` / ``swagger: "2.0"``, in YAML or JSON.
_OPENAPI_HEAD = re.compile(r"""^\s*\{?\s*["']?(openapi["']?\s*:\s*["']?3\.|swagger["']?\s*:\s*["']?2)""", re.MULTILINE)


def is_openapi_file(path: Path) -> bool:
    """Whether ``path`` is an OpenAPI 3.x or Swagger 2.0 document (by its top-level version field)."""
    try:
        with path.open("rb") as f:
            head = f.read(65536).decode("utf-8", "replace")
    except OSError:
        return False
    return path.is_file() and _OPENAPI_HEAD.search(head) is not None


def _openapi_view(path: Path, shown: str, source: str, side: Side) -> ServerView | None:
    """The servers view of an OpenAPI document, converted in memory (``mcp-codegen openapi``)."""
    from ...driver.pipeline import lower_one
    from ..openapi.convert import convert

    done = convert(path, None, display=shown, base_url_fallback="http://localhost")
    side.diagnostics += [d for d in done.diagnostics if d.is_error]
    if done.text is None:
        return None
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-diff-") as tmp:
        spec = Path(tmp) / (path.stem + ".yaml")
        spec.write_text(done.text, encoding="utf-8")
        low = lower_one(spec, shown + " (converted)")
        side.diagnostics += low.diagnostics
        return view_from_ir(low.ir, low.doc, source) if low.ir is not None else None


def _relative(path: Path, cwd: Path) -> str:
    try:
        return Path(os.path.relpath(path.resolve(), cwd.resolve())).as_posix()
    except ValueError:
        return path.as_posix()


def _git(cwd: Path, *args: str) -> tuple[int, bytes, str]:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return 1, b"", str(exc)
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace").strip()


def _git_error(label: str, message: str, hint: str = "") -> Side:
    return Side(label, diagnostics=[Diagnostic(label, 0, 0, "E060", message, hint=hint)])


def load_git(rev: str, path: str, cwd: Path) -> Side:
    """Read ``path`` (relative to ``cwd``) at revision ``rev`` and lower its specs.

    The spec's folder (recursively; only ``.yaml``/``.yml``/``.json`` blobs) is copied into a
    temporary folder so that relative ``$ref`` files resolve exactly as they did at ``rev``.
    """
    label = f"git:{rev}:{path}"
    rc, out, err = _git(cwd, "rev-parse", "--show-toplevel")
    if rc != 0:
        return _git_error(label, f"not inside a git work tree: {err}", "run diff from inside the repository")
    top = Path(out.decode().strip())
    rel_cwd = _relative(cwd, top)
    raw = Path(path)
    rel = _relative(raw, top) if raw.is_absolute() else posixpath.normpath(posixpath.join("" if rel_cwd == "." else rel_cwd, raw.as_posix()))
    if rel.startswith("../") or rel == "..":
        return _git_error(label, f"{path!r} lies outside the repository")
    rel = "" if rel == "." else rel
    rc, out, err = _git(top, "cat-file", "-t", f"{rev}:{rel}")
    if rc != 0:
        return _git_error(label, f"{rel or '.'!r} does not exist at revision {rev!r}: {err}",
                          "check the revision (git log) and the path at that revision (git ls-tree REV)")
    kind = out.decode().strip()
    folder = rel if kind == "tree" else posixpath.dirname(rel)
    rc, out, err = _git(top, "ls-tree", "-r", "-z", "--full-tree", rev, "--", *([folder] if folder else []))
    if rc != 0:
        return _git_error(label, f"git ls-tree failed: {err}")
    entries = []
    for item in out.split(b"\0"):
        if not item:
            continue
        meta, _, name = item.partition(b"\t")
        mode, otype, sha = meta.decode().split()
        file = name.decode("utf-8", "replace")
        if otype == "blob" and mode != "120000" and file.endswith(SPEC_FILE_SUFFIXES):
            entries.append((file, sha))
    if len(entries) > MAX_GIT_FILES:
        return _git_error(label, f"{len(entries)} files under {folder!r}; refusing more than {MAX_GIT_FILES}")
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-diff-") as tmp:
        root = Path(tmp)
        for file, sha in entries:
            rc, blob, err = _git(top, "cat-file", "blob", sha)
            if rc != 0 or len(blob) > MAX_GIT_FILE_BYTES:
                continue
            target = root / file
            if not target.resolve().is_relative_to(root.resolve()):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
        local = root / rel if rel else root

        def source_of(p: Path, display: str) -> str:
            return f"git:{rev}:{_relative(p, root)}"

        def display_of(p: Path, display: str) -> str:
            return f"{_relative(p, root)}@{rev}"

        return load_paths([local], cwd, source_of, display_of, label)


LIVE_TIMEOUT = 30.0


def load_live(prefix: str, rest: str, cwd: Path) -> Side:
    """A live server side: ``stdio:COMMAND`` (spawned in ``cwd``) or an HTTP(S) URL."""
    from ..pull import flow as pull

    label = f"{prefix}:{rest}"
    try:
        if prefix == "stdio":
            client = pull.stdio_client(shlex.split(rest), cwd=cwd, timeout=LIVE_TIMEOUT)
        else:
            client = pull.http_client(label, timeout=LIVE_TIMEOUT)
        snap = pull.fetch(client, LIVE_TIMEOUT * 2)
    except (ValueError, pull.PullError) as exc:
        return Side(label, diagnostics=[Diagnostic(label, 0, 0, "E070", f"cannot read the server's tools: {exc}",
                                                   hint="check the command or URL")])
    return Side(label, [view_from_wire(snap.server_info, snap.tools, label, snap.instructions, snap.resources,
                                       snap.templates, snap.prompts)], notes=list(snap.notes))


def _live_loader(prefix: str) -> SideLoader:
    def loader(rest: str, cwd: Path) -> Side:
        return load_live(prefix, rest, cwd)
    return loader


for _prefix in ("stdio", "http", "https"):
    register_side_loader(_prefix, _live_loader(_prefix))


def load_side(spec: str, cwd: Path | None = None) -> Side:
    """Load one side given as ``PATH``, ``git:REV:PATH`` or a registered ``PREFIX:...``.

    Args:
        spec: the side as typed on the command line.
        cwd: folder that relative paths (also inside ``git:``) are relative to.
    """
    cwd = cwd or Path.cwd()
    if spec.startswith("git:"):
        rev, sep, path = spec[4:].rpartition(":")
        if not sep or not rev:
            return _git_error(spec, f"malformed git side {spec!r}", "write git:REV:PATH, e.g. git:main:specs")
        return load_git(rev, path or ".", cwd)
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in _LOADERS and not Path(spec).exists():
        return _LOADERS[prefix](rest, cwd)
    local = Path(spec)
    local = local if local.is_absolute() else cwd / local
    tree = load_agent_tree(local, spec)
    return tree if tree is not None else load_paths([local], cwd, label=spec)


def load_agent_tree(folder: Path, label: str) -> Side | None:
    """The servers of an agent tree (``folder`` is the output folder, its ``servers/`` or one
    ``servers/<server>/``), or None when ``folder`` is no agent tree."""
    import json

    tree = folder / "servers" if (folder / "servers" / "__init__.py").is_file() else folder
    if (folder / "_index.json").is_file() and (folder.parent / "_search.py").is_file():
        indexes = [folder / "_index.json"]  # one server's folder: servers/<server>
    elif (tree / "_search.py").is_file() and (tree / "__init__.py").is_file():
        indexes = sorted(tree.glob("*/_index.json"))
    else:
        return None
    side = Side(label)
    for index in indexes:
        try:
            data = json.loads(index.read_text("utf-8"))
            tools = [t["wire"] for t in data["tools"]] + list(data.get("appOnlyTools", ()))  # codegen.render.agent
            side.views.append(view_from_wire(data["serverInfo"], tools, f"{label}/{index.parent.name}",
                                             data.get("instructions"), data.get("resources", ()),
                                             data.get("resourceTemplates", ()), data.get("prompts", ())))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            side.diagnostics.append(Diagnostic(str(index), 0, 0, "E060", f"unreadable agent index: {exc}",
                                               hint="build the tree again (mcp-codegen build --layout agent)"))
    if not side.views and not side.diagnostics:
        side.diagnostics.append(Diagnostic(str(tree), 0, 0, "E052", "no server in this agent tree"))
    return side
