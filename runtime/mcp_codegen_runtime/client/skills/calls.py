"""The Skills extension (SEP-2640) on the client: list skills, load them lazily, verify every
file before use.  The calls take the client (a :class:`SkillClient`); the methods of the same
names on :class:`~client.async_client.ClientBase` (and the blocking client) call them.

* :func:`list_skills` (``skills/list``, every page) and :func:`get_skill`
  (``skills/get``) return typed :class:`SkillEntry` values and read **no file**: a host loads
  a skill only when it needs it (the extension forbids prefetching on connection, on listing
  or at approval).
* :func:`load_skill` reads the skill's ``SKILL.md`` (``resources/read``) and checks
  it against the entry: size, then digest, then the frontmatter field by field.  Any
  difference raises a :class:`SkillVerificationError` subclass and nothing of the content is
  returned.  :func:`read_skill_file` does the same (size and digest) for any other
  file the entry lists.

An entry whose ``resources`` is ``"dynamic"`` publishes no manifest: its files can be read,
but not verified (:attr:`SkillFile.verified` is False).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...wire.content import BlobResourceContents, TextResourceContents
from ...wire.errors import InvalidParamsError, McpError, ProtocolError
from ...wire.skills import SKILL_FILE, digest, skill_body
from .frontmatter import UnreadableFrontmatter, read_frontmatter, shown


class SkillVerificationError(McpError):
    """A skill file failed verification against its entry; its content was not used.

    ``uri`` is the file; ``expected`` / ``actual`` what the entry said and what was read.
    """

    def __init__(self, message: str, *, uri: str, expected: Any = None, actual: Any = None) -> None:
        super().__init__(message, data={"uri": uri, "expected": expected, "actual": actual})
        self.uri = uri
        self.expected = expected
        self.actual = actual


class SkillSizeMismatchError(SkillVerificationError):
    """The file's byte length differs from the entry's ``size``."""


class SkillDigestMismatchError(SkillVerificationError):
    """The file's SHA-256 differs from the entry's ``digest``."""


class SkillFrontmatterMismatchError(SkillVerificationError):
    """The ``SKILL.md`` frontmatter is unreadable or differs from the entry's ``frontmatter``."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, strict=True)


class SkillResource(_Model):
    """One file of a skill's manifest: its URI, ``sha256:`` digest and size in bytes."""

    uri: str
    digest: str
    size: int = Field(ge=0)


class SkillEntry(_Model):
    """A skill as ``skills/list`` / ``skills/get`` describe it (no file has been read)."""

    uri: str
    frontmatter: dict[str, Any]
    resources: list[SkillResource] | Literal["dynamic"]

    @property
    def name(self) -> str:
        """The frontmatter ``name`` (``""`` when the server sent none)."""
        value = self.frontmatter.get("name")
        return value if isinstance(value, str) else ""

    @property
    def description(self) -> str:
        """The frontmatter ``description`` (``""`` when the server sent none)."""
        value = self.frontmatter.get("description")
        return value if isinstance(value, str) else ""

    def resource(self, uri: str) -> SkillResource | None:
        """The manifest entry of ``uri`` (None when not listed, or for a dynamic skill)."""
        if self.resources == "dynamic":
            return None
        return next((r for r in self.resources if r.uri == uri), None)

    def file_uri(self, path: str) -> str:
        """The URI of ``path`` inside the skill's folder (``references/FORMS.md``)."""
        return self.uri.rpartition("/")[0] + "/" + path.lstrip("/")


class SkillFile(_Model):
    """One skill file as read (and, unless the skill is dynamic, verified)."""

    uri: str
    mime_type: str | None = None
    data: bytes
    verified: bool

    @property
    def text(self) -> str:
        """The content as UTF-8 text."""
        return self.data.decode("utf-8")


