"""Rendering of one server's part of the agent layout (``--layout agent``, docs/agents.md).

For the server of ``ir`` (names: :mod:`codegen.ir.naming.agent`)::

    servers/<server>/<tool>.py      one typed function per tool (and its ``_async`` twin),
                                    calling the typed sync / async client through the runtime's
                                    ``agent_client`` / ``agent_client_async`` (one session per server)
    servers/<server>/__init__.py    re-exports them; its docstring has one line per tool
    servers/<server>/_index.json    what ``search_tools`` reads and ``diff`` compares
    servers/<server>/llms.txt       the tools for a model to read
    skills/<skill>/SKILL.md         with ``--skill server``

The tree is the agent's view of the server, so an MCP Apps tool whose ``visibility`` lacks
``model`` (only its UI calls it; the extension forbids showing it to the agent) gets no function:
``_index.json`` records it under ``appOnlyTools`` (its wire definition), for ``diff`` alone.

The tree's shared files (``servers/__init__.py``, README, the search helper) depend on every
server of the output folder: :mod:`codegen.render.agent_tree` renders them.
"""

from __future__ import annotations

import json
from typing import Any

import jinja2
from mcp_codegen_runtime.wire.apps import model_visible

from ..diagnostics import Diagnostic
from ..ir.naming.agent import (
    AGENT_FOLDERS,
    AGENT_TREE,
    SKILLS_FOLDER,
    TREE_NAMES,
    AgentTool,
    agent_tools,
    server_folder,
    skill_name,
)
from ..ir.nodes import ParamIR, ProjectIR, ToolIR
from ..models.generate import ModelsModule
from ..spec.apps import ui_listing
from .blackstyle import double_quotes
from .files import GeneratedFile
from .markdown import md_code, md_line
from .runtime_copy import PACKAGE, PRIVATE

#: The index file of each server folder (read by ``servers/_search.py`` and ``diff``).
INDEX = "_index.json"
INDEX_FORMAT = 1
#: Names the typed client annotations may use from ``typing`` / the package itself.
_TYPING = ("Any", "Literal", "Mapping")  # Mapping: from collections.abc
_PACKAGE = ("UNSET", "Unset", "ToolResult")
_SUMMARY = 160


