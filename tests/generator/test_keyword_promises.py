"""Every row of the keyword table (``codegen/spec/keywords.py``: ``KEYWORDS``) is kept by the
generated code: for each keyword, a small schema that uses it (JSON-Schema-Test-Suite style,
with valid and invalid data written out by hand below) becomes a tool, and its data goes
through a generated server and the typed client, in process.

* A "model" or "side-check" keyword, where its note says it is exact: the tool is not
  schema-checked, and every answer comes without ``jsonschema`` (it cannot be imported while
  these tools run).  Annotations and structural keywords likewise: they constrain nothing more.
* A "schema-checked" keyword: the tool is schema-checked, W100 names the keyword, and
  ``jsonschema`` judges.  So does a "model" keyword used where its note says it is not exact.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import json_schema_suite as suite
import pytest

from codegen import build
from codegen.spec.keywords import KEYWORDS, SCHEMA_CHECKED

D7 = {"$schema": "http://json-schema.org/draft-07/schema#"}
D2019 = {"$schema": "https://json-schema.org/draft/2019-09/schema"}
INT = {"type": "integer", "minimum": 1}

#: keyword -> (schema of property ``v``, valid data, invalid data, keys of the tool's root schema).
PROBES: dict[str, tuple[Any, list[Any], list[Any], dict[str, Any]]] = {
    # model
    "type": ({"type": "integer"}, [1, 1.0, -3, 10**20], ["1", 1.5, True, None, [1]], {}),
    "enum": ({"type": "string", "enum": ["a", "b"]}, ["a", "b"], ["c", 1, None, "A"], {}),
    "const": ({"const": "a"}, ["a"], ["b", 1, ["a"], None], {}),
    "multipleOf": ({"type": "integer", "multipleOf": 3}, [6, 0, 9.0], [7, "6"], {}),
    "maximum": ({"type": "number", "maximum": 3}, [3, 2.5], [3.5, "1"], {}),
    "exclusiveMaximum": ({"type": "integer", "exclusiveMaximum": 3}, [2], [3, 2.5], {}),
    "minimum": ({"type": "integer", "minimum": 1}, [1, 5], [0, "2"], {}),
    "exclusiveMinimum": ({"type": "number", "exclusiveMinimum": 1}, [1.5, 2], [1, 0.5, True], {}),
    "maxLength": ({"type": "string", "maxLength": 2}, ["ab", "\U0001F600\U0001F600"], ["abc", 1], {}),
    "minLength": ({"type": "string", "minLength": 2}, ["ab"], ["a", "\U0001F600"], {}),
    "maxItems": ({"type": "array", "maxItems": 1}, [[], [1]], [[1, 2], {}], {}),
    "minItems": ({"type": "array", "minItems": 1}, [[1]], [[], "x"], {}),
    "required": ({"type": "object", "properties": {"a": {}}, "required": ["a"]}, [{"a": 1}, {"a": None}], [{}, {"b": 1}],
                 {}),
    "properties": ({"type": "object", "properties": {"a": {"type": "integer"}}}, [{"a": 1}, {}, {"b": "x"}],
                   [{"a": "x"}, []], {}),
    "additionalProperties": ({"type": "object", "properties": {"a": {}}, "additionalProperties": False},
                             [{"a": 1}, {}], [{"a": 1, "b": 2}, {"b": None}], {}),
    "items": ({"type": "array", "items": {"type": "integer"}}, [[1, 2], []], [[1, "x"], [None]], {}),
    "anyOf": ({"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]}, [1, "ab"], ["a", 1.5], {}),
    "oneOf": ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, [1, "a"], [1.5, None], {}),
    # side-check
    "pattern": ({"type": "string", "pattern": "^a\\d$"}, ["a1"], ["b1", "a\u0661", "a1\n"], {}),
    # schema-checked
    "prefixItems": ({"prefixItems": [{"type": "integer"}]}, [[1, "x"], []], [["x"]], {}),
    "contains": ({"contains": {"type": "integer"}}, [[1], ["x", 2]], [["x"], []], {}),
    "patternProperties": ({"patternProperties": {"^a": {"type": "integer"}}}, [{"ab": 1}, {"b": "x"}],
                          [{"ab": "x"}], {}),
    "dependentSchemas": ({"dependentSchemas": {"a": {"required": ["b"]}}}, [{"a": 1, "b": 1}, {}], [{"a": 1}], {}),
    "propertyNames": ({"propertyNames": {"maxLength": 1}}, [{"a": 1}], [{"ab": 1}], {}),
    "if": ({"if": {"type": "integer"}, "then": {"minimum": 1}, "else": {"type": "string"}}, [1, "x"], [0, True], {}),
    "then": ({"if": {"type": "integer"}, "then": {"minimum": 1}}, [1, "x"], [0], {}),
    "else": ({"if": {"type": "integer"}, "else": {"type": "string"}}, [0, "x"], [True], {}),
    "allOf": ({"allOf": [{"type": "integer"}, {"minimum": 1}]}, [1], [0, "1"], {}),
    "not": ({"not": {"type": "integer"}}, ["x", 1.5], [1], {}),
    "unevaluatedItems": ({"prefixItems": [{"type": "integer"}], "unevaluatedItems": False}, [[1]], [[1, 2]], {}),
    "unevaluatedProperties": ({"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False},
                              [{"a": 1}], [{"b": 1}], {}),
    "uniqueItems": ({"type": "array", "uniqueItems": True}, [[1, 2], [1, True]], [[1, 1], [{"a": 1}, {"a": 1.0}]], {}),
    "maxContains": ({"contains": {"type": "integer"}, "maxContains": 1}, [[1, "x"]], [[1, 2]], {}),
    "minContains": ({"contains": {"type": "integer"}, "minContains": 2}, [[1, 2]], [[1, "x"]], {}),
    "maxProperties": ({"type": "object", "maxProperties": 1}, [{"a": 1}], [{"a": 1, "b": 2}], {}),
    "minProperties": ({"type": "object", "minProperties": 1}, [{"a": 1}], [{}], {}),
    "dependentRequired": ({"dependentRequired": {"a": ["b"]}}, [{"a": 1, "b": 2}, {"b": 1}], [{"a": 1}], {}),
    "$id": ({"$id": "https://example.invalid/v", "type": "integer"}, [1], ["x"], {}),
    "$anchor": ({"$anchor": "v", "type": "integer"}, [1], ["x"], {}),
    "$dynamicAnchor": ({"$dynamicAnchor": "v", "type": "integer"}, [1], ["x"], {}),
    "$dynamicRef": ({"$dynamicRef": "#/$defs/n"}, [1], [0, "x"], {"$defs": {"n": INT}}),
    "$vocabulary": ({"$vocabulary": {}, "type": "integer"}, [1], ["x"], {}),
    "dependencies": ({"dependencies": {"a": ["b"]}}, [{"a": 1, "b": 2}], [{"a": 1}], D7),
    "additionalItems": ({"items": [{"type": "integer"}], "additionalItems": False}, [[1]], [[1, 2]], D7),
    "$recursiveRef": ({"$recursiveRef": "#"}, [{}, {"v": {}}], [1, {"v": 1}], {**D2019, "required": []}),
    "$recursiveAnchor": ({"$recursiveAnchor": True, "type": "integer"}, [1], ["x"], D2019),
    # structural
    "$schema": ({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "integer"}, [1], ["x"], {}),
    "$ref": ({"$ref": "#/$defs/n"}, [1], [0, "x"], {"$defs": {"n": INT}}),
    "$defs": ({"$ref": "#/$defs/n"}, [2], [0.5], {"$defs": {"n": INT, "unused": {"type": "string"}}}),
    "definitions": ({"$ref": "#/definitions/n"}, [1], [0], {"definitions": {"n": INT}}),
    # annotations: data they would refuse if they asserted anything is valid
    "$comment": ({"type": "string", "$comment": "must be short"}, ["long enough"], [1], {}),
    "title": ({"type": "string", "title": "T"}, ["x"], [1], {}),
    "description": ({"type": "string", "description": "only a or b"}, ["c"], [1], {}),
    "default": ({"type": "string", "default": "a"}, ["b"], [None], {}),
    "deprecated": ({"type": "string", "deprecated": True}, ["x"], [1], {}),
    "readOnly": ({"type": "string", "readOnly": True}, ["x"], [1], {}),
    "writeOnly": ({"type": "string", "writeOnly": True}, ["x"], [1], {}),
    "examples": ({"type": "string", "examples": ["a"]}, ["b"], [1], {}),
    "format": ({"type": "string", "format": "date"}, ["not a date"], [1], {}),
    "contentEncoding": ({"type": "string", "contentEncoding": "base64"}, ["!!not base64"], [1], {}),
    "contentMediaType": ({"type": "string", "contentMediaType": "application/json"}, ["{not json"], [1], {}),
    "contentSchema": ({"type": "string", "contentMediaType": "application/json", "contentSchema": {"type": "integer"}},
                      ['"a string"'], [1], {}),
}

#: A "model" or "side-check" keyword where its note says it is not exact: schema-checked.
ELSEWHERE: dict[str, tuple[Any, list[Any], list[Any], dict[str, Any]]] = {
    "enum": ({"enum": [1, "a"]}, [1, 1.0, "a"], [2, True], {}),
    "const": ({"const": 1}, [1, 1.0], [2, True, "1"], {}),
    "multipleOf": ({"type": "number", "multipleOf": 0.5}, [1.5, 2], [1.2], {}),
    "maximum": ({"maximum": 3}, [3, "x"], [4], {}),
    "exclusiveMinimum": ({"type": ["integer", "string"], "exclusiveMinimum": 1}, [2, "x"], [1], {}),
    "maxLength": ({"maxLength": 2}, ["ab", 123], ["abc"], {}),
    "maxItems": ({"maxItems": 1}, [[1], "x"], [[1, 2]], {}),
    "required": ({"type": "object", "required": ["a"]}, [{"a": 1}], [{}], {}),
    "properties": ({"properties": {"a": {"type": "integer"}}}, [{"a": 1}, "x"], [{"a": "x"}], {}),
    "additionalProperties": ({"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}},
                             [{"a": "x", "b": 1}], [{"b": "x"}], {}),
    "items": ({"items": {"type": "integer"}}, [[1], "x"], [["x"]], {}),
    "anyOf": ({"anyOf": [{"type": "integer"}, {"type": "string"}], "maxLength": 1}, [5, "a"], ["ab", 1.5], {}),
    "oneOf": ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, [1.5], [1, "x"], {}),
    "pattern": ({"anyOf": [{"type": "string", "pattern": "^a"}, {"type": "integer"}]}, ["ab", 1], ["b"], {}),
    "$ref": ({"$ref": "#n"}, [1], [0], {"$defs": {"n": {"$anchor": "n", **INT}}}),  # to an anchor
}

KINDS_EXACT = {k for k, r in KEYWORDS.items() if r.kind != SCHEMA_CHECKED}


def _cases() -> list[tuple[str, str, bool, tuple[Any, list[Any], list[Any], dict[str, Any]]]]:
    """(package, keyword, expected schema_checked, probe): the exact ones in one package, the
    schema-checked ones in another."""
    cases = [("kwp_exact" if k in KINDS_EXACT else "kwp_checked", k, k not in KINDS_EXACT, p) for k, p in PROBES.items()]
    return cases + [("kwp_checked", k, True, p) for k, p in ELSEWHERE.items()]


def test_every_keyword_has_a_probe() -> None:
    assert set(PROBES) == set(KEYWORDS)
    assert {KEYWORDS[k].kind for k in ELSEWHERE} <= {"model", "side-check", "structural"}


def _build(tmp_path: Path) -> tuple[dict[str, list[tuple[suite.Group, str, bool]]], list[Any]]:
    packages: dict[str, list[tuple[suite.Group, str, bool]]] = {}
    for package, keyword, checked, (schema, valid, invalid, root) in _cases():
        members = packages.setdefault(package, [])
        tests = [{"description": json.dumps(d), "data": d, "valid": True} for d in valid]
        tests += [{"description": json.dumps(d), "data": d, "valid": False} for d in invalid]
        group = suite.Group(f"{package}.json", len(members), f"{keyword} ({'checked' if checked else 'exact'})",
                            {"root": root, "v": schema}, tests)
        members.append((group, keyword, checked))
    diagnostics = []
    for package, members in packages.items():
        tools = [{"name": g.tool, "description": g.description, "inputSchema": {
            "type": "object", "properties": {"v": g.schema["v"]}, "required": ["v"], **g.schema["root"]}}
            for g, _, _ in members]
        spec = {"mcp-codegen": 1, "server": {"name": package, "version": "1.0.0", "package": package}, "tools": tools}
        (tmp_path / f"{package}.json").write_text(json.dumps(spec, indent=1), "utf-8")
        result, written = build([tmp_path / f"{package}.json"], tmp_path / "out")
        assert written is not None, [d.render() for d in result.diagnostics]
        diagnostics += result.diagnostics
    return packages, diagnostics


def test_the_runtime_keeps_every_promise_of_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packages, diagnostics = _build(tmp_path)
    sys.path.insert(0, str(tmp_path / "out"))
    broken: list[str] = []
    try:
        for package, members in packages.items():
            with monkeypatch.context() as patch:
                if package == "kwp_exact":  # judged without jsonschema: it cannot even be imported
                    patch.setitem(sys.modules, "jsonschema", None)
                report = suite.Report()
                asyncio.run(suite.run_package(package, [g for g, _, _ in members], report))
            broken += [f"[{o.path}] {o.verdict}: {o.group} / {o.test}: {o.detail}" for o in report.outcomes
                       if o.verdict != "agree"]
            by_name = {t.name: t for t in suite._make_server(importlib.import_module(package), []).tool_defs}
            for group, keyword, checked in members:
                if by_name[group.tool].schema_checked is not checked:
                    broken.append(f"{group.description}: schema_checked is {by_name[group.tool].schema_checked}")
                named = [d for d in diagnostics if d.code == "W100" and f"tool {group.tool!r}:" in d.message
                         and d.file.endswith(f"{package}.json") and f"keyword {keyword!r}" in d.message]
                if checked and not named:
                    broken.append(f"{group.description}: no W100 names {keyword!r}")
    finally:
        sys.path.remove(str(tmp_path / "out"))
        for name in [m for m in sys.modules if m.split(".")[0] in packages]:
            del sys.modules[name]
    assert not broken, "\n".join(broken)
