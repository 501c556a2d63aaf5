"""What the generated models express exactly, and their looser view of everything else.

The generated server must accept exactly the data a tool's JSON Schema accepts.  Pydantic
models do that for a well-understood subset of JSON Schema (typed properties, string
lengths, numeric bounds, string enums, ``anyOf`` of such schemas, ``oneOf`` whose branches'
types never meet, and the nullable forms ``type: [X, "null"]`` with X's constraints and
``enum: [a, b, null]`` ...).  For a tool whose schemas stay inside that subset, the model is
the validator.  Anything else (other ``oneOf``, ``allOf``, conditional ``pattern``, ``unevaluated*``,
untyped constraints, non-string ``enum``/``const``, boolean ``false`` schemas, ``$id``/anchors
...) makes the tool *schema-checked*: the runtime validates against the original schema
with ``jsonschema`` and the model is only the handler's typed view.  Other keys are annotations.
Which keyword is which is the keyword table's (:data:`codegen.spec.keywords.KEYWORDS`); this
module applies the conditions its notes name.

Two functions:

* :func:`inexact_keywords` lists (pointer, keyword) where a schema leaves the subset;
* :func:`model_view` rewrites a schema for the model generator so that the model is never
  stricter than the schema (it drops, never adds, constraints), e.g. an untyped schema with
  ``properties`` becomes ``anyOf: [{type: object, ...}, {type: [array, string, ...]}]``.
"""

from __future__ import annotations

from typing import Any

from ..spec.keywords import ANNOTATION, KEYWORDS, MODEL, STRUCTURAL, keywords_of
from ..spec.pointer import join_pointer, resolve_pointer
from .walk import walk_schemas

#: The JSON Schema types, in the order an untyped schema's model union lists them.
_ALL = ("object", "array", "string", "integer", "number", "boolean", "null")
_TYPES = frozenset(_ALL)
#: Per instance type, the keywords the models express on a schema of that one type (the
#: table's "model" kind); ``multipleOf`` only as a positive int on an integer.
_EXACT = {kind: keywords_of(MODEL, applies=kind) for kind in ("string", "number", "object", "array")}
_STRING_EXACT = _EXACT["string"]
_NUMBER_BOUNDS = _EXACT["number"] - {"multipleOf"}
#: The keywords that only constrain objects / arrays: an untyped schema with one of them is
#: modelled as "such an object (or array), or any other JSON value".
_OBJECT_KEYS = keywords_of(applies="object")
_ARRAY_KEYS = keywords_of(applies="array")
#: Marks an ``anyOf: [X, {type: null}]`` the model view made of a nullable enum or array: the
#: models name X after the node itself (no ``Option1``); removed before the model generator.
NULLABLE_BRANCH = "x-mcp-codegen-nullable"


#: Marks an object schema of the model view whose extra keys the spec allows explicitly
#: (``additionalProperties`` true or a schema, ``patternProperties``); an annotation, never validated.
OPEN = "x-mcp-codegen-open"


def _int_multiple(node: dict[str, Any], kind: str) -> int | None:
    """``multipleOf`` when the models express it exactly: a positive int on an integer."""
    mult = node.get("multipleOf")
    return mult if kind == "integer" and isinstance(mult, int) and not isinstance(mult, bool) and mult > 0 else None


def _string_members(node: dict[str, Any]) -> list[str] | None:
    """``enum`` members when they are distinct strings (a ``StrEnum``), perhaps with one
    ``null`` beside them (left out here: see :func:`_null_member`), else None."""
    members = node.get("enum")
    if not isinstance(members, list):
        return None
    strings = [m for m in members if m is not None]
    if strings and all(isinstance(m, str) for m in strings) and len(set(strings)) == len(strings) \
            and len(members) - len(strings) <= 1:
        return strings
    return None


def _null_member(node: dict[str, Any]) -> bool:
    """Whether the node's ``enum`` lists ``null`` (and its type, if any, allows it)."""
    types = _types(node)
    return None in (node.get("enum") or ()) and (types is None or "null" in types)


def _value_kinds(value: Any) -> set[str]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {"integer", "number"} if not isinstance(value, float) or value.is_integer() else {"number"}
    return {{type(None): "null", bool: "boolean", str: "string", list: "array"}.get(type(value), "object")}


