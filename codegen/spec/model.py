"""Typed view of a spec file after it passed the structural check (spec-format.schema.json).

These classes hold the spec as written (schemas unresolved).  Names for Python are NOT
decided here; that is the lowering step's job (``codegen.ir.lower``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir.nodes import SkillIR, UiResourceIR
from .load import SourceDoc
from .pointer import join_pointer

FORMAT_VERSION = 1

#: Keys of a tool entry that are MCP wire fields (copied to tools/list as written).
#: Keys of a spec tool entry that are ours; everything else is the wire Tool object.
CODEGEN_TOOL_KEYS = frozenset({"python_name", "errors", "inputs", "raw_output", "scopes", "task", "http", "ui"})
#: Values of a tool's ``task`` key (the extension's task support; default ``forbidden``).
TASK_SUPPORT = ("forbidden", "optional", "required")
WIRE_TOOL_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "execution", "_meta")


@dataclass(frozen=True)
class ErrorSpec:
    code: str
    description: str
    data_schema: Any
    pointer: str


@dataclass(frozen=True)
class InputSpec:
    key: str
    method: str
    params: dict[str, Any]
    pointer: str


@dataclass(frozen=True)
class ToolSpec:
    name: str
    wire: dict[str, Any]
    errors: tuple[ErrorSpec, ...]
    inputs: tuple[InputSpec, ...]
    python_name: str | None
    pointer: str
    raw_output: bool = False
    scopes: tuple[str, ...] = ()  # OAuth scopes a call needs (docs/auth.md)
    #: pointer of the spec's ``overlays.<name>.outputSchema``: a client-side output type, never sent
    output_overlay: str | None = None
    #: ``task``: whether a call may (``optional``) or must (``required``) run as a task (docs/tasks.md)
    task: str = "forbidden"
    #: ``http``: the tool is served by calling the spec's ``upstream`` (the binding as written; server
    #: side only, never sent, never part of the fingerprint)
    http: dict[str, Any] | None = None
    #: ``ui``: the MCP Apps UI resource of the tool, as its ``_meta.ui`` (``{resourceUri, visibility?}``)
    ui: dict[str, Any] | None = None


@dataclass(frozen=True)
class AuthSpec:
    """``server.auth``: the HTTP server is an OAuth resource server (docs/auth.md)."""

    authorization_servers: tuple[str, ...]
    resource: str | None
    scopes: tuple[str, ...]
    scopes_supported: tuple[str, ...]
    resource_name: str | None


@dataclass(frozen=True)
class EnvSpec:
    """One declared environment variable (``server.env`` / ``server.environment``, docs/spec-format.md)."""

    name: str
    description: str
    required: bool
    secret: bool
    default: str | None
    format: str | None
    choices: tuple[str, ...]
    pointer: str


@dataclass(frozen=True)
class ServerSpec:
    name: str
    version: str
    title: str | None
    description: str | None
    instructions: str | None
    implementation: str | None
    package: str | None
    class_name: str | None
    extra: dict[str, Any] = field(default_factory=dict)
    format_assertion: bool = False
    project: bool = False
    target: str = "both"
    subscribe: bool = False
    auth: AuthSpec | None = None
    layout: str = "package"  # package | agent (the servers/ tree, docs/agents.md)
    runtime: str = "library"  # library (import mcp-codegen-runtime) | private (a copy in the package)
    #: ``env`` (or its alias ``environment``) as declared, in spec order; both keys: both read
    #: (E172 reports it)
    env: tuple[EnvSpec, ...] = ()
    #: ``registry`` as written (the MCP Registry entry, server card; checked by :mod:`.registry`)
    registry: dict[str, Any] | None = None


@dataclass(frozen=True)
class ResourceSpec:
    """A resource with a fixed URI; ``wire`` is its Resource object."""

    uri: str
    name: str
    wire: dict[str, Any]
    python_name: str | None
    pointer: str


@dataclass(frozen=True)
class TemplateSpec:
    """A resource template; ``wire`` is its ResourceTemplate object."""

    uri_template: str
    name: str
    wire: dict[str, Any]
    variables: dict[str, Any]  # variable -> JSON Schema (declared ones only)
    complete: dict[str, Any]  # variable -> list of values | "handler"
    python_name: str | None
    pointer: str


@dataclass(frozen=True)
class ArgumentSpec:
    name: str
    description: str | None
    required: bool
    enum: tuple[str, ...] | None
    complete: Any  # list of values | "handler" | None


@dataclass(frozen=True)
class PromptSpec:
    """A prompt; ``wire`` is its Prompt object (arguments without our keys)."""

    name: str
    wire: dict[str, Any]
    arguments: tuple[ArgumentSpec, ...]
    python_name: str | None
    pointer: str


@dataclass(frozen=True)
class SpecFile:
    """One validated spec file."""

    doc: SourceDoc
    server: ServerSpec
    defs: dict[str, Any]
    tools: tuple[ToolSpec, ...]
    resources: tuple[ResourceSpec, ...] = ()
    templates: tuple[TemplateSpec, ...] = ()
    prompts: tuple[PromptSpec, ...] = ()
    #: ``overlays``: tool name -> its client-side additions (``outputSchema``), as written
    overlays: dict[str, Any] = field(default_factory=dict)
    #: ``skills``, read and checked (:mod:`codegen.spec.skills`), and the files they were read from
    skills: tuple[SkillIR, ...] = ()
    skill_deps: dict[str, str] = field(default_factory=dict)
    #: ``ui``, read, checked and inlined (:mod:`codegen.spec.apps`), and the files they were read from
    ui_resources: tuple[UiResourceIR, ...] = ()
    ui_deps: dict[str, str] = field(default_factory=dict)
    #: ``upstream``: the REST API the tools with ``http`` call, as written (docs/openapi.md)
    upstream: dict[str, Any] | None = None


#: Keys of resource / template / prompt entries that are ours (not sent on the wire).
CODEGEN_RESOURCE_KEYS = frozenset({"python_name", "variables", "complete"})
CODEGEN_ARGUMENT_KEYS = frozenset({"enum", "complete"})


def _present(entries: list[Any] | None) -> list[tuple[int, Any]]:
    """(index, entry) of a list's entries; ``None`` marks one validation set aside (a structural
    error in it), so the checks of the others still run and keep their pointers."""
    return [(i, e) for i, e in enumerate(entries or []) if e is not None]


def _catalog(data: dict[str, Any]) -> tuple[tuple[ResourceSpec, ...], tuple[TemplateSpec, ...], tuple[PromptSpec, ...]]:
    resources = tuple(
        ResourceSpec(r["uri"], r["name"], {k: v for k, v in r.items() if k not in CODEGEN_RESOURCE_KEYS},
                     r.get("python_name"), join_pointer("/resources", i))
        for i, r in _present(data.get("resources")))
    templates = tuple(
        TemplateSpec(r["uriTemplate"], r["name"], {k: v for k, v in r.items() if k not in CODEGEN_RESOURCE_KEYS},
                     dict(r.get("variables") or {}), dict(r.get("complete") or {}), r.get("python_name"),
                     join_pointer("/resourceTemplates", i))
        for i, r in _present(data.get("resourceTemplates")))
    prompts = []
    for i, pr in _present(data.get("prompts")):
        args = tuple(ArgumentSpec(a["name"], a.get("description"), bool(a.get("required", False)),
                                  tuple(a["enum"]) if "enum" in a else None, a.get("complete"))
                     for a in pr.get("arguments") or [])
        wire = {k: v for k, v in pr.items() if k not in CODEGEN_RESOURCE_KEYS}
        if "arguments" in wire:
            wire["arguments"] = [{k: v for k, v in a.items() if k not in CODEGEN_ARGUMENT_KEYS} for a in wire["arguments"]]
        prompts.append(PromptSpec(pr["name"], wire, args, pr.get("python_name"), join_pointer("/prompts", i)))
    return resources, templates, tuple(prompts)


def _input_params(raw: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = dict(raw.get("params") or {})
    for key in ("mode", "message", "url", "requestedSchema"):
        if key in raw:
            params[key] = raw[key]
    return params


def _auth(raw: Any) -> AuthSpec | None:
    if not isinstance(raw, dict):
        return None
    return AuthSpec(tuple(raw["authorizationServers"]), raw.get("resource"), tuple(raw.get("scopes") or ()),
                    tuple(raw.get("scopesSupported") or ()), raw.get("resourceName"))


def _env(server: dict[str, Any]) -> tuple[EnvSpec, ...]:
    """The declared variables of ``env`` then ``environment`` (mapping or list form)."""
    out = []
    for key in ("env", "environment"):
        raw = server.get(key)
        entries = list(raw.items()) if isinstance(raw, dict) else [
            (e.get("name"), e) for e in raw or [] if isinstance(e, dict)]
        for i, (name, decl) in enumerate(entries):
            if not isinstance(name, str) or not isinstance(decl, dict):
                continue
            ptr = join_pointer("/server", key, name if isinstance(raw, dict) else i)
            out.append(EnvSpec(name, str(decl.get("description", "")), bool(decl.get("required", False)),
                               bool(decl.get("secret", False)), decl.get("default"), decl.get("format"),
                               tuple(decl.get("choices") or ()), ptr))
    return tuple(out)


def _tool_ui(raw: Any) -> dict[str, Any] | None:
    """A tool's ``ui`` as its ``_meta.ui``: a URI is ``{resourceUri}``, a mapping is kept as written."""
    if isinstance(raw, str):
        return {"resourceUri": raw}
    return dict(raw) if isinstance(raw, dict) else None


