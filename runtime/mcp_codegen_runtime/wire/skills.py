"""The Skills extension (SEP-2640), the parts both sides share: the skill tables a generated
server carries, digests, skill URIs and the frontmatter reader.

A skill is a folder with a ``SKILL.md`` (YAML frontmatter with at least ``name`` and
``description``, then Markdown) and its files.  A server declaring the extension
(``capabilities.extensions["io.modelcontextprotocol/skills"]``, 2026-07-28) answers
``skills/list`` and ``skills/get`` with *entries*::

    {"uri": "skill://pdf-processing/SKILL.md",
     "frontmatter": {"name": "pdf-processing", "description": "..."},
     "resources": [{"uri": "skill://pdf-processing/SKILL.md", "digest": "sha256:<hex>", "size": 123}, ...]}

and serves the files through ``resources/read`` (and ``resources/directory/read``).  A client
fetches a file only when it needs it and checks its size and digest against the entry (and, for
``SKILL.md``, the frontmatter) before using it.

:func:`parse_frontmatter` reads the frontmatter subset the generator accepts (``key: value``
lines with plain or quoted strings, and one level of nested string maps such as
``metadata``), without a YAML library; anything else is :class:`FrontmatterError`.  The
generator refuses, at build time, a ``SKILL.md`` this reader and a YAML parser disagree on.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

#: The extension's identifier (the key under ``capabilities.extensions``).
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
SKILL_SCHEME = "skill://"
SKILL_FILE = "SKILL.md"
#: ``mimeType`` of a folder in ``resources/directory/read``.
DIRECTORY_MIME = "inode/directory"
#: What a server should not exceed per skill (the extension's limits): entries and bytes.
MAX_SKILL_FILES = 512
MAX_SKILL_BYTES = 16 * 1024 * 1024
#: Agent Skills naming rule: 1-64 of a-z 0-9 and hyphens, no leading, trailing or double hyphen.
SKILL_NAME = re.compile(r"(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
#: ``mimeType`` of a skill file by suffix (a fixed table: the same on every machine); else text/plain.
MIME_TYPES = {
    ".md": "text/markdown", ".txt": "text/plain", ".py": "text/x-python", ".sh": "text/x-shellscript",
    ".json": "application/json", ".yaml": "application/yaml", ".yml": "application/yaml",
    ".toml": "application/toml", ".csv": "text/csv", ".html": "text/html", ".xml": "application/xml",
    ".js": "text/javascript", ".ts": "text/x-typescript", ".css": "text/css",
}

_FRONTMATTER = re.compile(r"---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)")
_KEY = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./-]*):(?:[ \t]+(.*?))?[ \t]*")
#: Plain scalars YAML reads as something other than a string (null, booleans, numbers, dates).
_NOT_A_STRING = re.compile(
    r"(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF"
    r"|[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    r"|0[xob][0-9a-fA-F_]+|[0-9]+(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?)"
)


class FrontmatterError(ValueError):
    """A ``SKILL.md`` without a frontmatter block this reader understands (``line``: 1-based,
    within the file; 0 when the block itself is missing)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class SkillFileDef:
    """One file of a skill: its path inside the skill folder, digest and size (computed at build time)."""

    path: str
    digest: str
    size: int


@dataclass(frozen=True)
class SkillDef:
    """One skill a generated server serves (``skills.py``); its files are package data."""

    name: str
    frontmatter: dict[str, Any]
    files: tuple[SkillFileDef, ...]

    @property
    def uri(self) -> str:
        """The ``skill://<name>/SKILL.md`` URI that names the skill."""
        return skill_uri(self.name, SKILL_FILE)


def skill_uri(name: str, path: str = "") -> str:
    """``skill://<name>/<path>`` (``skill://<name>`` for the skill's own folder)."""
    return f"{SKILL_SCHEME}{name}/{path}" if path else f"{SKILL_SCHEME}{name}"


#: Appended on disk to the names of Python sources in a skill, so that no Python tool (mypy,
#: pytest, ruff, an import) takes a skill's script for part of the package; served unchanged.
STORED_SUFFIX = ".skilldata"


def stored_path(path: str) -> str:
    """Where the file ``path`` of a skill is kept inside the package's skill folder."""
    return path + STORED_SUFFIX if path.endswith((".py", ".pyi")) else path


