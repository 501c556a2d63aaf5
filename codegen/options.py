"""Build options that are not part of a spec: the flags of ``build``, ``check`` and ``pull``."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .ir.nodes import ProjectIR

TARGETS = ("server", "client", "both")
LAYOUTS = ("package", "agent")
#: ``--skill``: one Agent Skills folder per server, or one for the whole servers/ tree.
SKILLS = ("server", "tree")

#: Where a generated package's runtime comes from: the installed ``mcp-codegen-runtime``
#: distribution (``library``, the default) or a copy inside the package (``private``).
RUNTIMES = ("library", "private")
#: The runtime distribution's import name (what library-mode packages import; reserved, E033).
RUNTIME_PACKAGE = "mcp_codegen_runtime"
#: The folder of a package's private runtime copy (``build --private-runtime``: ``<package>._runtime``).
PRIVATE_RUNTIME = "_runtime"

#: Worker processes a build may use (spec workers, formatting workers, the second DCG half).
JOBS_ENV = "MCP_CODEGEN_JOBS"


def requested_jobs() -> int:
    """``$MCP_CODEGEN_JOBS`` as a number: 0 when unset (the CPUs and the load decide), 1 for
    a value that is not a whole number (no worker: the safe reading of a typo)."""
    try:
        return max(0, int(os.environ.get(JOBS_ENV, "0")))
    except ValueError:
        return 1


def may_fork() -> bool:
    """Whether this process may fork workers: not on Windows, not in a worker itself, not
    while another thread runs (a fork copies its locks in whatever state they are)."""
    return not (sys.platform == "win32" or threading.active_count() > 1
                or multiprocessing.parent_process() is not None)


@dataclass(frozen=True)
class Options:
    """``target`` overrides each spec's ``server.target`` (None keeps it); ``runtime``
    overrides each spec's ``server.runtime`` (``library``: import the installed
    ``mcp_codegen_runtime``; ``private``: copy the runtime modules the package imports into it);
    ``layout`` overrides each spec's ``server.layout`` (None keeps it); ``skill`` (agent layout)
    also writes Agent Skills folders, one per server or one for the tree."""

    target: str | None = None
    runtime: str | None = None
    layout: str | None = None
    skill: str | None = None

    def __post_init__(self) -> None:
        if self.target is not None and self.target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {self.target!r}")
        if self.runtime is not None and self.runtime not in RUNTIMES:
            raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, not {self.runtime!r}")
        if self.layout is not None and self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {self.layout!r}")
        if self.skill is not None and self.skill not in SKILLS:
            raise ValueError(f"skill must be one of {', '.join(SKILLS)}, not {self.skill!r}")

    def apply(self, ir: ProjectIR) -> ProjectIR:
        """``ir`` with these options in its server part."""
        server = replace(ir.server, target=self.target or ir.server.target, runtime=self.runtime or ir.server.runtime,
                         layout=self.layout or ir.server.layout, skill=self.skill)
        return replace(ir, server=server)

    def describe(self) -> str:
        """The options in words (``--verbose``)."""
        target = f"target {self.target}" if self.target else "each spec's target"
        layout = f", layout {self.layout}" if self.layout else ""
        skill = f", skill {self.skill}" if self.skill else ""
        runtime = f"{self.runtime} runtime" if self.runtime else "each spec's runtime"
        return f"{target}, {runtime}{layout}{skill}"

    def key(self) -> str:
        """What distinguishes results built with these options (cache and stamp keys)."""
        extra = (f";layout={self.layout}" if self.layout else "") + (f";skill={self.skill}" if self.skill else "")
        return f"target={self.target or ''};runtime={self.runtime or ''}{extra}"


DEFAULT = Options()
