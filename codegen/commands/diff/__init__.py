"""``mcp-codegen diff``: compatibility of two versions of MCP servers, per tool and per change.

Pipeline: :mod:`.sources` loads each side (spec paths, ``git:REV:PATH``, or a registered live
loader) into :class:`~.views.ServerView` s; :mod:`.classify` pairs servers and tools and
classifies each difference (using :mod:`.schema_compare` on the bundled wire schemas);
:mod:`.changes` holds the kinds, severities and ``--allow`` matching; :mod:`.report` renders.

Python API::

    from codegen.commands.diff import diff
    result = diff("git:main:specs", "specs", allow=[("get_weather", "input-required-added")])
    result.blocking  # breaking changes not allowed
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mcp_codegen_runtime.wire.tools import tool_fingerprint

from ...diagnostics import Diagnostic
from .changes import KINDS, Change, Severity, apply_allow, parse_allow
from .classify import diff_views
from .sources import Side, load_side, register_side_loader
from .views import ServerView, ToolView, view_from_ir, view_from_wire

__all__ = [
    "KINDS", "Change", "DiffResult", "ServerView", "Severity", "Side", "ToolView", "compare_views", "diff",
    "load_side", "parse_allow", "register_side_loader", "view_from_ir", "view_from_wire",
]


@dataclass
class DiffResult:
    """Everything one diff found.

    Attributes:
        old_label / new_label: the sides as given.
        changes: sorted changes (``allowed`` set where ``--allow`` covers them).
        diagnostics: problems loading either side (then ``changes`` is empty).
        fingerprints: ``server/tool`` -> ``{"old": sha256 | None, "new": sha256 | None}``.
        tool_keys: every (server, tool) present on either side.
    """

    old_label: str
    new_label: str
    changes: list[Change] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    fingerprints: dict[str, dict[str, str | None]] = field(default_factory=dict)
    tool_keys: list[tuple[str, str]] = field(default_factory=list)
    #: What a side assumed, not a failure (a live list answered with -32601, taken as empty).
    notes: list[str] = field(default_factory=list)

    @property
    def loaded(self) -> bool:
        """Both sides loaded without errors."""
        return not any(d.is_error for d in self.diagnostics)

    @property
    def blocking(self) -> list[Change]:
        return [c for c in self.changes if c.blocking]

    @property
    def ok(self) -> bool:
        """Loaded, and no breaking change that was not allowed."""
        return self.loaded and not self.blocking


def compare_views(old: Sequence[ServerView], new: Sequence[ServerView], old_label: str = "old", new_label: str = "new",
                  allow: Iterable[tuple[str, str]] = (), allow_all: bool = False) -> DiffResult:
    """Diff two already loaded sets of servers (use this to plug in pulled live servers).

    Args:
        old: servers as they were (what existing clients were built against).
        new: servers as they are now.
        old_label / new_label: names shown in reports.
        allow: ``(tool glob, kind glob or severity)`` pairs whose changes do not block.
        allow_all: no change blocks.
    """
    result = DiffResult(old_label, new_label)
    result.changes = apply_allow(diff_views(old, new), allow, allow_all)
    single = len({v.name for v in (*old, *new)}) == 1 or (len(old) == 1 and len(new) == 1)
    keys: set[tuple[str, str]] = set()
    for side, label in ((old, "old"), (new, "new")):
        for view in side:
            server = new[0].name if single and new else view.name
            keys.add((server, ""))
            for tool in view.tools.values():
                keys.add((server, tool.name))
                entry = result.fingerprints.setdefault(f"{server}/{tool.name}", {"old": None, "new": None})
                entry[label] = tool_fingerprint(tool.wire)
    result.fingerprints = dict(sorted(result.fingerprints.items()))
    result.tool_keys = sorted(keys)
    return result


def diff(old: str, new: str, cwd: Path | None = None, allow: Iterable[tuple[str, str]] = (),
         allow_all: bool = False) -> DiffResult:
    """Load both sides (``PATH`` or ``git:REV:PATH``) and classify every change.

    Returns:
        The result; when a side cannot be loaded, ``diagnostics`` say why and ``changes`` is empty.
    """
    a, b = load_side(old, cwd), load_side(new, cwd)
    if not (a.ok and b.ok):
        return DiffResult(old, new, diagnostics=a.diagnostics + b.diagnostics)
    result = compare_views(a.views, b.views, old, new, allow, allow_all)
    result.diagnostics = [d for d in a.diagnostics + b.diagnostics if d.is_error]
    result.notes = [f"{side.label}: {n}" for side in (a, b) for n in side.notes]
    return result
