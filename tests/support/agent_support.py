"""Support for the agent layout tests: the Agent Skills frontmatter rules."""

from __future__ import annotations

import re

import yaml

#: The Agent Skills rules for SKILL.md frontmatter (agentskills.io specification).
NAME_RULE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def _frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n"), "SKILL.md starts with YAML frontmatter"
    head, sep, body = text[4:].partition("\n---\n")
    assert sep and body.strip()
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


def check_skill(path: str, text: str) -> None:
    """SKILL.md's frontmatter: name (lowercase letters, digits, single hyphens, at most 64,
    the folder's name) and description (1-1024 characters); the body says how to search,
    import and call."""
    data = _frontmatter(text)
    name, description = data.get("name"), data.get("description")
    assert isinstance(name, str) and NAME_RULE.match(name) and len(name) <= 64, name
    assert path.split("/")[-2] == name, (path, name)
    assert isinstance(description, str) and 1 <= len(description) <= 1024
    for needed in ("search_tools(", "from servers.", "import"):
        assert needed in text
