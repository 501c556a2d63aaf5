"""A spec built into a package for ``mcp-codegen mock``, cached between runs.

The package goes to ``<cache>/mock/<hash of the spec's path>/`` (the build cache's folder,
:func:`codegen.output.cache.cache_dir`), built by the normal :func:`codegen.api.build` with
the server side and the installed runtime library: an unchanged spec is not generated again
(the build stamp answers at once).  With the caches turned off (``MCP_CODEGEN_NO_CACHE=1``) it
goes to a temporary folder removed at exit.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...diagnostics import Diagnostic
from ...options import Options
from ...output import cache


@dataclass
class MockPackage:
    """The built package (``base``: its server base class), or why there is none."""

    base: Any = None
    package: str = ""
    folder: Path | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)


def package_folder(spec: Path) -> Path:
    """Where the package of ``spec`` is built (see the module docstring)."""
    root = cache.cache_dir()
    if root is None:
        tmp = Path(tempfile.mkdtemp(prefix="mcp-codegen-mock-"))
        atexit.register(shutil.rmtree, tmp, True)
        return tmp
    key = hashlib.sha256(str(spec.resolve()).encode("utf-8")).hexdigest()[:20]
    return root / "mock" / key


def build_mock_package(spec: Path) -> MockPackage:
    """Build ``spec`` (cached) and import its server base class."""
    from ...api import build
    from ...output.emit import MANIFEST

    out = package_folder(spec)
    out.mkdir(parents=True, exist_ok=True)
    result, report = build([spec], out, None, load_files=False, options=Options(target="both", runtime="library"))
    if report is None or not result.ok:
        return MockPackage(diagnostics=result.diagnostics)
    names = sorted(p.parent.name for p in out.glob(f"*/{MANIFEST}")
                   if p.parent.name not in ("mcp_codegen_runtime", "servers", "skills"))
    found = [n for n in names if (out / n / "server.py").is_file()]
    if len(found) != 1:
        return MockPackage(diagnostics=[Diagnostic(str(spec), 0, 0, "E160",
                                                   f"the mock needs one server package; the build made {len(found)}")])
    package = found[0]
    sys.path.insert(0, str(out))
    module = importlib.import_module(f"{package}.server")
    from mcp_codegen_runtime.server.base import ServerBase

    bases = [v for v in vars(module).values()
             if isinstance(v, type) and issubclass(v, ServerBase) and v.__module__ == module.__name__]
    return MockPackage(base=bases[0], package=package, folder=out, diagnostics=result.diagnostics)
