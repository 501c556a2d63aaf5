"""The frozen intermediate representation between a validated spec and the templates.

Tree::

    ProjectIR
    ├── server: ServerIR            names of the package and of its classes
    │   ├── env: (EnvVarIR, ...)    environment variables (spec ``server.env`` + the upstream's)
    │   └── registry: RegistryIR    the MCP Registry entry and server card (or None)
    ├── tools: (ToolIR, ...)        one per tool, in spec order
    │   ├── params: (ParamIR, ...)  client keyword arguments (from the generated input model)
    │   ├── errors: (ErrorRef, ...) declared errors the tool may raise
    │   └── inputs: (InputIR, ...)  declared client inputs (elicitation, sampling, roots)
    ├── errors: (ErrorIR, ...)      declared error classes of the whole server
    ├── upstream: UpstreamIR        the REST API the tools with ``http`` call (or None)
    └── model_schema                the one JSON Schema document given to the model generator

Every Python name in here was decided by ``codegen.ir.lower``; templates only print them.
Spec text reaches templates only as data (rendered with the ``pyrepr``/``docstring`` filters).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ParamIR:
    """One keyword argument of a typed client method."""

    name: str  # the kwarg name in the client method
    field: str  # the model field name it fills
    annotation: str  # annotation source text, valid in client.py
    default: str | None  # default expression source ("UNSET" for optional), None when required
    wire: str = ""  # the JSON property name it is sent as
    schema_default: str | None = None  # the schema's default (documentation only), as Python source
    description: str = ""  # the property's description (documentation only)


@dataclass(frozen=True)
class ErrorIR:
    code: str
    class_name: str
    description: str


@dataclass(frozen=True)
class InputIR:
    key: str
    accessor: str  # method name on the <Tool>Inputs class
    method: str  # elicitation/create | sampling/createMessage | roots/list
    params: dict[str, Any]  # the request's params, embedded as data (``InputDef.params``)
    answer_class: str | None  # model of the form content (form elicitation only)
    message: str = ""  # what the user is asked (elicitation), for docstrings and docs


@dataclass(frozen=True)
class ToolIR:
    name: str
    method: str
    const: str  # module constant holding the ToolDef, e.g. GET_WEATHER
    title: str | None
    description: str
    wire: dict[str, Any]
    input_class: str
    output_class: str | None
    inputs_class: str | None  # <Tool>Inputs accessor class (server side), when inputs declared
    schema_checked: bool
    assert_formats: bool
    fingerprint: str
    errors: tuple[ErrorIR, ...]
    inputs: tuple[InputIR, ...]
    read_only: bool
    params: tuple[ParamIR, ...] = ()
    raw_output: bool = False  # text content sent as written (no control-sequence stripping)
    scopes: tuple[str, ...] = ()  # OAuth scopes a call needs (``ToolDef.scopes``)
    #: the spec's ``overlays.<tool>.outputSchema`` (bundled): ``output_class`` is then the client's
    #: own type of the result, never sent (``wire`` and ``fingerprint`` have no outputSchema)
    overlay_schema: dict[str, Any] | None = None
    overlay_checked: bool = False  # the overlay needs its whole schema checked (W100)
    task: str = "forbidden"  # the spec's ``task`` key (``ToolDef.task_support``)
    start_method: str | None = None  # ``start_<method>`` of the typed clients (task tools only)
    #: the spec's ``http`` binding as written (the tool calls the upstream; server side only, never
    #: in ``wire`` or ``fingerprint``) and the ``upstream.py`` constant holding it
    http: dict[str, Any] | None = None
    http_const: str | None = None

    @property
    def server_output_class(self) -> str | None:
        """The output model the server side uses: none for a client-side overlay."""
        return None if self.overlay_schema is not None else self.output_class


@dataclass(frozen=True)
class CompletionIR:
    """Completion values of one prompt argument or template variable."""

    key: str  # the argument / variable name
    values: tuple[str, ...]  # fixed values (when no method)
    method: str | None  # server method computing them


@dataclass(frozen=True)
class ResourceIR:
    uri: str
    name: str
    method: str  # server handler ``(self, ctx)``
    wire: dict[str, Any]  # the Resource object as listed
    description: str


@dataclass(frozen=True)
class TemplateIR:
    uri_template: str
    name: str
    method: str  # server handler ``(self, variables, ctx)``
    wire: dict[str, Any]  # the ResourceTemplate object as listed
    variables_class: str
    description: str
    completions: tuple[CompletionIR, ...] = ()
    params: tuple[ParamIR, ...] = ()  # typed client method arguments (from the variables model)
    schema: dict[str, Any] = field(default_factory=dict)  # the variables' JSON Schema (before models)


@dataclass(frozen=True)
class PromptIR:
    name: str
    method: str  # server handler ``(self, args, ctx)``
    wire: dict[str, Any]  # the Prompt object as listed
    arguments_class: str
    description: str
    completions: tuple[CompletionIR, ...] = ()
    params: tuple[ParamIR, ...] = ()  # typed client method arguments (from the arguments model)
    schema: dict[str, Any] = field(default_factory=dict)  # the arguments' JSON Schema (before models)


@dataclass(frozen=True)
class AuthIR:
    """``server.auth``, printed into ``SERVER_INFO`` as an ``AuthDef``."""

    authorization_servers: tuple[str, ...]
    resource: str | None
    scopes: tuple[str, ...]
    scopes_supported: tuple[str, ...]
    resource_name: str | None


@dataclass(frozen=True)
class UpstreamIR:
    """The spec's ``upstream`` (as written), printed into ``upstream.py`` as an ``UpstreamDef``."""

    const: str  # the module constant, ``UPSTREAM``
    spec: dict[str, Any]
    #: every handler the server base declares is generated (every tool bound, no resources,
    #: templates or prompts): ``python -m <package>`` serves the base itself
    complete: bool = False

    @property
    def oauth2(self) -> bool:
        """A scheme takes OAuth 2 client credentials (the runtime's ``oauth`` extra: authlib)."""
        schemes = self.spec.get("security") or {}
        return any(isinstance(s, dict) and s.get("type") == "oauth2" for s in schemes.values())


