"""Which files are specs: the paths given on the command line, expanded (folders one level deep)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..diagnostics import Diagnostic
from .sources import read_bytes

SPEC_SUFFIXES = (".yaml", ".yml", ".json")


def _looks_like_spec(path: Path) -> bool:
    try:
        head = read_bytes(path).decode("utf-8")[:4096]
    except (OSError, UnicodeDecodeError):
        return False
    return "mcp-codegen" in head


def discover(paths: Sequence[Path]) -> tuple[list[tuple[Path, str]], list[Diagnostic]]:
    """Spec files named by ``paths`` (files, or folders searched one level deep).

    Files in a folder that do not mention ``mcp-codegen`` are taken to be shared schema
    files (``$ref`` targets) and skipped.  Returns (path, display name) pairs.
    """
    found: list[tuple[Path, str]] = []
    diags: list[Diagnostic] = []
    for p in paths:
        if p.is_dir():
            for child in sorted(p.iterdir()):
                if child.suffix in SPEC_SUFFIXES and child.is_file() and _looks_like_spec(child):
                    found.append((child, f"{p.resolve().name}/{child.name}"))
        elif p.is_file():
            found.append((p, f"{p.resolve().parent.name}/{p.name}"))
        else:
            diags.append(Diagnostic(str(p), 0, 0, "E001", "no such file or folder", hint="check the path"))
    if not found and not diags:
        diags.append(Diagnostic(", ".join(map(str, paths)), 0, 0, "E052", "no spec files found",
                                hint="spec files are .yaml/.yml/.json files with a top-level `mcp-codegen: 1`"))
    return found, diags
