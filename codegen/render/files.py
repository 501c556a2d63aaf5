"""The record every stage after rendering passes on: one file of the output.

A shared leaf: it imports nothing of the generator.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The package data folder of a server's skills (``<package>/skill-files/<name>/...``): copied
#: as written, never formatted or compiled; a hyphen keeps it from ever being a Python package.
SKILL_FILES = "skill-files"


@dataclass(frozen=True)
class GeneratedFile:
    """A file of the output, path relative to the output folder (posix)."""

    path: str
    content: str
    verbatim: bool = False  # a runtime copy: compile-checked, never reformatted


#: Output folders whose subfolders each belong to one generator unit (the agent layout:
#: ``servers/<server>/``, ``skills/<skill>/``); files directly inside belong to the folder itself.
NESTED_OWNERS = ("servers", "skills")


def owner_folder(path: str) -> str:
    """The folder (relative to the output folder) whose manifest owns ``path``: the package
    folder, or ``servers/<server>`` / ``skills/<skill>`` in the agent layout."""
    parts = path.split("/")
    if parts[0] in NESTED_OWNERS and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0]