@dataclass(frozen=True)
class EnvVarIR:
    """One environment variable the server reads: the spec's ``server.env`` in spec order, then the
    upstream's (base URL, credentials) not declared there.  Every launcher lists exactly these
    (``mcp_codegen_runtime.wire.launch.stdio_launch``: host config, server.json, bundle)."""

    name: str
    description: str
    required: bool
    secret: bool
    default: str | None
    format: str | None  # string | number | boolean | filepath (None: not said, a string)
    choices: tuple[str, ...]


@dataclass(frozen=True)
class RegistryIR:
    """``server.registry`` with its defaults applied: the MCP Registry entry (server.json) and
    the server card (``codegen.ir.registry``)."""

    name: str  # reverse-DNS, one "/"
    title: str | None  # default server.title
    description: str  # default server.description (1-100 characters, checked)
    website_url: str | None  # default server.websiteUrl
    repository: dict[str, Any] | None  # {url, source, subfolder?, id?} (source inferred for github/gitlab)
    icons: tuple[dict[str, Any], ...]  # default server.icons
    pypi: str  # the PyPI project (default: the package name, _ as -)
    remotes: tuple[dict[str, Any], ...]  # {type, url}, type defaulted to streamable-http


@dataclass(frozen=True)
class ServerIR:
    name: str
    version: str
    title: str | None
    description: str | None
    instructions: str | None
    implementation: str | None
    package: str
    base_class: str
    client_class: str
    sync_client_class: str
    spec_display: str  # path of the spec as shown in headers (posix, relative)
    project: bool = False  # also write pyproject.toml (installable package with a console script)
    impl_module: str = ""  # module of the implementation stub ``build --scaffold`` writes once
    impl_class: str = ""  # its class
    script: str = ""  # the console script's name, when ``project``
    subscribe: bool = False  # resources may be subscribed to (legacy resources/subscribe)
    target: str = "both"  # server | client | both: which side's modules and runtime are generated
    runtime: str = "library"  # library: import mcp_codegen_runtime | private: a ``_runtime`` copy in the package
    auth: AuthIR | None = None  # OAuth resource server (spec ``server.auth``)
    layout: str = "package"  # package | agent: also the servers/ tree (:mod:`codegen.render.agent`)
    skill: str | None = None  # agent layout: None, "server" or "tree" (``--skill``, Agent Skills folders)
    fixtures: tuple[tuple[str, str], ...] = ()  # (role, name) of the pytest fixtures of testing.py
    env: tuple[EnvVarIR, ...] = ()  # environment variables the server reads (spec's, then upstream's)
    registry: RegistryIR | None = None  # spec ``server.registry``: server.json, server card, mcp-name


@dataclass(frozen=True)
class SkillFileIR:
    """One file of a declared skill (SEP-2640), read and checked at build time."""

    path: str  # inside the skill folder, posix ("SKILL.md", "references/FORMS.md")
    text: str  # its content (UTF-8; written to the package byte for byte)
    digest: str  # "sha256:<hex>" of its bytes
    size: int  # its length in bytes


@dataclass(frozen=True)
class SkillIR:
    """A skill the server serves (spec ``skills``): its name, frontmatter and files."""

    name: str
    frontmatter: dict[str, Any]
    files: tuple[SkillFileIR, ...]


@dataclass(frozen=True)
class UiResourceIR:
    """An MCP Apps UI resource the server serves (spec ``ui``, docs/apps.md): the HTML read and
    inlined at build time, its ``_meta.ui`` (McpUiResourceMeta keys as the spec wrote them)."""

    uri: str
    name: str
    title: str | None
    description: str | None
    meta: dict[str, Any]
    html: str


@dataclass(frozen=True)
class ProjectIR:
    server: ServerIR
    tools: tuple[ToolIR, ...]
    errors: tuple[ErrorIR, ...]
    model_schema: dict[str, Any] = field(repr=False)
    model_classes: tuple[str, ...] = ()
    resources: tuple[ResourceIR, ...] = ()
    templates: tuple[TemplateIR, ...] = ()
    prompts: tuple[PromptIR, ...] = ()
    typed_dicts: tuple[tuple[str, str], ...] = ()  # (object model class, its request-side TypedDict)
    skills: tuple[SkillIR, ...] = ()  # spec ``skills`` (docs/skills.md)
    upstream: UpstreamIR | None = None  # spec ``upstream``: the REST API the bound tools call
    ui_resources: tuple[UiResourceIR, ...] = ()  # spec ``ui``: MCP Apps UI resources (docs/apps.md)
