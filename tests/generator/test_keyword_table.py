"""The keyword table (``codegen/spec/keywords.py``: ``KEYWORDS``) is the one place that says what
a JSON Schema keyword becomes: it lists every 2020-12 keyword, and docs/json-schema.md shows it
row for row (this test fails on any drift; its message holds the rows to paste)."""

from __future__ import annotations

import re
from pathlib import Path

from codegen.spec.keywords import (
    KEYWORDS,
    KINDS,
    NONE,
    OLDER,
    SCHEMA,
    SCHEMA_KEYWORDS,
    SCHEMA_MAP,
    SCHEMA_OR_LIST,
    SCHEMAS,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "json-schema.md"
BEGIN, END = "<!-- keyword table: begin -->", "<!-- keyword table: end -->"
HEADER = ["keyword", "vocabulary", "applies to", "holds", "becomes", "what it becomes"]

#: JSON Schema 2020-12, written out from the specification's vocabularies (core, applicator,
#: unevaluated, validation, meta-data, format-annotation, content), not read from the code.
VOCABULARIES = {
    "core": {"$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment",
             "$defs"},
    "applicator": {"prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
                   "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not"},
    "unevaluated": {"unevaluatedItems", "unevaluatedProperties"},
    "validation": {"type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
                   "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
                   "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired"},
    "meta-data": {"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"},
    "format-annotation": {"format"},
    "content": {"contentEncoding", "contentMediaType", "contentSchema"},
}


def _cells(line: str) -> list[str]:
    """The cells of one Markdown table row (``\\|`` is a pipe inside a cell)."""
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


def _row(keyword: str) -> str:
    r = KEYWORDS[keyword]
    return "| " + " | ".join(c.replace("|", "\\|") for c in (
        f"`{keyword}`", r.vocabulary, r.applies, r.holds, r.kind, r.note)) + " |"


def _doc_rows() -> list[list[str]]:
    text = DOC.read_text("utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1, f"{DOC.name} must hold the table between {BEGIN} and {END}"
    body = text[text.index(BEGIN) + len(BEGIN):text.index(END)]
    lines = [line for line in body.splitlines() if line.startswith("|")]
    assert _cells(lines[0]) == HEADER and set(lines[1].replace("|", "").strip()) <= {"-", " "}
    return [_cells(line) for line in lines[2:]]


def test_the_table_has_every_2020_12_keyword_in_its_vocabulary() -> None:
    assert SCHEMA_KEYWORDS == set().union(*VOCABULARIES.values())
    for vocabulary, names in VOCABULARIES.items():
        assert {k for k, r in KEYWORDS.items() if r.vocabulary == vocabulary} == names, vocabulary
    assert {r.vocabulary for r in KEYWORDS.values()} == {*VOCABULARIES, OLDER}
    for keyword, r in KEYWORDS.items():
        assert r.kind in KINDS and r.applies in {"any", "object", "array", "string", "number"}, keyword
        assert r.holds in {SCHEMA, SCHEMAS, SCHEMA_OR_LIST, SCHEMA_MAP, NONE}, keyword
        assert r.note and "\n" not in r.note and r.note == r.note.strip(), keyword


def test_docs_table_matches_the_code_table() -> None:
    rows = _doc_rows()
    expected = [_cells(_row(k)) for k in KEYWORDS]
    assert rows == expected, ("docs/json-schema.md's keyword table differs from codegen/spec/keywords.py; "
                              "the rows should be:\n" + "\n".join(_row(k) for k in KEYWORDS))
