"""Keys that look like mistakes: near misses of JSON Schema keywords and of spec keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import generate
from codegen.commands.pull.flow import ServerSnapshot, spec_from_snapshot
from codegen.spec.keywords import SCHEMA_KEYWORDS, distance, near_miss, schema_typos
from codegen.spec.load import PULL_MARKER

KEYWORDS = SCHEMA_KEYWORDS


@pytest.mark.parametrize(("key", "meant"), [
    ("propertes", "properties"), ("requird", "required"), ("minItem", "minItems"), ("MinLength", "minLength"),
    ("minlength", "minLength"), ("readonly", "readOnly"), ("types", "type"), ("enums", "enum"), ("item", "items"),
    ("defualt", "default"), ("titel", "title"), ("fromat", "format"), ("minimun", "minimum"),
    ("adtionalProperties", "additionalProperties"), ("additionalProperty", "additionalProperties"),
    ("anyof", "anyOf"), ("ref", "$ref"), ("defs", "$defs"), ("IF", "if"), ("maxLen", "maxLength"),
])
def test_near_misses_are_found(key: str, meant: str) -> None:
    assert near_miss(key, KEYWORDS) == meant


@pytest.mark.parametrize("key", [
    "example", "examples", "nullable", "deprecated", "readOnly", "discriminator", "x-requird", "x-anything",
    "id", "xml", "externalDocs", "markdownDescription", "errorMessage", "enumNames", "note", "table", "count",
    "units", "label", "tags", "order", "options", "hidden", "secret", "category", "version", "status", "alias",
])
def test_legitimate_annotations_are_not_near_misses(key: str) -> None:
    assert near_miss(key, KEYWORDS) is None


def test_distance_counts_a_transposition_as_one_edit() -> None:
    assert distance("titel", "title") == 1
    assert distance("propertes", "properties") == 1
    assert distance("abc", "abc") == 0
    assert distance("", "abc") == 3


def test_names_and_data_are_not_keywords() -> None:
    schema = {
        "type": "object",
        "properties": {"propertes": {"type": "string"}, "requird": {"MinLength": 1}},
        "$defs": {"minItem": {"tpye": "string"}},
        "patternProperties": {"^requird$": {"type": "string"}},
        "dependentSchemas": {"requird": {"propertes": {}}},
        "dependentRequired": {"minItem": ["requird"]},
        "enum": [{"requird": 1}], "const": {"propertes": 1}, "default": {"minItem": 1}, "examples": [{"titel": 1}],
        "anyOf": [{"defualt": 1}], "items": {"fromat": "x"}, "not": {"x-requird": 1, "nullable": True},
    }
    assert schema_typos(schema, "/s") == [
        ("/s/properties/requird/MinLength", "MinLength", "minLength"),
        ("/s/$defs/minItem/tpye", "tpye", "type"),
        ("/s/dependentSchemas/requird/propertes", "propertes", "properties"),
        ("/s/anyOf/0/defualt", "defualt", "default"),
        ("/s/items/fromat", "fromat", "format"),
    ]


TOOL = {"name": "find", "description": "Find.", "vendorField": 1, "annotations": {"readOnlyHnt": True},
        "inputSchema": {"type": "object", "propertes": {"q": {"type": "string"}}, "requird": ["q"]}}


def _codes(path: Path) -> list[tuple[str, str, str]]:
    return sorted((d.code, d.level.value, d.pointer) for d in generate([path]).diagnostics)


def test_pulled_spec_keeps_what_the_server_sent(tmp_path: Path) -> None:
    """A spec written by `pull` holds the server's own tools: near misses there are
    warnings (W109 in schemas, W105 for Tool keys) and the build succeeds."""
    text = spec_from_snapshot(ServerSnapshot({"name": "remote", "version": "1"}, None, [dict(TOOL)])).text
    assert text.startswith(PULL_MARKER)
    path = tmp_path / "remote.yaml"
    path.write_text(text, "utf-8")
    result = generate([path])
    assert result.ok, [d.render() for d in result.diagnostics]
    codes = _codes(path)
    assert ("W109", "warning", "/tools/0/inputSchema/propertes") in codes
    assert ("W109", "warning", "/tools/0/inputSchema/requird") in codes
    assert ("W105", "warning", "/tools/0/annotations/readOnlyHnt") in codes
    assert not [c for c in codes if c[0] == "W100"]  # not keywords: nothing checks them at run time


def test_the_same_keys_written_by_hand_are_errors(tmp_path: Path) -> None:
    import yaml

    path = tmp_path / "mine.yaml"
    spec = {"mcp-codegen": 1, "server": {"name": "mine", "version": "1"}, "tools": [dict(TOOL)]}
    path.write_text(yaml.safe_dump(spec), "utf-8")
    assert ("E011", "error", "/tools/0/annotations/readOnlyHnt") in _codes(path)
    assert ("W105", "warning", "/tools/0/vendorField") in _codes(path)  # a far-off vendor key stays legal
    del spec["tools"][0]["annotations"]
    path.write_text(yaml.safe_dump(spec), "utf-8")
    assert [c for c in _codes(path) if c[1] == "error"] == [("E029", "error", "/tools/0/inputSchema/propertes"),
                                                           ("E029", "error", "/tools/0/inputSchema/requird")]


def test_w100_names_only_real_keywords_and_what_happens(tmp_path: Path) -> None:
    import yaml

    path = tmp_path / "w.yaml"
    schema = {"type": "object", "properties": {
        "v": {"oneOf": [{"type": "integer"}, {"type": "number"}], "nullable": True, "example": 1, "x-rank": 2},
        "u": {"type": "string", "vendorHint": "kept"}}}
    spec = {"mcp-codegen": 1, "server": {"name": "w", "version": "1"},
            "tools": [{"name": "t", "description": "T.", "inputSchema": schema}]}
    path.write_text(yaml.safe_dump(spec), "utf-8")
    result = generate([path])
    assert result.ok
    w100 = [d for d in result.diagnostics if d.code == "W100"]
    assert [(d.pointer, d.level.value) for d in w100] == [("/tools/0/inputSchema/properties/v", "warning")]
    assert "keyword 'oneOf'" in w100[0].message and "checked at run time with jsonschema" in w100[0].message
    assert "refuses to start" in w100[0].hint and "pip install jsonschema" in w100[0].hint


def test_key_and_schema_typos_are_reported_in_one_run(tmp_path: Path) -> None:
    """An unknown key leaves the spec's shape intact, so the schemas are checked too: a user
    fixes every mistake after one run, not one layer per run."""
    import yaml

    path = tmp_path / "mine.yaml"
    tool = {**TOOL, "descripton": "typo"}
    path.write_text(yaml.safe_dump({"mcp-codegen": 1, "server": {"name": "mine", "version": "1"}, "tools": [tool]}),
                    "utf-8")
    errors = [c for c in _codes(path) if c[1] == "error"]
    assert errors == [("E011", "error", "/tools/0/annotations/readOnlyHnt"), ("E011", "error", "/tools/0/descripton"),
                      ("E029", "error", "/tools/0/inputSchema/propertes"),
                      ("E029", "error", "/tools/0/inputSchema/requird")]
