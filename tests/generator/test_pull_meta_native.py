"""The meta-schema check asks jsonschema-rs first (the ``fast`` accelerator) whether a schema is
meta-valid, and jsonschema only when it is not (``codegen/spec/metaschema.py``): ``build``'s
meta-validation (``codegen/spec/validate.py``) and ``pull``'s schema repairs
(``codegen/commands/pull/schemas.py``) both take that shortcut.

It is exact only if a native "valid" always means jsonschema finds no error; here that is
checked against jsonschema itself on every schema of the repository's specs, the pull
normalizer's sloppy cases, every schema and every object instance of the official
JSON-Schema-Test-Suite (draft 2020-12: its meta-schema tests feed schemas as instances) and
generated (mostly invalid) schemas; both accelerator paths must give ``build`` the same
findings and repair every schema the same way.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import json_schema_suite as suite
import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for
from mcp_codegen_runtime.wire import accelerator
from test_pull_normalize import CASES

from codegen.commands.pull import schemas as pull_schemas
from codegen.commands.pull.notes import Note
from codegen.spec import metaschema

REPO = Path(__file__).resolve().parents[2]
DIALECTS = [None, "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema#",
            "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-06/schema",
            "http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-03/schema#", "urn:other", 7]


@pytest.fixture(autouse=True)
def _accelerator_back_on() -> Iterator[None]:
    yield
    accelerator.set_enabled(True)


def _errors(schema: dict[str, Any]) -> list[str]:
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    return [e.message for e in cls(cls.META_SCHEMA).iter_errors(schema)]


def _corpus() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted([*REPO.glob("specs/**/*.yaml"), *REPO.glob("tests/**/*.yaml")]):
        try:
            doc = yaml.safe_load(path.read_text("utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        for tool in (doc.get("tools") or []) if isinstance(doc, dict) else []:
            for key in ("inputSchema", "outputSchema"):
                if isinstance(tool, dict) and isinstance(tool.get(key), dict):
                    out.append(tool[key])
    out += [s for entry, _ in CASES.values() for k, s in entry.items() if k.endswith("Schema") and isinstance(s, dict)]
    out += [{"type": "objectx"}, {"minimum": True}, {"maxLength": 1.5}, {"maxLength": 2.0}, {"required": "a"},
            {"properties": {"a": 5}}, {"items": [{}]}, {"enum": []}, {"pattern": 5}, {"$ref": 3},
            {"$defs": {"a": []}}, {"additionalProperties": "no"}, {"type": ["string", "string"]}]
    return out


def test_the_dialect_table_is_jsonschemas_own() -> None:
    modern = (jsonschema.Draft202012Validator, jsonschema.Draft201909Validator)
    for uri, is_modern in metaschema.NATIVE_DIALECTS.items():
        schema = {} if uri is None else {"$schema": uri}
        cls = validator_for(schema, default=jsonschema.Draft202012Validator)
        assert (cls in modern) is is_modern, uri
        assert cls not in (jsonschema.Draft4Validator, jsonschema.Draft3Validator)
        assert pull_schemas._dialect(schema) == (False, is_modern)


def test_a_native_valid_is_a_jsonschema_valid_on_the_corpus() -> None:
    assert accelerator.set_enabled(True), "the fast extra (jsonschema-rs, orjson) is part of the test extra"
    answered = 0
    for base in _corpus():
        for dialect in DIALECTS:
            schema = copy.deepcopy(base)
            if dialect is not None:
                schema["$schema"] = dialect
            if metaschema.meta_valid_natively(schema):
                answered += 1
                assert _errors(schema) == [], schema
    assert answered > 100  # the shortcut is taken (the test would prove nothing otherwise)
    accelerator.set_enabled(False)
    assert not any(metaschema.meta_valid_natively(s) for s in _corpus())


_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False),
                  st.sampled_from(["", "a", "string", "object", "integer", "#/$defs/a", "^a+$", "(["]))
_KEYWORDS = st.sampled_from(["type", "properties", "items", "prefixItems", "required", "enum", "const", "minimum",
                             "exclusiveMinimum", "maxLength", "pattern", "format", "$ref", "$defs", "definitions",
                             "additionalProperties", "anyOf", "oneOf", "allOf", "not", "if", "then", "dependencies",
                             "dependentRequired", "contains", "minItems", "uniqueItems", "default", "$id", "title"])


def _schemas() -> st.SearchStrategy[Any]:
    return st.recursive(_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.one_of(_KEYWORDS, st.sampled_from(["a", "b"])),
                                                                       inner, max_size=4)), max_leaves=12)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.dictionaries(_KEYWORDS, _schemas(), max_size=5), dialect=st.sampled_from(DIALECTS))
def test_a_native_valid_is_a_jsonschema_valid_on_generated_schemas(body: dict[str, Any], dialect: Any) -> None:
    accelerator.set_enabled(True)
    schema = dict(body)
    if dialect is not None:
        schema["$schema"] = dialect
    if metaschema.meta_valid_natively(schema):
        assert _errors(schema) == [], schema


def _fixed(schema: dict[str, Any], on: bool) -> tuple[Any, list[Note]]:
    accelerator.set_enabled(on)
    notes: list[Note] = []
    return pull_schemas.SchemaFixer("t", "/inputSchema", notes).fix(schema, True), notes


def test_both_accelerator_paths_repair_alike() -> None:
    for schema in _corpus():
        for dialect in DIALECTS[:6]:
            s = {**schema, "$schema": dialect} if dialect else schema
            assert _fixed(s, True) == _fixed(s, False), s


def _suite_objects() -> list[Any]:
    """Every schema and every object instance of the official suite (draft 2020-12)."""
    out: list[Any] = []
    for path in sorted((suite.SUITE / "draft2020-12").rglob("*.json")):
        for group in json.loads(path.read_text("utf-8")):
            out.append(group["schema"])
            out += [t["data"] for t in group["tests"] if isinstance(t["data"], dict)]
    return out


def test_a_native_valid_is_a_jsonschema_valid_on_the_official_suite() -> None:
    assert accelerator.set_enabled(True)
    answered = 0
    for schema in _suite_objects():
        if metaschema.meta_valid_natively(schema):
            answered += 1
            assert _errors(schema) == [], schema
    assert answered > 900  # the shortcut is taken on most of them


def _findings(schema: Any, on: bool) -> list[tuple[Any, ...]]:
    accelerator.set_enabled(on)
    return metaschema._meta_findings(schema)


def test_builds_meta_findings_are_the_same_on_both_paths() -> None:
    for base in [*_corpus(), *_suite_objects()[:600], True, False]:
        for dialect in DIALECTS[:6]:
            schema = {**base, "$schema": dialect} if dialect and isinstance(base, dict) else base
            assert _findings(schema, True) == _findings(schema, False), schema


def test_build_asks_jsonschema_only_when_the_native_check_does_not_say_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("jsonschema asked")

    monkeypatch.setattr(metaschema, "validator_for", refuse)
    assert _findings({"type": "object", "properties": {"a": {"type": "string"}}}, True) == []
    with pytest.raises(AssertionError, match="jsonschema asked"):
        _findings({"type": "object"}, False)
    with pytest.raises(AssertionError, match="jsonschema asked"):
        _findings({"type": "strin"}, True)  # invalid: jsonschema words the diagnostic
    with pytest.raises(AssertionError, match="jsonschema asked"):
        _findings({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}, True)


@pytest.mark.parametrize("schema", [
    {"minLength": 2**70}, {"maximum": float("inf")}, {"minLength": float("nan")}, {"enum": [(1, 2)]},
    {"const": {1: 2}}, {"minLength": -1}, {"minItems": True}, {"minLength": 1.5}, {"minLength": 2.0},
    {"type": "string", "pattern": "(?<=a)b"}, {"$anchor": "a\n"}, {"$id": "a#b#c"}, {"format": 5},
    {"properties": {"a": {"$ref": 5}}}, {"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveRef": 3},
], ids=repr)
def test_builds_meta_findings_agree_on_values_json_does_not_have(schema: dict[str, Any]) -> None:
    """Huge integers, non-finite floats, tuples and non-string keys (a caller other than the
    spec loader could pass them), and patterns the two regex engines read differently."""
    assert _findings(schema, True) == _findings(schema, False)
