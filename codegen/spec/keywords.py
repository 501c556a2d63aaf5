"""The keyword table, and keys that look like a mistyped keyword or spec key.

:data:`KEYWORDS` says, for every JSON Schema 2020-12 keyword (and the older ones a
``$schema`` can pick), what it becomes in a generated package: expressed by the models,
checked beside them, or left to ``jsonschema`` (the tool is *schema-checked*), an annotation,
or structure.  The exactness analysis (:mod:`codegen.schemas.exactness`), the diagnostics
(W100's note, E029's keyword list) and docs/json-schema.md read it; it is here, in the first
stage, so that every stage can.

JSON Schema ignores a key it does not know (it is an annotation), so ``propertes:`` instead
of ``properties:`` silently turns a typed object into "anything".  :func:`near_miss` tells a
probable mistake from a legitimate annotation:

* a key that differs from a known one only in case (``MinLength``, ``readonly``);
* a key listed in :data:`MISSPELLINGS` (``additionalProperty``, ``min``);
* a key within a small Damerau-Levenshtein distance of a known one: 1 for known keys of
  4 to 6 characters (``requird``, ``titel``), 2 for longer ones when the first letter
  agrees (``propertes``, ``adtionalProperties``), none for shorter ones (``if``, ``not``,
  ``$id`` have too many neighbours: only a case difference counts there);

and never a key in :data:`LEGITIMATE_ANNOTATIONS` (OpenAPI's ``example``, ``nullable``,
``discriminator`` ..., editors' and validators' extensions) or an ``x-`` vendor key.
:func:`schema_typos` applies it to every key of a schema where keys are keywords: not to
the names under ``properties``, ``$defs``, ``patternProperties``, ``dependentSchemas``,
``dependentRequired``, nor inside the data of ``enum``/``const``/``default``/``examples``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from .load import join_pointer

MODEL = "model"
SIDE_CHECK = "side-check"
SCHEMA_CHECKED = "schema-checked"
ANNOTATION = "annotation"
STRUCTURAL = "structural"
#: The kinds, in the order the docs explain them.
KINDS = (MODEL, SIDE_CHECK, SCHEMA_CHECKED, ANNOTATION, STRUCTURAL)
#: The vocabulary of the keywords that 2020-12 no longer has (a ``$schema`` can pick them).
OLDER = "older drafts"
#: What a keyword's value holds: one subschema, a list of them, one or a list (``items``:
#: draft-07's tuple form), names each with a subschema, or none (data, names, numbers ...).
SCHEMA, SCHEMAS, SCHEMA_OR_LIST, SCHEMA_MAP, NONE = "schema", "schemas", "schema or schemas", "schema map", "-"


class Keyword(NamedTuple):
    """What one JSON Schema keyword becomes in a generated package.

    Attributes:
        vocabulary: its 2020-12 vocabulary (``core``, ``applicator``, ``unevaluated``,
            ``validation``, ``meta-data``, ``format-annotation``, ``content``), or
            :data:`OLDER` for a keyword of an earlier draft.
        kind: :data:`MODEL` (the Pydantic models express it exactly, where the note says;
            anywhere else the tool is schema-checked), :data:`SIDE_CHECK` (checked beside the
            model by the runtime, without ``jsonschema``, where the note says; elsewhere
            schema-checked), :data:`SCHEMA_CHECKED` (the models cannot express it: the tool's
            original schema is validated with ``jsonschema``), :data:`ANNOTATION` (never
            constrains), :data:`STRUCTURAL` (organises the schema, constrains nothing itself).
        applies: the instance type it constrains (``object``, ``array``, ``string``,
            ``number``: integers too) or ``any``.
        holds: the subschemas in its value (:data:`SCHEMA`, :data:`SCHEMAS`,
            :data:`SCHEMA_OR_LIST`, :data:`SCHEMA_MAP`), or :data:`NONE`.
        note: one line, for the docs and the diagnostics: what it becomes, and where.
    """

    vocabulary: str
    kind: str
    applies: str
    holds: str
    note: str


_ON_NUMBER = "a bound on an integer- or number-typed schema (a field constraint); elsewhere schema-checked"
_ON_STRING = "on a string-typed schema (a field constraint, in code points); elsewhere schema-checked"
_ON_ARRAY = "on an array-typed schema (a list constraint); elsewhere schema-checked"
_IF = "the models cannot express a condition; the tool is schema-checked"
_CONTAINS = "the models cannot count matching items; the tool is schema-checked"
_PROPS = "the models cannot count properties; the tool is schema-checked"
_IDENT = "an identifier the models cannot follow; the tool is schema-checked"
_META = "an annotation: nothing checks it"
_CONTENT = "an annotation (2020-12 does not assert content); the string is not decoded or checked"

#: Every keyword of JSON Schema 2020-12 (all vocabularies), then those of earlier drafts that a
#: schema may still use, and what each becomes: the one place that decides it (the exactness
#: analysis, the diagnostics and docs/json-schema.md read it; tests keep the runtime to it).
KEYWORDS: Mapping[str, Keyword] = MappingProxyType({
    # core
    "$schema": Keyword("core", STRUCTURAL, "any", NONE, "the dialect; another draft's keywords are schema-checked"),
    "$id": Keyword("core", SCHEMA_CHECKED, "any", NONE,
        "a resource boundary the models cannot follow; the tool is schema-checked"),
    "$ref": Keyword("core", STRUCTURAL, "any", NONE,
        "a same-document JSON pointer is followed (the target's class is shared); another keyword beside it, "
        "an anchor or another document is schema-checked"),
    "$anchor": Keyword("core", SCHEMA_CHECKED, "any", NONE, "a name for a subschema: " + _IDENT),
    "$dynamicRef": Keyword("core", SCHEMA_CHECKED, "any", NONE, "a reference resolved at run time: " + _IDENT),
    "$dynamicAnchor": Keyword("core", SCHEMA_CHECKED, "any", NONE, "a dynamic name for a subschema: " + _IDENT),
    "$vocabulary": Keyword("core", SCHEMA_CHECKED, "any", NONE,
        "meaningful in a metaschema only; in a tool's schema the tool is schema-checked"),
    "$comment": Keyword("core", ANNOTATION, "any", NONE, _META),
    "$defs": Keyword("core", STRUCTURAL, "any", SCHEMA_MAP,
        "definitions for $ref; they constrain nothing themselves"),
    # applicator
    "prefixItems": Keyword("applicator", SCHEMA_CHECKED, "array", SCHEMAS,
        "the models have no tuples; the tool is schema-checked"),
    "items": Keyword("applicator", MODEL, "array", SCHEMA_OR_LIST,
        "on an array-typed schema: the list's item type; beside prefixItems, or elsewhere, schema-checked"),
    "contains": Keyword("applicator", SCHEMA_CHECKED, "array", SCHEMA, _CONTAINS),
    "additionalProperties": Keyword("applicator", MODEL, "object", SCHEMA,
        "on an object-typed schema: false forbids extra properties, true keeps them; a schema only without "
        "properties (a dict's values); otherwise schema-checked"),
    "properties": Keyword("applicator", MODEL, "object", SCHEMA_MAP,
        "on an object-typed schema: the model's fields; elsewhere schema-checked"),
    "patternProperties": Keyword("applicator", SCHEMA_CHECKED, "object", SCHEMA_MAP,
        "names matched by a pattern: the tool is schema-checked"),
    "dependentSchemas": Keyword("applicator", SCHEMA_CHECKED, "object", SCHEMA_MAP, _IF),
    "propertyNames": Keyword("applicator", SCHEMA_CHECKED, "object", SCHEMA,
        "the models cannot check names; the tool is schema-checked"),
    "if": Keyword("applicator", SCHEMA_CHECKED, "any", SCHEMA, _IF),
    "then": Keyword("applicator", SCHEMA_CHECKED, "any", SCHEMA, _IF),
    "else": Keyword("applicator", SCHEMA_CHECKED, "any", SCHEMA, _IF),
    "allOf": Keyword("applicator", SCHEMA_CHECKED, "any", SCHEMAS,
        "the models cannot intersect schemas; the tool is schema-checked"),
    "anyOf": Keyword("applicator", MODEL, "any", SCHEMAS,
        "a union, when every branch is exact and nothing but annotations is beside it; otherwise "
        "schema-checked"),
    "oneOf": Keyword("applicator", MODEL, "any", SCHEMAS,
        "a union, as anyOf, when no two branches' types meet (integer counts as number); overlapping branches"
        " are schema-checked"),
    "not": Keyword("applicator", SCHEMA_CHECKED, "any", SCHEMA,
        "the models cannot negate a schema; the tool is schema-checked"),
    # unevaluated
    "unevaluatedItems": Keyword("unevaluated", SCHEMA_CHECKED, "array", SCHEMA,
        "depends on what the other keywords evaluated; the tool is schema-checked"),
    "unevaluatedProperties": Keyword("unevaluated", SCHEMA_CHECKED, "object", SCHEMA,
        "depends on what the other keywords evaluated; the tool is schema-checked"),
    # validation
    "type": Keyword("validation", MODEL, "any", NONE,
        "the field's type, strict (\"5\" is no integer); [X, \"null\"] is X | None with X's constraints; "
        "constraints beside several types are schema-checked"),
    "const": Keyword("validation", MODEL, "any", NONE,
        "a string on an untyped or string-typed schema: a literal; any other value is schema-checked"),
    "enum": Keyword("validation", MODEL, "any", NONE,
        "distinct strings (and at most one null) on an untyped or string-typed schema: a string enum class; "
        "other members are schema-checked"),
    "multipleOf": Keyword("validation", MODEL, "number", NONE,
        "a positive integer on an integer-typed schema; fractions, and other types, are schema-checked"),
    "maximum": Keyword("validation", MODEL, "number", NONE, _ON_NUMBER),
    "exclusiveMaximum": Keyword("validation", MODEL, "number", NONE, _ON_NUMBER),
    "minimum": Keyword("validation", MODEL, "number", NONE, _ON_NUMBER),
    "exclusiveMinimum": Keyword("validation", MODEL, "number", NONE, _ON_NUMBER),
    "maxLength": Keyword("validation", MODEL, "string", NONE, _ON_STRING),
    "minLength": Keyword("validation", MODEL, "string", NONE, _ON_STRING),
    "pattern": Keyword("validation", SIDE_CHECK, "string", NONE,
        "ECMA-262, beside the model, where it applies unconditionally (reached only through properties, "
        "items, additionalProperties without properties and same-document refs, in a non-recursive schema); "
        "elsewhere schema-checked"),
    "maxItems": Keyword("validation", MODEL, "array", NONE, _ON_ARRAY),
    "minItems": Keyword("validation", MODEL, "array", NONE, _ON_ARRAY),
    "uniqueItems": Keyword("validation", SCHEMA_CHECKED, "array", NONE,
        "true: the models cannot compare items, the tool is schema-checked (false means nothing)"),
    "maxContains": Keyword("validation", SCHEMA_CHECKED, "array", NONE, _CONTAINS),
    "minContains": Keyword("validation", SCHEMA_CHECKED, "array", NONE, _CONTAINS),
    "maxProperties": Keyword("validation", SCHEMA_CHECKED, "object", NONE, _PROPS),
    "minProperties": Keyword("validation", SCHEMA_CHECKED, "object", NONE, _PROPS),
    "required": Keyword("validation", MODEL, "object", NONE,
        "names of declared properties on an object-typed schema: required fields; an undeclared name is "
        "schema-checked"),
    "dependentRequired": Keyword("validation", SCHEMA_CHECKED, "object", NONE, _IF),
    # meta-data
    "title": Keyword("meta-data", ANNOTATION, "any", NONE, _META),
    "description": Keyword("meta-data", ANNOTATION, "any", NONE, _META),
    "default": Keyword("meta-data", ANNOTATION, "any", NONE,
        "an annotation: nothing checks it; the handler gets it where the client left the property out (when "
        "it fits the schema)"),
    "deprecated": Keyword("meta-data", ANNOTATION, "any", NONE, _META),
    "readOnly": Keyword("meta-data", ANNOTATION, "any", NONE, _META),
    "writeOnly": Keyword("meta-data", ANNOTATION, "any", NONE, _META),
    "examples": Keyword("meta-data", ANNOTATION, "any", NONE, _META),
    # format-annotation
    "format": Keyword("format-annotation", ANNOTATION, "any", NONE,
        "an annotation (format: date is a str); with server.formatAssertion the tool is schema-checked and "
        "formats asserted"),
    # content
    "contentEncoding": Keyword("content", ANNOTATION, "string", NONE, _CONTENT),
    "contentMediaType": Keyword("content", ANNOTATION, "string", NONE, _CONTENT),
    "contentSchema": Keyword("content", ANNOTATION, "string", SCHEMA, _CONTENT),
    # earlier drafts
    "definitions": Keyword(OLDER, STRUCTURAL, "any", SCHEMA_MAP,
        "draft-07's $defs: definitions for $ref; they constrain nothing themselves"),
    "dependencies": Keyword(OLDER, SCHEMA_CHECKED, "object", SCHEMA_MAP,
        "draft-07; the tool is schema-checked (2020-12 ignores it unless $schema names an earlier draft)"),
    "additionalItems": Keyword(OLDER, SCHEMA_CHECKED, "array", SCHEMA,
        "draft-07; the tool is schema-checked (2020-12 ignores it unless $schema names an earlier draft)"),
    "$recursiveRef": Keyword(OLDER, SCHEMA_CHECKED, "any", NONE, "2019-09's $dynamicRef: " + _IDENT),
    "$recursiveAnchor": Keyword(OLDER, SCHEMA_CHECKED, "any", NONE, "2019-09's $dynamicAnchor: " + _IDENT),
})
#: Every keyword of JSON Schema 2020-12, all vocabularies (core, applicator, unevaluated,
#: validation, meta-data, format, content).
SCHEMA_KEYWORDS = frozenset(k for k, r in KEYWORDS.items() if r.vocabulary != OLDER)
#: Keywords of earlier drafts that a schema may still use (a ``$schema`` can pick them).
OLDER_KEYWORDS = frozenset(k for k, r in KEYWORDS.items() if r.vocabulary == OLDER)


def keywords_of(*kinds: str, applies: str | None = None) -> frozenset[str]:
    """The keywords of the given kinds (all kinds when none), perhaps only those that
    constrain ``applies`` instances."""
    return frozenset(k for k, r in KEYWORDS.items()
                     if (not kinds or r.kind in kinds) and (applies is None or r.applies == applies))


#: What :func:`~codegen.schemas.exactness.inexact_keywords` reports that is not a keyword.
_NOT_KEYWORDS = {"false": "a false schema refuses every value, which the models cannot say",
                 "schema": "a value that is not a schema"}


def keyword_note(keyword: str) -> str:
    """The table's one line on ``keyword`` (for a diagnostic), or what a non-keyword means."""
    record = KEYWORDS.get(keyword)
    return record.note if record is not None else _NOT_KEYWORDS.get(keyword, "not a JSON Schema keyword")