def _kinds(node: Any, root: Any, depth: int = 0) -> set[str] | None:
    """The JSON types a schema can accept (``integer`` also counts as ``number``), None when
    that is not plain from its ``type``, ``const``, ``enum``, ``anyOf`` and local refs."""
    if not isinstance(node, dict) or depth > 32:
        return None
    types = _types(node)
    own = None if types is None else {k for t in types for k in ((t, "integer") if t == "number" else (t,))}
    if isinstance(node.get("$ref"), str):
        target = _kinds(_local(node["$ref"], root), root, depth + 1)
        return target if own is None else (own if target is None else own & target)
    if own is not None:
        return own
    if "const" in node:
        return _value_kinds(node["const"])
    enum = node.get("enum")
    branches = [{"const": v} for v in enum] if isinstance(enum, list) else node.get("anyOf")
    if not isinstance(branches, list) or not branches:
        return None
    found: set[str] = set()
    for branch in branches:
        kinds = _kinds(branch, root, depth + 1)
        if kinds is None:
            return None
        found |= kinds
    return found


def _disjoint(branches: Any, root: Any) -> bool:
    """Whether no value can match two of the ``oneOf`` branches (their types never meet):
    then ``oneOf`` means what ``anyOf`` means."""
    if not isinstance(branches, list) or not branches:
        return False
    seen: set[str] = set()
    for branch in branches:
        kinds = _kinds(branch, root)
        if kinds is None or kinds & seen:
            return False
        seen |= kinds
    return True


#: Keys the walk never counts against a node: the annotations and the structural keys, but
#: ``$ref`` (followed) and ``format`` (asserted with ``server.formatAssertion``, so a keyword
#: beside a ``$ref`` or an ``anyOf``).  Keys outside the table are annotations too.
_IGNORED = keywords_of(ANNOTATION, STRUCTURAL) - {"$ref", "format"}
_KEYWORDS = frozenset(KEYWORDS) - _IGNORED


def _is_annotation(key: str) -> bool:
    return key not in _KEYWORDS


def _types(node: dict[str, Any]) -> list[str] | None:
    t = node.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list) and all(isinstance(x, str) for x in t):
        return list(t)
    return None


def _local(ref: str, root: Any) -> Any:
    """The node a same-document JSON-pointer ``ref`` names inside ``root`` (None if other)."""
    if not ref.startswith("#") or (len(ref) > 1 and not ref.startswith("#/")):
        return None
    found, node = resolve_pointer(root, ref[1:])
    return node if found else None


def inexact_keywords(schema: Any, formats_assert: bool = False) -> list[tuple[str, str]]:
    """(pointer, keyword) for every place ``schema`` leaves what the models express exactly.

    ``schema`` is a self-contained wire schema (refs local to it).  An empty list means
    the generated model accepts exactly the data the schema accepts.  What each keyword
    becomes is the table's (:data:`codegen.spec.keywords.KEYWORDS`); this walk applies the
    conditions its notes name (a single type, disjoint ``oneOf`` branches, string members).
    """
    walk = _Walk(schema, formats_assert)
    walk.visit(schema, "")
    return walk.found


