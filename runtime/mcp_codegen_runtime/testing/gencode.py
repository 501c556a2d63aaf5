"""The test side of the facade generated code imports (see :mod:`..gencode`): what a package's
``testing.py`` uses (a package generated with both its server and its client has one).

``Implementation`` and ``Scenario`` (annotations), :func:`implementation` and :func:`mock` (the
server a test talks to), :class:`ToolStrategies` (the base of ``strategies``) and
:func:`define_fixtures` (the pytest plugin).  ``SearchStrategy`` is Hypothesis' own class, for
annotations only (read under ``TYPE_CHECKING``: importing it imports Hypothesis).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .arguments import ToolStrategies
from .fixtures import define_fixtures
from .servers import Implementation, Scenario, implementation, mock

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy  # type: ignore[import-not-found, unused-ignore]  # optional: the testing extra


def __getattr__(name: str) -> Any:
    """``SearchStrategy``, from Hypothesis, when something reads it at run time."""
    if name == "SearchStrategy":
        from hypothesis.strategies import SearchStrategy

        return SearchStrategy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Implementation",
    "Scenario",
    "SearchStrategy",
    "ToolStrategies",
    "define_fixtures",
    "implementation",
    "mock",
]
