"""The bundle's contents, laid out in a staging folder as MANIFEST.md's Python layout has them:

    manifest.json        (written by :mod:`.manifest`)
    icon.png             the spec's local PNG icon, if any
    server/main.py       the entry point: imports the package's ``__main__`` and runs it
    server/<impl>.py     the implementation module (or package folder) beside the spec
    server/lib/          the generated package (private runtime) and its dependencies (pip --target)

Dependencies are installed with ``pip install --target`` by the interpreter the bundle is for,
binary wheels only (``--only-binary :all:``: no compiler, no build step whose output could differ),
then cleaned of what would make two builds differ or that nothing runs: ``__pycache__`` folders,
``bin/`` (console scripts whose first line names the builder's interpreter) and
``direct_url.json``."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...render.files import GeneratedFile
from .manifest import ENTRY_POINT, LIB

#: Suffixes of native extension modules: a bundle holding one runs on its build platform only.
NATIVE_SUFFIXES = (".so", ".pyd", ".dylib")

ENTRY_TEMPLATE = '''\
"""Entry point of the MCP bundle of {name} {version} (written by mcp-codegen bundle; do not edit).

The host runs it as manifest.json's server.mcp_config says: python server/main.py {args}, with
PYTHONPATH={lib} (the package {package}, its runtime and its dependencies)."""

import sys

try:
    from {package}.__main__ import cli
except ImportError as exc:
    sys.exit(f"{name}: cannot import the server package {package} ({{exc}}); {lib} must be on PYTHONPATH "
             "(manifest.json's mcp_config sets it) and the interpreter must match the bundle's "
             "compatibility.runtimes.python")

cli()
'''


@dataclass(frozen=True)
class Interpreter:
    """The Python the bundle is built for: its version and ``sys.platform``."""

    executable: str
    version: tuple[int, int]
    platform: str


class StageError(Exception):
    """A step failed; the message says what and how to fix it."""


def probe(executable: str) -> Interpreter:
    """Ask ``executable`` for its version and platform."""
    code = "import sys, json; print(json.dumps([list(sys.version_info[:2]), sys.platform]))"
    try:
        proc = subprocess.run([executable, "-c", code], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        raise StageError(f"cannot run the interpreter {executable}: {exc}") from None
    if proc.returncode != 0:
        raise StageError(f"the interpreter {executable} failed: {proc.stderr.strip()[-500:]}")
    (major, minor), platform = json.loads(proc.stdout)
    return Interpreter(executable, (major, minor), platform)


def write_package(files: Sequence[GeneratedFile], lib: Path) -> None:
    """The generated package (what ``build`` writes) into ``lib``."""
    for f in files:
        path = lib / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f.content.encode("utf-8"))


def write_entry(root: Path, name: str, version: str, package: str, args: Sequence[str]) -> None:
    text = ENTRY_TEMPLATE.format(name=name, version=version, package=package, args=" ".join(args), lib=LIB)
    path = root / ENTRY_POINT
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def find_module(module: str, folders: Sequence[Path]) -> Path | None:
    """The file (``a.py``) or package folder (``a/``) of ``module``'s top-level name in the first
    of ``folders`` holding it."""
    top = module.split(".")[0]
    for folder in folders:
        if (folder / f"{top}.py").is_file():
            return folder / f"{top}.py"
        if (folder / top / "__init__.py").is_file():
            return folder / top
    return None


def copy_implementation(source: Path, server: Path) -> None:
    """The implementation module or package into ``server/`` (beside the entry point, which is
    on ``sys.path`` first), without byte-code caches."""
    if source.is_file():
        shutil.copyfile(source, server / source.name)
        return
    shutil.copytree(source, server / source.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def vendor(interpreter: Interpreter, requirements: Sequence[str], lib: Path, *, cache: Path | None,
           constraints: Path | None) -> None:
    """``pip install --target lib REQUIREMENTS`` with ``interpreter``, then clean ``lib``.

    Raises:
        StageError: pip failed (its last lines of output say why).
    """
    if not requirements:
        return
    cmd = [interpreter.executable, "-m", "pip", "install", "--target", str(lib), "--only-binary", ":all:",
           "--no-compile", "--disable-pip-version-check", "--no-input", "--quiet"]
    if cache is not None:
        cmd += ["--cache-dir", str(cache)]
    if constraints is not None:
        cmd += ["--constraint", str(constraints)]
    try:
        proc = subprocess.run([*cmd, *requirements], capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StageError(f"pip could not run: {exc}") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-6:])
        raise StageError(f"pip install of {' '.join(requirements)} failed:\n{tail}")
    clean(lib)


def clean(lib: Path) -> None:
    """Remove from ``lib`` what differs between two builds and that nothing imports."""
    shutil.rmtree(lib / "bin", ignore_errors=True)
    for cache in sorted(lib.rglob("__pycache__"), reverse=True):
        shutil.rmtree(cache, ignore_errors=True)
    for record in lib.glob("*.dist-info/direct_url.json"):
        record.unlink()


def has_native(lib: Path) -> bool:
    """Whether ``lib`` holds a native extension module (the bundle is then platform-specific)."""
    return any(p.suffix in NATIVE_SUFFIXES or ".so." in p.name for p in lib.rglob("*") if p.is_file())
