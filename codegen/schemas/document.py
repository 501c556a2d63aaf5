"""Schema transformations between the spec and its two consumers.

* :func:`bundle_wire` makes a tool schema self-contained for ``tools/list``: every schema it
  references outside itself is copied into its ``$defs`` (names kept where possible) and the
  ``$ref`` rewritten.  The JSON the client sees is the spec's JSON, nothing else changes.
* :class:`ModelSchemaBuilder` builds the ONE JSON Schema document of the models
  (datamodel-code-generator runs on it whole or unit by unit, :mod:`codegen.models.units`): ``$defs``
  keyed by the class names the lowering step chose, refs rewritten to them, user titles
  removed and our titles set on every schema that becomes a class, so no class name is ever
  invented by the model generator.
* what the models express exactly, and their looser view of the rest: :mod:`codegen.schemas.exactness`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema

from ..ir.naming.core import (
    ClassName,
    NameRegistry,
    Origin,
    bundled_def_key,
    nested_class,
    override_class,
    path_class,
    schema_class,
    scoped_class,
)
from ..ir.naming.models import FIELD_NAMES, enum_member_names, field_names
from ..spec.load import SourceDoc
from ..spec.pointer import join_pointer, resolve_pointer
from ..spec.refs import Resolver, Target
from .defaults import json_text, unfit_defaults
from .exactness import NULLABLE_BRANCH, model_view
from .walk import walk_schemas

_DATA_KEYS = frozenset({"const", "enum", "default", "examples"})


def canonical(schema: Any) -> str:
    """Canonical JSON text of a schema (sorted keys), for identity comparisons."""
    return json.dumps(schema, sort_keys=True, separators=(",", ":"))


def _rewrite_refs(node: Any, fn: Callable[[str, str], str], ptr: str) -> Any:
    """Deep copy of ``node`` with every ``$ref`` replaced by ``fn(ref, pointer_of_ref)``."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            child = join_pointer(ptr, key)
            if key == "$ref" and isinstance(value, str):
                out[key] = fn(value, child)
            elif key in _DATA_KEYS:
                out[key] = copy.deepcopy(value)
            else:
                out[key] = _rewrite_refs(value, fn, child)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v, fn, join_pointer(ptr, i)) for i, v in enumerate(node)]
    return node


def _inside(target: Target, file: str, root: str) -> bool:
    return target.file == file and (target.pointer == root or target.pointer.startswith(root + "/"))


def bundle_wire(resolver: Resolver, doc: SourceDoc, root: str) -> dict[str, Any]:
    """The self-contained wire form of the schema at ``root`` (a tool's input/output schema)."""
    file = doc.file
    schema = resolver.schema_at(Target(file, root))
    local_defs = set((schema.get("$defs") or {}) if isinstance(schema, dict) else ())
    bundled: dict[Target, str] = {}
    bodies: dict[str, Any] = {}
    pending: list[Target] = []

    def name_for(target: Target) -> str:
        if target not in bundled:
            base = target.pointer.rsplit("/", 1)[-1] or bundled_def_key(target.file)
            name, n = base, 2
            while name in local_defs or name in bodies:
                name, n = f"{base}{n}", n + 1
            bundled[target] = name
            bodies[name] = None
            pending.append(target)
        return bundled[target]

    def make_fn(src: SourceDoc, scope: str) -> Callable[[str, str], str]:
        def fn(ref: str, at: str) -> str:
            target = resolver.resolve(ref, src, at, scope)
            if target is None:
                return ref
            if scope and _inside(target, src.file, scope):
                if ref.startswith("#") or resolver.resolve_by_id(ref, src, at) is not None:
                    return ref  # resolves the same way inside the self-contained schema
                return "#" + target.pointer[len(scope):]
            return "#/$defs/" + name_for(target)
        return fn

    out = _rewrite_refs(schema, make_fn(doc, root), root)
    while pending:
        target = pending.pop(0)
        src = resolver.doc(target.file)
        bodies[bundled[target]] = _rewrite_refs(resolver.schema_at(target), make_fn(src, ""), target.pointer)
    if bodies and isinstance(out, dict):
        defs = dict(out.get("$defs") or {})
        defs.update(sorted(bodies.items()))
        out["$defs"] = defs
    return out


