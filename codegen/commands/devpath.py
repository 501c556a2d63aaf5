"""Where ``mcp-codegen dev`` finds the implementation, and which files its server imported.

The server child runs from the folder ``dev`` was started in, with an absolute ``PYTHONPATH``:
that folder, the user's ``PYTHONPATH`` entries (made absolute against it), ``src/`` when there
is one, and the output folder.  So the implementation is found the way ``python -m`` finds it
from the project (a ``src/`` layout included), whatever the output folder is.

The child is started through :data:`BOOTSTRAP`, which runs ``python -m <package>`` and keeps
writing the list of the source files it imported (stdlib and site-packages left out) to the
file named by ``MCP_CODEGEN_DEV_REPORT`` (when it fails, the files of its traceback too, so
fixing a module whose import failed restarts it); dev restarts the server when one of them
changes, and not for other files.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Sequence
from pathlib import Path

REPORT_ENV = "MCP_CODEGEN_DEV_REPORT"

#: ``python -c BOOTSTRAP PACKAGE ARGS...``: serve ``python -m PACKAGE ARGS...`` and report its imports.
BOOTSTRAP = """\
import os, runpy, site, sys, sysconfig, threading, time

_path = os.environ.pop("MCP_CODEGEN_DEV_REPORT", "")
_lock = threading.Lock()
_last = [None]
_paths = sysconfig.get_paths()
_skip = {_paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in _paths}
_skip.update(site.getsitepackages() + [site.getusersitepackages()])
_skip = tuple(os.path.realpath(p) + os.sep for p in _skip if p)

def _write(extra=(), final=False):
    with _lock:
        if _last[0] is False:
            return
        files = {getattr(m, "__file__", None) for m in list(sys.modules.values())} | set(extra)
        files = sorted({os.path.realpath(f) for f in files if isinstance(f, str) and os.path.isfile(f)})
        files = [f for f in files if not f.startswith(_skip)]
        if files != _last[0]:
            with open(_path + ".tmp", "w", encoding="utf-8") as out:
                out.write("\\n".join(files))
            os.replace(_path + ".tmp", _path)
        _last[0] = False if final else files

def _poll():
    while True:
        try:
            _write()
        except Exception:
            pass
        time.sleep(0.2)

if _path:
    threading.Thread(target=_poll, daemon=True).start()
sys.argv = sys.argv[1:]
try:
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
except BaseException as exc:  # the files in the traceback too: fixing one of them restarts the server
    if _path:
        tb, extra = exc.__traceback__, [getattr(exc, "filename", None)]
        while tb is not None:
            extra.append(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
        _write(extra, final=True)
    raise
"""


def search_path(cwd: Path, pythonpath: str, out: Path) -> list[Path]:
    """The folders the server child imports from, in order (absolute, without repeats).

    Args:
        cwd: the folder ``dev`` was started in.
        pythonpath: the user's ``PYTHONPATH`` (relative entries are relative to ``cwd``).
        out: the output folder (the generated package, and the stub when one is written).
    """
    entries = [cwd, *(cwd / e for e in pythonpath.split(os.pathsep) if e)]
    if (cwd / "src").is_dir():
        entries.append(cwd / "src")
    entries.append(cwd / out)
    folders: list[Path] = []
    for entry in entries:
        folder = Path(os.path.abspath(entry))
        if folder not in folders:
            folders.append(folder)
    return folders


def module_candidates(module: str, folders: Sequence[Path]) -> tuple[Path | None, list[Path]]:
    """Where ``import module`` would find its file in ``folders``.

    Returns:
        (the file found, or None; the candidate files up to and including it: one appearing
        earlier on the path would be imported instead, so they are watched too).
    """
    parts = module.split(".")
    candidates: list[Path] = []
    for folder in folders:
        base = folder.joinpath(*parts)
        for path in (base.with_name(base.name + ".py"), base / "__init__.py"):
            candidates.append(path)
            if path.is_file():
                return path, candidates
    return None, candidates


def installed_module(module: str) -> Path | None:
    """The file of ``module``'s top-level package or module when this interpreter's own path
    (site-packages included) has it: an installed implementation is not replaced by a stub."""
    top = module.split(".")[0]
    try:
        spec = importlib.machinery.PathFinder.find_spec(top, [p for p in sys.path if p])
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin and spec.has_location else None


def read_report(path: Path) -> list[Path] | None:
    """The files the child reported importing, or None before its first report."""
    try:
        text = path.read_text("utf-8")
    except OSError:
        return None
    return [Path(line) for line in text.splitlines() if line]


def child_env(folders: Sequence[Path], report: Path) -> dict[str, str]:
    """The server child's environment: ours, with the absolute ``PYTHONPATH`` and the report file."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(f) for f in folders)
    env[REPORT_ENV] = str(report)
    return env
