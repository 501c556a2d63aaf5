"""Build options that are not part of a spec: the flags of ``build``, ``check`` and ``pull``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .ir.nodes import ProjectIR

TARGETS = ("server", "client", "both")

#: The top-level package ``build --shared-runtime`` writes once per output folder.
SHARED_RUNTIME = "mcp_codegen_runtime"


@dataclass(frozen=True)
class Options:
    """``target`` overrides each spec's ``server.target`` (None keeps it); ``shared_runtime``
    makes every package import one ``mcp_codegen_runtime`` package at the output folder's top."""

    target: str | None = None
    shared_runtime: bool = False

    def __post_init__(self) -> None:
        if self.target is not None and self.target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {self.target!r}")

    def apply(self, ir: ProjectIR) -> ProjectIR:
        """``ir`` with these options in its server part."""
        server = replace(ir.server, target=self.target or ir.server.target, shared_runtime=self.shared_runtime)
        return replace(ir, server=server)

    def describe(self) -> str:
        """The options in words (``--verbose``)."""
        target = f"target {self.target}" if self.target else "each spec's target"
        return f"{target}, {'shared' if self.shared_runtime else 'private'} runtime"

    def key(self) -> str:
        """What distinguishes results built with these options (cache and stamp keys)."""
        return f"target={self.target or ''};shared={int(self.shared_runtime)}"


DEFAULT = Options()
