"""Schema fidelity: the official JSON-Schema-Test-Suite (draft 2020-12) through generated code.

The runner (``tests/support/json_schema_suite.py``) builds every test group's schema into a tool and
sends every test's data through the generated server and through the typed client method.
Both must agree with the suite on every required case; the only groups left out are those
that need a document the schema does not contain (network refs are refused by design).
Besides: the ECMA-262 pattern translation and the exactness analysis, on hand-picked cases.
"""

from __future__ import annotations

import asyncio
import importlib
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import json_schema_suite as suite
import pytest
import yaml
from mcp_codegen_runtime.schema.patterns import PatternError, compile_pattern, search

from codegen.schemas.exactness import inexact_keywords, model_view

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", params=["pure", "native"])
def report(request: pytest.FixtureRequest) -> suite.Report:
    """The suite with the fast extra off (the pure-Python path) and on (schema.accel)."""
    return suite.run(accelerated=request.param == "native")


def test_required_suite_agrees_on_both_paths(report: suite.Report) -> None:
    assert not report.unbuildable, report.unbuildable
    bad = [o for o in report.outcomes if o.verdict != "agree"]
    assert not bad, "\n".join(f"[{o.path}] {o.verdict}: {o.file} / {o.group} / {o.test}: {o.detail}" for o in bad[:40])
    per_path = Counter(o.path for o in report.outcomes)
    assert per_path["server"] == per_path["client"] >= 1200  # every test, both paths
    assert report.narrower_models == 0  # the handler always got a validated model
    assert report.model_only_tests >= 200  # the models-only path (no jsonschema) is exercised too
    if report.accelerated:  # most tools really took the native check
        assert report.tool_paths["native"] >= 300 and report.tool_paths["native"] > 4 * report.tool_paths["pure"], \
            report.tool_paths
    else:
        assert report.tool_paths["native"] == 0, report.tool_paths


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
    ({"type": "object", "properties": {"o": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}, []),  # disjoint
    ({"type": "object", "properties": {"o": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}},
     [("/properties/o", "oneOf")]),
    ({"type": "object", "properties": {"n": {"type": ["integer", "null"], "minimum": 0}}}, []),
    ({"type": "object", "properties": {"n": {"type": ["integer", "string"], "minimum": 0}}}, [("/properties/n", "minimum")]),
    ({"type": "object", "properties": {"e": {"enum": ["x", None]}}}, []),
    ({"type": "object", "properties": {"e": {"enum": ["x", None, None]}}}, [("/properties/e", "enum")]),
    ({"type": "object", "properties": {"u": {"unknownKeyword": 1, "nullable": True}}}, []),  # annotations
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
    # (and the object is marked open: no exact request TypedDict for it, models/typeddicts.py)
    assert model_view({"type": "object", "patternProperties": {"^x": {}}, "additionalProperties": False}) == {
        "type": "object", "additionalProperties": True, "x-mcp-codegen-open": True}
    # a string enum keeps its members; their Python names are the naming service's (naming/models)
    assert model_view({"type": "string", "enum": ["count", "a-b"]}) == {"type": "string", "enum": ["count", "a-b"]}


def test_real_tools_case_imports_and_validates(tmp_path: Path) -> None:
    """The golden case of shapes that once broke build, import or mypy: it imports and
    judges exactly (an ECMA control escape, a Unicode property, an anchor ref)."""
    from pull_support import imported

    from codegen import build

    spec = yaml.safe_load((REPO / "tests" / "generator" / "golden" / "cases" / "real_tools" / "spec.yaml").read_text("utf-8"))
    spec["server"]["package"] = "real_tools_live"  # not the golden's own package name
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec), "utf-8")
    result, written = build([tmp_path / "spec.yaml"], tmp_path / "out")
    assert written is not None, [d.render() for d in result.diagnostics]
    with imported(tmp_path / "out", "real_tools_live") as mods:
        client_cls = mods["client"].RealToolsClient
        server_mod = importlib.import_module("real_tools_live.server")
        errors = importlib.import_module("real_tools_live.errors")
        seen: list[dict[str, object]] = []

        class Impl(server_mod.RealToolsServerBase):  # type: ignore[name-defined,misc]
            def semantics(self, args: Any, ctx: Any) -> Any:
                seen.append(args.model_dump(mode="json", exclude_unset=True))
                return mods["client"].ToolResult(content=[{"type": "text", "text": "ok"}])

            def lint(self, args: Any, ctx: Any) -> Any:
                seen.append(args.model_dump(mode="json", exclude_unset=True))
                return mods["client"].ToolResult(content=[{"type": "text", "text": "ok"}])

            def second(self, args: Any, ctx: Any) -> Any:
                return {"entry": {"name": 5}}  # breaks the output schema

        async def main() -> None:
            async with client_cls.in_process(Impl()) as c:
                await c.semantics(control="\x03", letters={"héllo": 1}, flags=0, exact_one=1, tree={"kids": [{}]})
                assert seen[-1] == {"control": "\x03", "letters": {"héllo": 1}, "flags": 0, "exact_one": 1,
                                    "tree": {"kids": [{}]}}  # as sent: 0 stays 0, nothing dropped
                for bad in ({"control": "C"}, {"control": "\x03", "letters": {"h3llo": 1}},
                            {"control": "\x03", "flags": True}, {"control": "\x03", "never": 1},
                            {"control": "\x03", "untyped_min": 4}, {"control": "\x03", "tree": {"kids": 1}}):
                    with pytest.raises(errors.InvalidArgumentsError) as exc:
                        await c.semantics(**bad)
                    assert "(?a)" not in str(exc.value)  # messages quote the spec's own patterns
                    assert (await c.call_raw("semantics", bad)).isError  # the server refuses it too
                await c.lint(args=["a"], nullable_note=None, mode=mods["models"].LintInputMode.count_)
                assert seen[-1] == {"args": ["a"], "nullable_note": None, "mode": "count"}  # explicit null sent
                with pytest.raises(errors.InvalidArgumentsError):
                    await c.lint(args=["a"], self_=True)  # strict: true is not an integer
                raw = await c.call_raw("lint", {"args": [], "extra": {"kept": True}})
                assert not raw.isError and seen[-1] == {"args": [], "extra": {"kept": True}}
                with pytest.raises(errors.OutputValidationError):  # as the README's error table says
                    await c.second()
                listed = {t.name: t.raw for t in await c.list_tools(refresh=True)}
                assert listed["lint"]["x-vendor-rank"] == 3  # vendor keys pass through on the wire
                assert listed["lint"]["annotations"]["category"] == "code-quality"

        asyncio.run(main())


