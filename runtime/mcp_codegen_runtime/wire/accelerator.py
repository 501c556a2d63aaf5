"""The native accelerator switch: whether the generated package's ``fast`` extra (``orjson``
and ``jsonschema-rs``) is used in this process.

It is used when both are importable, unless ``MCP_CODEGEN_ACCELERATOR`` is ``off`` (also
``0``, ``false``, ``no``).  Without it, every message takes the pure-Python path; with it,
only where the native answer is the pure path's by construction (see :mod:`wire.fastjson`
and :mod:`schema.accel`).  The extra also brings ``uvloop``: :func:`loop_factory` gives its
event loop to the servers (stdio, and uvicorn's for HTTP) under the same switch, and ``httptools``:
:func:`http_parser` gives uvicorn its C HTTP parser.  :func:`set_enabled` switches it at run time (tests run both paths).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

_OFF = {"off", "0", "false", "no"}
_state: dict[str, Any] = {}


def _importable(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def module(name: str) -> Any:
    """The native module ``name`` (``orjson``, ``jsonschema_rs``) when the accelerator is on
    and both are installed, else None (imported on first use)."""
    if "on" not in _state:
        wanted = _wanted()
        libs = {n: _importable(n) for n in ("orjson", "jsonschema_rs")} if wanted else {}
        _state["on"] = wanted and all(libs.values())
        _state["libs"] = libs
        for hook in _state.get("hooks", ()):
            hook()
    return _state["libs"].get(name) if _state["on"] else None


def _wanted() -> bool:
    return os.environ.get("MCP_CODEGEN_ACCELERATOR", "").strip().lower() not in _OFF


def loop_factory() -> Callable[[], Any] | None:
    """``uvloop.new_event_loop`` when uvloop is installed and the accelerator is not switched
    off (``MCP_CODEGEN_ACCELERATOR``), else None: the standard event loop.  uvloop runs the
    same asyncio code (tasks, timeouts, pipes, sockets) with its scheduling and I/O in C;
    read once per process, when a server starts."""
    if not _wanted():
        return None
    uvloop = _importable("uvloop")
    return getattr(uvloop, "new_event_loop", None)


def http_parser() -> str:
    """uvicorn's HTTP/1.1 parser: ``httptools`` (the extra's C parser, llhttp) when installed and
    the accelerator is not switched off, else ``h11`` (pure Python; what uvicorn falls back to).
    Both give the application the same requests; read once per process, when a server starts."""
    return "httptools" if _wanted() and _importable("httptools") is not None else "h11"


def enabled() -> bool:
    """Whether the accelerator is in use."""
    module("orjson")
    return bool(_state["on"])


def set_enabled(flag: bool) -> bool:
    """Use the accelerator (when installed) or not from now on; returns whether it is in use."""
    hooks = _state.get("hooks", [])
    _state.clear()
    _state["hooks"] = hooks
    if not flag:
        _state["on"], _state["libs"] = False, {}
        for hook in hooks:
            hook()
        return False
    return enabled()


def on_change(hook: Any) -> None:
    """Call ``hook()`` whenever the choice is made again (caches keyed on it reset)."""
    _state.setdefault("hooks", []).append(hook)
