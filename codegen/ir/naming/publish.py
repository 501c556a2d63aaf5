"""The names of a published package: its PyPI project (the MCP Registry's ``identifier``)."""

from __future__ import annotations


def pypi_name(package: str) -> str:
    """The PyPI project of a package published to the MCP Registry when the spec names none
    (``registry.pypi``): the package name with ``_`` as ``-`` (``uvx <it>`` runs the console
    script of the same name)."""
    return package.replace("_", "-").strip("-") or package
