"""A loaded spec's values as JSON data: what a YAML or JSON parser gives that JSON cannot carry.

* Strings: escaped UTF-16 surrogate pairs (YAML ``\\ud83d\\ude00``) are joined; a lone surrogate
  left over is not Unicode (E004).
* Numbers: NaN, infinities and numbers beyond the float range (JSON ``NaN``/``Infinity``/``1e400``,
  YAML ``.nan``/``.inf``) are not JSON numbers (E007); they are kept as their text, so that the
  checks after loading never meet them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..diagnostics import Diagnostic
from .pointer import join_pointer

#: ``SourceDoc.diag``: (code, message, pointer, hint) -> a located diagnostic.
Diag = Callable[..., Diagnostic]


def _number_text(value: float) -> str:
    return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"


def _fix_surrogates(text: str) -> str:
    """Join UTF-16 surrogate pairs; lone ones stay."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


def json_problems(data: Any, diag: Diag) -> tuple[Any, list[Diagnostic]]:
    """``data`` repaired (surrogate pairs joined, non-finite numbers as their text) and what is
    still wrong with it (E004, E007), located by ``diag``."""
    out: list[Diagnostic] = []

    def fix(value: Any, pointer: str) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            out.append(diag("E007", f"{_number_text(value)} is not a JSON number", pointer,
                            hint="write a finite number (at most about 1.8e308), or leave the keyword out"))
            return _number_text(value)
        if isinstance(value, str):
            if any("\ud800" <= c <= "\udfff" for c in value):
                value = _fix_surrogates(value)
                if any("\ud800" <= c <= "\udfff" for c in value):
                    out.append(diag("E004", "string contains a lone UTF-16 surrogate (not valid Unicode)", pointer,
                                    hint="write the character itself, or a complete \\uD8xx\\uDCxx pair"))
            return value
        if isinstance(value, list):
            return [fix(v, join_pointer(pointer, i)) for i, v in enumerate(value)]
        if isinstance(value, dict):
            return {fix(k, join_pointer(pointer, k)): fix(v, join_pointer(pointer, k)) for k, v in value.items()}
        return value

    return fix(data, ""), out


__all__ = ["json_problems"]