def summary(text: str | None, fallback: str) -> str:
    """The first sentence of ``text`` (or its opening Markdown heading), at most 160 characters, on one line."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if lines and lines[0].startswith("#"):  # a Markdown heading: it is the summary, without its marks
        lines = [lines[0].lstrip("# ")]
    flat = " ".join(" ".join(lines).split())
    if not flat:
        return fallback
    for end in (". ", "! ", "? "):
        cut = flat.find(end)
        if 0 < cut < _SUMMARY:
            flat = flat[:cut + 1]
            break
    return flat if len(flat) <= _SUMMARY else flat[:_SUMMARY - 1].rstrip() + "…"


def _annotation_names(annotation: str) -> set[str]:
    import ast

    return {n.id for n in ast.walk(ast.parse(annotation, mode="eval")) if isinstance(n, ast.Name)}


def _imports(tool: ToolIR, models: ModelsModule) -> tuple[list[str], list[str], list[str], list[str]]:
    """(typing names, import lines, package names, model classes) a tool module needs."""
    names = {n for p in tool.params for n in _annotation_names(p.annotation)}
    names |= {p.default for p in tool.params if p.default == "UNSET"}
    typing = sorted(n for n in names if n in _TYPING and n != "Mapping")
    abc = ["from collections.abc import Mapping"] if "Mapping" in names else []
    package = {n for n in names if n in _PACKAGE}
    classes = {n for n in names if n in models.classes}
    lines = {models.imports[n] for n in names if n in models.imports and n not in _TYPING and n not in classes}
    if tool.output_class:
        classes.add(tool.output_class)
    else:
        package.add("ToolResult")
    return typing, sorted(lines) + abc, sorted(package), sorted(classes)


def _imported_lowercase(lines: list[str]) -> frozenset[str]:
    """The names ``from X import a, b`` lines bind (those a function name could shadow)."""
    out: set[str] = set()
    for line in lines:
        for item in line.partition(" import ")[2].split(","):
            out.add(item.split(" as ")[-1].strip())
    return frozenset(out)


def returns(tool: ToolIR) -> str:
    return tool.output_class or "ToolResult"


def _param_text(p: ParamIR) -> str:
    return f"{p.name}: {p.annotation}" + (f" = {p.default}" if p.default is not None else "")


def signature(function: str, tool: ToolIR) -> str:
    """``get_weather(*, location: str, days: int | Unset = UNSET) -> GetWeatherOutput``."""
    params = (["*"] if tool.params else []) + [_param_text(p) for p in tool.params]
    return f"{function}({', '.join(params)}) -> {returns(tool)}"


def tool_doc(ir: ProjectIR, tool: ToolIR) -> str:
    """The function's docstring text (plain; escaped by the template): description, arguments,
    result and errors."""
    lines = [tool.description.strip() or tool.title or tool.name, ""]
    if tool.title and tool.title != tool.name:
        lines[1:1] = ["", f"Tool {tool.name!r} ({tool.title}) of the {ir.server.name} server."]
    else:
        lines[1:1] = ["", f"Tool {tool.name!r} of the {ir.server.name} server."]
    if tool.params:
        lines.append("Args:")
        for p in tool.params:
            text = " ".join(p.description.split()) or "(no description)"
            if p.default is not None:
                text += " (optional" + (f"; the schema's default is {p.schema_default}" if p.schema_default else "") + ")"
            lines.append(f"    {p.name}: {text}")
        lines.append("")
    lines.append("Returns:")
    if tool.output_class:
        lines.append(f"    {tool.output_class} (from {ir.server.package}.models): the tool's structured result, validated.")
    else:
        lines.append("    ToolResult: the tool's content blocks (.text(), .json(), .content).")
    lines += ["", "Raises:", "    InvalidArgumentsError: the arguments break the input schema (checked before sending)."]
    for e in tool.errors:
        lines.append(f"    {e.class_name} (from {ir.server.package}.errors): {' '.join((e.description or e.code).split())}")
    lines.append("    ToolExecutionError: the tool failed on the server.")
    return "\n".join(lines)


def agent_names(ir: ProjectIR, models: ModelsModule) -> tuple[list[AgentTool] | None, list[Diagnostic]]:
    """The agent layout's names of ``ir``'s tools, or E030/E034 diagnostics."""
    display = ir.server.spec_display
    diags: list[Diagnostic] = []
    if ir.server.target == "server":
        diags.append(Diagnostic(display, 0, 0, "E034", "the agent layout calls the typed client, but this build has "
                                "no client side (target server)", pointer="/server/target",
                                hint="build with --target client (or both), or set server.target: client"))
    if server_folder(ir.server.package) in TREE_NAMES:
        diags.append(Diagnostic(display, 0, 0, "E030", f"server folder servers/{ir.server.package}/ collides with the "
                                f"name {ir.server.package!r} servers/__init__.py defines", pointer="/server/package",
                                hint="set server.package (or pull --name) to another name"))
    if ir.server.package in AGENT_FOLDERS:
        diags.append(Diagnostic(display, 0, 0, "E030", f"package name {ir.server.package!r} collides with the agent "
                                f"layout's folder {ir.server.package}/", pointer="/server/package",
                                hint="set server.package (or pull --name) to another name"))
    methods = [(t.name, t.method, f"{display}#/tools/{i}") for i, t in enumerate(ir.tools)]
    imports = [_imported_lowercase(_imports(t, models)[1]) for t in ir.tools]
    tools, clashes = agent_tools(ir.server.package, methods, imports)
    for name, first, second in clashes:
        diags.append(Diagnostic(second.file, 0, 0, "E030", f"Python name {name!r} of {second} collides with {first}",
                                pointer=second.pointer, hint="give the tool another Python name (python_name on the tool)"))
    return (None if diags else tools), diags


def _tool_context(ir: ProjectIR, tool: ToolIR, names: AgentTool, models: ModelsModule) -> dict[str, Any]:
    typing, lines, package, classes = _imports(tool, models)
    params: list[str | tuple[str, str, str | None]] = ["*"] if tool.params else []
    params += [(p.name, double_quotes(p.annotation), p.default) for p in tool.params]
    return {
        "server": ir.server, "tool": tool, "names": names, "folder": server_folder(ir.server.package),
        "typing_names": typing, "import_lines": lines, "package_names": package, "model_names": classes,
        "rt": PACKAGE if ir.server.runtime == "library" else f"{ir.server.package}.{PRIVATE}",
        "params": params, "returns": returns(tool), "doc": tool_doc(ir, tool),
        "call_args": ", ".join(f"{p.name}={p.name}" for p in tool.params),
    }


def index_data(ir: ProjectIR, tools: list[AgentTool]) -> dict[str, Any]:
    """The server's ``_index.json``: what search_tools and the tree files are made of."""
    folder = server_folder(ir.server.package)
    title = ir.server.title or ir.server.name
    about = summary(ir.server.description or ir.server.instructions, f"the {ir.server.name} MCP server")
    entries = []
    for tool, names in _for_the_agent(ir, tools):
        entries.append({
            "function": names.function, "async_function": names.async_function, "module": names.module,
            "tool": tool.name, "title": tool.title,
            "summary": summary(tool.description, tool.title or tool.name),
            "signature": signature(names.function, tool), "doc": tool_doc(ir, tool),
            "required": [p.name for p in tool.params if p.default is None], "wire": tool.wire,
        })
    return {
        "generated": f"generated by mcp-codegen from {ir.server.spec_display} — do not edit",
        "mcp-codegen-agent-index": INDEX_FORMAT, "spec": ir.server.spec_display, "server": folder, "package": ir.server.package,
        "skill": skill_name(ir.server.package), "title": title, "summary": about,
        "serverInfo": {k: v for k, v in (("name", ir.server.name), ("version", ir.server.version), ("title", ir.server.title),
                                         ("description", ir.server.description)) if v is not None},
        "instructions": ir.server.instructions,
        "client_class": ir.server.client_class, "sync_client_class": ir.server.sync_client_class,
        "tools": entries, "resources": [r.wire for r in ir.resources] + [ui_listing(u) for u in ir.ui_resources],
        "resourceTemplates": [t.wire for t in ir.templates], "prompts": [p.wire for p in ir.prompts],
        **({"appOnlyTools": hidden} if (hidden := [t.wire for t in ir.tools if not model_visible(t.wire)]) else {}),
    }