class _Walk:
    """One pass of :func:`inexact_keywords` over ``root``: each node visited once."""

    def __init__(self, root: Any, formats_assert: bool) -> None:
        self.root = root
        self.formats_assert = formats_assert
        self.found: list[tuple[str, str]] = []
        self.seen: set[int] = set()

    def flag(self, at: str, keys: Any) -> None:
        self.found.extend((at, k) for k in sorted(keys))

    def visit(self, node: Any, at: str) -> None:
        if node is True:
            return
        if not isinstance(node, dict):
            self.found.append((at, "false" if node is False else "schema"))
            return
        if id(node) in self.seen:
            return
        self.seen.add(id(node))
        keys = {k for k in node if not _is_annotation(k)}
        if "$ref" in node:
            target = _local(node["$ref"], self.root) if isinstance(node["$ref"], str) else None
            if target is None:
                self.found.append((at, "$ref"))
            else:
                self.visit(target, join_pointer(at, "$ref"))
            self.flag(at, keys - {"$ref"})
            return
        if self.formats_assert and "format" in node:
            self.found.append((at, "format"))
        keys.discard("format")
        types = _types(node)
        if "type" in node and types is None:
            self.found.append((at, "type"))
            return
        for k in sorted(keys & {"anyOf", "oneOf"}):
            branches = node[k]
            if keys - {k} or not isinstance(branches, list) or not branches \
                    or k == "oneOf" and not _disjoint(branches, self.root):
                self.found.append((at, k))
            else:
                for i, b in enumerate(branches):
                    self.visit(b, join_pointer(at, k, i))
        keys -= {"anyOf", "oneOf", "type"}
        stringy = types is None or "string" in types and set(types) <= {"string", "null"}
        if "enum" in keys and (_string_members(node) is None or not stringy):
            self.found.append((at, "enum"))
        if "const" in keys and not (isinstance(node["const"], str) and stringy):
            self.found.append((at, "const"))
        keys -= {"enum", "const"}
        # `type: [X, "null"]`: X's constraints apply to the non-null values, as on X alone;
        # on an untyped schema, or beside several types, a constraint applies to some only
        kinds = [t for t in types if t != "null"] or types if types is not None else []
        self.flag(at, keys - self.typed(node, at, kinds[0]) if len(kinds) == 1 else keys)

    def typed(self, node: dict[str, Any], at: str, kind: str) -> frozenset[str]:
        """The keywords the models express on ``node`` of type ``kind``; visits its
        properties and items, and flags the conditions the table's notes name."""
        allowed = _EXACT.get("number" if kind == "integer" else kind, frozenset())
        if "multipleOf" in allowed and _int_multiple(node, kind) is None:
            allowed -= {"multipleOf"}
        if kind == "object":
            raw_props = node.get("properties")
            props: dict[str, Any] = raw_props if isinstance(raw_props, dict) else {}
            for name, sub in props.items():
                self.visit(sub, join_pointer(at, "properties", name))
            req = node.get("required", [])
            if not isinstance(req, list) or any(r not in props for r in req):
                self.found.append((at, "required"))
            extra = node.get("additionalProperties", True)
            if isinstance(extra, dict):
                if props:
                    self.found.append((at, "additionalProperties"))
                else:
                    self.visit(extra, join_pointer(at, "additionalProperties"))
        elif kind == "array":
            if node.get("uniqueItems") is False:
                allowed = allowed | {"uniqueItems"}
            if "items" in node:
                self.visit(node["items"], join_pointer(at, "items"))
        return allowed


def model_view(node: Any) -> Any:
    """``node`` rewritten for the model generator: never stricter than the schema.

    Refs are kept as they are (the caller rewrites them); everything the models would
    get wrong is dropped, so the model accepts a superset of the valid data.
    """
    if not isinstance(node, dict):
        return {}
    keep = {k: v for k, v in node.items() if k in ("title", "description", "default", "examples")
            or k.startswith("x-")}
    if isinstance(node.get("$ref"), str):
        # refs the model builder resolved point at named classes; others are Any
        return {"$ref": node["$ref"], **keep} if node["$ref"].startswith("#/$defs/") else keep
    types = _types(node)
    if types is not None and not set(types) <= _TYPES:
        types = None
    if types is None:
        present = set(node)
        shaped = [kind for kind, keys in (("object", _OBJECT_KEYS), ("array", _ARRAY_KEYS)) if present & keys]
        if shaped:
            return _union([*shaped, *(t for t in _ALL if t not in shaped)], node, keep)
        combinator = _combinator(node)
        if combinator is not None:
            return {**combinator, **keep}
        enum = _string_enum(node)
        if enum is not None and _null_member(node):
            return {"anyOf": [{"type": "string", **enum}, {"type": "null"}], NULLABLE_BRANCH: True, **keep}
        if enum is not None:
            return {"type": "string", **enum, **keep}
        return keep
    kinds = [t for t in types if t != "null"]
    if len(types) == 2 and len(kinds) == 1 and kinds[0] not in ("object", "array"):
        return _nullable(node, kinds[0], keep)
    if len(types) > 1:
        return _union(types, node, keep)
    out = _shaped(node, types[0], keep)
    combinator = _combinator(node)
    if combinator is not None and set(out) <= {"type", *keep}:
        out.pop("type", None)
        out.update(combinator)
    return out


def _nullable(node: dict[str, Any], kind: str, keep: dict[str, Any]) -> dict[str, Any]:
    """``type: [kind, "null"]``, ``kind`` a scalar: its constraints, and ``null`` unless ``const``/``enum`` exclude it."""
    out = _shaped(node, kind, {})
    if "const" in out or "enum" in out and not _null_member(node):
        return {**out, **keep}
    if "enum" in out:  # a StrEnum class, or nothing: the class takes the node's own name
        return {"anyOf": [out, {"type": "null"}], NULLABLE_BRANCH: True, **keep}
    return {**out, "type": [kind, "null"], **keep}


