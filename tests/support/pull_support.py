"""Support for the pull tests: the npm servers, the CLI, and importing generated packages."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "generated_examples"
NPM_SCRIPT = REPO / "scripts" / "npm-servers"
#: Set to 1 to skip (instead of fail) the npm-server tests on a machine without Node.js.
SKIP_NPM_ENV = "MCP_CODEGEN_SKIP_NPM_TESTS"


def npm_servers() -> dict[str, list[str]]:
    """Install (cached) the pinned npm servers; their stdio command lines by short name.

    Fails the test when Node.js/npm are missing, unless ``MCP_CODEGEN_SKIP_NPM_TESTS=1``.
    """
    if shutil.which("npm") is None or shutil.which("node") is None:
        if os.environ.get(SKIP_NPM_ENV) == "1":
            pytest.skip("Node.js/npm not on PATH")
        pytest.fail(f"Node.js 20+ and npm are needed for the npm-server tests (or set {SKIP_NPM_ENV}=1)")
    proc = subprocess.run([str(NPM_SCRIPT)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"scripts/npm-servers failed:\n{proc.stderr}"
    modules = Path(proc.stdout.strip().splitlines()[-1]) / "node_modules" / "@modelcontextprotocol"
    node = shutil.which("node") or "node"
    return {
        "everything": [node, str(modules / "server-everything" / "dist" / "index.js"), "stdio"],
        "filesystem": [node, str(modules / "server-filesystem" / "dist" / "index.js")],
        "everything-2024": [node, str(modules.parent / "server-everything-2024" / "dist" / "index.js")],
    }


def cli(*args: str, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``mcp-codegen ARGS`` in a subprocess."""
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


@contextmanager
def imported(root: Path, package: str) -> Iterator[dict[str, ModuleType]]:
    """Import ``package.client``/``models``/``tools`` from ``root``; forgotten again afterwards."""
    assert package not in sys.modules, f"{package} is already imported"
    sys.path.insert(0, str(root))
    try:
        mods = {name: importlib.import_module(f"{package}.{name}") for name in ("client", "models", "tools")}
        yield mods
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


def pypi_server(name: str) -> Path:
    """Install (cached) the pinned PyPI server ``name`` in its own venv (scripts/pypi-servers);
    the path of its console script."""
    proc = subprocess.run([str(REPO / "scripts" / "pypi-servers")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"scripts/pypi-servers failed:\n{proc.stderr}"
    script = Path(proc.stdout.strip().splitlines()[-1]) / name / "bin" / name
    assert script.is_file(), f"scripts/pypi-servers did not install {name}"
    return script
