"""The Skills extension (SEP-2640) on the server: :class:`SkillService`, held by :class:`~server.dispatch.ServerCore`.

A generated server with skills sets ``skill_defs`` (the table the generator wrote into
``skills.py``: names, frontmatter, each file's digest and size) and ``skill_root`` (the
package data folder ``skill-files/`` the files were copied to).  At construction every file
is read once and checked against its digest and size; a file edited or missing after the
build stops the server with :class:`SkillIntegrityError` (rebuild, or restore the package).

In the 2026-07-28 era the server declares ``capabilities.extensions
["io.modelcontextprotocol/skills"] = {"directoryRead": true}`` and answers:

* ``skills/list`` — the entries, paginated (signed cursors, ``page_size``), an entry never
  split across pages; ``skills/get {uri}`` — one entry (``-32602`` for a URI it does not serve);
  both with the caching hints ``ttlMs`` / ``cacheScope``;
* ``resources/read`` of any ``skill://<name>/<path>`` file listed in an entry (``text``,
  ``mimeType`` by suffix, ``text/markdown`` for ``SKILL.md``); ``resources/list`` also lists
  each ``SKILL.md`` (``name`` / ``description`` from its frontmatter);
* ``resources/directory/read {uri}`` of ``skill://<name>`` or a folder inside it: the direct
  children (folders with ``mimeType`` ``inode/directory``), paginated; ``-32602`` for a file
  or an unknown URI.

The 2025 eras have no ``extensions`` capability: there the skill files are plain resources
(``resources/list`` / ``resources/read``), and the ``skills/*`` methods are ``-32601``.
"""

from __future__ import annotations

from typing import Any

from ..wire.errors import InvalidParamsError, MethodNotFoundError
from ..wire.skills import (
    DIRECTORY_MIME,
    SKILL_FILE,
    SKILL_SCHEME,
    SKILLS_EXTENSION,
    SkillDef,
    digest,
    mime_type,
    skill_uri,
    stored_path,
)
from .calls import RequestEnv
from .extensions import SKILL_METHODS
from .settings import ServerSettings
from .signing import Signer

JsonObject = dict[str, Any]



class SkillIntegrityError(RuntimeError):
    """A packaged skill file no longer has the digest or size the build recorded."""


