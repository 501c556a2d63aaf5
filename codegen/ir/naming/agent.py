"""The names of the agent layout (part of the naming service, :mod:`codegen.ir.naming`).

``--layout agent`` writes, beside the typed packages, a tree every server shares::

    servers/__init__.py             search_tools(), SERVERS; docstring: one line per server
    servers/_search.py              the search helper (pure; reads the index files only)
    servers/README.md               one line per server
    servers/mcp.json                the connections (hosts' format; written by pull, never generated)
    servers/<server>/__init__.py    re-exports every function; docstring: one line per tool
    servers/<server>/<tool>.py      <tool>() and <tool>_async(): one typed function each
    servers/<server>/_index.json    what search_tools reads (and diff compares): names, lines, docs, wire tools
    servers/<server>/llms.txt       the server's tools for a model to read
    skills/<skill>/SKILL.md         ``--skill``: an Agent Skills folder (per server, or one for the tree)

Every name here composes names :mod:`codegen.ir.lower` already decided (the package, the tool
methods); nothing is re-cased.  An async twin (``<function>_async``) that another tool's function
already is (tools ``pulls_merge`` and ``pulls_merge-async``, as in GitHub's API) gets ``_`` appended
until it is free: the functions keep the typed client's names.  Collisions are reported as :class:`~codegen.ir.naming.core.Collision`
naming both origins, like the package's own names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...render.files import NESTED_OWNERS
from .core import NameRegistry, Origin

#: The tree's folder in the output folder, and the skills folder beside it.
AGENT_TREE, SKILLS_FOLDER = NESTED_OWNERS
#: The whole tree's Agent Skills folder (``--skill tree``).
TREE_SKILL = "mcp-servers"
#: What ``servers/__init__.py`` defines or imports (a server folder must not be called so).
TREE_NAMES = frozenset({"annotations", "search_tools", "SERVERS", "ToolMatch", "Detail", "_search"})
#: What every ``servers/<server>/__init__.py`` defines or imports besides the functions.
SERVER_INIT_NAMES = frozenset({"annotations", "search_tools", "SERVER", "Detail", "Literal", "_search"})
#: What a tool module imports under its own name (the others are imported as ``_X`` aliases).
TOOL_MODULE_NAMES = frozenset({"annotations", "Any", "Literal", "UNSET", "Unset", "ToolResult"})
#: Package names the agent layout keeps for its own folders.
AGENT_FOLDERS = frozenset({AGENT_TREE, SKILLS_FOLDER})

_MAX_SKILL = 64


@dataclass(frozen=True)
class AgentTool:
    """The names of one tool's module: ``servers/<server>/<module>.py`` defining ``function``
    and ``async_function``."""

    module: str
    function: str
    async_function: str


def server_folder(package: str) -> str:
    """The server's folder under ``servers/`` (and its key in ``servers/mcp.json``): the package name."""
    return package


def async_twin(function: str) -> str:
    """The async twin of a tool function: ``get_weather`` -> ``get_weather_async``."""
    return function.rstrip("_") + "_async"


def skill_name(package: str) -> str:
    """An Agent Skills name (lowercase letters, digits, hyphens; at most 64 characters, no
    leading, trailing or doubled hyphen) from a package name: ``db_hub`` -> ``db-hub``."""
    name = re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]", "-", package.lower())).strip("-")
    return (name[:_MAX_SKILL].rstrip("-") or "mcp-server")


def env_reference(server: str, header: str) -> str:
    """The environment variable a pulled HTTP header's value is read from (``servers/mcp.json``
    holds ``${NAME}`` only, never the value): ``weather`` + ``Authorization`` -> ``WEATHER_AUTHORIZATION``."""
    return re.sub(r"[^A-Z0-9]+", "_", f"{server}_{header}".upper()).strip("_")


def agent_tools(package: str, methods: list[tuple[str, str, str]],
                module_imports: list[frozenset[str]]) -> tuple[list[AgentTool], list[tuple[str, Origin, Origin]]]:
    """The module and function names of every tool of one server.

    Args:
        package: the server's package (for the origins).
        methods: (tool name, its decided method name, its spec file#pointer) in spec order.
        module_imports: per tool, the names its module imports unaliased (annotations' types).

    Returns:
        The names, and collisions as (name, first origin, second origin).
    """
    registry = NameRegistry(SERVER_INIT_NAMES)
    out: list[AgentTool] = []
    clashes: list[tuple[str, Origin, Origin]] = []
    functions = {method for _, method, _ in methods}  # the typed client's names: they come first
    twins: set[str] = set()
    for (tool, method, where), imports in zip(methods, module_imports, strict=True):
        file, _, pointer = where.partition("#")
        twin = async_twin(method)
        while twin in functions or twin in twins or twin in SERVER_INIT_NAMES:  # tool 'x-async' beside tool 'x'
            twin += "_"
        twins.add(twin)
        for name, what in ((method, f"function of tool {tool!r}"), (twin, f"async function of tool {tool!r}")):
            registry.claim(name, Origin(file, pointer, f"{what} in servers/{package}/__init__.py"))
            if name in imports | TOOL_MODULE_NAMES:
                clashes.append((name, Origin("mcp-codegen", "", f"a name servers/{package}/{method}.py imports"),
                                Origin(file, pointer, what)))
        out.append(AgentTool(method, method, twin))
    clashes += [(c.name, c.first, c.second) for c in registry.collisions]
    return out, clashes