def test_schema_checked_tool_without_jsonschema_fails_clearly(tmp_path: Path) -> None:
    """Without the jsonschema package a schema-checked tool is never run on unchecked input:
    the server answers an internal error and logs why; the typed client warns and sends."""
    from codegen import build
    spec = yaml.safe_load((REPO / "tests" / "generator" / "golden" / "cases" / "real_tools" / "spec.yaml").read_text("utf-8"))
    spec["server"]["package"] = "real_tools_nojs"
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec), "utf-8")
    result, written = build([tmp_path / "spec.yaml"], tmp_path / "out")
    assert written is not None
    script = """
import asyncio, logging, sys
sys.modules["jsonschema"] = None  # not installed
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
from real_tools_nojs.server import RealToolsServerBase
from real_tools_nojs.client import RealToolsClient
from mcp_codegen_runtime.wire.content import ToolResult
class Impl(RealToolsServerBase):
    def semantics(self, args, ctx):
        raise AssertionError("ran on unchecked input")
async def main():
    async with RealToolsClient.in_process(Impl()) as c:
        res = await c.call_raw("semantics", {"control": "C"})
        print("isError", res.isError, res.text())
asyncio.run(main())
"""
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path / "out", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "isError True Tool semantics failed with an internal error" in proc.stdout
    assert "needs the 'jsonschema' package" in proc.stderr and "ran on unchecked input" not in proc.stderr


def _build_one(tmp_path: Path, spec: dict[str, Any], package: str) -> Any:
    from codegen import build

    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec), "utf-8")
    result, written = build([tmp_path / "spec.yaml"], tmp_path / "out")
    assert written is not None, [d.render() for d in result.diagnostics]
    return result


def test_format_is_an_annotation_unless_the_spec_asserts_it(tmp_path: Path) -> None:
    """``format: date`` accepts any string by default; ``server.formatAssertion: true`` makes
    the server (and the typed client) refuse a string that is not a date."""
    from pull_support import imported

    for asserted in (False, True):
        package = f"fmt_{'on' if asserted else 'off'}"
        spec = {"mcp-codegen": 1, "server": {"name": package, "version": "1", "formatAssertion": asserted},
                "tools": [{"name": "when", "inputSchema": {"type": "object", "properties": {
                    "day": {"type": "string", "format": "date"}}, "required": ["day"]}}]}
        _build_one(tmp_path / package, spec, package)
        with imported(tmp_path / package / "out", package) as mods:
            server_mod = importlib.import_module(f"{package}.server")
            base = next(v for k, v in vars(server_mod).items() if k.endswith("ServerBase") and v.__module__ == server_mod.__name__)
            impl = type("Impl", (base,), {"when": lambda self, args, ctx: mods["client"].ToolResult(content=[])})
            client_cls = next(v for k, v in vars(mods["client"]).items() if k.endswith("Client") and not k.endswith("SyncClient")
                              and getattr(v, "__module__", "") == mods["client"].__name__)

            async def main(client_cls: Any = client_cls, impl: Any = impl) -> tuple[bool, bool]:
                async with client_cls.in_process(impl()) as c:
                    good = (await c.call_raw("when", {"day": "2026-12-01"})).isError
                    bad = (await c.call_raw("when", {"day": "2026-13-45"})).isError
                    return good, bad

            good_refused, bad_refused = asyncio.run(main())
            assert not good_refused and bad_refused is asserted


def test_pattern_without_python_equivalent_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    spec = {"mcp-codegen": 1, "server": {"name": "odd_pattern", "version": "1"},
            "tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {
                "s": {"type": "string", "pattern": "^\\p{NoSuchProperty}$"}}}}]}
    result = _build_one(tmp_path, spec, "odd_pattern")
    assert [d.code for d in result.diagnostics if d.code == "W106"] == ["W106"]
    proc = subprocess.run([sys.executable, "-c", "import odd_pattern.client, odd_pattern.server"], cwd=tmp_path / "out",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
