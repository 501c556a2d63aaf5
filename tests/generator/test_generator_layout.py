"""The generator's shape (codegen/; the runtime is its own distribution, runtime/): folders in
pipeline order, each importing only the folders before it plus the shared leaves; no import
cycle, package ``__init__`` modules included; no module over 400 lines; a concern of several
modules is a subpackage (``commands/pull/``, ``commands/cli/``, ``ir/naming/``), not a family of
flat modules sharing a ``prefix_``.

The import graph is read with :mod:`ast` from the sources (every import statement, at module
level, inside functions and under ``TYPE_CHECKING`` alike), so a lazy back-edge counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODEGEN = ROOT / "codegen"
MAX_LINES = 400

#: The stages, in pipeline order: a module of a stage may import its own stage and the ones before it.
STAGES = ("spec", "schemas", "ir", "models", "render", "output", "driver", "commands")
#: Top-level modules: ``api`` drives every stage but the commands; ``__main__`` runs the CLI;
#: the package ``__init__`` re-exports ``api`` lazily.
TOP = {"codegen.api": set(STAGES) - {"commands"}, "codegen.__main__": {"commands"}, "codegen": {"codegen.api"}}
#: Shared leaves: any module may import them; they import nothing of the generator but other
#: leaves (and the runtime, which never imports the generator).
LEAVES = {
    "codegen._version",
    "codegen.diagnostics",
    "codegen.options",
    "codegen.spec.pointer",
    "codegen.ir.nodes",
    "codegen.ir.naming.core",
    "codegen.ir.naming.models",
    "codegen.render.files",
    "codegen.render.blackstyle",
}
#: Subpackages whose ``__init__`` holds only its docstring (checked below): importing a module
#: inside runs nothing else.  ``cli``: the console script's fast path must not load typer;
#: ``pull``: ``pull/spawn.py`` starts the server before the heavy imports; ``naming``: its
#: ``core`` and ``models`` are leaves.
BARE_PACKAGES = {"codegen.commands.cli", "codegen.commands.pull", "codegen.ir.naming"}
#: A stage's package ``__init__`` holds only its docstring (checked below), so importing a leaf
#: inside a stage folder runs nothing of that stage.
SHARED = LEAVES | {f"codegen.{stage}" for stage in STAGES} | {"codegen.ir.naming"}
#: A family: ``X.py`` and ``X_*.py`` side by side; from this many on, it must be a subpackage ``X/``.
MAX_FAMILY = 3


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(CODEGEN.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The generator modules ``name`` imports, each with the package ``__init__`` modules that
    importing it runs (those of packages ``name`` is not itself inside)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            targets = [module, *(f"{module}.{a.name}" for a in node.names)]
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                inside = name == prefix or name.startswith(prefix + ".")
                if prefix in MODULES and prefix != name and not (inside and prefix != target):
                    found.add(prefix)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES else None


def test_every_stage_is_a_folder_with_its_concern_in_one_line() -> None:
    for stage in STAGES:
        init = CODEGEN / stage / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text("utf-8")))
        assert doc and "\n" not in doc.strip(), f"{stage}/__init__.py: one-line docstring"
        assert ast.parse(init.read_text("utf-8")).body[1:] == [], f"{stage}/__init__.py imports nothing"
    top = sorted(p.name for p in CODEGEN.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "_version.py", "api.py", "diagnostics.py", "options.py"]
    assert sorted(p.name for p in CODEGEN.iterdir() if p.is_dir() and (p / "__init__.py").exists()) == sorted(STAGES)


def test_every_subpackage_names_its_concern() -> None:
    """Each folder inside a stage is a package whose docstring says what it holds; the bare ones
    (:data:`BARE_PACKAGES`) import nothing."""
    folders = [p for stage in STAGES for p in sorted((CODEGEN / stage).rglob("*"))
               if p.is_dir() and p.name != "__pycache__" and any(p.glob("*.py"))]
    assert folders, "no subpackage found"
    for folder in folders:
        init = folder / "__init__.py"
        assert init.exists(), f"{folder.relative_to(ROOT)}: a package"
        assert ast.get_docstring(ast.parse(init.read_text("utf-8"))), f"{init.relative_to(ROOT)}: a docstring"
    for name in BARE_PACKAGES:
        assert MODULES[name].name == "__init__.py", name
        assert ast.parse(MODULES[name].read_text("utf-8")).body[1:] == [], f"{name}: imports nothing"


def _families(stems: list[str]) -> dict[str, list[str]]:
    """The families of :data:`MAX_FAMILY` or more modules among one folder's module ``stems``:
    ``X`` with every ``X_*`` beside it (``pull``, ``pull_read``, ``pull_emit`` ...)."""
    found: dict[str, list[str]] = {}
    for prefix in sorted({stem.lstrip("_").split("_")[0] for stem in stems}):
        members = [s for s in stems if s.lstrip("_") == prefix or s.lstrip("_").startswith(prefix + "_")]
        if prefix and len(members) >= MAX_FAMILY:
            found[prefix] = members
    return found


def test_no_folder_has_a_family_of_flat_modules() -> None:
    """``pull.py`` + ``pull_read.py`` + ``pull_emit.py`` ...: one concern, so one subpackage ``pull/``."""
    bad = {}
    for folder in sorted({CODEGEN, *(p.parent for p in CODEGEN.rglob("*.py"))}):
        stems = sorted(p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "__main__"))
        for prefix, members in _families(stems).items():
            bad[f"{folder.relative_to(ROOT)}/{prefix}_*"] = members
    assert not bad, f"make each family a subpackage: {bad}"


def test_no_module_over_400_lines() -> None:
    long = {n: len(p.read_text("utf-8").splitlines()) for n, p in MODULES.items()}
    assert not {n: c for n, c in long.items() if c > MAX_LINES}


def test_leaves_import_only_leaves() -> None:
    assert LEAVES <= set(MODULES)
    bad = [f"{m} -> {t}" for m in LEAVES for t in GRAPH[m] if t not in SHARED]
    assert not bad, bad


def test_stages_import_only_earlier_stages_and_leaves() -> None:
    bad = []
    for module, targets in GRAPH.items():
        if module in LEAVES:
            continue
        stage = _stage(module)
        allowed = set(STAGES[: STAGES.index(stage) + 1]) if stage else TOP[module]
        for target in targets:
            if target in SHARED or target == "codegen":
                continue
            if target == "codegen.api" and stage == "commands":
                continue
            if _stage(target) not in allowed and target not in allowed:
                bad.append(f"{module} -> {target}")
    assert not bad, bad


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (its modules, the first repeated at the end), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                return [*stack[stack.index(t):], t]
            if not state.get(t) and (found := visit(t)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if not state.get(m) and (found := visit(m)):
            return found
    return None


def test_no_import_cycles() -> None:
    cycle = _cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checks_can_fail() -> None:
    """The graph sees relative, lazy and package-``__init__`` edges (what the checks rely on)."""
    assert "codegen.driver.pipeline" in GRAPH["codegen.api"]  # module level, relative
    assert "codegen.output.emit" in GRAPH["codegen.api"]  # inside a function
    assert "codegen.commands" in GRAPH["codegen.__main__"]  # the package __init__ importing runs
    assert "codegen.api" in GRAPH["codegen"]  # under TYPE_CHECKING
    assert "codegen.spec" not in GRAPH["codegen.spec.load"]  # a module inside its package: no edge to it
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    # the flat layout the commands folder had: pull + 10 pull_* modules, cli + 3 cli_* modules
    flat = ["cli", "cli_app", "cli_pull", "cli_sync", "config", "pull", "pull_read", "pull_emit", "trust", "trust_dcg"]
    assert _families(flat) == {"cli": ["cli", "cli_app", "cli_pull", "cli_sync"], "pull": ["pull", "pull_read", "pull_emit"]}
    assert _families(["naming", "naming_agent", "naming_models"]) == {"naming": ["naming", "naming_agent", "naming_models"]}
    assert _families(["schema_compare", "schema_facts", "report"]) == {}  # two are not a family
    assert "codegen.commands.pull.spawn" in GRAPH["codegen.commands.cli.entry"]  # lazy, two levels up
    # the cycle this layout removed: the package __init__ (for the API, under TYPE_CHECKING) ->
    # api -> ... -> render.lockfile -> the package __init__ (for __version__)
    assert _cycle({**GRAPH, "codegen.render.lockfile": GRAPH["codegen.render.lockfile"] | {"codegen"}})
