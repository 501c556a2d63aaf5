"""Property tests of generated models (hypothesis + hypothesis-jsonschema).

The example specs and the golden cases are built into a temp folder and imported.  For
every tool's input schema:

* instances generated from the JSON Schema are accepted by the server's validation path
  (model, plus the jsonschema check for keywords the model cannot express), and the model
  round-trips them: model -> JSON -> model is lossless;
* instances that break the schema (mutated from valid ones) are rejected by that path.
  Where the Pydantic model alone accepts them, the runtime's jsonschema check must catch
  it; such cases are counted and printed as the "model gap" (not a failure).  One known
  explicit ``null`` for an optional property whose schema type excludes null is rejected by
  the runtime's null check (the models alone type optional fields as ``X | None = None``).
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from adversarial_support import examples
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from mcp_codegen_runtime.schema import accel
from mcp_codegen_runtime.schema.validation import ArgumentsInvalid, check_arguments
from mcp_codegen_runtime.schema.validation import validate_arguments as _validate_arguments
from mcp_codegen_runtime.wire import accelerator

from codegen.api import build

ROOT = Path(__file__).resolve().parents[2]
SPECS = [ROOT / "specs" / n for n in ("weather.yaml", "notes.yaml", "catalog.yaml")] + sorted(
    (ROOT / "tests" / "generator" / "golden" / "cases").glob("*/spec.yaml"))
GAPS: dict[str, int] = {}
UNSUPPORTED: dict[str, str] = {}


@pytest.fixture(scope="module")
def tool_defs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Any]]:
    out = tmp_path_factory.mktemp("models")
    defs: list[Any] = []
    sys.path.insert(0, str(out))
    try:
        for spec in SPECS:
            result, report = build([spec], out)
            assert report is not None, [d.render() for d in result.diagnostics]
        for pkg in sorted(p.name for p in out.iterdir() if (p / "tools.py").exists()):
            for tool in importlib.import_module(f"{pkg}.tools").TOOLS:
                try:
                    _python_regexes(_schema(tool))  # hypothesis-jsonschema compiles every pattern with re
                    instances(_schema(tool), _schema(tool)).example()
                except Exception as exc:
                    UNSUPPORTED[tool.name] = f"{type(exc).__name__}: {exc}"[:120]
                else:
                    defs.append(tool)
        yield defs
    finally:
        sys.path.remove(str(out))
        print(f"\nschemas hypothesis-jsonschema cannot generate from: {UNSUPPORTED}")
        print(f"model gaps (schema-invalid but model-valid, caught by the runtime jsonschema check): {GAPS}")


def _outcome(tool: Any, value: Any, plain: bool = False) -> tuple[str, Any]:
    try:
        model = _validate_arguments(tool, value, plain=plain)
    except ArgumentsInvalid as exc:
        return "invalid", exc.errors
    except (TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    return "model", (type(model), model.model_dump(mode="python", by_alias=True, exclude_unset=True), model)


def _check_outcome(tool: Any, value: Any, plain: bool) -> tuple[str, Any]:
    try:
        check_arguments(tool, value, plain=plain)
    except ArgumentsInvalid as exc:
        return "invalid", exc.errors
    except (TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    return "model", None


def validate_arguments(tool: Any, value: Any) -> Any:
    """``validate_arguments`` on both paths (the fast extra off, then on): the same answer,
    the same errors, the same model (type and every value, Python types included; also when
    the server is told the arguments come from a JSON decoder, ``plain``); and the
    typed client's check before sending (``check_arguments``, pure, and native on plain JSON
    data as the client promises it) gives the same answer and errors on both paths."""
    accelerator.set_enabled(False)
    pure = _outcome(tool, value)
    pure_check = _check_outcome(tool, value, False)
    assert accelerator.set_enabled(True), "the fast extra (jsonschema-rs, orjson) is part of the test extra"
    native = _outcome(tool, value)
    decoded = _outcome(tool, value, plain=True)  # as the server reads decoded JSON
    assert decoded[0] == native[0] and repr(decoded[1][:2]) == repr(native[1][:2]), (tool.name, value, decoded, native)
    assert _check_outcome(tool, value, True) == pure_check == _check_outcome(tool, value, False), (tool.name, value)
    assert pure_check[0] == pure[0], (tool.name, value, pure_check, pure)
    assert pure[0] == native[0], (tool.name, value, pure, native)
    if pure[0] == "model":
        assert pure[1][:2] == native[1][:2] and pure[1][2] == native[1][2], (tool.name, value, pure, native)
        assert repr(pure[1][1]) == repr(native[1][1])  # 1 and 1.0 differ here
        return native[1][2]
    assert pure[1] == native[1], (tool.name, value, pure, native)
    if pure[0] == "invalid":
        raise ArgumentsInvalid(tool.name, pure[1])
    raise (TypeError if pure[0] == "TypeError" else ValueError)(pure[1])


def test_most_fuzzed_tools_take_the_native_check(tool_defs: list[Any]) -> None:
    accelerator.set_enabled(True)
    native = [t.name for t in tool_defs if accel.input_check(t) is not None]
    assert len(native) >= len(tool_defs) // 2 >= 5, (native, [t.name for t in tool_defs])


def _python_regexes(schema: Any) -> None:
    """Raise when a pattern anywhere in ``schema`` is ECMA-262 that Python's ``re`` cannot read
    (``\\p{Lu}``...): hypothesis-jsonschema cannot generate for such a schema."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "pattern" and isinstance(value, str):
                re.compile(value)
            elif key == "patternProperties" and isinstance(value, dict):
                for regex in value:
                    re.compile(regex)
            if key not in ("enum", "const", "default", "examples"):
                _python_regexes(value)
    elif isinstance(schema, list):
        for item in schema:
            _python_regexes(item)


