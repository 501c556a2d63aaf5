"""A pulled tool's schemas rewritten so ``build`` accepts them: values the JSON Schema
meta-schema rejects repaired or dropped, ``$ref`` values that cannot resolve inside the tool's
own schema made unconstrained; every change a :class:`~.notes.Note`."""

from __future__ import annotations

import copy
from typing import Any

from ...schemas.walk import walk_schemas
from ...spec.metaschema import NATIVE_DIALECTS, meta_valid_natively
from ...spec.pointer import join_pointer, resolve_pointer
from ...spec.refs import iter_refs
from ...spec.validate import object_root
from .notes import Note, short

_TYPE_ALIASES = {"int": "integer", "float": "number", "double": "number", "str": "string", "bool": "boolean",
                 "dict": "object", "map": "object", "list": "array", "none": "null"}
_JSON_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_SINGLE = frozenset({"items", "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains",
                            "propertyNames", "unevaluatedItems", "unevaluatedProperties"})
_MAX_FIX_ROUNDS = 50
_BARE_REF_KEYS = frozenset({"$ref", "description", "title", "$comment"})


def _dialect(schema: dict[str, Any]) -> tuple[bool, bool]:
    """Whether ``schema``'s dialect is draft-04 or older, and whether it is 2019-09 or later
    (jsonschema's ``validator_for``, defaulting to 2020-12; imported only for other dialects)."""
    known = schema.get("$schema")
    if known is None or isinstance(known, str) and known in NATIVE_DIALECTS:
        return False, NATIVE_DIALECTS[known]
    import jsonschema
    from jsonschema.validators import validator_for

    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    return (cls in (jsonschema.Draft4Validator, jsonschema.Draft3Validator),
            cls in (jsonschema.Draft202012Validator, jsonschema.Draft201909Validator))


