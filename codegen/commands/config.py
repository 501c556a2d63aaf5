"""Configuration: ``[tool.mcp-codegen]`` in the nearest pyproject.toml, overridden by flags.

Two layers: :class:`ConfigFile` mirrors what a user may write; :func:`resolve` turns it plus
command-line values into the frozen :class:`Config` the commands use.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..options import Options


@dataclass(frozen=True)
class ConfigFile:
    """The ``[tool.mcp-codegen]`` table, validated (:func:`_validated`)."""

    specs: list[str] | str | None = None
    output: str | None = None
    target: Literal["server", "client", "both"] | None = None
    runtime: Literal["library", "private"] | None = None
    docs: str | None = None  # output folder of `mcp-codegen docs`


_PLAIN: dict[str, tuple[str, Callable[[object], bool]]] = {
    "specs": ("specs", lambda v: type(v) is str or (type(v) is list and all(type(s) is str for s in v))),
    "output": ("output", lambda v: type(v) is str),
    "target": ("target", lambda v: v in ("server", "client", "both") and type(v) is str),
    "runtime": ("runtime", lambda v: v in ("library", "private") and type(v) is str),
    "docs": ("docs", lambda v: type(v) is str),
}


def _plain(table: object) -> ConfigFile | None:
    """The table when every key is known and every value has exactly its declared type (what
    pydantic accepts unchanged), read without pydantic; else None (pydantic decides)."""
    if type(table) is not dict:
        return None
    fields: dict[str, object] = {}
    for key, value in table.items():
        known = _PLAIN.get(key)
        if known is None or known[0] in fields or not known[1](value):
            return None
        fields[known[0]] = list(value) if type(value) is list else value
    return ConfigFile(**fields)  # type: ignore[arg-type]


def _validated(table: object) -> ConfigFile:
    """The table: read directly when it is plainly typed (:func:`_plain`), else checked by a
    pydantic model (imported only then: a build with a plain ``[tool.mcp-codegen]`` or none,
    like most no-op rebuilds, never imports pydantic).

    Raises:
        pydantic.ValidationError: a key that does not exist, a value of the wrong type.
    """
    plain = _plain(table)
    return plain if plain is not None else _validated_by_pydantic(table)


def _validated_by_pydantic(table: object) -> ConfigFile:
    """The table checked by a pydantic model (a key that does not exist or a value of the wrong
    type is refused; ``shared-runtime`` of earlier versions with a message saying what replaces it)."""
    from pydantic import BaseModel, ConfigDict

    class Table(BaseModel):
        model_config = ConfigDict(extra="forbid")
        specs: list[str] | str | None = None
        output: str | None = None
        target: Literal["server", "client", "both"] | None = None
        runtime: Literal["library", "private"] | None = None
        docs: str | None = None

    if isinstance(table, dict) and ("shared-runtime" in table or "shared_runtime" in table):
        raise ValueError("shared-runtime is gone: generated packages import the installed mcp-codegen-runtime by default;"
                         ' write runtime = "private" for a copy of the runtime inside each package instead')
    t = Table.model_validate(table)
    return ConfigFile(t.specs, t.output, t.target, t.runtime, t.docs)


DEFAULT_DOCS = "docs/reference"


def docs_defaults(specs: list[Path] | None, output: Path | None, cwd: Path) -> tuple[list[Path], Path, str | None]:
    """Spec paths and output folder of ``mcp-codegen docs``: flags, else ``specs`` and ``docs``
    of ``[tool.mcp-codegen]``, else ``docs/reference`` (relative to the pyproject, or ``cwd``)."""
    cfg, root, error = load_config_file(cwd)
    base = root or cwd
    if error:
        return [], Path(), error
    if not specs:
        raw = cfg.specs or []
        specs = [base / s for s in ([raw] if isinstance(raw, str) else raw)]
    if not specs:
        return [], Path(), "no spec paths given and no [tool.mcp-codegen] specs default in pyproject.toml"
    return specs, output or base / (cfg.docs or DEFAULT_DOCS), None


@dataclass(frozen=True)
class Config:
    specs: tuple[Path, ...]
    output: Path
    source: str  # where the defaults came from (for messages)
    options: Options = Options()


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config_file(start: Path) -> tuple[ConfigFile, Path | None, str | None]:
    """Read the table; returns (config, the pyproject's folder, an error message or None)."""
    path = find_pyproject(start)
    if path is None:
        return ConfigFile(), None, None
    try:
        table = tomllib.loads(path.read_text("utf-8")).get("tool", {}).get("mcp-codegen", {})
        return (_validated(table) if table != {} else ConfigFile()), path.parent, None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        return ConfigFile(), path.parent, f"{path}: [tool.mcp-codegen] is invalid: {exc}"
    except ValueError as exc:  # pydantic's ValidationError
        return ConfigFile(), path.parent, f"{path}: [tool.mcp-codegen] is invalid: {exc}"


def resolve(specs: list[Path] | None, output: Path | None, cwd: Path, *, target: str | None = None,
            runtime: str | None = None, layout: str | None = None,
            skill: str | None = None) -> tuple[Config | None, str | None]:
    """Merge flags over the pyproject defaults (paths in pyproject are relative to it)."""
    cfg, root, error = load_config_file(cwd)
    if error:
        return None, error
    base = root or cwd
    if not specs:
        raw = cfg.specs or []
        specs = [base / s for s in ([raw] if isinstance(raw, str) else raw)]
    if output is None and cfg.output:
        output = base / cfg.output
    if not specs:
        return None, "no spec paths given and no [tool.mcp-codegen] specs default in pyproject.toml"
    if output is None:
        return None, "no output folder given (-o OUT) and no [tool.mcp-codegen] output default in pyproject.toml"
    options = Options(target or cfg.target, runtime or cfg.runtime, layout, skill)
    source = str(root / "pyproject.toml") if root else "flags"
    return Config(specs=tuple(specs), output=output, source=source, options=options), None
