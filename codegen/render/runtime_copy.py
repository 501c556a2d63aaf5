"""The private runtime copy of ``build --private-runtime``: just the runtime modules a package imports.

By default a generated package imports the installed ``mcp-codegen-runtime`` distribution and
carries no runtime code.  With ``server.runtime: private`` (or ``build --private-runtime``) it
carries ``<package>/_runtime/``: the modules of :mod:`mcp_codegen_runtime` that its own files
import, and everything those import in turn (:func:`closure`), copied verbatim.

Every import of the runtime inside itself is relative, so a copy works under any package name.
The closure follows every relative import of a module, wherever it stands (module level, under
``TYPE_CHECKING``, or inside a function, as optional features are imported when first used): a
copy never misses a module that some path of it may import, and ``mypy --strict`` finds every
module an annotation names.

Optional features are the one exception, explicit in the runtime's text: an import whose line
carries the marker ``# runtime-copy: optional`` (:data:`OPTIONAL`) is not followed.  Such an
import names a feature the runtime loads only on use; the client has four, listed in its
``client/features.py``: ``client/tasks/``, ``client/skills/``, ``client/oauth/`` and
``client/agent/``.  The core client modules import them only on marked lines (inside the method
that uses the feature, or under ``TYPE_CHECKING``), so no unmarked import reaches them.  The
server has two, the same way (``server/features.py``): ``server/tasks/`` and ``server/skills.py``,
brought by ``TaskContext`` and ``SkillIntegrityError`` of ``server/gencode.py``, which a server's
``__init__.py`` imports for task tools and ``skills:``; the names its core routes by stay in
``server/extensions.py``.

One mechanism decides which features a copy holds: the names the package's own files import.
A marked import of a facade module (``client/gencode.py``, under ``TYPE_CHECKING``) lists the
names a feature provides there (e.g. ``TaskHandle``; the module itself loads them on first
access); the feature's module is copied, with its own closure, only when the package's files
import one of those names from that facade module (:func:`imported_runtime_modules`).  The
generator imports them exactly when the spec uses the feature (``codegen/render/package.py``:
``client.py`` and ``__init__.py`` import the task names for tools with ``task:``,
``__init__.py`` the Skills names for ``skills:`` and ``OAuthSettings`` for ``server.auth``; the
``servers/`` tree of ``--layout agent`` imports ``agent_client``, ``AGENT_TREE_IMPORTS``
there).  So a client-only copy of a spec without tasks, skills or auth holds none of the four.

Whoever uses a feature a copy does not hold (``start_<tool>``, ``list_skills``,
``Client.http(..., auth=...)``, ``gencode.TaskHandle``...) gets the ``ImportError`` of
``client/features.py``, naming the feature and what brings it (declaring it in the spec, or
``--library-runtime``).  The marked lines carry ``# type: ignore[import-not-found,
unused-ignore]``, so ``mypy --strict`` of a copy without the feature stays clean.  OAuth in
particular: a copy of a spec without ``server.auth`` connects over HTTP with a static
``bearer_token`` or ``headers``, not with ``auth=OAuthSettings(...)``.
Each copied file's header names the runtime version and the module
it was copied from, nothing of the whole runtime, so a change to one runtime module changes only
that module's copies.
"""

from __future__ import annotations

import ast
from functools import cache
from importlib import resources
from typing import Any

from mcp_codegen_runtime import RUNTIME_VERSION

from ..options import PRIVATE_RUNTIME, RUNTIME_PACKAGE
from .files import GeneratedFile

#: The import name of the runtime distribution (what library-mode packages import).
PACKAGE = RUNTIME_PACKAGE
#: The marker of an import the closure does not follow (an optional feature; see the module docstring).
OPTIONAL = "# runtime-copy: optional"
#: The folder of a package's private copy (imported as ``<package>._runtime``).
PRIVATE = PRIVATE_RUNTIME


@cache
def runtime_sources() -> dict[str, str]:
    """Module name inside the runtime (``""`` for the top, ``"client.connection"``) -> its source text."""
    out: dict[str, str] = {}

    def walk(folder: Any, prefix: tuple[str, ...]) -> None:
        for entry in folder.iterdir():
            if entry.is_dir() and entry.name != "__pycache__":
                walk(entry, (*prefix, entry.name))
            elif entry.name.endswith(".py"):
                parts = prefix if entry.name == "__init__.py" else (*prefix, entry.name[:-3])
                out[".".join(parts)] = entry.read_text("utf-8")

    walk(resources.files(PACKAGE), ())
    return dict(sorted(out.items()))  # read once per process (the runtime does not change under it)


def module_path(module: str) -> str:
    """The file of a runtime module, relative to the runtime's folder."""
    folder = module.replace(".", "/")
    return f"{folder}/__init__.py".lstrip("/") if _is_package(module) else f"{folder}.py"


def _is_package(module: str) -> bool:
    return module == "" or any(name.startswith(module + ".") for name in runtime_sources())


def _with_parents(module: str) -> list[str]:
    parts = module.split(".") if module else []
    return [".".join(parts[:i]) for i in range(len(parts) + 1)]


