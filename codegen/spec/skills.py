"""Skills a spec declares (``skills:``, SEP-2640): read and checked at build time.

Each entry of ``skills`` is a folder, relative to the spec file and inside its folder, holding
a ``SKILL.md`` and the skill's other files.  :func:`load_skills` reads every file once and
refuses, with located diagnostics (codes E120-E126), whatever the server could not serve
safely or the Agent Skills rules forbid:

* E120 the folder or its ``SKILL.md`` is missing; E121 a path leaves the spec folder (``../``)
  or a symlink leads out of the skill folder (or is a symlinked folder); E122 more than 512
  files or more than 16 MiB (the extension's limits); E123 a frontmatter that is missing,
  outside the subset the runtime reads, read differently by YAML, or with unknown keys
  (did-you-mean), wrong types or reserved ``io.modelcontextprotocol/`` metadata keys;
  E124 a name breaking the naming rules, differing from its folder, or declared twice;
  E125 a file that is not UTF-8 text; E126 a file name a ``skill://`` URI cannot carry (or ending in ``.py.skilldata``, the name
  the package keeps a skill's Python sources under, so no Python tool takes them for code).

Hidden entries (``.name``) and ``__pycache__`` folders are not part of a skill.  The result is
deterministic: files sorted by path, digests of the exact bytes.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from pathlib import Path
from typing import Any

from mcp_codegen_runtime.wire.skills import (
    MAX_SKILL_BYTES,
    MAX_SKILL_FILES,
    SKILL_FILE,
    SKILL_NAME,
    STORED_SUFFIX,
    FrontmatterError,
    digest,
    frontmatter_block,
    parse_frontmatter,
)

from ..diagnostics import Diagnostic
from ..ir.nodes import SkillFileIR, SkillIR
from .load import CONSTRUCT_ERRORS, SourceDoc
from .pointer import join_pointer
from .sources import beside, read_bytes

#: Frontmatter keys of the Agent Skills specification, and the type each must have.
FRONTMATTER_KEYS: dict[str, str] = {
    "name": "string", "description": "string", "license": "string", "compatibility": "string",
    "allowed-tools": "string", "metadata": "map",
}
_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
_RESERVED_PREFIX = "io.modelcontextprotocol/"


def _skipped(name: str) -> bool:
    return name.startswith(".") or name == "__pycache__"


def folder_sha(folder: Path) -> str:
    """A digest of a folder's listing (relative paths, kinds, symlink targets): changes when a
    file is added, removed or renamed, which the per-file hashes of a build cannot see."""
    lines: list[str] = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not _skipped(d))
        for name in sorted([*dirs, *(f for f in files if not _skipped(f))]):
            path = Path(root) / name
            link = os.readlink(path) if path.is_symlink() else ""
            lines.append(f"{path.relative_to(folder).as_posix()}\0{'d' if path.is_dir() else 'f'}\0{link}")
    return "listing:" + hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


class _Loader:
    def __init__(self, doc: SourceDoc) -> None:
        self.doc = doc
        self.diags: list[Diagnostic] = []
        self.deps: dict[str, str] = {}
        self.base = doc.path.resolve().parent

    def err(self, code: str, message: str, pointer: str, hint: str = "") -> None:
        self.diags.append(self.doc.diag(code, message, pointer, hint=hint))

    def file_err(self, path: Path, line: int, code: str, message: str, hint: str = "") -> None:
        self.diags.append(Diagnostic(str(path), line, 1 if line else 0, code, message, hint=hint))

    def skill(self, entry: str, ptr: str) -> SkillIR | None:
        folder = beside(self.base, entry)
        if folder is None:
            self.err("E121", f"skill folder {entry!r} is outside the spec's folder", ptr,
                     hint="keep skills beside the spec (no absolute paths, no ../ out of its folder)")
            return None
        if not folder.is_dir():
            self.err("E120", f"skill folder {entry!r} does not exist", ptr, hint=f"looked for {folder}")
            return None
        if not (folder / SKILL_FILE).is_file() or (folder / SKILL_FILE).is_symlink():
            self.err("E120", f"skill folder {entry!r} has no {SKILL_FILE}", ptr,
                     hint="a skill is a folder with a SKILL.md (frontmatter name and description) at its root")
            return None
        self.deps[str(folder)] = folder_sha(folder)
        files = self.files(folder, entry, ptr)
        if files is None:
            return None
        skill_md = next(f for f in files if f.path == SKILL_FILE)
        frontmatter = self.frontmatter(folder / SKILL_FILE, skill_md.text)
        if frontmatter is None:
            return None
        name = frontmatter["name"]
        if not SKILL_NAME.fullmatch(name):
            self.file_err(folder / SKILL_FILE, _line_of(skill_md.text, "name"), "E124",
                          f"skill name {name!r} breaks the naming rules",
                          hint="1-64 characters a-z 0-9 and -, no leading, trailing or double hyphen")
            return None
        if name != folder.name:
            self.file_err(folder / SKILL_FILE, _line_of(skill_md.text, "name"), "E124",
                          f"skill name {name!r} differs from its folder name {folder.name!r}",
                          hint="the name is the last segment of the skill's URI: rename the folder or the skill")
            return None
        return SkillIR(name, frontmatter, files)

    def files(self, folder: Path, entry: str, ptr: str) -> tuple[SkillFileIR, ...] | None:
        found: list[SkillFileIR] = []
        total, ok = 0, True
        for root, dirs, names in os.walk(folder, followlinks=False):
            here = Path(root)
            for d in sorted(dirs):
                if not _skipped(d) and (here / d).is_symlink():
                    self.file_err(here / d, 0, "E121", f"skill {entry!r}: symlinked folder {d!r} is refused",
                                  hint="copy the folder into the skill, or link single files inside it")
                    ok = False
            dirs[:] = sorted(d for d in dirs if not _skipped(d) and not (here / d).is_symlink())
            for name in sorted(n for n in names if not _skipped(n)):
                path = here / name
                rel = path.relative_to(folder).as_posix()
                if not all(_SEGMENT.fullmatch(part) for part in rel.split("/")):
                    self.file_err(path, 0, "E126", f"skill {entry!r}: file name {rel!r} cannot be part of a skill:// URI",
                                  hint="use letters, digits, '.', '_' and '-' (not first) in file and folder names")
                    ok = False
                    continue
                if rel.endswith(STORED_SUFFIX) and rel.removesuffix(STORED_SUFFIX).endswith((".py", ".pyi")):
                    self.file_err(path, 0, "E126", f"skill {entry!r}: file name {rel!r} ends in {STORED_SUFFIX!r}, "
                                  "the suffix the package stores Python sources under", hint="rename the file")
                    ok = False
                    continue
                if path.is_symlink() and not path.resolve().is_relative_to(folder):
                    self.file_err(path, 0, "E121", f"skill {entry!r}: symlink {rel!r} leads out of the skill folder "
                                  f"(to {path.resolve()})", hint="copy the file into the skill folder instead")
                    ok = False
                    continue
                if not path.is_file():
                    self.file_err(path, 0, "E120", f"skill {entry!r}: {rel!r} is not a regular file")
                    ok = False
                    continue
                try:
                    data = read_bytes(path)
                    text = data.decode("utf-8")
                except OSError as exc:
                    self.file_err(path, 0, "E120", f"skill {entry!r}: cannot read {rel!r}: {exc}")
                    ok = False
                    continue
                except UnicodeDecodeError:
                    self.file_err(path, 0, "E125", f"skill {entry!r}: {rel!r} is not UTF-8 text",
                                  hint="skill files are served as text; binary files are not supported")
                    ok = False
                    continue
                total += len(data)
                self.deps[str(path.resolve())] = hashlib.sha256(data).hexdigest()
                found.append(SkillFileIR(rel, text, digest(data), len(data)))
        if len(found) > MAX_SKILL_FILES:
            self.err("E122", f"skill {entry!r} has {len(found)} files; at most {MAX_SKILL_FILES} (SKILL.md included)", ptr,
                     hint="split it into several skills")
            ok = False
        if total > MAX_SKILL_BYTES:
            self.err("E122", f"skill {entry!r} holds {total} bytes; at most {MAX_SKILL_BYTES} (16 MiB)", ptr,
                     hint="move large data out of the skill")
            ok = False
        return tuple(sorted(found, key=lambda f: f.path)) if ok else None

    def frontmatter(self, path: Path, text: str) -> dict[str, Any] | None:
        try:
            data = parse_frontmatter(text)
        except FrontmatterError as exc:
            self.file_err(path, exc.line, "E123", f"SKILL.md frontmatter: {exc}",
                          hint="start with ---, then `name: ...` and `description: ...` lines, then ---")
            return None
        before = len(self.diags)
        block = frontmatter_block(text)
        import yaml

        try:
            assert block is not None
            if yaml.safe_load(block[0]) != data:
                self.file_err(path, 2, "E123", "SKILL.md frontmatter: YAML reads it differently from the runtime",
                              hint="quote the values (\"...\") so every reader sees the same strings")
        except CONSTRUCT_ERRORS as exc:
            self.file_err(path, 2, "E123", f"SKILL.md frontmatter is not valid YAML: {exc}")
        for key, value in data.items():
            line = _line_of(text, key)
            kind = FRONTMATTER_KEYS.get(key)
            if kind is None:
                close = difflib.get_close_matches(key, FRONTMATTER_KEYS, n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"allowed keys: {', '.join(FRONTMATTER_KEYS)}"
                self.file_err(path, line, "E123", f"SKILL.md frontmatter: unknown key {key!r}", hint=hint)
            elif kind == "string" and not isinstance(value, str):
                self.file_err(path, line, "E123", f"SKILL.md frontmatter: {key!r} must be a string")
            elif kind == "map" and not isinstance(value, dict):
                self.file_err(path, line, "E123", f"SKILL.md frontmatter: {key!r} must be a map of strings")
            elif kind == "map":
                for reserved in (k for k in value if k.startswith(_RESERVED_PREFIX)):
                    self.file_err(path, _line_of(text, reserved, nested=True), "E123",
                                  f"SKILL.md frontmatter: metadata key {reserved!r} uses the reserved prefix "
                                  f"{_RESERVED_PREFIX}", hint="MCP extensions own that prefix; pick another key")
        for key, limit in (("name", 64), ("description", 1024), ("compatibility", 500)):
            value = data.get(key)
            if key in ("name", "description") and not (isinstance(value, str) and value):
                self.file_err(path, _line_of(text, key) or 1, "E123", f"SKILL.md frontmatter needs a non-empty {key!r}")
            elif isinstance(value, str) and len(value) > limit:
                self.file_err(path, _line_of(text, key), "E123", f"SKILL.md frontmatter: {key!r} is longer than {limit} characters")
        return data if len(self.diags) == before else None


def _line_of(text: str, key: str, *, nested: bool = False) -> int:
    """The 1-based line of ``key:`` in the frontmatter (0 when not found)."""
    pattern = re.compile(rf"{'[ ]+' if nested else ''}{re.escape(key)}:(?:\s|$)")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return 0


def load_skills(doc: SourceDoc) -> tuple[tuple[SkillIR, ...], list[Diagnostic], dict[str, str]]:
    """The skills ``doc`` declares (sorted by name), their diagnostics, and what was read
    (resolved path -> sha256; a folder -> :func:`folder_sha`), for caches and build stamps."""
    entries = doc.data.get("skills") if isinstance(doc.data, dict) else None
    loader = _Loader(doc)
    skills: dict[str, tuple[SkillIR, str]] = {}
    for i, entry in enumerate(entries or []):
        ptr = join_pointer("/skills", i)
        skill = loader.skill(str(entry), ptr)
        if skill is None:
            continue
        if skill.name in skills:
            loader.err("E124", f"skill {skill.name!r} is declared twice (first at {skills[skill.name][1]})", ptr,
                       hint="skill names must be unique per server")
            continue
        skills[skill.name] = (skill, ptr)
    return tuple(s for _, (s, _) in sorted(skills.items())), loader.diags, loader.deps
