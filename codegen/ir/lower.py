"""Lowering: a validated spec becomes the frozen IR.

Every name comes from the naming service (:mod:`codegen.ir.naming.core`, and
:mod:`codegen.ir.naming.models` for the names inside the models); lowering claims them in
registries (module classes, client/server methods) in spec order, and a clash is a
diagnostic (E030) naming both origins and the override key that fixes it (``python_name`` on
a tool, ``class_name``/``package`` on the server, ``x-python-name`` on a nested schema).
"""

from __future__ import annotations

import dis
from functools import cache
from typing import Any

from mcp_codegen_runtime.schema.patterns import PatternError, compile_pattern
from mcp_codegen_runtime.schema.residual import pattern_checks
from mcp_codegen_runtime.wire.tools import tool_fingerprint
from mcp_codegen_runtime.wire.uritemplate import parse as parse_template

from ..diagnostics import Diagnostic, Level
from ..options import RUNTIME_PACKAGE
from ..schemas.document import ModelSchemaBuilder, bundle_wire
from ..schemas.exactness import inexact_keywords, schema_patterns
from ..spec.keywords import SIDE_CHECK, keyword_note, keywords_of
from ..spec.load import SourceDoc
from ..spec.model import PromptSpec, ResourceSpec, SpecFile, TemplateSpec, ToolSpec
from ..spec.pointer import join_pointer
from ..spec.refs import Resolver, Target
from ..spec.validate import object_root
from .naming.core import (
    RESERVED_MODULE_NAMES,
    RUNTIME_ERROR_NAMES,
    SERVER_CLASSES,
    NameRegistry,
    Origin,
    answer_class,
    class_stem,
    completion_method,
    def_class,
    error_class,
    handler_method,
    input_method,
    package_name,
    prompt_class,
    server_names,
    template_class,
    tool_class,
    tool_const,
    tool_method,
    tool_stem,
    unshadowed_package,
)
from .naming.models import typed_dict_class
from .naming.testing import fixture_names
from .naming.upstream import UPSTREAM_MODULE_NAMES, http_const, upstream_const
from .nodes import (
    AuthIR,
    CompletionIR,
    ErrorIR,
    InputIR,
    ProjectIR,
    PromptIR,
    ResourceIR,
    ServerIR,
    TemplateIR,
    ToolIR,
    UpstreamIR,
)
from .registry import registry_ir, server_env
from .typeddicts import request_objects

#: The keywords the runtime checks beside the models (``pattern``), where they apply unconditionally.
_SIDE_CHECKED = keywords_of(SIDE_CHECK)


@cache
def runtime_member_names() -> frozenset[str]:
    """Attribute names of the runtime base classes; tool methods must not shadow them.

    Computed once per process (importing the runtime client and server costs about 0.2 s
    of CPU); :mod:`codegen.driver.batch` computes it before forking its workers."""
    from mcp_codegen_runtime.client.gencode import ClientBase, SyncClientBase
    from mcp_codegen_runtime.server.gencode import ServerBase

    names: set[str] = {"self", "ctx", "args"}
    for cls in (ServerBase, ClientBase, SyncClientBase):
        names.update(n for n in dir(cls))
        # instance attributes set in __init__ (a tool named `timeout` must not hide one)
        names.update(i.argval for i in dis.get_instructions(cls.__init__) if i.opname == "STORE_ATTR")
    return frozenset(names)


@cache
def upstream_member_names() -> frozenset[str]:
    """Attribute names of the runtime's ``UpstreamServer`` mixin, which the server base of a spec
    with ``upstream`` also inherits: its tool methods must not shadow them either."""
    from mcp_codegen_runtime.server.gencode import UpstreamServer

    return frozenset(dir(UpstreamServer))


def _class_target(resolver: Resolver, doc: SourceDoc, ptr: str, objects_only: bool = True) -> Target:
    """The schema a tool's input/output class is made from.

    A root that is only a ``$ref`` to an object schema reuses that schema's class (so
    ``outputSchema: {$ref: "#/$defs/Note"}`` returns ``Note``), anything else is its own class.
    """
    file = doc.file
    here = Target(file, ptr)
    schema = resolver.schema_at(here)
    if isinstance(schema, dict) and "$ref" in schema and set(schema) <= {"$ref", "description", "title"}:
        target = resolver.resolve(schema["$ref"], doc, ptr + "/$ref", ptr)
        body = resolver.schema_at(target) if target else None
        if target and (not objects_only or isinstance(body, dict) and body.get("type") == "object" and body.get("properties")):
            return target
    return here