class SchemaFixer:
    """Rewrites one tool schema so build accepts it; every change becomes a Note."""

    def __init__(self, tool: str, base: str, notes: list[Note]) -> None:
        self.tool = tool
        self.base = base
        self.notes = notes

    def note(self, at: str, message: str, code: str = "W102") -> None:
        self.notes.append(Note(self.tool, self.base + at, code, message))

    def fix(self, schema: dict[str, Any], is_input: bool) -> dict[str, Any]:
        schema = copy.deepcopy(schema)
        if is_input:
            schema = self._object_root(schema)
        self._legacy_forms(schema)
        self._meta_fix(schema)
        self._refs(schema)
        return schema

    def _object_root(self, schema: dict[str, Any]) -> dict[str, Any]:
        if object_root(schema) != "bad":
            return schema
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            ok, target = resolve_pointer(schema, ref[1:])
            if ok and isinstance(target, dict) and object_root(target) != "bad":
                merged = {k: copy.deepcopy(v) for k, v in target.items() if k not in schema}
                merged.update((k, v) for k, v in schema.items() if k != "$ref")  # $defs, $schema, description
                merged.setdefault("type", "object")
                self.note("", f"root $ref {ref!r} inlined so the root is an object schema", "W104")
                return merged
        branches = [b for key in ("anyOf", "oneOf") for b in (schema.get(key) or [])]
        if "type" not in schema and branches and all(isinstance(b, dict) and object_root(b) != "bad" for b in branches):
            schema["type"] = "object"
            self.note("", "root is a union of objects; `type: object` added", "W104")
            return schema
        kept: dict[str, Any] = {k: schema[k] for k in ("$schema", "description", "title") if k in schema}
        self.note("", f"root {short(schema)} is not an object schema; replaced by an open object (untyped arguments)")
        kept["type"] = "object"
        return kept

    def _legacy_forms(self, schema: dict[str, Any]) -> None:
        """Known pre-2020-12 spellings, rewritten to their 2020-12 meaning."""
        draft4, modern = _dialect(schema)

        def visit(node: dict[str, Any], at: str) -> None:
            for bound, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
                if isinstance(node.get(bound), bool) and not draft4:
                    if node[bound] and isinstance(node.get(plain), (int, float)):
                        node[bound] = node.pop(plain)
                        self.note(join_pointer(at, bound), f"draft-04 `{bound}: true` rewritten as `{bound}: {node[bound]}`", "W104")
                    else:
                        del node[bound]
                        self.note(join_pointer(at, bound), f"draft-04 boolean `{bound}` dropped")
            if "type" in node:
                self._fix_type(node, at)
            props = node.get("properties")
            if isinstance(props, dict):
                lifted = [k for k, v in props.items() if isinstance(v, dict) and isinstance(v.get("required"), bool)]
                for key in lifted:
                    if props[key].pop("required"):
                        req: list[Any] = node["required"] if isinstance(node.get("required"), list) else []
                        node["required"] = req if key in req else [*req, key]
                    self.note(join_pointer(at, "properties", key, "required"),
                              "draft-03 boolean `required` moved to the parent's `required` list", "W104")
            if isinstance(node.get("items"), list) and "prefixItems" not in node and modern:
                node["prefixItems"] = node.pop("items")
                if "additionalItems" in node:
                    node["items"] = node.pop("additionalItems")
                self.note(join_pointer(at, "items"), "tuple `items: [...]` rewritten as `prefixItems`", "W104")

        walk_schemas(schema, visit)

    def _fix_type(self, node: dict[str, Any], at: str) -> None:
        raw = node["type"]
        names = raw if isinstance(raw, list) else [raw]
        if names and all(isinstance(n, str) and n in _JSON_TYPES for n in names) and len(set(names)) == len(names):
            return
        fixed: list[str] = []
        for name in names:
            if isinstance(name, str):
                name = _TYPE_ALIASES.get(name.lower(), name.lower())
                if name in _JSON_TYPES and name not in fixed:
                    fixed.append(name)
        if not fixed:
            del node["type"]
            self.note(join_pointer(at, "type"), f"unknown type {short(raw)} dropped")
        else:
            node["type"] = fixed if isinstance(raw, list) and len(fixed) > 1 else fixed[0]
            self.note(join_pointer(at, "type"), f"type {short(raw)} rewritten as {short(node['type'])}", "W104")

    def _meta_fix(self, schema: dict[str, Any]) -> None:
        """Whatever the dialect's meta-schema still rejects is removed (made unconstrained)."""
        if meta_valid_natively(schema):
            return
        import jsonschema
        from jsonschema.validators import validator_for

        cls = validator_for(schema, default=jsonschema.Draft202012Validator)
        meta = cls(cls.META_SCHEMA)
        for _ in range(_MAX_FIX_ROUNDS):
            err = next(iter(sorted(meta.iter_errors(schema), key=lambda e: [str(p) for p in e.absolute_path])), None)
            if err is None:
                return
            path = list(err.absolute_path)
            if not path:
                schema.clear()
                schema["type"] = "object"
                self.note("", f"schema rejected by its meta-schema ({err.message}); replaced by an open object")
                return
            parent: Any = schema
            for part in path[:-1]:
                parent = parent[part]
            last = path[-1]
            at = join_pointer("", *path)
            if _is_subschema(schema, path):
                parent[last] = {}
                self.note(at, f"invalid schema {short(err.instance)} replaced by an unconstrained one ({err.message})")
            elif isinstance(parent, list):
                del parent[last]
                self.note(at, f"invalid entry {short(err.instance)} dropped ({err.message})")
            else:
                del parent[last]
                self.note(at, f"invalid `{last}` {short(err.instance)} dropped ({err.message})")
        self.note("", "too many meta-schema errors; left as is (build reports them)", "W104")

    def _refs(self, schema: dict[str, Any]) -> None:
        for at, ref in list(iter_refs(schema)):
            ok, node = resolve_pointer(schema, at[: -len("/$ref")])
            if not ok or not isinstance(node, dict) or node.get("$ref") != ref:
                continue
            if not _resolves_locally(schema, ref):
                del node["$ref"]
                self.note(at, f"$ref {ref!r} cannot be resolved inside the tool's schema (build refuses network, "
                              "file and anchor refs); replaced by an unconstrained schema")
            elif _pure_ref_cycle(schema, at[: -len("/$ref")]):
                del node["$ref"]
                self.note(at, f"$ref {ref!r} is part of a cycle of bare references; replaced by an unconstrained schema")


def _is_subschema(schema: Any, path: list[Any]) -> bool:
    """Whether ``path`` (from the schema root) names a subschema rather than a keyword's value."""
    node: Any = schema
    i = 0
    while i < len(path) and isinstance(node, dict):
        key = path[i]
        value = node.get(key)
        if key in _SCHEMA_MAPS or key in _SCHEMA_LISTS or (key == "items" and isinstance(value, list)):
            if i + 2 == len(path):
                return True
            if i + 2 > len(path):
                return False
            node, i = value[path[i + 1]] if isinstance(value, (dict, list)) else None, i + 2
        elif key in _SCHEMA_SINGLE:
            if i + 1 == len(path):
                return True
            node, i = value, i + 1
        else:
            return False
    return False


def _pure_ref_cycle(schema: dict[str, Any], start: str) -> bool:
    """Whether the bare-``$ref`` chain starting at pointer ``start`` leads back to it."""
    seen: set[str] = set()
    ptr = start
    while ptr not in seen:
        seen.add(ptr)
        ok, node = resolve_pointer(schema, ptr)
        ref = node.get("$ref") if ok and isinstance(node, dict) else None
        if not isinstance(ref, str) or set(node) - _BARE_REF_KEYS or not _resolves_locally(schema, ref):
            return False
        ptr = ref[1:]
    return ptr == start


def _resolves_locally(schema: dict[str, Any], ref: str) -> bool:
    """Whether ``ref`` is a JSON-pointer fragment that exists inside ``schema``."""
    return (ref == "#" or ref.startswith("#/")) and resolve_pointer(schema, ref[1:])[0]