class LoadedSkill(_Model):
    """A skill whose ``SKILL.md`` was read and verified: the entry, the file and its parts."""

    entry: SkillEntry
    skill_md: SkillFile
    frontmatter: dict[str, Any]

    @property
    def body(self) -> str:
        """The Markdown after the frontmatter block."""
        return skill_body(self.skill_md.text)


def _frontmatter_of(text: str, uri: str) -> dict[str, Any]:
    try:
        return read_frontmatter(text)
    except UnreadableFrontmatter as exc:
        raise SkillFrontmatterMismatchError(f"{uri}: unreadable frontmatter ({exc})", uri=uri) from None


def verify(entry: SkillEntry, uri: str, data: bytes, *, frontmatter: bool = False) -> None:
    """Check ``data`` (the bytes read from ``uri``) against ``entry``: size, digest, and for a
    ``SKILL.md`` (``frontmatter``) every frontmatter field.

    Raises:
        SkillVerificationError: one of its subclasses, on the first difference (or when the
            entry does not list ``uri``).
    """
    listed = entry.resource(uri)
    if listed is None:
        raise SkillVerificationError(f"{uri} is not in the manifest of {entry.uri}", uri=uri)
    if len(data) != listed.size:
        raise SkillSizeMismatchError(f"{uri}: read {len(data)} bytes, the entry says {listed.size}",
                                     uri=uri, expected=listed.size, actual=len(data))
    actual = digest(data)
    if actual != listed.digest:
        raise SkillDigestMismatchError(f"{uri}: digest {actual} differs from the entry's {listed.digest}",
                                       uri=uri, expected=listed.digest, actual=actual)
    if frontmatter:
        found = _frontmatter_of(data.decode("utf-8", "replace"), uri)
        for key in sorted(set(found) | set(entry.frontmatter)):
            if found.get(key) != entry.frontmatter.get(key):
                raise SkillFrontmatterMismatchError(
                    f"{uri}: frontmatter {shown(key)} is {shown(found.get(key))} in the file, "
                    f"{shown(entry.frontmatter.get(key))} in the entry",
                    uri=uri, expected=entry.frontmatter.get(key), actual=found.get(key))


class SkillClient(Protocol):
    """What the calls need of the client (:class:`~client.async_client.ClientBase`)."""

    async def request(self, method: str, params: Mapping[str, Any] | None = None, *,
                      timeout: float | None = None) -> Any:
        """Send one request and return its raw result."""
        ...


async def list_skills(client: SkillClient, *, max_pages: int = 1000, timeout: float | None = None) -> list[SkillEntry]:
    """Every skill the server lists (``skills/list``, following ``nextCursor``); reads no file.

    Raises:
        MethodNotFoundError: the server does not serve the extension.
        ProtocolError: an entry or a page that is not what the extension defines.
    """
    out: list[SkillEntry] = []
    cursor: str | None = None
    for _ in range(max_pages):
        result = await client.request("skills/list", {"cursor": cursor} if cursor else {}, timeout=timeout)
        skills = result.get("skills") if isinstance(result, dict) else None
        if not isinstance(skills, list):
            raise ProtocolError("skills/list: the result has no skills array")
        out += [_entry(item, "skills/list") for item in skills]
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            return out
    raise ProtocolError(f"skills/list: more than {max_pages} pages")


async def get_skill(client: SkillClient, uri: str, *, timeout: float | None = None) -> SkillEntry:
    """The entry of one skill (``skills/get``; ``uri`` is its ``SKILL.md``); reads no file.

    Raises:
        InvalidParamsError: the server serves no such skill (-32602).
    """
    result = await client.request("skills/get", {"uri": uri}, timeout=timeout)
    return _entry(result.get("skill") if isinstance(result, dict) else None, "skills/get")