def mime_type(path: str) -> str:
    """The ``mimeType`` a skill file is served with (:data:`MIME_TYPES`)."""
    _, dot, suffix = path.rpartition(".")
    return MIME_TYPES.get(f".{suffix.lower()}", "text/plain") if dot and "/" not in suffix else "text/plain"


def digest(data: bytes) -> str:
    """``sha256:<64 lowercase hex>`` of the raw bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def skill_name_of(uri: str) -> str | None:
    """The skill name of a ``.../<name>/SKILL.md`` URI (the last folder segment), else None."""
    _, sep, rest = uri.partition("://")
    parts = [p for p in rest.split("/") if p]
    if not sep or len(parts) < 2 or parts[-1] != SKILL_FILE:
        return None
    return parts[-2]


def _scalar(raw: str, line: int) -> str:
    """A plain or quoted YAML scalar that is a string (else :class:`FrontmatterError`)."""
    if raw.startswith("'"):
        if len(raw) < 2 or not raw.endswith("'") or "'" in raw[1:-1].replace("''", ""):
            raise FrontmatterError("unterminated or unsupported single-quoted string", line)
        return raw[1:-1].replace("''", "'")
    if raw.startswith('"'):
        if len(raw) < 2 or not raw.endswith('"') or re.search(r'(?<!\\)(?:\\\\)*"', raw[1:-1]):
            raise FrontmatterError("unterminated or unsupported double-quoted string", line)
        try:
            value = json.loads(raw)
        except ValueError:
            raise FrontmatterError("a double-quoted string with escapes other than JSON's", line) from None
        if not isinstance(value, str):  # pragma: no cover - a quoted JSON value is a string
            raise FrontmatterError("not a string", line)
        return value
    value = raw.split(" #", 1)[0].rstrip()
    if not value or value[0] in "[]{}&*!|>%@`#,?-:" and not (value[0] == "-" and len(value) > 1 and value[1] != " "):
        raise FrontmatterError(f"value {raw!r} is not a plain string (quote it)", line)
    if ": " in value or value.endswith(":") or "\t" in value or _NOT_A_STRING.fullmatch(value):
        raise FrontmatterError(f"value {raw!r} is not read as a string by YAML (quote it)", line)
    return value


def frontmatter_block(text: str) -> tuple[str, int] | None:
    """The frontmatter text between the ``---`` lines and its first line number, else None."""
    if text.startswith("\ufeff"):
        text = text[1:]
    match = _FRONTMATTER.match(text)
    return (match.group(1), 2) if match else None


def skill_body(text: str) -> str:
    """The Markdown after the frontmatter block (all of ``text`` when there is none)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    match = _FRONTMATTER.match(text)
    return text[match.end():] if match else text


def parse_frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter of a ``SKILL.md`` as a JSON object (strings and maps of strings).

    Raises:
        FrontmatterError: no ``---`` block, or YAML outside the subset described above.
    """
    block = frontmatter_block(text)
    if block is None:
        raise FrontmatterError("SKILL.md does not begin with a --- delimited YAML frontmatter block")
    body, first = block
    out: dict[str, Any] = {}
    nested: dict[str, str] | None = None
    for number, line in enumerate(re.split(r"\r?\n", body), start=first):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indented = line[0] in " \t"
        match = _KEY.fullmatch(stripped)
        if match is None:
            raise FrontmatterError(f"line {stripped!r} is not a `key: value` pair", number)
        key, raw = match.group(1), match.group(2)
        if indented:
            if nested is None or line[0] == "\t":
                raise FrontmatterError("unexpected indentation (only one level of `key: value` maps)", number)
            if key in nested:
                raise FrontmatterError(f"duplicate key {key!r}", number)
            nested[key] = _scalar(raw or "", number)
            continue
        if key in out:
            raise FrontmatterError(f"duplicate key {key!r}", number)
        if raw is None:
            nested = out[key] = {}
        else:
            nested = None
            out[key] = _scalar(raw, number)
    return {k: None if v == {} else v for k, v in out.items()}  # `key:` alone is null in YAML


__all__ = [
    "DIGEST",
    "DIRECTORY_MIME",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "MIME_TYPES",
    "SKILLS_EXTENSION",
    "SKILL_FILE",
    "SKILL_NAME",
    "SKILL_SCHEME",
    "STORED_SUFFIX",
    "FrontmatterError",
    "SkillDef",
    "SkillFileDef",
    "digest",
    "frontmatter_block",
    "mime_type",
    "parse_frontmatter",
    "skill_body",
    "skill_name_of",
    "skill_uri",
    "stored_path",
]
