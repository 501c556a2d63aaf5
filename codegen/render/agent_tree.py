"""Rendering of the agent layout's shared files, from the index of every server in the tree.

``servers/__init__.py`` (``search_tools``, ``SERVERS``, one docstring line per server),
``servers/_search.py`` (the search helper), ``servers/README.md`` (one line per server) and,
with ``--skill tree``, ``skills/mcp-servers/SKILL.md``.  The indexes are the servers'
``_index.json`` (:func:`codegen.render.agent.index_data`): those of this build and those already
in the output folder (:mod:`codegen.output.agent_tree` reads them), so building or pulling one
server after another extends the tree instead of replacing it.
"""

from __future__ import annotations

from typing import Any

import jinja2

from ..ir.naming.agent import AGENT_TREE, SKILLS_FOLDER, TREE_SKILL
from .agent import agent_environment, server_line, skill_context
from .files import GeneratedFile


def render_tree(indexes: list[dict[str, Any]], tree_skill: bool, env: jinja2.Environment) -> list[GeneratedFile]:
    """The tree files for ``indexes`` (any order; sorted by server folder here)."""
    env = agent_environment(env)
    ordered = sorted(indexes, key=lambda i: str(i["server"]))
    servers = [{"folder": i["server"], "line": server_line(i)} for i in ordered]
    files = [
        GeneratedFile(f"{AGENT_TREE}/__init__.py", env.get_template("agent/servers_init.py.jinja").render({"servers": servers})),
        GeneratedFile(f"{AGENT_TREE}/_search.py", env.get_template("agent/_search.py.jinja").render(
            {"servers": [s["folder"] for s in servers]})),
        GeneratedFile(f"{AGENT_TREE}/README.md", env.get_template("agent/README.md.jinja").render({"servers": servers})),
    ]
    if tree_skill:
        files.append(GeneratedFile(f"{SKILLS_FOLDER}/{TREE_SKILL}/SKILL.md", env.get_template("agent/SKILL.md.jinja").render(
            skill_context(ordered, TREE_SKILL))))
    return files
