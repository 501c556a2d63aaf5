"""A client-only private runtime copy is lean: just the closure of its imports, no optional feature it does not use."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = "# runtime-copy: optional"  # the documented marker of codegen/render/runtime_copy.py


def _build(out: Path, *extra: str) -> Path:
    subprocess.run([sys.executable, "-m", "codegen", "build", str(ROOT / "specs/weather.yaml"), "-o", str(out),
                    "--private-runtime", "--target", "client", *extra], check=True, capture_output=True)
    return out / "weather"


def _module(path: Path, top: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(top).with_suffix("").parts)
    package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if package else parts), package


def _closure(pkg: Path) -> set[str]:
    """The runtime modules the package's own files import, followed through every unmarked relative import."""
    top = pkg / "_runtime"
    have = {_module(p, top)[0] for p in top.rglob("*.py")}
    todo: list[str] = []
    for f in pkg.glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("weather._runtime"):
                todo.append(node.module.removeprefix("weather._runtime").lstrip("."))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 1 and node.module.startswith("_runtime"):
                todo.append(node.module.removeprefix("_runtime").lstrip("."))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        parts = name.split(".") if name else []
        for i in range(len(parts) + 1):  # a module and its packages
            m = ".".join(parts[:i])
            if m in seen:
                continue
            seen.add(m)
            folder = top / m.replace(".", "/") if m else top
            path = folder / "__init__.py" if folder.is_dir() else top / (m.replace(".", "/") + ".py")
            text = path.read_text()
            lines = text.splitlines()
            base = m.split(".") if m else []
            if path.name != "__init__.py":
                base = base[:-1]
            for node in ast.walk(ast.parse(text)):
                if not (isinstance(node, ast.ImportFrom) and node.level > 0):
                    continue
                if any(MARKER in line for line in lines[node.lineno - 1:node.end_lineno]):
                    continue
                b = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join([*b, *([node.module] if node.module else [])])
                todo.append(target)
                todo += [f"{target}.{a.name}".strip(".") for a in node.names if f"{target}.{a.name}".strip(".") in have]
    return seen


def test_a_client_only_copy_is_the_closure_of_its_imports_without_agent(tmp_path: Path) -> None:
    pkg = _build(tmp_path)
    top = pkg / "_runtime"
    copied = {_module(p, top)[0] for p in top.rglob("*.py")}
    assert copied == _closure(pkg)
    assert not (top / "client" / "agent").exists()
    # TODO (not done yet): client/oauth, client/tasks, client/skills are still imported by the core client
    code = "import weather, weather.client; from weather._runtime.client import gencode\n" \
           "try:\n    gencode.agent_client\nexcept ImportError as e:\n    assert 'client/agent/' in str(e)\n" \
           "else:\n    raise AssertionError('agent_client without client/agent/')\n"
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True)


def test_the_lean_copy_and_an_agent_layout_copy_pass_mypy_strict(tmp_path: Path) -> None:
    lean = _build(tmp_path / "lean")
    agent = _build(tmp_path / "agent", "--layout", "agent")
    assert (agent / "_runtime" / "client" / "agent" / "connect.py").is_file()
    for folder, targets in ((lean.parent, ["weather"]), (agent.parent, ["weather", "servers"])):
        done = subprocess.run([sys.executable, "-m", "mypy", "--strict", *targets], cwd=folder,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout
