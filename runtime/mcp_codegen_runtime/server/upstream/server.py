"""The mixin that gives a generated server base class its upstream-calling handlers."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, ClassVar

from pydantic import BaseModel

from ...wire.content import ToolResult
from ...wire.tools import ToolDef
from .binding import HttpBinding, UpstreamDef


class UpstreamServer:
    """Mixed into a generated server base class whose tools call a REST API."""

    upstream: ClassVar[UpstreamDef]
    #: ``--upstream URL`` (set by :meth:`configure_upstream`); beats the environment and the spec.
    upstream_override: ClassVar[str | None] = None

    @classmethod
    def configure_upstream(cls, base_url: str | None) -> None:
        """Replace the upstream's base URL (path included) for every instance; ``None`` keeps it."""
        if base_url is not None:
            cls.upstream_override = base_url

    def call_upstream(self, tool: ToolDef, binding: HttpBinding, args: BaseModel, ctx: Any) -> Awaitable[ToolResult]:
        """Send ``args`` to the upstream as ``binding`` says and turn the answer into a result."""
        raise NotImplementedError("call_upstream")


__all__ = ["UpstreamServer"]
