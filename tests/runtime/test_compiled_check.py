"""The compiled yes/no check (``schema/compiled.py``) on the official JSON-Schema-Test-Suite
(draft 2020-12, required and optional files): for every group whose schema it compiles, it must
give the suite's answer for every required test, and jsonschema's (the runtime's judge, patterns
translated to ECMA-262) for every optional one; and it must compile most groups."""

from __future__ import annotations

import json
from typing import Any

import json_schema_suite as suite
import pytest
from mcp_codegen_runtime.schema.compiled import compile_check
from mcp_codegen_runtime.schema.validation import _schema_validator

DRAFT = suite.SUITE / "draft2020-12"
FILES = sorted(p for p in DRAFT.rglob("*.json") if "format" not in p.relative_to(DRAFT).parts)


def _groups() -> list[tuple[str, dict[str, Any]]]:
    return [(str(f.relative_to(DRAFT)), g) for f in FILES for g in json.loads(f.read_text())]


def test_agrees_with_the_suite_wherever_it_compiles() -> None:
    compiled = 0
    wrong, declined = [], set()
    for name, group in _groups():
        check = compile_check(group["schema"])
        if check is None:
            declined.add(name)
            continue
        compiled += 1
        for test in group["tests"]:
            try:
                answer = check(test["data"])
            except RecursionError:
                answer = None
            expected = test["valid"]
            if name.startswith("optional/"):
                expected = _schema_validator(group["schema"]).is_valid(test["data"])
            if answer is not expected:
                wrong.append(f"{name} / {group['description']} / {test['description']}: {answer}")
    assert not wrong, "\n".join(wrong[:30])
    assert compiled >= 280, compiled
    # declined only where the schema uses what it leaves to jsonschema (unevaluated*, dynamic or
    # remote refs, anchors and embedded $id, vocabularies, asserted formats, older drafts)
    assert declined <= _LEFT_TO_JSONSCHEMA, declined - _LEFT_TO_JSONSCHEMA


_LEFT_TO_JSONSCHEMA = {"unevaluatedProperties.json", "unevaluatedItems.json", "dynamicRef.json", "ref.json",
                       "refRemote.json", "anchor.json", "vocabulary.json", "defs.json", "not.json",
                       "optional/format-assertion.json", "optional/anchor.json", "optional/cross-draft.json",
                       "optional/dynamicRef.json", "optional/id.json", "optional/unknownKeyword.json"}


@pytest.mark.parametrize("schema", [
    {"unevaluatedProperties": False},
    {"$defs": {"a": {"$id": "http://x/a"}}, "$ref": "#/$defs/a"},
    {"$dynamicRef": "#meta"},
    {"$ref": "http://example.com/other.json"},
    {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]},
    {"pattern": "(unclosed"},
])
def test_declines_what_it_does_not_cover(schema: dict[str, Any]) -> None:
    assert compile_check(schema) is None


def test_asserted_formats_are_left_to_jsonschema() -> None:
    assert compile_check({"format": "email"}) is not None  # an annotation: nothing to check
    assert compile_check({"format": "email"}, formats=True) is None