#: Keys other tools put into schemas on purpose: never reported as near misses.
LEGITIMATE_ANNOTATIONS = frozenset({
    "example", "nullable", "discriminator", "xml", "externalDocs",  # OpenAPI
    "id",  # draft-04's $id
    "markdownDescription", "enumDescriptions", "markdownEnumDescriptions", "deprecationMessage",  # VS Code
    "errorMessage", "enumNames", "defaultSnippets", "doNotSuggest", "suggestSortText", "allowComments",
    "allowTrailingCommas", "patternErrorMessage",
})
#: Misspellings too far from their keyword for the distance rule.
MISSPELLINGS = {
    "additionalProperty": "additionalProperties", "additionalProps": "additionalProperties",
    "patternProperty": "patternProperties", "unevaluatedProperty": "unevaluatedProperties",
    "dependentRequire": "dependentRequired", "requiredProperties": "required",
    "min": "minimum", "max": "maximum", "exclusiveMin": "exclusiveMinimum", "exclusiveMax": "exclusiveMaximum",
    "minLen": "minLength", "maxLen": "maxLength", "minSize": "minItems", "maxSize": "maxItems",
    "multipleof": "multipleOf", "regex": "pattern", "enumeration": "enum", "ref": "$ref", "defs": "$defs",
}
def distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment) between ``a`` and ``b``."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]


