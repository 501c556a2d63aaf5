"""``strategies.<tool>()`` of a generated package: the base of its ``Strategies`` class.

Each generated method returns ``self._arguments(TOOL, InputModel)``: the tool's Hypothesis
strategy (:func:`~testing.strategies.tool_arguments`), made once per tool.  Hypothesis is
imported on the first call only, so importing a package's ``testing`` module never needs it;
without it that call raises an :class:`ImportError` naming the ``pip install`` to run.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import BaseModel

from ..wire.tools import ToolDef

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy  # type: ignore[import-not-found, unused-ignore]  # optional: the testing extra

M = TypeVar("M", bound=BaseModel)

#: What Hypothesis strategies need beside the runtime.
REQUIREMENTS = ("hypothesis", "jsonschema")


def strategies_module() -> ModuleType:
    """:mod:`.strategies`, or an :class:`ImportError` naming what to install."""
    try:
        from . import strategies
    except ImportError as exc:
        missing = (exc.name or "").partition(".")[0]
        if missing not in REQUIREMENTS:
            raise
        raise ImportError(f"Hypothesis strategies of tool arguments need {missing}: pip install {' '.join(REQUIREMENTS)} "
                          "(or the generated package's testing extra)", name=exc.name) from exc
    return strategies


class ToolStrategies:
    """Hypothesis strategies of a server's tool arguments: one method per tool (generated)."""

    def __init__(self) -> None:
        self._made: dict[str, Any] = {}

    def _arguments(self, tool: ToolDef, model: type[M]) -> SearchStrategy[M]:
        """The strategy of ``tool``'s input models (``model``), made on first use."""
        made = self._made.get(tool.name)
        if made is None:
            made = self._made[tool.name] = strategies_module().tool_arguments(tool, model)
        return cast("SearchStrategy[M]", made)


__all__ = ["ToolStrategies", "strategies_module"]
