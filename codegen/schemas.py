"""Schema transformations between the spec and its two consumers.

* :func:`bundle_wire` makes a tool schema self-contained for ``tools/list``: every schema it
  references outside itself is copied into its ``$defs`` (names kept where possible) and the
  ``$ref`` rewritten.  The JSON the client sees is the spec's JSON, nothing else changes.
* :class:`ModelSchemaBuilder` builds the ONE JSON Schema document handed to
  datamodel-code-generator: ``$defs`` keyed by the class names the lowering step chose, refs
  rewritten to them, user titles removed and our titles set on every schema that becomes a
  class, so no class name is ever invented by the model generator.
* :func:`unexpressible_keywords` lists keywords pydantic models cannot enforce.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import jsonschema

from .naming import ClassName, NameRegistry, Origin, pascal
from .spec.load import SourceDoc, join_pointer
from .spec.refs import Resolver, Target

#: Keywords whose meaning the generated pydantic models do not enforce (validated at run
#: time against the original schema instead).
UNEXPRESSIBLE = frozenset({
    "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies",
    "propertyNames", "patternProperties", "contains", "minContains", "maxContains", "uniqueItems",
    "unevaluatedProperties", "unevaluatedItems", "minProperties", "maxProperties", "$dynamicRef",
    "$anchor", "$dynamicAnchor", "prefixItems", "allOf",
})
_SHAPE_KEYS = frozenset({"type", "properties", "$ref", "const", "enum", "items", "oneOf", "anyOf", "allOf"})
_DATA_KEYS = frozenset({"const", "enum", "default", "examples"})
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMA_SINGLE = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
                     "propertyNames", "unevaluatedItems", "unevaluatedProperties")


def walk_schemas(schema: Any, visit: Callable[[dict[str, Any], str], None], ptr: str = "") -> None:
    """Call ``visit(node, pointer)`` on every subschema (objects only), pre-order."""
    stack: list[tuple[Any, str]] = [(schema, ptr)]
    while stack:
        node, at = stack.pop()
        if not isinstance(node, dict):
            continue
        visit(node, at)
        children: list[tuple[Any, str]] = []
        for key in _SUBSCHEMA_MAPS:
            if isinstance(node.get(key), dict):
                children += [(v, join_pointer(at, key, k)) for k, v in node[key].items()]
        for key in _SUBSCHEMA_LISTS:
            if isinstance(node.get(key), list):
                children += [(v, join_pointer(at, key, i)) for i, v in enumerate(node[key])]
        for key in _SUBSCHEMA_SINGLE:
            if isinstance(node.get(key), dict):
                children.append((node[key], join_pointer(at, key)))
        stack.extend(reversed(children))


def unexpressible_keywords(schema: Any) -> list[tuple[str, str]]:
    """(pointer, keyword) for every keyword the models cannot enforce."""
    found: list[tuple[str, str]] = []

    def visit(node: dict[str, Any], at: str) -> None:
        for key in sorted(node):
            if key in UNEXPRESSIBLE and not (key == "uniqueItems" and node[key] is False):
                found.append((at, key))
            if key == "additionalProperties" and isinstance(node[key], dict) and "properties" in node:
                found.append((at, key))
            if key in ("oneOf", "anyOf") and isinstance(node[key], list) and any(
                isinstance(b, dict) and not (_SHAPE_KEYS & set(b)) for b in node[key]
            ):
                found.append((at, key))  # branches that only constrain, e.g. oneOf: [{required: [a]}, ...]

    walk_schemas(schema, visit)
    return found


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
    file = str(doc.path.resolve())
    schema = resolver.schema_at(Target(file, root))
    local_defs = set((schema.get("$defs") or {}) if isinstance(schema, dict) else ())
    bundled: dict[Target, str] = {}
    bodies: dict[str, Any] = {}
    pending: list[Target] = []

    def name_for(target: Target) -> str:
        if target not in bundled:
            base = target.pointer.rsplit("/", 1)[-1] or pascal(target.file.rsplit("/", 1)[-1].split(".")[0])
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
            if scope and _inside(target, str(src.path.resolve()), scope):
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
        #: (document, pointer, message) for every place the models loosen the schema (W102).
        self.loosened: list[tuple[SourceDoc, str, str]] = []

    def name_target(self, target: Target, name: ClassName, what: str, scope: str | None = None) -> ClassName:
        """Give the schema at ``target`` the class name ``name`` (first assignment wins).

        ``scope`` is the tool schema its local refs resolve in (default: the target
        itself for a tool's input/output schema, none for a ``$defs`` entry).
        """
        if target not in self.names:
            doc = self.resolver.doc(target.file)
            self.registry.claim(name, Origin(doc.display, target.pointer, what))
            self.names[target] = name
            if scope is None:
                scope = target.pointer if what.startswith("tool") else ""
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
        override = self.resolver.schema_at(target)
        if isinstance(override, dict) and isinstance(override.get("x-python-name"), str):
            return ClassName(override["x-python-name"])
        last = target.pointer.rsplit("/", 1)[-1]
        if not last:
            last = target.file.rsplit("/", 1)[-1].split(".")[0]
        return ClassName(last.replace("~1", "/").replace("~0", "~"))

    def finish(self) -> dict[str, Any]:
        """Convert every named target (following refs to new targets) and return the document."""
        while self._queue:
            target, scope = self._queue.pop(0)
            doc = self.resolver.doc(target.file)
            name = self.names[target]
            self.defs[name] = self._convert(self.resolver.schema_at(target), doc, target.pointer, scope, name)
            if target in self._object_roots and isinstance(self.defs[name], dict):
                self.defs[name]["type"] = "object"
        return {"$defs": dict(sorted(self.defs.items()))}

    def _convert(self, schema: Any, doc: SourceDoc, ptr: str, scope: str, name: ClassName) -> Any:
        def fn(ref: str, at: str) -> str:
            target = self.resolver.resolve(ref, doc, at, scope)
            if target is None:
                return ref
            if target not in self.names:
                # a tool schema's own $defs entry keeps resolving its refs inside that tool schema
                inner = scope if scope and _inside(target, str(doc.path.resolve()), scope) else ""
                self.name_target(target, self._default_name(target), "$defs entry", inner)
            return "#/$defs/" + self.names[target]

        source = self._prepare(schema, doc, ptr, scope)
        out = _rewrite_refs(source, fn, ptr)
        if isinstance(out, dict):
            out.pop("$defs", None)
            out.pop("definitions", None)
            out.pop("$schema", None)
            out.pop("$id", None)
        self._retitle(out, name, doc, ptr)
        return out

    def _prepare(self, schema: Any, doc: SourceDoc, ptr: str, scope: str) -> Any:
        """Copy of ``schema`` shaped for the model generator.

        Constraint-only keywords (checked at run time against the original schema) are
        removed, and ``oneOf``/``anyOf`` of objects tagged by a common ``const`` property get
        a ``discriminator`` so the models use a tagged union.
        """
        schema = copy.deepcopy(schema)

        def branch(node: Any, at: str) -> Any:
            if isinstance(node, dict) and isinstance(node.get("$ref"), str):
                target = self.resolver.resolve(node["$ref"], doc, at + "/$ref", scope)
                return self.resolver.schema_at(target) if target else None
            return node

        def visit(node: dict[str, Any], at: str) -> None:
            for key in _RUNTIME_ONLY:
                node.pop(key, None)
            if "default" in node and not _default_fits(node):
                self.loosened.append((doc, join_pointer(at, "default"),
                                      f"default {node['default']!r} does not match the schema; the models ignore it"))
                del node["default"]
            for key in ("oneOf", "anyOf", "allOf"):
                branches = node.get(key)
                if not isinstance(branches, list):
                    continue
                if all(isinstance(b, dict) and not (_SHAPE_KEYS & set(b)) for b in branches):
                    del node[key]
                    continue
                if key != "allOf" and "discriminator" not in node:
                    tag = _common_tag([branch(b, join_pointer(at, key, i)) for i, b in enumerate(branches)])
                    if tag:
                        node["discriminator"] = {"propertyName": tag}

        walk_schemas(schema, visit, ptr)
        return schema

    def _retitle(self, root: Any, name: ClassName, doc: SourceDoc, ptr: str) -> None:
        """Drop user titles; title the root and every nested class-worthy schema."""

        def visit(node: Any, cls: str, at: str, item: bool = False) -> None:
            if not isinstance(node, dict):
                return
            node.pop("title", None)
            is_class = _becomes_class(node, item)
            if at != ptr and is_class:
                override = node.get("x-python-name")
                cls = self.registry.claim(str(ClassName(override)) if isinstance(override, str) else cls,
                                          Origin(doc.display, at, "nested schema"))
            if is_class or at == ptr:
                node["title"] = cls
            for key, sub in (node.get("properties") or {}).items():
                visit(sub, cls + pascal(key), join_pointer(at, "properties", key))
            if isinstance(node.get("items"), dict):
                visit(node["items"], cls + "Item", join_pointer(at, "items"), True)
            if isinstance(node.get("additionalProperties"), dict):
                visit(node["additionalProperties"], cls + "Value", join_pointer(at, "additionalProperties"), True)
            for key in ("anyOf", "oneOf", "allOf"):
                for i, sub in enumerate(node.get(key) or []):
                    visit(sub, f"{cls}Option{i + 1}", join_pointer(at, key, i))

        visit(root, name, ptr)


_RUNTIME_ONLY = ("not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies")


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


def _default_fits(node: dict[str, Any]) -> bool:
    """Whether ``default`` matches the node's own ``type``/``enum``/``const`` (``default: null``
    on a non-nullable field is the usual offender; it would give the models a wrong default)."""
    shallow = {k: node[k] for k in ("type", "enum", "const") if k in node}
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
    if "enum" in node and len(node["enum"]) > 1:
        return True
    return isinstance(node.get("properties"), dict) and bool(node["properties"])
