"""Replacing one file atomically: write a temporary file beside it, then rename it over the
target, so a reader sees the old bytes or the new ones, never a mix (and a crash leaves the
old file).  Used for files the user owns (:func:`codegen.output.emit.write_text_file`) and for cache
entries; a whole generated tree is committed by :func:`codegen.output.emit.write_tree`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replace_file(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` newlines) to ``path`` atomically; the folder is created.

    Raises:
        OSError: the file could not be written (nothing is left behind).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
