"""The JSON Schema keywords, and keys that look like a mistyped keyword or spec key.

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

from collections.abc import Iterable
from typing import Any

from .load import join_pointer

#: Every keyword of JSON Schema 2020-12, all vocabularies (core, applicator, unevaluated,
#: validation, meta-data, format, content).
SCHEMA_KEYWORDS = frozenset({
    "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
    "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
    "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
    "unevaluatedItems", "unevaluatedProperties",
    "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired",
    "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
    "format", "contentEncoding", "contentMediaType", "contentSchema",
})
#: Keywords of earlier drafts that a schema may still use (a ``$schema`` can pick them).
OLDER_KEYWORDS = frozenset({"definitions", "dependencies", "additionalItems", "$recursiveRef", "$recursiveAnchor"})
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
#: Where a schema's keys are names (each value a subschema), or data (nothing inside is a keyword).
_NAME_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SINGLE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
           "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")


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


_ALL_KEYWORDS = SCHEMA_KEYWORDS | OLDER_KEYWORDS


def schema_typos(schema: Any, ptr: str = "") -> list[tuple[str, str, str]]:
    """(pointer of the key, key, the keyword it probably means) for every near miss of a
    JSON Schema keyword among the keys of ``schema`` and its subschemas."""
    found: list[tuple[str, str, str]] = []
    stack: list[tuple[Any, str]] = [(schema, ptr)]
    while stack:
        node, at = stack.pop()
        if not isinstance(node, dict):
            continue
        children: list[tuple[Any, str]] = []
        for key, value in node.items():
            here = join_pointer(at, key)
            if key in _NAME_MAPS and isinstance(value, dict):
                children += [(sub, join_pointer(here, name)) for name, sub in value.items()]
            elif key in _LISTS and isinstance(value, list):
                children += [(sub, join_pointer(here, i)) for i, sub in enumerate(value)]
            elif key in _SINGLE:
                children.append((value, here))
            elif key == "dependencies" and isinstance(value, dict):
                children += [(sub, join_pointer(here, name)) for name, sub in value.items() if isinstance(sub, dict)]
            elif key not in _ALL_KEYWORDS:
                meant = near_miss(key, _ALL_KEYWORDS)
                if meant is not None:
                    found.append((here, key, meant))
        stack.extend(reversed(children))
    return found