def _collision_diags(spec: SpecFile, registry: NameRegistry, fix: str) -> list[Diagnostic]:
    out = []
    for c in registry.collisions:
        line, col = spec.doc.locate(c.second.pointer) if c.second.file == spec.doc.display else (0, 0)
        out.append(Diagnostic(
            c.second.file, line, col, "E030",
            f"Python name {c.name!r} of {c.second} collides with {c.first}",
            pointer=c.second.pointer, hint=fix))
    return out


def _referenced_classes(tools: list[ToolIR]) -> tuple[str, ...]:
    """Model classes the templates import (they must exist in models.py)."""
    names = {t.input_class for t in tools} | {t.output_class for t in tools if t.output_class}
    names |= {i.answer_class for t in tools for i in t.inputs if i.answer_class}
    return tuple(sorted(names))


def lower(spec: SpecFile, resolver: Resolver, spec_display: str) -> tuple[ProjectIR | None, list[Diagnostic]]:
    """Decide every name and build the IR.

    Returns:
        The IR (None when names collide) and diagnostics (warnings for schema keywords the
        models cannot express, renamed identifiers, and collisions).
    """
    return _Lowering(spec, resolver).run(spec_display)


class _Lowering:
    """The state of one lowering: the name registries, the model-document builder and the
    diagnostics, filled in spec order (the order decides which of two clashing names wins)."""

    def __init__(self, spec: SpecFile, resolver: Resolver) -> None:
        self.spec, self.resolver, self.doc = spec, resolver, spec.doc
        self.diags: list[Diagnostic] = []
        s = spec.server
        wanted = package_name(s.name, s.package)
        package = unshadowed_package(wanted)
        if package != wanted:
            self.diags.append(self.doc.diag(
                "W101", f"package name {wanted!r} shadows a standard-library module; using {package}",
                "/server/name", hint="set server.package to choose another name", level=Level.WARNING))
        if package == RUNTIME_PACKAGE:
            self.diags.append(self.doc.diag(
                "E033", f"package name {package!r} is the runtime's (mcp-codegen-runtime)", "/server/package" if s.package else "/server/name",
                hint="set server.package to another name"))
        self.package = package
        self.stem = class_stem(s.name, s.class_name)
        bound = spec.upstream is not None  # upstream.py, and server.py's names of the upstream feature
        self.classes = NameRegistry(RESERVED_MODULE_NAMES | RUNTIME_ERROR_NAMES | (UPSTREAM_MODULE_NAMES if bound else frozenset()))
        for suffix, what in SERVER_CLASSES:
            self.classes.claim(self.stem + suffix, Origin(self.doc.display, "/server/name", what))
        self.runtime_names = runtime_member_names() | (upstream_member_names() if bound else frozenset())
        self.methods = NameRegistry()
        self.builder = ModelSchemaBuilder(resolver, self.classes)
        self.error_classes: dict[str, ErrorIR] = {}

    def run(self, spec_display: str) -> tuple[ProjectIR | None, list[Diagnostic]]:
        self._shared_defs()
        tools = [self._tool(tool) for tool in self.spec.tools]
        resources = tuple(self._resource(r) for r in self.spec.resources)
        templates = tuple(self._template(tpl) for tpl in self.spec.templates)
        prompts = tuple(self._prompt(pr) for pr in self.spec.prompts)
        model_schema = self.builder.finish()
        typed_dicts = tuple((cls, self.classes.claim(typed_dict_class(cls), Origin(
            self.doc.display, "", f"the request TypedDict of {cls}"))) for cls in request_objects(
                model_schema, [t.input_class for t in tools]))
        self.diags.extend(d.diag("W102", message, at, hint="the wire schema is kept as written", level=Level.WARNING)
                          for d, at, message in self.builder.loosened)
        self.diags.extend(self.resolver.diagnostics)
        self.diags.extend(_collision_diags(self.spec, self.classes, "rename one of them, or set `python_name` on the tool / "
                                           "`x-python-name` on the schema"))
        self.diags.extend(_collision_diags(self.spec, self.methods, "set `python_name` on one of the tools"))
        if any(d.is_error for d in self.diags):
            return None, self.diags
        ir = ProjectIR(server=self._server(spec_display), tools=tuple(tools),
                       errors=tuple(sorted(self.error_classes.values(), key=lambda e: e.class_name)),
                       model_schema=model_schema,
                       model_classes=tuple(sorted({*_referenced_classes(tools), *(t.variables_class for t in templates),
                                                   *(pr.arguments_class for pr in prompts)})),
                       resources=resources, templates=templates, prompts=prompts, typed_dicts=typed_dicts,
                       skills=self.spec.skills, upstream=self._upstream(tools), ui_resources=self.spec.ui_resources)
        return ir, self.diags

    def _upstream(self, tools: list[ToolIR]) -> UpstreamIR | None:
        """The spec's ``upstream``; complete when every handler of the base calls it (no catalog)."""
        if self.spec.upstream is None:
            return None
        catalog = self.spec.resources or self.spec.templates or self.spec.prompts
        return UpstreamIR(upstream_const(), self.spec.upstream, complete=all(t.http for t in tools) and not catalog)

    def _server(self, spec_display: str) -> ServerIR:
        s, package, stem = self.spec.server, self.package, self.stem
        return ServerIR(
            name=s.name, version=s.version, title=s.title, description=s.description, instructions=s.instructions,
            implementation=s.implementation, package=package, spec_display=spec_display,
            project=s.project or s.registry is not None, target=s.target, runtime=s.runtime, subscribe=s.subscribe, layout=s.layout, **server_names(package, stem),
            fixtures=fixture_names(package), env=server_env(self.spec), registry=registry_ir(self.spec, package),
            auth=AuthIR(s.auth.authorization_servers, s.auth.resource, s.auth.scopes, s.auth.scopes_supported,
                        s.auth.resource_name) if s.auth is not None else None,
        )

    def _shared_defs(self) -> None:
        """The spec's ``$defs``: one class each, named after its key (first claim wins)."""
        file = self.doc.file
        for name, _ in sorted(self.spec.defs.items()):
            here = Target(file, join_pointer("/$defs", name))
            target = _class_target(self.resolver, self.doc, here.pointer, objects_only=False)
            cls = self.builder.name_target(target, def_class(name), "$defs entry")
            if target != here:
                self.builder.alias(here, cls)

    def _tool(self, tool: ToolSpec) -> ToolIR:
        doc, builder = self.doc, self.builder
        method = self.methods.claim(tool_method(tool.name, tool.python_name, self.runtime_names),
                                    Origin(doc.display, tool.pointer, f"tool {tool.name!r}"))
        start = None
        if tool.task != "forbidden":
            start = self.methods.claim(tool_method(tool.name, tool.python_name, self.runtime_names, "start_"),
                                       Origin(doc.display, join_pointer(tool.pointer, "task"), f"the task handle method of tool {tool.name!r}"))
        tstem = tool_stem(tool.name, tool.python_name)
        in_ptr = join_pointer(tool.pointer, "inputSchema")
        in_target = _class_target(self.resolver, doc, in_ptr)
        input_class = builder.name_target(in_target, tool_class(tstem, "Input"), f"tool {tool.name!r} inputSchema")
        if object_root(tool.wire["inputSchema"]) == "loose":
            builder.force_object(in_target)  # W102 reported by validation
        wire = dict(tool.wire)
        wire["inputSchema"] = bundle_wire(self.resolver, doc, in_ptr)
        if tool.ui is not None:  # MCP Apps: the UI resource link, sent as _meta.ui (docs/apps.md)
            wire["_meta"] = {**(wire.get("_meta") or {}), "ui": tool.ui}
        output_class = None
        if "outputSchema" in tool.wire:
            out_ptr = join_pointer(tool.pointer, "outputSchema")
            output_class = builder.name_target(_class_target(self.resolver, doc, out_ptr), tool_class(tstem, "Output"),
                                               f"tool {tool.name!r} outputSchema")
            wire["outputSchema"] = bundle_wire(self.resolver, doc, out_ptr)
        checked = self._schema_checks(tool, wire)
        overlay, overlay_checked = None, False
        if tool.output_overlay is not None and "outputSchema" not in tool.wire:  # client-side, never sent
            output_class = builder.name_target(_class_target(self.resolver, doc, tool.output_overlay),
                                               tool_class(tstem, "Output"), f"tool {tool.name!r} overlay outputSchema")
            overlay = bundle_wire(self.resolver, doc, tool.output_overlay)
            overlay_checked = self._schema_checks(tool, {"outputSchema": overlay}, tool.output_overlay)
        errs = self._errors(tool)
        inputs = self._inputs(tool, tstem)
        inputs_class = None
        if inputs:
            inputs_class = self.classes.claim(str(tool_class(tstem, "Inputs")), Origin(
                doc.display, join_pointer(tool.pointer, "inputs"), f"tool {tool.name!r} inputs"))
        ann = tool.wire.get("annotations") or {}
        assert_formats = self.spec.server.format_assertion and checked
        return ToolIR(
            name=tool.name, method=method, const=tool_const(method),
            title=tool.wire.get("title"), description=tool.wire.get("description", ""), wire=wire,
            input_class=input_class, output_class=output_class, inputs_class=inputs_class,
            schema_checked=checked, assert_formats=assert_formats, fingerprint=tool_fingerprint(wire),
            errors=tuple(errs), inputs=tuple(inputs), read_only=bool(ann.get("readOnlyHint", False)),
            raw_output=tool.raw_output, scopes=tool.scopes, overlay_schema=overlay, overlay_checked=overlay_checked,
            task=tool.task, start_method=start,
            http=tool.http, http_const=http_const(method) if tool.http is not None else None,
        )

    def _schema_checks(self, tool: ToolSpec, wire: dict[str, Any], at_ptr: str | None = None) -> bool:
        """W106 for patterns Python cannot run, W100 for keywords the models cannot express;
        True when the tool must be schema-checked at run time.  Patterns that apply
        unconditionally are checked beside the models instead (no W100).  ``at_ptr``: where
        the (single) schema is in the spec, when not under the tool (an overlay)."""
        checked = False
        for key in ("inputSchema", "outputSchema"):
            if key not in wire:
                continue
            for at, pattern in schema_patterns(wire[key]):
                try:
                    compile_pattern(pattern)
                except PatternError as exc:
                    self.diags.append(self.doc.diag("W106", f"tool {tool.name!r}: {exc}; it is not enforced",
                                                    (at_ptr or join_pointer(tool.pointer, key)) + at, level=Level.WARNING,
                                                    hint="rewrite it without that construct"))
            inexact = inexact_keywords(wire[key], self.spec.server.format_assertion)
            if all(kw in _SIDE_CHECKED for _, kw in inexact) and pattern_checks(wire[key]) is not None:
                continue  # patterns only, each checked beside the model (schema/residual.py)
            for at, kw in inexact:
                checked = True
                self.diags.append(self.doc.diag(
                    "W100", f"tool {tool.name!r}: the models cannot express JSON Schema keyword {kw!r} here, so "
                    f"the tool's original {key} is checked at run time with jsonschema, and its model leaves {kw!r} "
                    f"out (the handler's typed view only); {kw!r} in docs/json-schema.md: {keyword_note(kw)}",
                    (at_ptr or join_pointer(tool.pointer, key)) + at,
                    hint="install jsonschema beside the generated package (`pip install 'mcp-codegen-runtime[jsonschema]'`, "
                    "or `pip install jsonschema` with a private runtime; a generated pyproject.toml asks for it): " + ("without it the client checks the overlay by its model only"
                                                   if at_ptr else "without it the server refuses to start"),
                    level=Level.WARNING))
        return checked

    def _errors(self, tool: ToolSpec) -> list[ErrorIR]:
        """The tool's declared errors; a code declared by several tools is one class."""
        out = []
        for e in tool.errors:
            if e.code not in self.error_classes:
                cls = self.classes.claim(error_class(e.code), Origin(self.doc.display, e.pointer, f"error {e.code!r}"))
                self.error_classes[e.code] = ErrorIR(e.code, cls, e.description)
            out.append(self.error_classes[e.code])
        return out

    def _inputs(self, tool: ToolSpec, tstem: str) -> list[InputIR]:
        """The tool's declared client inputs; a form elicitation gets an answer model."""
        out = []
        for inp in tool.inputs:
            answer = None
            if inp.method == "elicitation/create" and "requestedSchema" in inp.params:
                answer = self.builder.add_schema(answer_class(tstem, inp.key), inp.params["requestedSchema"],
                                                 self.doc, join_pointer(inp.pointer, "requestedSchema"), f"input {inp.key!r}")
            message = inp.params.get("message")
            out.append(InputIR(inp.key, input_method(inp.key), inp.method, inp.params, answer,
                               message if isinstance(message, str) else ""))
        return out

    # -- resources, templates, prompts ---------------------------------------------------
    def _handler(self, prefix: str, python_name: str | None, name: str, pointer: str, what: str) -> str:
        """A server method name for a resource / template / prompt handler (one registry with the tools)."""
        return self.methods.claim(handler_method(prefix, python_name, name, self.runtime_names),
                                  Origin(self.doc.display, pointer, what))

    def _completions(self, complete: dict[str, Any], owner: str, pointer: str, what: str) -> tuple[CompletionIR, ...]:
        out = []
        for key, source in sorted(complete.items()):
            if source == "handler":
                method = self.methods.claim(completion_method(owner, key, self.runtime_names),
                                            Origin(self.doc.display, join_pointer(pointer, key), f"{what} completion {key!r}"))
                out.append(CompletionIR(key, (), method))
            elif isinstance(source, list):
                out.append(CompletionIR(key, tuple(str(v) for v in source), None))
        return tuple(out)

    def _resource(self, r: ResourceSpec) -> ResourceIR:
        method = self._handler("read", r.python_name, r.name, r.pointer, f"resource {r.uri!r}")
        return ResourceIR(r.uri, r.name, method, r.wire, str(r.wire.get("description") or r.wire.get("title") or r.name))

    def _template(self, tpl: TemplateSpec) -> TemplateIR:
        what = f"resource template {tpl.uri_template!r}"
        method = self._handler("read", tpl.python_name, tpl.name, tpl.pointer, what)
        parsed = parse_template(tpl.uri_template)
        optional = set(parsed.query_variables)
        schema = {"type": "object",
                  "properties": {v: tpl.variables.get(v, {"type": "string"}) for v in parsed.variables},
                  "required": [v for v in parsed.variables if v not in optional]}
        cls = self.builder.add_schema(template_class(tpl.python_name, tpl.name), schema, self.doc,
                                      join_pointer(tpl.pointer, "variables"), what)
        owner = method.removeprefix("read_")
        completions = self._completions(tpl.complete, owner, join_pointer(tpl.pointer, "complete"), what)
        description = str(tpl.wire.get("description") or tpl.wire.get("title") or tpl.name)
        return TemplateIR(tpl.uri_template, tpl.name, method, tpl.wire, cls, description, completions, schema=schema)

    def _prompt(self, pr: PromptSpec) -> PromptIR:
        what = f"prompt {pr.name!r}"
        method = self._handler("prompt", pr.python_name, pr.name, pr.pointer, what)
        properties: dict[str, Any] = {}
        for a in pr.arguments:
            prop: dict[str, Any] = {"type": "string"}
            if a.description:
                prop["description"] = a.description
            if a.enum:
                prop["enum"] = list(a.enum)
            properties[a.name] = prop
        schema = {"type": "object", "properties": properties, "required": [a.name for a in pr.arguments if a.required]}
        cls = self.builder.add_schema(prompt_class(pr.python_name, pr.name), schema, self.doc,
                                      join_pointer(pr.pointer, "arguments"), what)
        sources = {a.name: a.complete for a in pr.arguments if a.complete is not None}
        completions = self._completions(sources, method.removeprefix("prompt_"), join_pointer(pr.pointer, "arguments"), what)
        description = str(pr.wire.get("description") or pr.wire.get("title") or pr.name)
        return PromptIR(pr.name, method, pr.wire, cls, description, completions, schema=schema)