class SkillService:
    """Serves the skills of a server (see the module docstring): the server holds one and passes
    its ``skill_defs`` (class data a subclass may replace) to each call."""

    def __init__(self, settings: ServerSettings, cursors: Signer) -> None:
        self.settings = settings
        self._cursors = cursors  # the server's list cursors (one signing key for every list)
        self._skill_bytes: dict[str, bytes] = {}

    # -- start-up -------------------------------------------------------------------------
    def load(self, skill_defs: tuple[SkillDef, ...], skill_root: Any) -> dict[str, bytes]:
        """Read every packaged skill file once, checking it against the build's digest and size;
        the files by URI (the dict this service serves from).

        Raises:
            SkillIntegrityError: a file is missing, or its bytes are not those the build recorded.
        """
        self._skill_bytes = {}
        for skill in skill_defs:
            for f in skill.files:
                uri = skill_uri(skill.name, f.path)
                try:
                    data = skill_root.joinpath(skill.name, *stored_path(f.path).split("/")).read_bytes()
                except (OSError, AttributeError) as exc:
                    raise SkillIntegrityError(f"skill file {uri} is missing from the package ({exc})") from None
                if len(data) != f.size or digest(data) != f.digest:
                    raise SkillIntegrityError(
                        f"skill file {uri} changed after the build (size {len(data)}, expected {f.size}; "
                        f"digest {digest(data)}, expected {f.digest}): rebuild the package or restore the file")
                self._skill_bytes[uri] = data
        return self._skill_bytes

    # -- capabilities ---------------------------------------------------------------------
    def add_capabilities(self, caps: JsonObject, modern: bool, skill_defs: tuple[SkillDef, ...]) -> None:
        """Declare the extension (2026-07-28) in ``caps`` when the server has skills."""
        if skill_defs and modern:
            caps.setdefault("extensions", {})[SKILLS_EXTENSION] = {"directoryRead": True}

    def resources(self, skill_defs: tuple[SkillDef, ...]) -> list[JsonObject]:
        """The ``resources/list`` entries of the skills: one per ``SKILL.md``."""
        out: list[JsonObject] = []
        for skill in skill_defs:
            entry: JsonObject = {"uri": skill.uri, "name": skill.name, "mimeType": "text/markdown"}
            description = skill.frontmatter.get("description")
            if isinstance(description, str):
                entry["description"] = description
            entry["size"] = next(f.size for f in skill.files if f.path == SKILL_FILE)
            out.append(entry)
        return out

    def is_file(self, uri: Any) -> bool:
        """True when ``uri`` names a packaged skill file."""
        return isinstance(uri, str) and uri in self._skill_bytes

    # -- requests -------------------------------------------------------------------------
    def read(self, uri: str, env: RequestEnv) -> JsonObject:
        """The ``resources/read`` result of a packaged skill file (``uri`` must be one)."""
        data = self._skill_bytes[uri]
        result: JsonObject = {"contents": [{"uri": uri, "mimeType": mime_type(uri), "text": data.decode("utf-8")}]}
        if env.modern:
            result["ttlMs"] = self.settings.list_ttl_ms
            result["cacheScope"] = self.settings.cache_scope
        return result

    def serve(self, method: str, params: JsonObject, env: RequestEnv, skill_defs: tuple[SkillDef, ...]) -> JsonObject:
        """Answer one of :data:`SKILL_METHODS` (-32601 without skills or outside 2026-07-28)."""
        if not skill_defs or not env.modern:
            raise MethodNotFoundError(f"Method not found: {method}")
        if method == "skills/list":
            entries = [self._entry(s) for s in skill_defs]
            start = self._offset(params, "skills")
            end = start + self.settings.page_size
            result: JsonObject = {"skills": entries[start:end]}
            if end < len(entries):
                result["nextCursor"] = self._cursors.sign({"skills": end})
        elif method == "skills/get":
            uri = params.get("uri")
            skill = next((s for s in skill_defs if s.uri == uri), None)
            if skill is None:
                raise InvalidParamsError(f"Invalid params: no skill {uri!r}", data={"uri": uri})
            result = {"skill": self._entry(skill)}
        else:
            result = self._directory(params, skill_defs)
        result["ttlMs"] = self.settings.list_ttl_ms
        result["cacheScope"] = self.settings.cache_scope
        return result

    def _entry(self, skill: SkillDef) -> JsonObject:
        files = sorted(skill.files, key=lambda f: (f.path != SKILL_FILE, f.path))
        return {
            "uri": skill.uri,
            "frontmatter": skill.frontmatter,
            "resources": [{"uri": skill_uri(skill.name, f.path), "digest": f.digest, "size": f.size} for f in files],
        }

    def _offset(self, params: JsonObject, key: str) -> int:
        cursor = params.get("cursor")
        if cursor is None:
            return 0
        offset = self._cursors.verify(cursor, "cursor").get(key)  # a cursor of this list only
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            raise InvalidParamsError("Invalid cursor")
        return offset

    def _directory(self, params: JsonObject, skill_defs: tuple[SkillDef, ...]) -> JsonObject:
        """``resources/directory/read``: the direct children of a skill folder."""
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri.startswith(SKILL_SCHEME):
            raise InvalidParamsError(f"Invalid params: {uri!r} is not a skill directory", data={"uri": uri})
        folder = uri.rstrip("/")
        name, _, inner = folder[len(SKILL_SCHEME):].partition("/")
        skill = next((s for s in skill_defs if s.name == name), None)
        prefix = f"{inner}/" if inner else ""
        children: dict[str, JsonObject] = {}
        for f in skill.files if skill is not None else ():
            if not f.path.startswith(prefix):
                continue
            head, sep, _ = f.path[len(prefix):].partition("/")
            child = skill_uri(name, prefix + head)
            if sep:
                children.setdefault(child, {"uri": child, "name": head, "mimeType": DIRECTORY_MIME})
            else:
                children[child] = {"uri": child, "name": head, "mimeType": mime_type(head), "size": f.size}
        if not children:  # a file, an unknown skill or folder
            raise InvalidParamsError(f"Invalid params: {uri!r} is not a skill directory", data={"uri": uri})
        items = [children[k] for k in sorted(children)]
        key = f"dir:{folder}"
        start = self._offset(params, key)
        end = start + self.settings.page_size
        result: JsonObject = {"resources": items[start:end]}
        if end < len(items):
            result["nextCursor"] = self._cursors.sign({key: end})
        return result


__all__ = ["SKILL_METHODS", "SkillIntegrityError", "SkillService"]