def _allowed(known: str, key: str) -> int:
    """How far ``key`` may be from ``known`` and still count as a mistyped ``known``."""
    if len(known) <= 3:
        return 0
    if len(known) < 7:
        return 1
    return 2 if known[0].lower() == key[:1].lower() else 1


def near_miss(key: str, known: Iterable[str]) -> str | None:
    """The known key that ``key`` probably means, or None when ``key`` is known, a vendor
    key (``x-``), a legitimate annotation, or not close to anything known."""
    names = sorted(set(known))
    if key in names or key.startswith("x-") or key in LEGITIMATE_ANNOTATIONS:
        return None
    if MISSPELLINGS.get(key) in names:
        return MISSPELLINGS[key]
    folded = key.lower()
    same_case = [n for n in names if n.lower() == folded]
    if same_case:
        return same_case[0]
    best: tuple[int, str] | None = None
    for name in names:
        if abs(len(name) - len(key)) > 2:
            continue
        d = distance(key, name)
        if 0 < d <= _allowed(name, key) and (best is None or d < best[0]):
            best = (d, name)
    return best[1] if best else None


_ALL_KEYWORDS = frozenset(KEYWORDS)


def _schema_nodes(schema: Any, ptr: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every subschema of ``schema`` that is an object, with its pointer, pre-order: the values
    of the keywords that hold schemas (:data:`KEYWORDS`), never the data of ``enum`` ..."""
    stack: list[tuple[Any, str]] = [(schema, ptr)]
    while stack:
        node, at = stack.pop()
        if not isinstance(node, dict):
            continue
        yield node, at
        children: list[tuple[Any, str]] = []
        for key, value in node.items():
            here = join_pointer(at, key)
            holds = KEYWORDS[key].holds if key in KEYWORDS else NONE
            if holds == SCHEMA_MAP and isinstance(value, dict):
                children += [(sub, join_pointer(here, name)) for name, sub in value.items()]
            elif holds in (SCHEMAS, SCHEMA_OR_LIST) and isinstance(value, list):
                children += [(sub, join_pointer(here, i)) for i, sub in enumerate(value)]
            elif holds in (SCHEMA, SCHEMA_OR_LIST):
                children.append((value, here))
        stack.extend(reversed(children))


def schema_typos(schema: Any, ptr: str = "") -> list[tuple[str, str, str]]:
    """(pointer of the key, key, the keyword it probably means) for every near miss of a
    JSON Schema keyword among the keys of ``schema`` and its subschemas."""
    found: list[tuple[str, str, str]] = []
    for node, at in _schema_nodes(schema, ptr):
        for key in node:
            if key not in _ALL_KEYWORDS:
                meant = near_miss(key, _ALL_KEYWORDS)
                if meant is not None:
                    found.append((join_pointer(at, key), key, meant))
    return found


class UndeclaredRequired(NamedTuple):
    """A ``required`` name that the schema's ``properties`` do not declare, and looks wrong."""

    pointer: str  #: of the name in the ``required`` list
    name: str
    meant: str | None  #: the declared property it probably means
    closed: bool  #: ``additionalProperties: false`` (or ``unevaluatedProperties: false``): no value can have it


def _pattern_allows(patterns: Any, name: str) -> bool:
    for pattern in patterns if isinstance(patterns, dict) else ():
        try:
            if re.search(pattern, name):
                return True
        except (re.error, TypeError):
            return True  # a pattern Python cannot read may match it: not our business here
    return False


def undeclared_required(schema: Any, ptr: str = "") -> list[UndeclaredRequired]:
    """Names in a ``required`` list, beside ``properties``, that no property (or pattern)
    declares and that look like a mistake: a near miss of a declared property (``reportr``
    for ``reporter``: the real property silently becomes optional), or any name where extra
    properties are forbidden (no value could ever pass).  JSON Schema allows requiring an
    undeclared property of an open object, so a name far from every property is left alone."""
    found: list[UndeclaredRequired] = []
    for node, at in _schema_nodes(schema, ptr):
        props, required = node.get("properties"), node.get("required")
        if not isinstance(props, dict) or not isinstance(required, list):
            continue
        closed = node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False
        for i, name in enumerate(required):
            if not isinstance(name, str) or name in props or _pattern_allows(node.get("patternProperties"), name):
                continue
            meant = near_miss(name, [p for p in props if p not in required]) or next(
                iter(difflib.get_close_matches(name, [p for p in props if p not in required], n=1, cutoff=0.75)), None)
            if meant is not None or closed:
                found.append(UndeclaredRequired(join_pointer(at, "required", i), name, meant, closed))
    return found
