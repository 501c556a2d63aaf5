"""A hostile server's ``SKILL.md`` (issue 44, attack 1): the server picks both the file and the
entry it is checked against, so the size and the digest match and only the frontmatter reader
stands between the file and the client's memory.  No anchor or alias is expanded, the block is
bounded, and no message shows a whole value."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp_codegen_runtime.client.skills.calls import SkillEntry, SkillFrontmatterMismatchError, load_skill
from mcp_codegen_runtime.client.skills.frontmatter import MAX_DEPTH, MAX_FRONTMATTER_BYTES
from mcp_codegen_runtime.wire.skills import digest

URI = "skill://bomb/SKILL.md"


class Server:
    """What ``load_skill`` needs of a client: ``resources/read`` of one file."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Any:
        assert method == "resources/read" and params == {"uri": URI}
        return {"contents": [{"uri": URI, "mimeType": "text/markdown", "text": self.text}]}


def entry_for(text: str, frontmatter: dict[str, Any]) -> SkillEntry:
    """An entry whose manifest matches ``text`` exactly (size and digest)."""
    data = text.encode("utf-8")
    return SkillEntry(uri=URI, frontmatter=frontmatter,
                      resources=[{"uri": URI, "digest": digest(data), "size": len(data)}])  # type: ignore[list-item]


def load(text: str, frontmatter: dict[str, Any]) -> Any:
    return asyncio.run(asyncio.wait_for(load_skill(Server(text), entry_for(text, frontmatter)), 20))


def alias_bomb(levels: int) -> str:
    """``a`` is 10**levels strings once its aliases are expanded; the file is a few hundred bytes."""
    lines = ["name: bomb", "description: d", 'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, levels)]
    lines.insert(2, "a: [" + ",".join([f"*l{levels - 1}"] * 10) + "]")  # sorts first: the first key compared
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


def test_an_alias_bomb_with_a_matching_manifest_is_refused_without_expanding_it() -> None:
    text = alias_bomb(5)  # 10**6 strings expanded (a few MB): bounded even before the fix
    assert len(text) < 1000
    with pytest.raises(SkillFrontmatterMismatchError) as caught:
        load(text, {"name": "bomb", "description": "d"})
    message = str(caught.value)
    assert "anchors and aliases" in message
    assert len(message) < 1000 and "lol" not in message
    assert caught.value.actual is None  # no expanded value kept on the error either


def test_an_innocent_alias_is_refused_too_even_when_the_entry_agrees() -> None:
    text = "---\nname: x\ndescription: &d the same\nsummary: *d\n---\n"
    with pytest.raises(SkillFrontmatterMismatchError, match="anchors and aliases"):
        load(text, {"name": "x", "description": "the same", "summary": "the same"})


def test_richer_yaml_without_aliases_is_still_read() -> None:
    text = "---\nname: x\ndescription: d\nallowed-tools: [read, write]\nmetadata: {a: {b: c}}\n---\nbody\n"
    skill = load(text, {"name": "x", "description": "d", "allowed-tools": ["read", "write"],
                        "metadata": {"a": {"b": "c"}}})
    assert skill.body == "body\n"


def test_a_block_larger_than_the_bound_is_refused_before_parsing() -> None:
    big = "x" * (MAX_FRONTMATTER_BYTES + 1)
    text = f"---\nname: x\ndescription: {big}\n---\n"
    with pytest.raises(SkillFrontmatterMismatchError, match=f"larger than {MAX_FRONTMATTER_BYTES} bytes") as caught:
        load(text, {"name": "x", "description": big})
    assert len(str(caught.value)) < 1000


def test_deep_nesting_is_refused() -> None:
    deep = "[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2)
    with pytest.raises(SkillFrontmatterMismatchError, match=f"deeper than {MAX_DEPTH}"):
        load(f"---\nname: x\nd: {deep}\n---\n", {"name": "x"})


def test_keys_that_are_not_strings_are_a_verification_error_not_a_crash() -> None:
    with pytest.raises(SkillFrontmatterMismatchError, match="not a string"):
        load("---\nname: x\n1: [a]\n---\n", {"name": "x"})


def test_a_mismatch_message_shows_values_cut_short() -> None:
    long = ["v" * 50] * 200  # 10 KB of list, no alias
    text = "---\nname: x\nitems: [" + ", ".join(long) + "]\n---\n"
    with pytest.raises(SkillFrontmatterMismatchError) as caught:
        load(text, {"name": "x", "items": []})
    assert "'items'" in str(caught.value) and len(str(caught.value)) < 600
