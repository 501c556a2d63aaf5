"""``build --verify-format``: black on every generated module, whole, as a check.

The writer emits most modules in black's style itself and black formats only what it flags
(:mod:`codegen.output.trust`).  This check does not rely on that: it runs black (the pinned
version and the one mode) on every generated ``.py`` file, the trusted ones included, and
names each file black would change.  The runtime, copied verbatim from the generator's own
sources, is not a generated module and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..options import PRIVATE_RUNTIME
from ..render.files import GeneratedFile


def generated_module(path: str) -> bool:
    """True for a generated ``.py`` module (``path`` relative to the output folder), not a runtime copy."""
    parts = path.split("/")
    return path.endswith(".py") and PRIVATE_RUNTIME not in parts[:-1]


def verify_format(files: Iterable[GeneratedFile]) -> list[str]:
    """Paths of the generated modules that black would change (empty: all in black's style)."""
    import black

    from .format import black_mode

    changed = []
    for f in files:
        if f.verbatim or not generated_module(f.path):
            continue
        try:
            same = black.format_str(f.content, mode=black_mode()) == f.content
        except black.InvalidInput:
            same = False
        if not same:
            changed.append(f.path)
    return sorted(changed)
