"""What ``diff`` compares: a plain view of one server version, independent of where it came from.

A :class:`ServerView` is built from the generator's IR (:func:`view_from_ir`, spec files and
git revisions) or straight from a live server's ``initialize``/``tools/list`` answers
(:func:`view_from_wire`: the hook for ``mcp-codegen pull``; Python names are then unknown and
the generated-code checks are skipped).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...ir.nodes import ProjectIR
from ...spec.apps import ui_listing
from ...spec.load import SourceDoc
from ...spec.pointer import join_pointer


@dataclass(frozen=True)
class ToolView:
    """One tool: its wire form plus, when generated, the Python names chosen for it.

    Attributes:
        name: the wire name.
        wire: the wire ``Tool`` (self-contained schemas).
        python: role -> Python name (``method``, ``input_class``, ``output_class`` ...); empty
            when unknown.
        kwargs: keyword arguments of the typed client method; None when unknown.
        errors: declared error code -> exception class name; None when unknown (live servers
            do not list the errors a spec declares).
        inputs: declared client input key -> ``{"method": ..., "params": ...}``; None when unknown.
        pointer: JSON pointer of the tool in its spec file ("" when not from a file).
    """

    name: str
    wire: Mapping[str, Any]
    python: Mapping[str, str] = field(default_factory=dict)
    kwargs: tuple[str, ...] | None = None
    errors: Mapping[str, str] | None = None
    inputs: Mapping[str, Mapping[str, Any]] | None = None
    pointer: str = ""


@dataclass(frozen=True)
class CatalogTyped:
    """What the generated code makes of one resource, template or prompt (spec views only).

    Attributes:
        method: the typed client method's name.
        kwargs: its keyword arguments (empty for a fixed resource).
        schema: the JSON Schema of the template's variables or the prompt's arguments, with
            the spec's types and enums (wire lists do not carry them); ``{}`` for a resource.
    """

    method: str
    kwargs: tuple[str, ...] = ()
    schema: Mapping[str, Any] = field(default_factory=dict)


def _no_line(pointer: str) -> int:
    return 0


@dataclass(frozen=True)
class ServerView:
    """One version of one server.

    Attributes:
        name: ``serverInfo.name``.
        info: version, title, description, instructions (absent keys omitted).
        tools: wire name -> tool, in spec order.
        source: where it came from, as shown in reports (a spec path, ``git:REV:path``, a URL).
        package: the generated package name (None when unknown).
        classes: role -> generated server/client class name.
        line_of: JSON pointer in the source file -> 1-based line (0 when unknown).
    """

    name: str
    info: Mapping[str, Any]
    tools: Mapping[str, ToolView]
    source: str
    package: str | None = None
    classes: Mapping[str, str] = field(default_factory=dict)
    line_of: Callable[[str], int] = _no_line
    #: ``resource:<uri>`` / ``template:<uriTemplate>`` / ``prompt:<name>`` -> the wire object
    catalog: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: the same keys -> the generated names and typed schemas (empty for live servers)
    catalog_typed: Mapping[str, CatalogTyped] = field(default_factory=dict)
    #: ``info`` keys the source cannot tell (a live server that sent no ``version``): not compared
    unknown_info: frozenset[str] = frozenset()


def catalog_of(resources: Sequence[Mapping[str, Any]], templates: Sequence[Mapping[str, Any]],
               prompts: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The catalog keys of a server's resources, templates and prompts (wire objects)."""
    out: dict[str, Mapping[str, Any]] = {}
    out.update((f"resource:{r.get('uri')}", r) for r in resources)
    out.update((f"template:{t.get('uriTemplate')}", t) for t in templates)
    out.update((f"prompt:{p.get('name')}", p) for p in prompts)
    return out


def view_from_ir(ir: ProjectIR, doc: SourceDoc | None = None, source: str | None = None) -> ServerView:
    """The view of a lowered spec (with Python names and source positions).

    Args:
        ir: the project IR (``params`` filled when models were generated).
        doc: the spec document, for line numbers.
        source: what to show as the origin (default: the spec's display path).
    """
    pointers: dict[str, str] = {}
    if doc is not None and isinstance(doc.data, dict):
        for i, raw in enumerate(doc.data.get("tools") or []):
            if isinstance(raw, dict) and isinstance(raw.get("name"), str):
                pointers.setdefault(raw["name"], join_pointer("/tools", i))
    tools: dict[str, ToolView] = {}
    for t in ir.tools:
        python = {"method": t.method, "input_class": t.input_class}
        if t.output_class:
            python["output_class"] = t.output_class
        if t.inputs_class:
            python["inputs_class"] = t.inputs_class
        tools[t.name] = ToolView(
            name=t.name, wire=t.wire, python=python,
            kwargs=tuple(p.name for p in t.params) if t.params else None,
            errors={e.code: e.class_name for e in t.errors},
            inputs={i.key: {"method": i.method, "params": i.params} for i in t.inputs},
            pointer=pointers.get(t.name, ""),
        )
    s = ir.server
    info = {k: v for k, v in (("version", s.version), ("title", s.title), ("description", s.description),
                              ("instructions", s.instructions)) if v is not None}

    def line_of(pointer: str) -> int:
        return doc.locate(pointer)[0] if doc is not None else 0

    return ServerView(
        name=s.name, info=info, tools=tools, source=source or s.spec_display, package=s.package,
        classes={"server_base": s.base_class, "client": s.client_class, "sync_client": s.sync_client_class},
        line_of=line_of,
        catalog=catalog_of([r.wire for r in ir.resources] + [ui_listing(u) for u in ir.ui_resources],
                           [t.wire for t in ir.templates], [p.wire for p in ir.prompts]),
        catalog_typed=_catalog_typed(ir),
    )


def _catalog_typed(ir: ProjectIR) -> dict[str, CatalogTyped]:
    defs = ir.model_schema.get("$defs") or {}  # what a variable's $ref points to

    def schema(own: Mapping[str, Any]) -> Mapping[str, Any]:
        return {**own, "$defs": defs} if defs else own

    out = {f"resource:{r.uri}": CatalogTyped(r.method) for r in ir.resources}
    out.update((f"template:{t.uri_template}", CatalogTyped(t.method, tuple(p.name for p in t.params), schema(t.schema)))
               for t in ir.templates)
    out.update((f"prompt:{p.name}", CatalogTyped(p.method, tuple(x.name for x in p.params), schema(p.schema)))
               for p in ir.prompts)
    return out


def view_from_wire(server_info: Mapping[str, Any], tools: Sequence[Mapping[str, Any]], source: str,
                   instructions: str | None = None, resources: Sequence[Mapping[str, Any]] = (),
                   templates: Sequence[Mapping[str, Any]] = (), prompts: Sequence[Mapping[str, Any]] = ()) -> ServerView:
    """The view of a live server (``serverInfo`` and the concatenated ``tools/list`` pages).

    This is the plug-in point for ``mcp-codegen pull``: schemas must already be
    self-contained (wire schemas are).  Python names are unknown, so only wire
    compatibility is judged.
    """
    info = {k: server_info[k] for k in ("version", "title", "description") if server_info.get(k) is not None}
    if instructions:
        info["instructions"] = instructions
    views = {str(t["name"]): ToolView(name=str(t["name"]), wire=dict(t)) for t in tools}
    unsent = frozenset() if server_info.get("version") else frozenset({"version"})
    return ServerView(name=str(server_info.get("name", "")), info=info, tools=views, source=source,
                      catalog=catalog_of(resources, templates, prompts), unknown_info=unsent)
