"""``tools/list`` on the client: pagination, the 2026 page cache, and the compat check.

:func:`collect_tools` follows every ``nextCursor`` (a repeated cursor or a non-string
one is a :class:`ProtocolError`); :func:`check_tools_page` rejects malformed pages.  In
the 2026-07-28 era a page is kept in a :class:`ToolsPageCache` for its ``ttlMs``; any
``notifications/tools/list_changed`` empties the cache.  :func:`compat_report` compares
the generated tool table with the live one by schema fingerprint.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..wire import protocol as p
from ..wire.errors import ProtocolError
from ..wire.tools import ToolDef, canonical_json, tool_fingerprint
from ..wire.versions import tool_for_version
from .types import CompatReport, ToolChange

logger = logging.getLogger("mcp_codegen.client")

#: Fetches one ``tools/list`` page: ``cursor`` (None for the first page) -> the result.
PageFetcher = Callable[[str | None], Awaitable[dict[str, Any]]]


class ToolsPageCache:
    """``tools/list`` pages by cursor, each kept until its ``ttlMs`` runs out (2026-07-28)."""

    def __init__(self) -> None:
        self._pages: dict[str | None, tuple[float, dict[str, Any]]] = {}

    def clear(self) -> None:
        """Forget every page."""
        self._pages.clear()

    def get(self, cursor: str | None) -> dict[str, Any] | None:
        """The cached page for ``cursor``, or ``None`` if there is none or it expired."""
        hit = self._pages.get(cursor)
        if hit is not None and hit[0] > asyncio.get_running_loop().time():
            return hit[1]
        return None

    def put(self, cursor: str | None, page: dict[str, Any]) -> None:
        """Keep ``page`` for its ``ttlMs`` (a missing or non-positive ``ttlMs`` drops the entry)."""
        ttl = page.get("ttlMs")
        ttl_ms = ttl if isinstance(ttl, (int, float)) and not isinstance(ttl, bool) and ttl > 0 else 0
        if ttl_ms > 0:
            self._pages[cursor] = (asyncio.get_running_loop().time() + ttl_ms / 1000.0, page)
        else:
            self._pages.pop(cursor, None)


def check_tools_page(result: Any) -> dict[str, Any]:
    """Check one ``tools/list`` answer.

    Args:
        result: the result as received.

    Returns:
        The page.

    Raises:
        ProtocolError: it is not an object, or not a complete result.
    """
    if not isinstance(result, dict):
        raise ProtocolError("malformed tools/list result", data=result)
    rtype = result.get("resultType", p.RESULT_COMPLETE)
    if rtype != p.RESULT_COMPLETE:
        raise ProtocolError(f"tools/list answered with resultType {rtype!r}", data=result)
    return result


async def collect_tools(fetch_page: PageFetcher, *, modern: bool, max_pages: int) -> list[dict[str, Any]]:
    """Every tool of the server, following every ``nextCursor``.

    Args:
        fetch_page: fetches the page for a cursor.
        modern: the 2026-07-28 era (where an empty ``nextCursor`` is still a cursor).
        max_pages: the most pages to fetch.

    Returns:
        The wire ``Tool`` dicts (malformed entries are logged and left out).

    Raises:
        ProtocolError: a bad or repeated cursor, or more than ``max_pages`` pages.
    """
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(max_pages):
        page = await fetch_page(cursor)
        for tool in page.get("tools") or []:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                tools.append(tool)
            else:
                logger.warning("ignoring a malformed tool in tools/list: %.200r", tool)
        nxt = page.get("nextCursor")
        if nxt is None or (nxt == "" and not modern):
            break
        if not isinstance(nxt, str):
            raise ProtocolError("tools/list returned a non-string nextCursor", data=nxt)
        if nxt in seen:
            raise ProtocolError("tools/list pagination repeats a cursor", data=nxt)
        seen.add(nxt)
        cursor = nxt
    else:
        raise ProtocolError(f"tools/list has more than {max_pages} pages")
    return tools


def compat_report(tool_defs: Sequence[ToolDef], live_tools: Sequence[Mapping[str, Any]],
                  version: str | None = None) -> CompatReport:
    """Compare the generated tool table with the live ``tools/list`` (by fingerprint).

    Args:
        tool_defs: the generated tool definitions.
        live_tools: the server's wire ``Tool`` dicts.
        version: the negotiated protocol version: a tool as the generated server would shape it
            for that version (``wire/versions.py``) is unchanged too.

    Returns:
        The tools added, removed, changed (with the schema fields that differ) and unchanged.
    """
    live = {t["name"]: t for t in live_tools}
    expected = {td.name: td for td in tool_defs}
    changed: list[ToolChange] = []
    unchanged: list[str] = []
    for name, td in expected.items():
        if name not in live:
            continue
        want = expected_fingerprint(td)
        got = tool_fingerprint(live[name])
        if want == got or (version is not None and tool_fingerprint(tool_for_version(td.wire, version)) == got):
            unchanged.append(name)
            continue
        fields = tuple(
            key
            for key in ("inputSchema", "outputSchema")
            if canonical_json(td.wire.get(key)) != canonical_json(live[name].get(key))
        )
        changed.append(ToolChange(name=name, expected_fingerprint=want, live_fingerprint=got, fields=fields))
    return CompatReport(
        added=tuple(sorted(set(live) - set(expected))),
        removed=tuple(sorted(set(expected) - set(live))),
        changed=tuple(changed),
        unchanged=tuple(unchanged),
    )


def expected_fingerprint(td: ToolDef) -> str:
    """The generated fingerprint of ``td``, recomputed from its wire form if it is not a sha256."""
    fp = td.fingerprint
    if len(fp) == 64 and all(c in "0123456789abcdef" for c in fp):
        return fp
    return tool_fingerprint(td.wire)