def _relative_targets(module: str, node: ast.ImportFrom) -> list[str]:
    """The runtime modules one relative ``from`` import of ``module`` loads (with their packages)."""
    base = module.split(".") if module else []
    if not _is_package(module):
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    target = ".".join([*base, *([node.module] if node.module else [])])
    sources = runtime_sources()
    found = [target] if target in sources else []
    found += [sub for alias in node.names if (sub := f"{target}.{alias.name}".strip(".")) in sources]
    return found


def _marked_optional(lines: list[str], node: ast.ImportFrom) -> bool:
    return any(OPTIONAL in line for line in lines[node.lineno - 1:node.end_lineno])


@cache
def _relative_imports(module: str) -> tuple[tuple[ast.ImportFrom, bool], ...]:
    """Every relative ``from`` import of ``module``, and whether it is marked optional."""
    text = runtime_sources()[module]
    lines = text.splitlines()
    return tuple((node, _marked_optional(lines, node)) for node in ast.walk(ast.parse(text))
                 if isinstance(node, ast.ImportFrom) and node.level > 0)


@cache
def imports_of(module: str) -> frozenset[str]:
    """Every runtime module that ``module`` imports anywhere in its text, with their packages,
    except the imports marked optional (:data:`OPTIONAL`)."""
    found: set[str] = set()
    for node, optional in _relative_imports(module):
        if not optional:
            for target in _relative_targets(module, node):
                found.update(_with_parents(target))
    found.discard(module)
    return frozenset(found)


def optional_imports(module: str, names: set[str]) -> set[str]:
    """The modules of ``module``'s optional imports (:data:`OPTIONAL`) that provide one of ``names``."""
    found: set[str] = set()
    for node, optional in _relative_imports(module):
        if optional and names & {alias.asname or alias.name for alias in node.names}:
            for target in _relative_targets(module, node):
                found.update(_with_parents(target))
    return found


def imported_runtime_modules(files: list[GeneratedFile], root: str) -> set[str]:
    """The runtime modules the package's own files import from ``root`` (``<pkg>._runtime``),
    with the optional features (:data:`OPTIONAL`) providing a name they import.

    Every form counts: ``from <pkg>._runtime.x import n``, ``from ._runtime.x import n``,
    ``from <pkg>._runtime import x`` (``x`` a module) and ``import <pkg>._runtime.x``."""
    sources = runtime_sources()
    wanted: set[str] = set()

    def inner(name: str, base: str) -> str | None:
        """``name`` (an imported module) inside the runtime, if it is one of ``base``'s."""
        return name[len(base):].lstrip(".") if name == base or name.startswith(base + ".") else None

    for f in files:
        if not f.path.endswith(".py") or f.verbatim:
            continue
        for node in ast.walk(ast.parse(f.content)):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if (module := inner(alias.name, root)) is not None:
                        wanted.update(_with_parents(module))
                continue
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            module = inner(node.module, root) if node.level == 0 else inner(node.module, PRIVATE)
            if module is None:
                continue
            wanted.update(_with_parents(module))
            names = {alias.name for alias in node.names}
            wanted.update(m for name in names if (m := f"{module}.{name}".strip(".")) in sources)  # modules imported by name
            if module in sources:
                wanted |= optional_imports(module, names)
    return wanted


def closure(modules: set[str]) -> list[str]:
    """``modules`` and every runtime module they import, directly or not (sorted)."""
    seen: set[str] = set()
    todo = [m for start in modules for m in _with_parents(start)]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        if module not in runtime_sources():
            raise KeyError(f"generated code imports {PACKAGE}.{module}, which the runtime does not have")
        seen.add(module)
        todo.extend(imports_of(module) - seen)
    return sorted(seen)


def runtime_requirement() -> str:
    """The compatible-release range of the runtime a library-mode package depends on: at least
    the minor version it was generated with, below the next major (the next facade API)."""
    major, minor = RUNTIME_VERSION.split(".")[:2]
    return f"~={major}.{minor}"


def header(module: str) -> str:
    """The first line of one copied module: the runtime version and where it comes from."""
    return (f"# generated by mcp-codegen: copied verbatim from {PACKAGE} {RUNTIME_VERSION}"
            f" ({PACKAGE}/{module_path(module)}) — do not edit\n")


def private_modules(package: str, files: list[GeneratedFile],
                    outside: dict[str, set[str]] | None = None) -> list[str]:
    """The runtime modules of ``package``'s private copy: what ``files`` (its own modules) need,
    and what files outside it import from it (``outside``: runtime module -> names, e.g. the
    ``servers/`` tree of ``--layout agent`` importing ``agent_client`` from ``client.gencode``)."""
    wanted = imported_runtime_modules(files, f"{package}.{PRIVATE}")
    for module, names in (outside or {}).items():
        wanted |= {*_with_parents(module), *optional_imports(module, names)}
    return closure(wanted)


def render_private_runtime(package: str, modules: list[str]) -> list[GeneratedFile]:
    """The ``<package>/_runtime`` copy of ``modules`` (:func:`private_modules`)."""
    sources = runtime_sources()
    return [GeneratedFile(f"{package}/{PRIVATE}/{module_path(m)}", header(m) + sources[m], verbatim=True)
            for m in modules]


def private_packages(package: str, modules: list[str]) -> list[str]:
    """The Python packages of a private copy, as dotted names (for the package's pyproject)."""
    return [f"{package}.{PRIVATE}" + (f".{m}" if m else "") for m in modules if _is_package(m)]