class ModelSchemaBuilder:
    """Accumulates the model-generation document: ``$defs`` keyed by our class names."""

    def __init__(self, resolver: Resolver, registry: NameRegistry) -> None:
        self.resolver = resolver
        self.registry = registry
        self.defs: dict[str, Any] = {}
        self.names: dict[Target, ClassName] = {}
        self._queue: list[tuple[Target, str]] = []
        self._object_roots: set[Target] = set()
        self._scope_stems: dict[str, str] = {}  # tool schema pointer -> class-name stem of its tool
        self._local_targets: dict[str, Target] = {}  # class name of a tool-local $defs entry -> its schema
        #: (document, pointer, message) for every place the models loosen the schema (W102).
        self.loosened: list[tuple[SourceDoc, str, str]] = []
        self._dropped: set[tuple[str, str]] = set()  # (file, pointer) of each default reported

    def name_target(self, target: Target, name: ClassName, what: str, scope: str | None = None) -> ClassName:
        """Give the schema at ``target`` the class name ``name`` (first assignment wins).

        ``scope`` is the tool schema its local refs resolve in (default: the target
        itself for a tool's input/output schema, none for a ``$defs`` entry).
        """
        if target not in self.names:
            doc = self.resolver.doc(target.file)
            if scope is None:
                scope = target.pointer if what.startswith("tool") else ""
                if scope:
                    self._scope_stems[scope] = name.removesuffix("Input").removesuffix("Output")
            elif scope and self.registry.taken(name):
                # a tool schema's own $defs entry named like another one: the same schema
                # shares that class, a different one is namespaced by its tool
                first = self._local_targets.get(name)
                body = canonical(self.resolver.schema_at(target))
                if first is not None and canonical(self.resolver.schema_at(first)) == body and "$ref" not in body:
                    self.names[target] = name
                    return name
                stem = self._scope_stems.get(scope, "")
                name = scoped_class(stem, name)
                if self.registry.taken(name):  # nested $defs of the same name: the path tells them apart
                    path = [t for t in target.pointer[len(scope):].split("/") if t and t not in ("$defs", "definitions")]
                    name = path_class(stem, path)
            self.registry.claim(name, Origin(doc.display, target.pointer, what))
            if scope and what == "$defs entry":
                self._local_targets.setdefault(name, target)
            self.names[target] = name
            self._queue.append((target, scope))
        return self.names[target]

    def force_object(self, target: Target) -> None:
        """Generate the schema at ``target`` as ``type: object`` (a sloppy tool input root)."""
        self._object_roots.add(target)

    def alias(self, target: Target, name: ClassName) -> None:
        """Make refs to ``target`` (a bare ``$ref`` to a named schema) use ``name``."""
        self.names.setdefault(target, name)

    def add_schema(self, name: ClassName, schema: Any, doc: SourceDoc, ptr: str, what: str) -> ClassName:
        """Add an inline schema (not addressable by $ref from elsewhere) under ``name``."""
        self.registry.claim(name, Origin(doc.display, ptr, what))
        self.defs[name] = self._convert(schema, doc, ptr, "", name)
        return name

    def _default_name(self, target: Target) -> ClassName:
        schema = self.resolver.schema_at(target)
        return schema_class(target.pointer, target.file, schema.get("x-python-name") if isinstance(schema, dict) else None)

    def finish(self) -> dict[str, Any]:
        """Convert every named target (following refs to new targets) and return the document."""
        while self._queue:
            target, scope = self._queue.pop(0)
            doc = self.resolver.doc(target.file)
            name = self.names[target]
            self.defs[name] = self._convert(self.resolver.schema_at(target), doc, target.pointer, scope, name,
                                            force_object=target in self._object_roots)
        for view in self.defs.values():
            self._member_names(view)
        return {"$defs": dict(sorted(self.defs.items()))}

    def _member_names(self, view: Any) -> None:
        """Record the names the naming service gives the fields of every class schema in
        ``view`` (:data:`FIELD_NAMES`) and the members of every string enum (``x-enum-varnames``)."""

        def visit(node: dict[str, Any], _: str) -> None:
            members = node.get("enum")
            if isinstance(members, list) and members and all(isinstance(m, str) for m in members):
                node["x-enum-varnames"] = enum_member_names(members)
            props = node.get("properties")
            if isinstance(node.get("title"), str) and isinstance(props, dict) and props:
                used = [self._used_types(sub, set(), set()) for sub in props.values()]
                classes = {name for names in used for name in names if name not in _BUILTINS}
                own = [names & _BUILTINS for names in used]
                node[FIELD_NAMES] = [list(pair) for pair in zip(props, field_names(list(props), classes, own), strict=True)]

        walk_schemas(view, visit)

    def _used_types(self, node: Any, out: set[str], seen: set[str]) -> set[str]:
        """Names of the model classes and builtins a field of schema ``node`` is typed with (the
        class of a nested object or enum, a ``$ref`` 'd one; through inlined root models)."""
        if not isinstance(node, dict):
            return out
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] not in seen:
            seen.add(ref[8:])
            target = self.defs.get(ref[8:])
            if _model_class(target):
                out.add(ref[8:])
            else:
                self._used_types(target, out, seen)
        if isinstance(node.get("title"), str) and _model_class(node):
            out.add(node["title"])
            return out
        types = node.get("type")
        for kind in types if isinstance(types, list) else [types]:
            if isinstance(kind, str) and kind in _BUILTIN_OF:
                out.add(_BUILTIN_OF[kind])
        for key in ("items", "additionalProperties"):
            self._used_types(node.get(key), out, seen)
        for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            for sub in node.get(key) or []:
                self._used_types(sub, out, seen)
        return out

    def _convert(self, schema: Any, doc: SourceDoc, ptr: str, scope: str, name: ClassName,
                 force_object: bool = False) -> Any:
        def fn(ref: str, at: str) -> str:
            target = self.resolver.resolve(ref, doc, at, scope)
            if target is None:
                return ""  # unresolvable here: the model view makes it Any
            if target not in self.names:
                # a tool schema's own $defs entry keeps resolving its refs inside that tool schema
                inner = scope if scope and _inside(target, doc.file, scope) else ""
                self.name_target(target, self._default_name(target), "$defs entry", inner)
            return "#/$defs/" + self.names[target]

        out = _rewrite_refs(self._tag_unions(schema, doc, ptr, scope), fn, ptr)
        if force_object and isinstance(out, dict):
            out["type"] = "object"
        out = model_view(out)
        self._drop_bad_defaults(out, doc, ptr, unfit_defaults(self.resolver, doc, schema, ptr, scope))
        self._retitle(out, name, doc, ptr)
        return out

    def _tag_unions(self, schema: Any, doc: SourceDoc, ptr: str, scope: str) -> Any:
        """Copy of ``schema`` where ``oneOf``/``anyOf`` of objects tagged by a common
        ``const`` property get a ``discriminator`` (the models then use a tagged union)."""
        schema = copy.deepcopy(schema)

        def branch(node: Any, at: str) -> Any:
            if isinstance(node, dict) and isinstance(node.get("$ref"), str):
                target = self.resolver.resolve(node["$ref"], doc, at + "/$ref", scope)
                return self.resolver.schema_at(target) if target else None
            return node

        def visit(node: dict[str, Any], at: str) -> None:
            node.pop("discriminator", None)  # OpenAPI's, not JSON Schema's: never trusted
            for key in ("oneOf", "anyOf"):
                branches = node.get(key)
                if isinstance(branches, list) and "discriminator" not in node:
                    tag = _common_tag([branch(b, join_pointer(at, key, i)) for i, b in enumerate(branches)])
                    if tag:
                        node["discriminator"] = {"propertyName": tag}

        walk_schemas(schema, visit, ptr)
        return schema

    def _drop_bad_defaults(self, view: Any, doc: SourceDoc, ptr: str, unfit: dict[str, str]) -> None:
        """Remove defaults that break their own schema (W102); the models would use them.
        ``unfit``: those the original schema refuses (:func:`unfit_defaults`), by pointer."""
        bad: dict[str, tuple[Any, str]] = {}

        def visit(node: dict[str, Any], at: str) -> None:
            here = join_pointer(at, "default")
            if "default" in node and (here in unfit or not _default_fits(node)):
                bad[here] = (node.pop("default"), unfit.get(here) or "it breaks the schema's own type or bounds")

        walk_schemas(view, visit, ptr)
        for here, why in unfit.items():  # also where the view has no such node (the models ignore it there too)
            bad.setdefault(here, (resolve_pointer(doc.data, here)[1], why))
        for here, (value, why) in sorted(bad.items()):
            if (doc.file, here) not in self._dropped:
                self._dropped.add((doc.file, here))
                self.loosened.append((doc, here, f"default {json_text(value)} does not validate against its schema "
                                                 f"({why}); the models ignore it"))

    def _retitle(self, root: Any, name: ClassName, doc: SourceDoc, ptr: str) -> None:
        """Drop user titles; title the root and every nested class-worthy schema."""

        def visit(node: Any, cls: str, at: str, item: bool = False) -> None:
            if not isinstance(node, dict):
                return
            node.pop("title", None)
            nullable = node.pop(NULLABLE_BRANCH, False) is True
            is_class = _becomes_class(node, item)
            plain = nullable and not (is_class or at == ptr)  # the branch may take the node's name
            if at != ptr and is_class:
                override = node.get("x-python-name")
                cls = self.registry.claim(override_class(override) if isinstance(override, str) else cls,
                                          Origin(doc.display, at, "nested schema"))
            if is_class or at == ptr:
                node["title"] = cls
            for key, sub in (node.get("properties") or {}).items():
                visit(sub, nested_class(cls, "property", key), join_pointer(at, "properties", key))
            if isinstance(node.get("items"), dict):
                visit(node["items"], nested_class(cls, "item"), join_pointer(at, "items"), True)
            if isinstance(node.get("additionalProperties"), dict):
                visit(node["additionalProperties"], nested_class(cls, "value"), join_pointer(at, "additionalProperties"), True)
            for key in ("anyOf", "oneOf", "allOf"):
                for i, sub in enumerate(node.get(key) or []):
                    visit(sub, cls if plain else nested_class(cls, "option", i), join_pointer(at, key, i), nullable)

        visit(root, name, ptr)


