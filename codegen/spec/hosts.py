"""Host limits as data: what common MCP hosts and model APIs refuse in a tool definition.

Each :class:`HostRule` names the hosts it concerns, what it checks, the published source of
the limit (a documentation page and its section, or the API's own refusal message where the
limit is not documented), and a check over the :class:`ToolFacts` of one tool (or of every
tool of a server).  ``mcp-codegen validate`` applies them (:mod:`codegen.spec.hostlint`) and
reports each finding as warning W111; nothing here changes what is generated or sent.

The limits were written down from the hosts' documentation as it stood in 2026, without
re-checking it online: where a limit is uncertain the rule says "may" and the lower bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .keywords import OLDER_KEYWORDS, SCHEMA_KEYWORDS
from .load import SourceDoc

#: The host profiles ``--host`` takes (besides ``common``, ``all`` and ``none``).
HOSTS = ("claude", "openai", "gemini", "cursor", "vscode")
#: Profiles that stand for several hosts: ``common`` keeps the rules shared by two or more hosts.
PROFILES = ("common", "all", "none")


@dataclass(frozen=True)
class Node:
    """One schema of a tool's input schema, as written: in ``doc`` at ``pointer``.

    ``place`` is ``"root"``, ``"property"`` (the value of ``properties/NAME``) or ``"inner"``;
    ``depth`` counts the ``properties`` / ``items`` steps from the root to it (the root is 0).
    """

    doc: SourceDoc
    pointer: str
    schema: dict[str, Any]
    place: str
    depth: int


@dataclass(frozen=True)
class ToolFacts:
    """What the rules look at for one tool: its wire keys and every schema node reached."""

    doc: SourceDoc
    pointer: str  # of the tool in the spec
    name: str
    server: str
    wire: dict[str, Any]
    nodes: tuple[Node, ...] = field(default=())


#: A finding: the document, the pointer in it, and what is wrong (a phrase).
Finding = tuple[SourceDoc, str, str]


@dataclass(frozen=True)
class HostRule:
    """One limit: ``check`` gets one tool's facts (``per == "tool"``) or every tool's (``"server"``)."""

    id: str
    hosts: tuple[str, ...]
    what: str
    source: str
    hint: str
    check: Callable[[Any], list[Finding]]
    per: str = "tool"


def _at(facts: ToolFacts, *keys: str) -> str:
    return "/".join([facts.pointer, *keys])


def _name(limit: int) -> Callable[[ToolFacts], list[Finding]]:
    def check(t: ToolFacts) -> list[Finding]:
        n = len(t.name)
        return [(t.doc, _at(t, "name"), f"name has {n} characters, more than {limit}")] if n > limit else []
    return check


_API_NAME = re.compile(r"[A-Za-z0-9_-]*")
_GEMINI_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]*")


def _charset(t: ToolFacts) -> list[Finding]:
    bad = sorted({c for c in t.name if not _API_NAME.fullmatch(c)})
    return [(t.doc, _at(t, "name"), f"name has {', '.join(map(repr, bad))}, outside A-Z a-z 0-9 _ -")] if bad else []


def _gemini_name(t: ToolFacts) -> list[Finding]:
    if not t.name or _GEMINI_NAME.fullmatch(t.name):
        return []
    return [(t.doc, _at(t, "name"), "name must start with a letter or _ and use only A-Z a-z 0-9 _ . : -")]


def _prefixed(t: ToolFacts) -> list[Finding]:
    full = f"mcp__{t.server}__{t.name}"
    if len(full) <= 64:
        return []
    return [(t.doc, _at(t, "name"), f"Claude Code names it {full!r}, {len(full)} characters, more than 64")]


def _root(t: ToolFacts) -> Node | None:
    return next((n for n in t.nodes if n.place == "root"), None)


def _root_type(t: ToolFacts) -> list[Finding]:
    root = _root(t)
    if root is None or root.schema.get("type") == "object":
        return []
    kind = root.schema.get("type")
    what = "has no `type`" if kind is None else f"has `type: {kind}`"
    return [(root.doc, root.pointer, f"the input schema's root {what}, not `type: object`")]


def _root_keywords(*keywords: str) -> Callable[[ToolFacts], list[Finding]]:
    def check(t: ToolFacts) -> list[Finding]:
        root = _root(t)
        if root is None:
            return []
        return [(root.doc, f"{root.pointer}/{k}", f"`{k}` at the root of the input schema") for k in keywords
                if k in root.schema]
    return check


def _nodes_with(t: ToolFacts, test: Callable[[Node], tuple[str, str] | None]) -> list[Finding]:
    """A finding at ``node/key`` for every node where ``test`` gives (key, what)."""
    return [(n.doc, f"{n.pointer}/{found[0]}", found[1]) for n in t.nodes if (found := test(n))]


def _refs(t: ToolFacts) -> list[Finding]:
    def test(n: Node) -> tuple[str, str] | None:
        key = next((k for k in ("$ref", "$dynamicRef", "$defs", "definitions") if k in n.schema), None)
        return (key, f"`{key}` in the input schema") if key else None
    return _nodes_with(t, test)


def _type_list(t: ToolFacts) -> list[Finding]:
    def test(n: Node) -> tuple[str, str] | None:
        kind = n.schema.get("type")
        return ("type", f"`type: {kind}` (a list of types)") if isinstance(kind, list) else None
    return _nodes_with(t, test)


def _unions(t: ToolFacts) -> list[Finding]:
    def test(n: Node) -> tuple[str, str] | None:
        key = next((k for k in ("anyOf", "oneOf", "allOf") if k in n.schema), None)
        if key is None:
            return None
        where = {"root": "at the root", "property": "in a property"}.get(n.place, "in a nested schema")
        return key, f"`{key}` {where}"
    return _nodes_with(t, test)


#: The keys of Gemini's function-declaration ``Schema`` (a subset of the OpenAPI 3.0 schema).
GEMINI_SCHEMA_KEYS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
    "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
    "default", "items", "minimum", "maximum",
})
#: Keywords other rules already report for Gemini (``ref``, ``union``).
_REPORTED_ELSEWHERE = frozenset({"$ref", "$dynamicRef", "$defs", "definitions", "oneOf", "allOf"})


def _gemini_keywords(t: ToolFacts) -> list[Finding]:
    first: dict[str, tuple[Node, int]] = {}
    for n in t.nodes:
        for key in n.schema:
            if key in (SCHEMA_KEYWORDS | OLDER_KEYWORDS) - GEMINI_SCHEMA_KEYS - _REPORTED_ELSEWHERE:
                node, count = first.get(key, (n, 0))
                first[key] = (node, count + 1)
    out = []
    for key, (n, count) in sorted(first.items()):
        more = f" ({count} places)" if count > 1 else ""
        out.append((n.doc, f"{n.pointer}/{key}", f"`{key}`{more}, a keyword Gemini's Schema does not have"))
    return out


def _depth(t: ToolFacts) -> list[Finding]:
    deep = max(t.nodes, key=lambda n: n.depth, default=None)
    if deep is None or deep.depth <= 10:
        return []
    return [(deep.doc, deep.pointer, f"the input schema is nested {deep.depth} levels deep, more than 10")]


def _count(t: ToolFacts, what: str, limit: int, size: Callable[[dict[str, Any]], int]) -> list[Finding]:
    total = sum(size(n.schema) for n in t.nodes)
    root = _root(t)
    if root is None or total <= limit:
        return []
    return [(root.doc, root.pointer, f"the input schema has {total} {what}, more than {limit}")]


def _sized(key: str) -> Callable[[dict[str, Any]], int]:
    return lambda s: len(s[key]) if isinstance(s.get(key), (dict, list)) else 0


def _description_length(t: ToolFacts) -> list[Finding]:
    text = t.wire.get("description")
    if not isinstance(text, str) or len(text) <= 1024:
        return []
    return [(t.doc, _at(t, "description"), f"the description has {len(text)} characters, more than 1024")]


def _no_description(t: ToolFacts) -> list[Finding]:
    text = t.wire.get("description")
    return [] if isinstance(text, str) and text.strip() else [(t.doc, t.pointer, "no description")]


def _tool_count(limit: int) -> Callable[[list[ToolFacts]], list[Finding]]:
    def check(tools: list[ToolFacts]) -> list[Finding]:
        if len(tools) <= limit:
            return []
        return [(tools[0].doc, "/tools", f"the server lists {len(tools)} tools, more than {limit}")]
    return check


_ANTHROPIC = "https://docs.anthropic.com/en/docs/build-with-claude/tool-use"
_OPENAI_REF = "https://platform.openai.com/docs/api-reference/chat/create"
_OPENAI_FC = "https://platform.openai.com/docs/guides/function-calling"
_OPENAI_SO = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"
_GEMINI = "https://ai.google.dev/api/caching"
_OPTIONAL = "leave the property out of `required` instead of allowing null"

#: The rule table, in the order of docs/hosts.md.
RULES: tuple[HostRule, ...] = (
    HostRule("name-length", ("claude", "openai", "gemini"), "tool name longer than 64 characters",
             f"{_ANTHROPIC} (tool `name`: ^[a-zA-Z0-9_-]{{1,64}}$); {_OPENAI_REF} (tools[].function.name: at most 64); "
             f"{_GEMINI}#FunctionDeclaration (name: at most 64)",
             "shorten the name to 64 characters", _name(64)),
    HostRule("name-charset", ("claude", "openai"), "tool name with characters outside A-Z a-z 0-9 _ - (a `.` or `/`)",
             f"{_ANTHROPIC} (tool `name`: ^[a-zA-Z0-9_-]{{1,64}}$); {_OPENAI_REF} (tools[].function.name: "
             "a-z, A-Z, 0-9, underscores and dashes)", "use _ or - instead", _charset),
    HostRule("gemini-name", ("gemini",), "tool name not starting with a letter or _, or with characters outside "
             "A-Z a-z 0-9 _ . : -", f"{_GEMINI}#FunctionDeclaration (name)", "start the name with a letter", _gemini_name),
    HostRule("prefixed-name", ("claude",), "`mcp__<server>__<tool>` (Claude Code's name for the tool, with "
             "server.name as the server) longer than 64 characters",
             "https://docs.anthropic.com/en/docs/claude-code/mcp (MCP tools are named mcp__<server>__<tool>); "
             f"{_ANTHROPIC} (64-character names)", "shorten the tool name or server.name", _prefixed),
    HostRule("root-type", ("claude", "openai"), "input schema root whose `type` is not exactly `object`",
             f"{_ANTHROPIC} (input_schema: a JSON Schema of an object); {_OPENAI_FC} (parameters: an object schema; "
             "refused with \"schema must be a JSON Schema of 'type: \\\"object\\\"'\")",
             "write `type: object` at the root", _root_type),
    HostRule("root-union", ("claude", "openai"), "`anyOf`, `oneOf` or `allOf` at the root of the input schema",
             f"{_ANTHROPIC} (refused: \"input_schema does not support oneOf, allOf, or anyOf at the top level\"); "
             f"{_OPENAI_FC} (refused: no 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level)",
             "move the alternatives into a property, or make each one a tool of its own",
             _root_keywords("anyOf", "oneOf", "allOf")),
    HostRule("root-enum-not", ("openai",), "`enum` or `not` at the root of the input schema",
             f"{_OPENAI_FC} (refused: no 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level)",
             "put the constraint on the properties", _root_keywords("enum", "not")),
    HostRule("ref", ("gemini",), "`$ref` / `$defs` in the input schema (a client or API that does not resolve them)",
             f"{_GEMINI}#Schema (no $ref or $defs in a function declaration's parameters)",
             "inline the definition where this host matters", _refs),
    HostRule("type-list", ("gemini",), "`type` as a list, such as the nullable form `type: [X, \"null\"]`",
             f"{_GEMINI}#Schema (type: one type; `nullable: true` instead)", _OPTIONAL, _type_list),
    HostRule("union", ("gemini",), "`anyOf`, `oneOf` or `allOf` anywhere in the input schema (nullable `anyOf` "
             "forms too)", f"{_GEMINI}#Schema (no oneOf or allOf; anyOf only in newer API versions)",
             f"use one type where this host matters; for a nullable property {_OPTIONAL}", _unions),
    HostRule("gemini-keyword", ("gemini",), "a JSON Schema keyword Gemini's Schema does not have "
             "(`additionalProperties`, `const`, `exclusiveMinimum`, `$schema`, …)",
             f"{_GEMINI}#Schema (the OpenAPI 3.0 subset a function declaration's parameters take; refused as "
             "\"Unknown name\")", "hosts that pass the schema to Gemini as it is may be refused", _gemini_keywords),
    HostRule("depth", ("openai",), "input schema nested more than 10 levels (`properties` / `items`)",
             f"{_OPENAI_SO} (up to 10 levels of nesting, strict mode)", "flatten the schema", _depth),
    HostRule("properties", ("openai",), "more than 5000 properties in one input schema",
             f"{_OPENAI_SO} (up to 5000 object properties in total, strict mode)", "split the tool",
             lambda t: _count(t, "properties", 5000, _sized("properties"))),
    HostRule("enum-values", ("openai",), "more than 1000 `enum` values in one input schema",
             f"{_OPENAI_SO} (up to 1000 enum values across all enum properties, strict mode)",
             "use a string with a description, or a completion", lambda t: _count(t, "enum values", 1000, _sized("enum"))),
    HostRule("description-length", ("openai",), "tool description longer than 1024 characters",
             f"{_OPENAI_REF} (tools[].function.description; longer ones have been refused with \"string too long\": "
             "an observed limit)", "shorten the description; details can go into the properties' descriptions",
             _description_length),
    HostRule("no-description", HOSTS, "tool without a description (models pick tools by it)",
             f"{_ANTHROPIC} (best practices for tool definitions: a detailed description); {_OPENAI_FC} "
             "(best practices for defining functions)", "add a description", _no_description),
    HostRule("tool-count-128", ("openai", "vscode"), "more than 128 tools in one server",
             f"{_OPENAI_REF} (tools: at most 128 functions); https://code.visualstudio.com/docs/copilot/chat/mcp-servers "
             "(at most 128 tools in a chat request)", "split the server, or let users enable a subset",
             _tool_count(128), per="server"),
    HostRule("tool-count-40", ("cursor",), "more than 40 tools in one server",
             "https://docs.cursor.com/context/model-context-protocol (limitations: only the first 40 tools are sent "
             "to the agent)", "split the server", _tool_count(40), per="server"),
)


def select(profile: str) -> tuple[list[tuple[HostRule, tuple[str, ...]]], str | None]:
    """The rules of a ``--host`` profile, each with the hosts it is reported for.

    ``profile`` is ``common`` (rules shared by two or more hosts), ``all``, ``none``, a host
    name, or a comma-separated list of host names.

    Returns:
        (rule, hosts) pairs, and an error message for an unknown profile (else None).
    """
    names = [p.strip() for p in profile.split(",") if p.strip()]
    if names == ["none"]:
        return [], None
    if names == ["all"]:
        return [(r, r.hosts) for r in RULES], None
    if names == ["common"]:
        return [(r, r.hosts) for r in RULES if len(r.hosts) >= 2], None
    unknown = [n for n in names if n not in HOSTS]
    if unknown or not names:
        return [], (f"unknown host profile {', '.join(map(repr, unknown)) or repr(profile)}; choose common, all, none or "
                    f"host names ({', '.join(HOSTS)}), comma-separated")
    chosen = []
    for rule in RULES:
        hosts = tuple(h for h in rule.hosts if h in names)
        if hosts:
            chosen.append((rule, hosts))
    return chosen, None
