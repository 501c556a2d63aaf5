"""The blocking twins of the Skills calls (:mod:`client.skills.calls`), a mixin of
:class:`~client.sync_client.SyncClientBase`: each runs the async call on the client's private loop."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

from .calls import LoadedSkill, SkillCalls, SkillEntry, SkillFile

T = TypeVar("T")


class SyncSkillCalls:
    """``list_skills``, ``get_skill``, ``load_skill`` and ``read_skill_file``, blocking."""

    # What the twins need of the blocking client (SyncClientBase implements both).
    @property
    def _skills(self) -> SkillCalls:
        """The async client whose calls run (the blocking client's)."""
        raise NotImplementedError

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the private loop (the blocking client's)."""
        raise NotImplementedError

    @property
    def supports_skills(self) -> bool:
        """True when the server declared the Skills extension (connect first)."""
        return self._skills.supports_skills

    def list_skills(self, *, max_pages: int = 1000, timeout: float | None = None) -> list[SkillEntry]:
        """Blocking :meth:`~client.skills.calls.SkillCalls.list_skills` (reads no file)."""
        return self._run(self._skills.list_skills(max_pages=max_pages, timeout=timeout))

    def get_skill(self, uri: str, *, timeout: float | None = None) -> SkillEntry:
        """Blocking :meth:`~client.skills.calls.SkillCalls.get_skill` (reads no file)."""
        return self._run(self._skills.get_skill(uri, timeout=timeout))

    def load_skill(self, skill: SkillEntry | str, *, timeout: float | None = None) -> LoadedSkill:
        """Blocking :meth:`~client.skills.calls.SkillCalls.load_skill`: ``SKILL.md`` read and verified."""
        return self._run(self._skills.load_skill(skill, timeout=timeout))

    def read_skill_file(self, skill: SkillEntry, path_or_uri: str, *, timeout: float | None = None) -> SkillFile:
        """Blocking :meth:`~client.skills.calls.SkillCalls.read_skill_file`: one file, read and verified."""
        return self._run(self._skills.read_skill_file(skill, path_or_uri, timeout=timeout))


__all__ = ["SyncSkillCalls"]