def _union(types: list[str], node: dict[str, Any], keep: dict[str, Any]) -> dict[str, Any]:
    """Several types: objects and arrays as shaped branches, the rest as one plain branch."""
    shaped = [_shaped(node, t, {}) for t in types if t in ("object", "array")]
    plain = [t for t in types if t not in ("object", "array")]
    if not shaped:
        return {"type": plain, **keep}
    branches = shaped + ([{"type": plain}] if plain else [])
    named = {NULLABLE_BRANCH: True} if sorted(types) == ["array", "null"] else {}  # not a dcg-invented name
    return {"anyOf": branches, **named, **keep} if len(branches) > 1 else {**branches[0], **keep}


def _has_shape(view: dict[str, Any]) -> bool:
    return bool(view.get("type")) or any(k in view for k in ("$ref", "anyOf", "oneOf", "enum", "const"))


def _string_enum(node: dict[str, Any]) -> dict[str, Any] | None:
    members = _string_members(node)
    if members is not None:
        return {"enum": members}  # member names: the naming service's (schemas/document.py)
    if isinstance(node.get("const"), str):
        return {"const": node["const"]}
    return None


def _combinator(node: dict[str, Any]) -> dict[str, Any] | None:
    """``anyOf``/``oneOf`` of the node as model views, if every branch has a shape."""
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not isinstance(branches, list):
            continue
        views = [model_view(b) for b in branches if b is not False]
        if views and all(_has_shape(v) for v in views):
            out: dict[str, Any] = {key: views}
            if "discriminator" in node:
                out["discriminator"] = node["discriminator"]
            return out
        return None
    branches = node.get("allOf")
    if isinstance(branches, list) and len(branches) == 1 and branches[0] is not False:
        view = model_view(branches[0])
        return view if _has_shape(view) else None
    return None


def _shaped(node: dict[str, Any], kind: str, keep: dict[str, Any]) -> dict[str, Any]:
    """The ``kind``-typed part of ``node`` that the models express."""
    out: dict[str, Any] = {"type": kind, **keep}
    if kind == "string":
        out.update({k: node[k] for k in _STRING_EXACT if isinstance(node.get(k), int)})
        enum = _string_enum(node)
        if enum is not None:
            out.update(enum)
    elif kind in ("integer", "number"):
        out.update({k: node[k] for k in _NUMBER_BOUNDS if isinstance(node.get(k), (int, float))
                    and not isinstance(node.get(k), bool)})
        mult = _int_multiple(node, kind)
        if mult is not None:
            out["multipleOf"] = mult
    elif kind == "object":
        raw_props = node.get("properties")
        props: dict[str, Any] = raw_props if isinstance(raw_props, dict) else {}
        if props:
            out["properties"] = {name: model_view(sub) for name, sub in props.items()}
        req = node.get("required")
        if isinstance(req, list):
            names = [r for r in req if r in props]
            if names:
                out["required"] = names
        extra = node.get("additionalProperties", True)
        if extra is False and not node.get("patternProperties"):
            out["additionalProperties"] = False
        elif isinstance(extra, dict) and not props and not node.get("patternProperties"):
            out["additionalProperties"] = model_view(extra)
        else:
            out["additionalProperties"] = True
        if node.get("patternProperties") or node.get("additionalProperties", False) is not False:
            out[OPEN] = True  # extra keys allowed in so many words: no exact TypedDict (models/typeddicts.py)
    elif kind == "array":
        if "items" in node and "prefixItems" not in node and node["items"] is not False:
            out["items"] = model_view(node["items"])
        out.update({k: node[k] for k in ("minItems", "maxItems") if isinstance(node.get(k), int)})
    return out


def schema_patterns(schema: Any) -> list[tuple[str, str]]:
    """(pointer, regex) of every ``pattern`` and ``patternProperties`` key in ``schema``."""
    found: list[tuple[str, str]] = []

    def visit(node: dict[str, Any], at: str) -> None:
        if isinstance(node.get("pattern"), str):
            found.append((join_pointer(at, "pattern"), node["pattern"]))
        keys = node.get("patternProperties")
        if isinstance(keys, dict):
            found.extend((join_pointer(at, "patternProperties", key), key) for key in keys)

    walk_schemas(schema, visit)
    return found
