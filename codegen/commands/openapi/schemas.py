"""OpenAPI schema objects -> JSON Schema 2020-12, the dialect of a spec.

* OpenAPI 3.0 (and Swagger 2.0): ``nullable`` becomes a ``null`` type (or ``anyOf`` with
  ``{type: null}`` where there is no plain type, ``$ref`` siblings included); boolean
  ``exclusiveMinimum``/``exclusiveMaximum`` become numbers; ``example`` becomes ``examples``;
  ``$ref`` siblings other than annotations are ignored, as 3.0 says.
* Everywhere: ``x-*``, ``xml``, ``externalDocs`` and unknown keys are dropped; ``discriminator``
  is kept (its ``mapping`` rewritten; its branches told apart: :mod:`.discriminator`); ``format: binary`` and Swagger's
  ``type: file`` become ``{type: string, contentEncoding: base64}``; a keyword whose value has the wrong type is dropped (W124).
* ``$ref`` s become ``#/$defs/Name``: every schema of ``components.schemas`` (``definitions``)
  is a ``$defs`` entry under its name (characters outside ``[A-Za-z0-9_]`` as ``_``); a
  reference to any other place (another file, a schema inside a path) gets an entry named
  after the last token of its pointer (or the file's stem), numbered ``_2``, ``_3`` when taken.
* Direction: requests leave ``readOnly`` properties out, responses keep ``writeOnly`` ones but
  never require them.  ``Name`` is the response variant; a schema with such a property (through
  its references too) also gets ``NameInput`` (``_2`` when taken).  Recursive models survive.
"""

from __future__ import annotations

import re
from typing import Any

from ...ir.naming.models import inline_class_clashes
from ...spec.pointer import join_pointer
from .discriminator import pin_branches
from .load import Document, Ref

REQUEST, RESPONSE = "request", "response"
_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
_SUB = ("not", "if", "then", "else", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
        "contains", "propertyNames", "contentSchema")
_SUB_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUB_MAP = ("properties", "patternProperties", "dependentSchemas")
_STR = ("title", "description", "pattern", "format", "contentMediaType", "contentEncoding", "$comment")
_NUM = ("maximum", "minimum", "multipleOf")
_COUNT = ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties", "maxContains",
          "minContains")
_BOOL = ("uniqueItems", "deprecated", "readOnly", "writeOnly")
_DATA = ("default", "const")
#: What a 3.0 ``$ref`` keeps of its siblings (3.0 ignores the others).
_REF_ANNOTATIONS = ("title", "description", "default", "deprecated", "readOnly", "writeOnly", "example", "examples")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_]")


def def_name(text: str) -> str:
    """A ``$defs`` key for a schema name: characters outside ``[A-Za-z0-9_]`` as ``_``."""
    name = _NAME_CHARS.sub("_", text)
    return name if name.strip("_") else "Schema"


