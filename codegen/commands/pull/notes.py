"""What ``mcp-codegen pull`` changed in a live server's lists: one :class:`Note` per change
(written into the pulled spec as comments, W102/W104 warnings besides)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: Code of a note that is only written as a comment (no loss, no warning).
INFO = "info"


@dataclass(frozen=True, order=True)
class Note:
    """One change pull made.  ``pointer`` is relative to the tool entry (spec-absolute when
    ``tool`` is empty); ``code`` is W102, W104 or :data:`INFO`."""

    tool: str
    pointer: str
    code: str
    message: str


def short(value: Any, limit: int = 60) -> str:
    """``value`` as JSON, cut to ``limit`` characters (for a note's message)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."