async def load_skill(client: SkillClient, skill: SkillEntry | str, *, timeout: float | None = None) -> LoadedSkill:
    """Read the skill's ``SKILL.md`` and verify it (size, digest, frontmatter) before use.

    ``skill`` is an entry of :func:`list_skills`, a ``SKILL.md`` URI (then fetched with
    :func:`get_skill` first), or a skill's name (then looked up in :func:`list_skills`).

    Raises:
        SkillVerificationError: the file differs from the entry (a subclass says how).
        InvalidParamsError: no skill has that URI or name.
    """
    if isinstance(skill, SkillEntry):
        entry = skill
    elif "://" in skill:
        entry = await get_skill(client, skill, timeout=timeout)
    else:
        listed = await list_skills(client, timeout=timeout)
        named = [e for e in listed if e.name == skill]
        if not named:
            names = ", ".join(sorted(e.name for e in listed)) or "none"
            raise InvalidParamsError(f"no skill named {skill!r} (the server lists: {names})")
        entry = named[0]
    file = await read_skill_file(client, entry, entry.uri, timeout=timeout)
    if not file.verified:  # a dynamic skill: no manifest, so at least the frontmatter must agree
        found = _frontmatter_of(file.text, entry.uri)
        if any(found.get(k) != entry.frontmatter.get(k) for k in set(found) | set(entry.frontmatter)):
            raise SkillFrontmatterMismatchError(f"{entry.uri}: frontmatter differs from the entry's", uri=entry.uri)
        return LoadedSkill(entry=entry, skill_md=file, frontmatter=found)
    return LoadedSkill(entry=entry, skill_md=file, frontmatter=dict(entry.frontmatter))


async def read_skill_file(client: SkillClient, skill: SkillEntry, path_or_uri: str, *,
                          timeout: float | None = None) -> SkillFile:
    """Read one file of ``skill`` (a URI, or a path inside the skill's folder) and verify it
    against the manifest (size and digest; the frontmatter too for the skill's ``SKILL.md``).

    Raises:
        SkillVerificationError: the file differs from its manifest entry, or is not listed.
    """
    uri = path_or_uri if "://" in path_or_uri else skill.file_uri(path_or_uri)
    if skill.resources != "dynamic" and skill.resource(uri) is None:  # before any read
        raise SkillVerificationError(f"{uri} is not in the manifest of {skill.uri}", uri=uri)
    result = await client.request("resources/read", {"uri": uri}, timeout=timeout)
    data, mime = _contents(result, uri)
    if skill.resources != "dynamic":
        verify(skill, uri, data, frontmatter=uri == skill.uri and uri.endswith("/" + SKILL_FILE))
    return SkillFile(uri=uri, mime_type=mime, data=data, verified=skill.resources != "dynamic")


def _entry(item: Any, method: str) -> SkillEntry:
    try:
        return SkillEntry.model_validate(item)
    except ValidationError as exc:
        raise ProtocolError(f"{method}: a skill entry that is not one ({exc.errors()[0].get('msg', 'invalid')})") from None


def _contents(result: Any, uri: str) -> tuple[bytes, str | None]:
    """The bytes of the ``resources/read`` content for ``uri`` (text as UTF-8, blobs decoded)."""
    contents = result.get("contents") if isinstance(result, dict) else None
    for item in contents if isinstance(contents, list) else []:
        if not isinstance(item, dict) or item.get("uri", uri) != uri:
            continue
        try:
            if "text" in item:
                text = TextResourceContents.model_validate(item)
                return text.text.encode("utf-8"), text.mimeType
            blob = BlobResourceContents.model_validate(item)
            return base64.b64decode(blob.blob, validate=True), blob.mimeType
        except (ValidationError, binascii.Error, ValueError):
            break
    raise ProtocolError(f"resources/read {uri}: the result has no contents for that URI")


__all__ = [
    "LoadedSkill",
    "SkillClient",
    "SkillDigestMismatchError",
    "SkillEntry",
    "SkillFile",
    "SkillFrontmatterMismatchError",
    "SkillResource",
    "SkillSizeMismatchError",
    "SkillVerificationError",
    "get_skill",
    "list_skills",
    "load_skill",
    "read_skill_file",
    "verify",
]