class Schemas:
    """Converts the document's schemas, collecting the shared ones as ``$defs``."""

    def __init__(self, document: Document) -> None:
        self.doc = document
        self.legacy = document.version in ("2.0", "3.0")
        self._names: dict[tuple[str, str], str] = {}  # (file, pointer) -> base name
        self._input_names: dict[tuple[str, str], str] = {}
        self._taken: set[str] = set()
        self._where: dict[tuple[str, str], Ref] = {}
        self._pending: list[tuple[tuple[str, str], str]] = []
        self._done: set[tuple[tuple[str, str], str]] = set()
        self._needs_input: dict[tuple[str, str], bool] = {}
        self.defs: dict[str, Any] = {}
        root = document.root
        data = document.data
        base = "/definitions" if document.version == "2.0" else "/components/schemas"
        table = data.get("definitions") if document.version == "2.0" else (data.get("components") or {}).get("schemas") \
            if isinstance(data.get("components"), dict) else None
        if table is not None and not isinstance(table, dict):
            document.error(root, "E141", "schemas must be a mapping of name to schema", base)
            table = None
        for name in table or {}:
            self._register(Ref(root, join_pointer(base, name)), name)

    # -- names -----------------------------------------------------------------------------

    def _fresh(self, wanted: str) -> str:
        name, n = wanted, 1
        while name in self._taken:
            n += 1
            name = f"{wanted}_{n}"
        self._taken.add(name)
        return name

    def _register(self, where: Ref, wanted: str) -> str:
        key = where.key
        if key not in self._names:
            self._names[key] = self._fresh(def_name(wanted))
            self._where[key] = where
            self._pending.append((key, RESPONSE))
        return self._names[key]

    def ref_to(self, where: Ref, direction: str) -> str:
        """``#/$defs/...`` for the schema at ``where``, seen from ``direction``."""
        tokens = where.pointer.rsplit("/", 1)
        wanted = tokens[-1].replace("~1", "/").replace("~0", "~") if where.pointer else where.doc.path.stem
        name = self._register(where, wanted)
        key = where.key
        if direction == REQUEST and self.needs_input(key):
            if key not in self._input_names:
                self._input_names[key] = self._fresh(name + "Input")
                self._pending.append((key, REQUEST))
            return "#/$defs/" + self._input_names[key]
        return "#/$defs/" + name

    def response_name(self, name: str) -> str:
        """The entry a request variant was made from (``PetInput`` -> ``Pet``); any other as it is."""
        return next((self._names[k] for k, v in self._input_names.items() if v == name), name)

    # -- direction -------------------------------------------------------------------------

    def needs_input(self, key: tuple[str, str]) -> bool:
        """Whether the schema at ``key`` has a readOnly or writeOnly property, itself or
        through the schemas it refers to (its two directions then differ)."""
        if key in self._needs_input:
            return self._needs_input[key]
        edges: dict[tuple[str, str], list[tuple[str, str]]] = {}
        marked: set[tuple[str, str]] = set()
        todo = [key]
        while todo:
            at = todo.pop()
            if at in edges:
                continue
            where = self._where.get(at)
            if where is None:
                edges[at] = []
                continue
            refs, direct = self._scan(self.doc.value(where), where)
            edges[at] = [r.key for r in refs]
            for r in refs:
                self._where.setdefault(r.key, r)
                todo.append(r.key)
            if direct:
                marked.add(at)
        changed = True
        while changed:
            changed = False
            for node, outs in edges.items():
                if node not in marked and any(o in marked or self._needs_input.get(o) for o in outs):
                    marked.add(node)
                    changed = True
        for node in edges:
            self._needs_input.setdefault(node, node in marked)
        return self._needs_input[key]

    def _scan(self, raw: Any, where: Ref) -> tuple[list[Ref], bool]:
        """The references in ``raw`` (not followed) and whether it has a readOnly/writeOnly property."""
        refs: list[Ref] = []
        direct = False
        stack: list[tuple[Any, str]] = [(raw, where.pointer)]
        while stack:
            node, ptr = stack.pop()
            if isinstance(node, dict):
                if "$ref" in node:
                    target = self.doc.target(node["$ref"], where.doc, ptr)
                    if target is not None:
                        refs.append(target)
                props = node.get("properties")
                if isinstance(props, dict):
                    direct = direct or any(isinstance(p, dict) and (p.get("readOnly") is True or p.get("writeOnly") is True)
                                           for p in props.values())
                for k, v in node.items():
                    if isinstance(v, (dict, list)) and k not in ("enum", "const", "default", "example", "examples", "discriminator") \
                            and not k.startswith("x-"):
                        stack.append((v, join_pointer(ptr, k)))
            elif isinstance(node, list):
                stack.extend((v, join_pointer(ptr, i)) for i, v in enumerate(node))
        return refs, direct

    # -- conversion ------------------------------------------------------------------------

    def convert(self, raw: Any, where: Ref, direction: str) -> Any:
        """The JSON Schema for the schema object ``raw`` found at ``where``."""
        return self._node(raw, where, direction)

    def resolve(self, raw: Any, where: Ref) -> tuple[Any, Ref]:
        """``raw`` with its ``$ref`` chain followed (for looking at a schema's shape)."""
        followed = self.doc.follow(raw, where)
        return followed if followed is not None else ({}, where)

    def finish(self) -> dict[str, Any]:
        """Convert every shared schema referred to so far (and those they refer to); the
        ``$defs`` sorted by name."""
        while self._pending:
            key, direction = self._pending.pop(0)
            if (key, direction) in self._done:
                continue
            self._done.add((key, direction))
            where = self._where[key]
            name = self._names[key] if direction == RESPONSE else self._input_names[key]
            self.defs[name] = self._node(self.doc.value(where), where, direction)
        _apart(self.defs)
        return dict(sorted(self.defs.items()))

    def _bad(self, where: Ref, ptr: str, message: str) -> None:
        self.doc.warn(where.doc, "W124", message, ptr)

    def _node(self, raw: Any, where: Ref, direction: str) -> Any:
        doc, ptr = where.doc, where.pointer
        if isinstance(raw, bool):
            return raw
        if not isinstance(raw, dict):
            self._bad(where, ptr, f"a schema must be a mapping, not {type(raw).__name__}; read as {{}} (anything)")
            return {}
        if "$ref" in raw:
            return self._ref(raw, where, direction)
        out: dict[str, Any] = {}
        for key, value in raw.items():
            at = Ref(doc, join_pointer(ptr, key))
            self._keyword(key, value, raw, at, direction, out)
        for flag, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if raw.get(flag) is True and bound in out:  # 3.0: the bound itself is exclusive
                out[flag] = out.pop(bound)
        if raw.get("format") == "binary" and out.get("type") in ("string", None):
            out.pop("format", None)
            out["type"] = "string"
            out["contentEncoding"] = "base64"
        if "discriminator" in out:
            out = pin_branches(out, self.response_name)
        return _nullable(out) if raw.get("nullable") is True else out

    def _ref(self, raw: dict[str, Any], where: Ref, direction: str) -> Any:
        target = self.doc.target(raw["$ref"], where.doc, where.pointer)
        out: dict[str, Any] = {"$ref": self.ref_to(target, direction)} if target is not None else {}
        keep = _REF_ANNOTATIONS if self.legacy else tuple(k for k in raw if k != "$ref")
        for key in keep:
            if key in raw:
                self._keyword(key, raw[key], raw, Ref(where.doc, join_pointer(where.pointer, key)), direction, out)
        if raw.get("nullable") is True:
            core = {"$ref": out.pop("$ref")} if "$ref" in out else {}
            out = {"anyOf": [core, {"type": "null"}], **out}
        return out

    def _keyword(self, key: str, value: Any, raw: dict[str, Any], at: Ref, direction: str, out: dict[str, Any]) -> None:
        ptr = at.pointer
        if key.startswith("x-") or key in ("xml", "externalDocs", "nullable", "$ref", "$id", "$schema", "$anchor",
                                           "$dynamicRef", "$dynamicAnchor", "$vocabulary", "definitions"):
            return
        if key == "type":
            self._type(value, at, out)
        elif key in _STR:
            self._typed(value, str, "a string", at, key, out)
        elif key in _NUM:
            if _is_number(value) and not (key == "multipleOf" and value <= 0):
                out[key] = value
            else:
                self._bad(at, ptr, f"`{key}` must be a number{' above 0' if key == 'multipleOf' else ''}; dropped")
        elif key in ("exclusiveMinimum", "exclusiveMaximum"):
            self._exclusive(key, value, at, out)
        elif key in _COUNT:
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                out[key] = value
            else:
                self._bad(at, ptr, f"`{key}` must be a non-negative integer; dropped")
        elif key in _BOOL:
            self._typed(value, bool, "true or false", at, key, out)
        elif key in _DATA:
            out[key] = value
        elif key == "enum":
            if isinstance(value, list) and value:
                out[key] = value
            else:
                self._bad(at, ptr, "`enum` must be a non-empty list; dropped")
        elif key == "required":
            self._required(value, raw, at, direction, out)
        elif key == "dependentRequired":
            if isinstance(value, dict) and all(isinstance(v, list) and all(isinstance(s, str) for s in v) for v in value.values()):
                out[key] = value
            else:
                self._bad(at, ptr, "`dependentRequired` must map names to lists of names; dropped")
        elif key == "example":
            if "examples" not in raw or not isinstance(raw.get("examples"), list):
                out["examples"] = [value]
        elif key == "examples":
            if isinstance(value, list):
                out[key] = value
        elif key == "items":
            self._items(value, at, direction, out)
        elif key in _SUB:
            if isinstance(value, (dict, bool)):
                out[key] = self._node(value, at, direction)
            else:
                self._bad(at, ptr, f"`{key}` must be a schema; dropped")
        elif key in _SUB_LIST:
            if isinstance(value, list) and value:
                out[key] = [self._node(v, Ref(at.doc, join_pointer(ptr, i)), direction) for i, v in enumerate(value)]
            else:
                self._bad(at, ptr, f"`{key}` must be a non-empty list of schemas; dropped")
        elif key in _SUB_MAP:
            self._map(key, value, raw, at, direction, out)
        elif key == "$defs":
            if isinstance(value, dict):
                out[key] = {k: self._node(v, Ref(at.doc, join_pointer(ptr, k)), direction) for k, v in value.items()}
        elif key == "discriminator":
            self._discriminator(value, at, out)

    def _typed(self, value: Any, kind: type, what: str, at: Ref, key: str, out: dict[str, Any]) -> None:
        if isinstance(value, kind):
            out[key] = value
        else:
            self._bad(at, at.pointer, f"`{key}` must be {what}; dropped")

    def _type(self, value: Any, at: Ref, out: dict[str, Any]) -> None:
        if value == "file":  # Swagger 2.0 form-data file
            out["type"] = "string"
            out["contentEncoding"] = "base64"
        elif isinstance(value, str) and value in _TYPES:
            out["type"] = value
        elif isinstance(value, list) and value and all(isinstance(t, str) and t in _TYPES for t in value) \
                and len(set(value)) == len(value):
            out["type"] = value if len(value) > 1 else value[0]
        else:
            self._bad(at, at.pointer, f"`type` {value!r} is not a JSON Schema type; dropped")

    def _exclusive(self, key: str, value: Any, at: Ref, out: dict[str, Any]) -> None:
        if isinstance(value, bool):  # 3.0 / 2.0: a flag on minimum / maximum (_node applies it)
            return
        if _is_number(value):
            out[key] = value
        else:
            self._bad(at, at.pointer, f"`{key}` must be a number (or true/false in OpenAPI 3.0); dropped")

    def _required(self, value: Any, raw: dict[str, Any], at: Ref, direction: str, out: dict[str, Any]) -> None:
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            self._bad(at, at.pointer, "`required` of a schema must be a list of property names; dropped")
            return
        hidden = _hidden(raw.get("properties"), direction)
        names = list(dict.fromkeys(v for v in value if v not in hidden))
        out["required"] = names

    def _items(self, value: Any, at: Ref, direction: str, out: dict[str, Any]) -> None:
        if isinstance(value, (dict, bool)):
            out["items"] = self._node(value, at, direction)
        elif isinstance(value, list) and value and self.doc.version == "3.1":
            out["prefixItems"] = [self._node(v, Ref(at.doc, join_pointer(at.pointer, i)), direction)
                                  for i, v in enumerate(value)]
        else:
            self._bad(at, at.pointer, "`items` must be a schema; dropped")

    def _map(self, key: str, value: Any, raw: dict[str, Any], at: Ref, direction: str, out: dict[str, Any]) -> None:
        if not isinstance(value, dict):
            self._bad(at, at.pointer, f"`{key}` must map names to schemas; dropped")
            return
        hidden = _hidden(value, direction) if key == "properties" and direction == REQUEST else set()
        out[key] = {k: self._node(v, Ref(at.doc, join_pointer(at.pointer, k)), direction)
                    for k, v in value.items() if k not in hidden}

    def _discriminator(self, value: Any, at: Ref, out: dict[str, Any]) -> None:
        if not (isinstance(value, dict) and isinstance(value.get("propertyName"), str)):
            self._bad(at, at.pointer, "`discriminator` must have a `propertyName` string; dropped")
            return
        kept: dict[str, Any] = {"propertyName": value["propertyName"]}
        mapping = value.get("mapping")
        if isinstance(mapping, dict):
            new: dict[str, str] = {}
            base = "/definitions/" if self.doc.version == "2.0" else "/components/schemas/"
            for tag, target in mapping.items():
                if not isinstance(target, str):
                    continue
                ref = target if "#" in target or "/" in target or target.endswith((".yaml", ".yml", ".json")) \
                    else "#" + base + target
                where = self.doc.target(ref, at.doc, join_pointer(at.pointer, "mapping", tag))
                if where is not None:
                    new[str(tag)] = self.ref_to(where, RESPONSE)
            kept["mapping"] = new
        out["discriminator"] = kept


def _apart(defs: dict[str, Any]) -> None:
    """Model class names kept apart (``A.p`` beside ``A_p``): named by the naming service."""
    for (name, prop), python in inline_class_clashes(defs).items():
        defs[name]["properties"][prop]["x-python-name"] = python


def _hidden(props: Any, direction: str) -> set[str]:
    """Properties a direction hides: readOnly in requests (left out), writeOnly in responses (kept, never required)."""
    if not isinstance(props, dict):
        return set()
    flag = "readOnly" if direction == REQUEST else "writeOnly"
    return {k for k, v in props.items() if isinstance(v, dict) and v.get(flag) is True}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _nullable(out: dict[str, Any]) -> dict[str, Any]:
    """``out`` that also accepts null (OpenAPI 3.0 ``nullable: true``)."""
    kind = out.get("type")
    if not isinstance(kind, (str, list)):
        return {"anyOf": [out, {"type": "null"}]}
    kinds = [kind] if isinstance(kind, str) else kind
    if "null" not in kinds:
        out["type"] = [*kinds, "null"]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out
