"""Reading input files once per build.

Inside :func:`one_read_per_file` (``generate`` and ``build`` open one), the first read of a
file keeps its bytes and every later read — discovery, cache keys, the build stamp, the
loader, ``$ref`` targets — gets the same bytes.  So a spec saved while a build runs is seen
by that build as one consistent version (the next build sees the new one).  Outside such a
block every call reads the disk.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

_memo: ContextVar[dict[str, bytes] | None] = ContextVar("mcp_codegen_reads", default=None)


@contextmanager
def one_read_per_file() -> Iterator[None]:
    """Within the block, each file is read from disk at most once (nested blocks share it)."""
    if _memo.get() is not None:
        yield
        return
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


def read_bytes(path: Path) -> bytes:
    """The file's bytes (raises ``OSError`` like :meth:`pathlib.Path.read_bytes`)."""
    memo = _memo.get()
    if memo is None:
        return path.read_bytes()
    key = str(path.resolve())
    data = memo.get(key)
    if data is None:
        data = memo[key] = path.read_bytes()
    return data


def beside(base: Path, raw: Path | str) -> Path | None:
    """``raw`` (a path a spec names) resolved against ``base`` (the spec's resolved folder), or
    None when it leaves that folder: an absolute path, ``../`` out of it, a symlink out."""
    raw = Path(raw)
    target = (base / raw).resolve()
    return None if raw.is_absolute() or not target.is_relative_to(base) else target
