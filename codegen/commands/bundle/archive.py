"""The ``.mcpb`` file: a deterministic zip of the staging folder, written atomically.

Deterministic: the entries are sorted by path, every one carries the same timestamp (the zip
format's earliest, 1980-01-01 00:00:00), the same permissions (``0644``, files only, no folder
entries) and the same compression (deflate, level 9), so the same staged bytes give the same
archive.  Atomic: the archive is written to a temporary file beside its destination and renamed
over it; on any failure the temporary file is removed and an existing bundle stays as it was."""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

#: The timestamp of every entry: the earliest a zip can store (no build time leaks in).
EPOCH = (1980, 1, 1, 0, 0, 0)
#: ``external_attr`` of every entry: a regular file, ``rw-r--r--``.
FILE_MODE = (0o100644 << 16)


def staged_files(root: Path) -> list[tuple[str, Path]]:
    """Every regular file under ``root`` as (posix path inside the archive, file), sorted by that
    path; symlinks are followed (pip never writes any, and an archive holds no links)."""
    found = [(p.relative_to(root).as_posix(), p) for p in root.rglob("*") if p.is_file()]
    return sorted(found)


def write_archive(root: Path, dest: Path) -> int:
    """Zip the files under ``root`` into ``dest`` (replaced atomically); returns the entry count.

    Raises:
        OSError: ``dest``'s folder cannot be written (nothing is left behind).
    """
    files = staged_files(root)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w") as archive:
            for name, path in files:
                info = zipfile.ZipInfo(name, EPOCH)
                info.external_attr = FILE_MODE
                info.create_system = 3  # Unix: the permissions above mean what they say everywhere
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, path.read_bytes(), compresslevel=9)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(files)