def _for_the_agent(ir: ProjectIR, tools: list[AgentTool]) -> list[tuple[ToolIR, AgentTool]]:
    """The tools the agent may see, with their names: all but MCP Apps app-only ones (module docstring)."""
    return [(tool, names) for tool, names in zip(ir.tools, tools, strict=True) if model_visible(tool.wire)]


def server_line(index: dict[str, Any]) -> str:
    """The one line a server gets in the tree's README and ``servers/__init__`` docstring."""
    n = len(index["tools"])
    return f"{index['server']} ({n} tool{'s' if n != 1 else ''}): {index['summary']}"


def agent_environment(env: jinja2.Environment) -> jinja2.Environment:
    """``env`` with the Markdown filters the agent templates use."""
    env.filters.setdefault("mdline", md_line)
    env.filters.setdefault("mdcode", md_code)
    env.filters.setdefault("yamlstr", yaml_string)
    return env


def yaml_string(text: str) -> str:
    """A YAML double-quoted scalar on one line (JSON string syntax, which YAML reads as is):
    printable non-ASCII kept, every other character escaped."""
    quoted = json.dumps(" ".join(str(text).split()), ensure_ascii=False)
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
                   for c in quoted)


def render_agent(ir: ProjectIR, models: ModelsModule, tools: list[AgentTool],
                 env: jinja2.Environment) -> list[GeneratedFile]:
    """Every file of ``ir``'s server folder (and its skill, with ``--skill server``)."""
    env = agent_environment(env)
    folder = server_folder(ir.server.package)
    base = f"{AGENT_TREE}/{folder}"
    shown = _for_the_agent(ir, tools)
    files = [GeneratedFile(f"{base}/{names.module}.py", env.get_template("agent/tool.py.jinja").render(
        _tool_context(ir, tool, names, models))) for tool, names in shown]
    index = index_data(ir, tools)
    lines = [{"names": names, "line": f"{names.function}: {entry['summary']}"}
             for (_, names), entry in zip(shown, index["tools"], strict=True)]
    exports = sorted([n for _, t in shown for n in (t.function, t.async_function)] + ["SERVER", "search_tools"])
    files.append(GeneratedFile(f"{base}/__init__.py", env.get_template("agent/server_init.py.jinja").render(
        {"server": ir.server, "title": index["title"], "folder": folder, "tools": lines, "exports": exports})))
    files.append(GeneratedFile(f"{base}/{INDEX}", json.dumps(index, indent=1, ensure_ascii=False) + "\n"))
    files.append(GeneratedFile(f"{base}/llms.txt", env.get_template("agent/llms.txt.jinja").render(
        {"title": index["title"], "summary": index["summary"], "folder": folder, "tools": index["tools"]})))
    if ir.server.skill == "server":
        files.append(GeneratedFile(f"{SKILLS_FOLDER}/{index['skill']}/SKILL.md", env.get_template(
            "agent/SKILL.md.jinja").render(skill_context([index], index["skill"]))))
    return files


def skill_context(indexes: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """What ``SKILL.md`` is made of: its name, a description of at most 1024 characters, the servers."""
    if len(indexes) == 1:
        one = indexes[0]
        head = f"Call the {one['title']} MCP server's {len(one['tools'])} tools as typed Python functions"
        about = f" ({one['summary']})" if one["summary"] else ""
    else:
        head = f"Call the tools of {len(indexes)} MCP servers as typed Python functions"
        about = " (" + ", ".join(i["server"] for i in indexes) + ")"
    tail = ": find one with servers.search_tools, import it from servers.<server>, call it with keyword arguments."
    description = " ".join((head + about + tail).split())
    if len(description) > 1024:
        description = description[:1023].rstrip() + "…"
    found = next(((i, t) for i in indexes for t in i["tools"]), None)
    example = None if found is None else \
        (*found, f"{found[1]['function']}({', '.join(f'{a}=...' for a in found[1]['required'])})")
    return {"name": name, "description": description, "servers": indexes, "example": example}