#: The builtin a field's annotation uses for each JSON type (a field named like it hides it).
_BUILTIN_OF = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict"}
_BUILTINS = frozenset(_BUILTIN_OF.values())


def _model_class(schema: Any) -> bool:
    """Whether DCG keeps ``schema`` as a class of its own (an object with fields, an enum)."""
    return isinstance(schema, dict) and (bool(schema.get("properties")) or "enum" in schema)


def _common_tag(branches: list[Any]) -> str | None:
    """A property every branch requires with a distinct ``const`` (the union's tag), if any."""
    if len(branches) < 2 or not all(isinstance(b, dict) and isinstance(b.get("properties"), dict) for b in branches):
        return None
    common = set.intersection(*(set(b.get("required") or []) for b in branches))
    for name in sorted(common):
        consts = [b["properties"].get(name, {}).get("const") if isinstance(b["properties"].get(name), dict) else None for b in branches]
        if all(isinstance(c, str) for c in consts) and len(set(consts)) == len(consts):
            return name
    return None


_SHALLOW = ("type", "enum", "const", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
            "exclusiveMaximum", "multipleOf", "minItems", "maxItems")


def _default_fits(node: dict[str, Any]) -> bool:
    """Whether ``default`` matches the node's own type and constraints (``default: null``
    on a non-nullable field is the usual offender; it would give the models a wrong default)."""
    shallow = {k: node[k] for k in _SHALLOW if k in node}
    try:
        return bool(jsonschema.Draft202012Validator(shallow).is_valid(node["default"]))
    except jsonschema.exceptions.SchemaError:
        return True  # an invalid schema is reported by validation, not here


_CONSTRAINTS = frozenset({"minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
                          "exclusiveMaximum", "multipleOf", "minItems", "maxItems"})


def _becomes_class(node: dict[str, Any], item: bool = False) -> bool:
    """Whether the model generator makes a class of this schema (so we must name it)."""
    if "$ref" in node:
        return False
    if item and _CONSTRAINTS & set(node):
        return True  # constrained array items / map values become RootModel classes
    if isinstance(node.get("enum"), list) and node["enum"]:
        return True  # a StrEnum class, even of one member (DCG would name it after the property)
    return isinstance(node.get("properties"), dict) and bool(node["properties"])