def _schema(tool: Any) -> dict[str, Any]:
    return dict(tool.wire["inputSchema"])


def instances(schema: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Instances of ``schema``.  hypothesis-jsonschema 0.23.1 cannot build objects with the
    pinned hypothesis ('many' object has no attribute 'more'), so objects are assembled
    here and every other schema is left to ``from_schema``."""
    if depth > 6:
        raise ValueError("too deep to generate")
    if isinstance(schema, dict) and "$ref" in schema and str(schema["$ref"]).startswith("#/$defs/"):
        return instances(root.get("$defs", {})[schema["$ref"].split("/")[-1]], root, depth + 1)
    if isinstance(schema, dict) and (schema.get("type") == "object" or "properties" in schema) and not (
            {"oneOf", "anyOf", "allOf", "if", "not", "patternProperties", "dependentRequired", "minProperties"} & set(schema)):
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        return st.fixed_dictionaries({k: instances(v, root, depth + 1) for k, v in props.items() if k in required},
                                     optional={k: instances(v, root, depth + 1) for k, v in props.items() if k not in required})
    sub = {**schema, "$defs": root.get("$defs", {})} if isinstance(schema, dict) else schema
    return from_schema(sub)


def _same_under_ecma(value: Any) -> bool:
    """Whether Python's and ECMA-262's ``\\d``/``\\w`` agree on every string of ``value``: no
    letter or digit beyond ASCII (jsonschema, the oracle here, matches patterns with Python's
    ``re``, where ``\\d`` also matches ``٠``; the server, rightly, uses ECMA-262 semantics,
    which the JSON-Schema-Test-Suite and tests/runtime/test_residual_patterns.py check)."""
    if isinstance(value, str):
        return all(ch.isascii() or not (ch.isalnum() or ch == "_") for ch in value)
    if isinstance(value, dict):
        return all(_same_under_ecma(k) and _same_under_ecma(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_same_under_ecma(v) for v in value)
    return True


def _mutations(value: dict[str, Any], schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    props = schema.get("properties") or {}
    for key in schema.get("required") or []:
        yield {k: v for k, v in value.items() if k != key}
    for key in props:
        for bad in (None, 3.5, "s", [1], {"x": 1}, True):
            yield {**value, key: bad}
    if schema.get("additionalProperties") is False:
        yield {**value, "zz_unknown": 1}


@settings(max_examples=examples(25, 300), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_valid_instances_accepted_and_round_trip(tool_defs: list[Any], data: st.DataObject) -> None:
    tool = data.draw(st.sampled_from(tool_defs))
    schema = _schema(tool)
    value = data.draw(instances(schema, schema))
    assume(jsonschema.Draft202012Validator(schema).is_valid(value))
    assume(_same_under_ecma(value))  # the oracle's patterns are Python's: \\d, \\w differ beyond ASCII
    try:
        model = validate_arguments(tool, value)
    except ArgumentsInvalid as exc:
        pytest.fail(f"{tool.name}: schema-valid {value!r} rejected: {exc}")
    dumped = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    again = type(model).model_validate_json(json.dumps(dumped))
    assert again == model
    assert again.model_dump(mode="json", by_alias=True, exclude_unset=True) == dumped
    jsonschema.validate(dumped, schema)  # what the model emits is still schema-valid


@settings(max_examples=examples(25, 300), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_invalid_instances_rejected(tool_defs: list[Any], data: st.DataObject) -> None:
    tool = data.draw(st.sampled_from(tool_defs))
    schema = _schema(tool)
    value = data.draw(instances(schema, schema))
    assume(jsonschema.Draft202012Validator(schema).is_valid(value))
    validator = jsonschema.Draft202012Validator(schema)
    for bad in _mutations(value, schema):
        if validator.is_valid(bad):
            continue
        try:
            validate_arguments(tool, bad)
        except ArgumentsInvalid:
            pass
        else:
            errors = [e.message for e in validator.iter_errors(bad)]
            pytest.fail(f"{tool.name}: schema-invalid {bad!r} accepted ({errors})")
        try:
            tool.input_model.model_validate(bad)
        except Exception:
            continue
        GAPS[tool.name] = GAPS.get(tool.name, 0) + 1
