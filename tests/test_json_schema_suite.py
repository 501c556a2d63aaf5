"""Schema fidelity: the official JSON-Schema-Test-Suite (draft 2020-12) through generated code.

The runner (``tests/json_schema_suite.py``) builds every test group's schema into a tool and
sends every test's data through the generated server and through the typed client method.
Both must agree with the suite on every required case; the only groups left out are those
that need a document the schema does not contain (network refs are refused by design).
Besides: the ECMA-262 pattern translation and the exactness analysis, on hand-picked cases.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

import json_schema_suite as suite
from codegen.exactness import inexact_keywords, model_view
from codegen.runtime.patterns import PatternError, compile_pattern, search


@pytest.fixture(scope="module")
def report() -> suite.Report:
    return suite.run()


def test_required_suite_agrees_on_both_paths(report: suite.Report) -> None:
    assert not report.unbuildable, report.unbuildable
    bad = [o for o in report.outcomes if o.verdict != "agree"]
    assert not bad, "\n".join(f"[{o.path}] {o.verdict}: {o.file} / {o.group} / {o.test}: {o.detail}" for o in bad[:40])
    per_path = Counter(o.path for o in report.outcomes)
    assert per_path["server"] == per_path["client"] >= 1200  # every test, both paths
    assert report.narrower_models == 0  # the handler always got a validated model
    assert report.model_only_tests >= 200  # the models-only path (no jsonschema) is exercised too


def test_only_remote_groups_are_excluded(report: suite.Report) -> None:
    assert report.excluded
    for file, group, reason in report.excluded:
        assert reason.startswith("needs remote document"), (file, group, reason)
    assert {f for f, _, _ in report.excluded} <= {"refRemote.json", "ref.json", "dynamicRef.json", "defs.json",
                                                 "vocabulary.json"}


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    (r"^\d+$", "123", True),
    (r"^\d+$", "\u0661\u0662", False),  # ECMA \d is ASCII only
    (r"^\w$", "é", False),
    (r"^abc$", "abc\n", False),  # $ is the very end, not before a final newline
    (r"^a.c$", "a\rc", False),  # . excludes every line terminator
    (r"^\cC$", "\x03", True),
    (r"^\p{Letter}+$", "héllo", True),
    (r"^\p{L}+$", "h3llo", False),
    (r"^\P{Lu}+$", "abc", True),
    (r"^[\p{Lu}\d]+$", "AB12", True),
    (r"^\s$", "\u3000", True),  # ECMA \s includes the ideographic space
    (r"^[]$", "", False),
    (r"^[^]$", "\n", True),
    (r"^\u{1F600}$", "\U0001F600", True),
])
def test_ecma_patterns(pattern: str, text: str, expected: bool) -> None:
    assert search(pattern, text) is expected


def test_untranslatable_pattern_is_an_error_not_a_crash() -> None:
    with pytest.raises(PatternError):
        compile_pattern(r"\p{NotAProperty}")
    assert isinstance(compile_pattern("a|b"), re.Pattern)


@pytest.mark.parametrize(("schema", "inexact"), [
    ({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}, "required": ["a"]}, []),
    ({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "multipleOf": 2}}}, []),
    ({"type": "object", "properties": {"e": {"type": "string", "enum": ["x", "y"]}}}, []),
    ({"type": "object", "properties": {"u": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}, []),
    ({"type": "object", "properties": {"p": {"type": "string", "pattern": "^a"}}}, [("/properties/p", "pattern")]),
    ({"type": "object", "properties": {"m": {"minimum": 5}}}, [("/properties/m", "minimum")]),
    ({"type": "object", "properties": {"e": {"enum": [1, True]}}}, [("/properties/e", "enum")]),
    ({"type": "object", "properties": {"f": False}}, [("/properties/f", "false")]),
    ({"type": "object", "required": ["x"]}, [("", "required")]),
    ({"type": "object", "properties": {"o": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}},
     [("/properties/o", "oneOf")]),
    ({"type": "object", "properties": {"n": {"type": "number", "multipleOf": 0.1}}}, [("/properties/n", "multipleOf")]),
])
def test_inexact_keywords(schema: dict[str, object], inexact: list[tuple[str, str]]) -> None:
    assert inexact_keywords(schema) == inexact


def test_model_view_is_never_stricter() -> None:
    # untyped with object keywords: an object model or any other JSON type
    assert model_view({"properties": {"a": {"type": "string"}}}) == {"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True},
        {"type": "array"}, {"type": ["string", "integer", "number", "boolean", "null"]}]}
    # constraints the models get wrong are dropped; a boolean false schema becomes Any
    assert model_view({"type": "string", "pattern": "^a", "format": "uri", "minLength": 2}) == {
        "type": "string", "minLength": 2}
    assert model_view(False) == {}
    # patternProperties: extra keys must stay allowed even with additionalProperties false
    assert model_view({"type": "object", "patternProperties": {"^x": {}}, "additionalProperties": False}) == {
        "type": "object", "additionalProperties": True}
    # enum members named like str methods get safe Python names
    assert model_view({"type": "string", "enum": ["count", "a-b"]})["x-enum-varnames"] == ["count_", "a_b"]