def parse_spec(doc: SourceDoc) -> SpecFile:
    """Build the typed spec from data that already passed the structural check."""
    data = doc.data
    s = data["server"]
    server = ServerSpec(
        name=s["name"],
        version=s["version"],
        title=s.get("title"),
        description=s.get("description"),
        instructions=s.get("instructions"),
        implementation=s.get("implementation"),
        package=s.get("package"),
        class_name=s.get("class_name"),
        extra={k: s[k] for k in ("websiteUrl", "icons") if k in s},
        format_assertion=bool(s.get("formatAssertion", False)),
        project=bool(s.get("project", False)),
        target=str(s.get("target", "both")),
        subscribe=bool(s.get("subscribe", False)),
        auth=_auth(s.get("auth")),
        layout=str(s.get("layout", "package")),
        runtime=str(s.get("runtime", "library")),
        env=_env(s),
        registry=dict(s["registry"]) if isinstance(s.get("registry"), dict) else None,
    )
    overlays = data.get("overlays") or {}
    tools = []
    for i, t in _present(data["tools"]):
        ptr = join_pointer("/tools", i)
        errors = tuple(
            ErrorSpec(code, e.get("description", ""), e.get("data"), join_pointer(ptr, "errors", code))
            for code, e in sorted((t.get("errors") or {}).items())
        )
        inputs = tuple(
            InputSpec(key, v["method"], _input_params(v), join_pointer(ptr, "inputs", key))
            for key, v in sorted((t.get("inputs") or {}).items())
        )
        wire = {k: v for k, v in t.items() if k not in CODEGEN_TOOL_KEYS}  # unknown keys pass through (W105)
        overlay = join_pointer("/overlays", t["name"], "outputSchema") if t["name"] in overlays else None
        tools.append(ToolSpec(t["name"], wire, errors, inputs, t.get("python_name"), ptr, bool(t.get("raw_output", False)),
                              tuple(t.get("scopes") or ()), overlay, str(t.get("task", "forbidden")),
                              dict(t["http"]) if isinstance(t.get("http"), dict) else None, _tool_ui(t.get("ui"))))
    resources, templates, prompts = _catalog(data)
    return SpecFile(doc=doc, server=server, defs=dict(data.get("$defs") or {}), tools=tuple(tools),
                    resources=resources, templates=templates, prompts=prompts, overlays=dict(overlays),
                    upstream=dict(data["upstream"]) if isinstance(data.get("upstream"), dict) else None)
