"""mcp-codegen diff: every change class on a minimal pair, reports, exit codes, --allow, git sides."""

from __future__ import annotations

import json
import subprocess
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from common_support import weather_spec
from mcp_codegen_runtime.wire.tools import tool_fingerprint
from typer.testing import CliRunner

from codegen.commands.cli.main import app
from codegen.commands.diff import KINDS, Severity, compare_views, diff, view_from_wire
from codegen.commands.diff.report import render_json, render_junit, render_sarif


def obj(props: dict[str, Any], required: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, **kw}
    if required:
        schema["required"] = required
    return schema


def tool(name: str = "t", inp: dict[str, Any] | None = None, out: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {"name": name, "inputSchema": inp if inp is not None else obj({"q": {"type": "string"}}), **kw}
    if out is not None:
        wire["outputSchema"] = out
    return wire


def kinds(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> set[str]:
    a = view_from_wire({"name": "s", "version": "1"}, old, "old")
    b = view_from_wire({"name": "s", "version": "1"}, new, "new")
    return {c.kind for c in compare_views([a], [b]).changes}


S = {"type": "string"}
INT = {"type": "integer"}

# (case id, old tools, new tools, the kinds expected exactly)
CASES: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], set[str]]] = [
    ("no-change", [tool()], [tool()], set()),
    ("tool-removed", [tool("a"), tool("b", obj({"x": INT}))], [tool("a")], {"tool-removed"}),
    ("tool-added", [tool("a")], [tool("a"), tool("b", obj({"x": INT}))], {"tool-added"}),
    ("tool-renamed", [tool("a", obj({"x": INT}))], [tool("b", obj({"x": INT}))], {"tool-renamed"}),
    ("new-required-input", [tool(inp=obj({"q": S}))], [tool(inp=obj({"q": S, "n": INT}, ["n"]))], {"input-required-added"}),
    ("input-made-required", [tool(inp=obj({"q": S}))], [tool(inp=obj({"q": S}, ["q"]))], {"input-required-added"}),
    ("new-optional-input", [tool(inp=obj({"q": S}))], [tool(inp=obj({"q": S, "n": INT}))], {"input-optional-added"}),
    ("input-made-optional", [tool(inp=obj({"q": S}, ["q"]))], [tool(inp=obj({"q": S}))], {"input-required-removed"}),
    ("input-type-narrowed", [tool(inp=obj({"n": {"type": "number"}}))], [tool(inp=obj({"n": INT}))], {"input-type-narrowed"}),
    ("input-type-widened", [tool(inp=obj({"n": INT}))], [tool(inp=obj({"n": {"type": ["integer", "null"]}}))], {"input-type-widened"}),
    ("input-type-changed", [tool(inp=obj({"n": INT}))], [tool(inp=obj({"n": S}))], {"input-changed"}),
    ("input-enum-value-removed", [tool(inp=obj({"u": {"enum": ["c", "f"]}}))], [tool(inp=obj({"u": {"enum": ["c"]}}))], {"input-enum-value-removed"}),
    ("input-enum-value-added", [tool(inp=obj({"u": {"enum": ["c"]}}))], [tool(inp=obj({"u": {"enum": ["c", "f"]}}))], {"input-enum-value-added"}),
    ("input-const-added", [tool(inp=obj({"u": S}))], [tool(inp=obj({"u": {"type": "string", "const": "x"}}))], {"input-enum-value-removed"}),
    ("minLength-up", [tool(inp=obj({"q": {"type": "string", "minLength": 1}}))], [tool(inp=obj({"q": {"type": "string", "minLength": 2}}))], {"input-constraint-tightened"}),
    ("maximum-down", [tool(inp=obj({"n": {"type": "integer", "maximum": 7}}))], [tool(inp=obj({"n": {"type": "integer", "maximum": 5}}))], {"input-constraint-tightened"}),
    ("maximum-up", [tool(inp=obj({"n": {"type": "integer", "maximum": 7}}))], [tool(inp=obj({"n": {"type": "integer", "maximum": 14}}))], {"input-constraint-loosened"}),
    ("minimum-removed", [tool(inp=obj({"n": {"type": "integer", "minimum": 1}}))], [tool(inp=obj({"n": INT}))], {"input-constraint-loosened"}),
    ("pattern-added", [tool(inp=obj({"q": S}))], [tool(inp=obj({"q": {"type": "string", "pattern": "^a"}}))], {"input-constraint-tightened"}),
    ("pattern-changed", [tool(inp=obj({"q": {"type": "string", "pattern": "^a"}}))], [tool(inp=obj({"q": {"type": "string", "pattern": "^b"}}))], {"input-changed"}),
    ("multipleOf-finer", [tool(inp=obj({"n": {"type": "integer", "multipleOf": 4}}))], [tool(inp=obj({"n": {"type": "integer", "multipleOf": 2}}))], {"input-constraint-loosened"}),
    ("uniqueItems-added", [tool(inp=obj({"a": {"type": "array"}}))], [tool(inp=obj({"a": {"type": "array", "uniqueItems": True}}))], {"input-constraint-tightened"}),
    ("additionalProperties-closed", [tool(inp=obj({"q": S}))], [tool(inp=obj({"q": S}, additionalProperties=False))], {"input-constraint-tightened"}),
    ("additionalProperties-opened", [tool(inp=obj({"q": S}, additionalProperties=False))], [tool(inp=obj({"q": S}))], {"input-constraint-loosened"}),
    ("input-removed-closed", [tool(inp=obj({"q": S, "x": S}, additionalProperties=False))], [tool(inp=obj({"q": S}, additionalProperties=False))], {"input-property-removed"}),
    ("input-removed-open", [tool(inp=obj({"q": S, "x": S}))], [tool(inp=obj({"q": S}))], {"input-property-removed-open"}),
    ("nested-required", [tool(inp=obj({"a": {"type": "array", "items": obj({"k": S})}}))],
     [tool(inp=obj({"a": {"type": "array", "items": obj({"k": S, "v": INT}, ["v"])}}))], {"input-required-added"}),
    ("input-variant-removed", [tool(inp=obj({"v": {"anyOf": [S, INT]}}))], [tool(inp=obj({"v": {"anyOf": [S]}}))], {"input-variant-removed"}),
    ("input-made-nullable", [tool(inp=obj({"v": S}))], [tool(inp=obj({"v": {"anyOf": [S, {"type": "null"}]}}))], {"input-variant-added"}),
    ("output-field-removed", [tool(out=obj({"a": S, "b": S}))], [tool(out=obj({"a": S}))], {"output-field-removed"}),
    ("output-field-added", [tool(out=obj({"a": S}))], [tool(out=obj({"a": S, "b": S}))], {"output-field-added"}),
    ("output-field-added-closed", [tool(out=obj({"a": S}, additionalProperties=False))],
     [tool(out=obj({"a": S, "b": S}, additionalProperties=False))], {"output-field-added-closed"}),
    ("output-required-made-optional", [tool(out=obj({"a": S}, ["a"]))], [tool(out=obj({"a": S}))], {"output-required-removed"}),
    ("output-optional-made-required", [tool(out=obj({"a": S}))], [tool(out=obj({"a": S}, ["a"]))], {"output-required-added"}),
    ("output-type-loosened", [tool(out=obj({"n": INT}))], [tool(out=obj({"n": {"type": "number"}}))], {"output-type-widened"}),
    ("output-type-narrowed", [tool(out=obj({"n": {"type": "number"}}))], [tool(out=obj({"n": INT}))], {"output-type-narrowed"}),
    ("output-enum-value-added", [tool(out=obj({"u": {"enum": ["c"]}}))], [tool(out=obj({"u": {"enum": ["c", "f"]}}))], {"output-enum-value-added"}),
    ("output-enum-value-removed", [tool(out=obj({"u": {"enum": ["c", "f"]}}))], [tool(out=obj({"u": {"enum": ["c"]}}))], {"output-enum-value-removed"}),
    ("output-maxLength-up", [tool(out=obj({"s": {"type": "string", "maxLength": 5}}))], [tool(out=obj({"s": {"type": "string", "maxLength": 9}}))], {"output-constraint-loosened"}),
    ("output-type-changed", [tool(out=obj({"n": INT}))], [tool(out=obj({"n": S}))], {"output-changed"}),
    ("output-schema-removed", [tool(out=obj({"a": S}))], [tool()], {"output-schema-removed"}),
    ("output-schema-added", [tool()], [tool(out=obj({"a": S}))], {"output-schema-added"}),
    ("output-variant-added", [tool(out=obj({"v": {"oneOf": [S, INT]}}))], [tool(out=obj({"v": {"oneOf": [S, INT, {"type": "boolean"}]}}))], {"output-variant-added"}),
    ("readOnly-to-false", [tool(annotations={"readOnlyHint": True})], [tool(annotations={"readOnlyHint": False, "destructiveHint": False})], {"annotation-destructive"}),
    ("becomes-destructive", [tool(annotations={"destructiveHint": False})], [tool(annotations={"destructiveHint": True})], {"annotation-destructive"}),
    ("annotation-harmless", [tool(annotations={"readOnlyHint": True})], [tool(annotations={"readOnlyHint": True, "openWorldHint": False})], {"annotation-changed"}),
    ("becomes-read-only", [tool(annotations={"destructiveHint": True})], [tool(annotations={"readOnlyHint": True})], {"annotation-changed"}),
    ("tool-description", [tool(description="a")], [tool(description="b", title="T")], {"tool-doc-changed"}),
    ("schema-description", [tool(inp=obj({"q": {"type": "string", "description": "a"}}))], [tool(inp=obj({"q": {"type": "string", "description": "b"}}))], {"schema-doc-changed"}),
    ("default-changed", [tool(inp=obj({"n": {"type": "integer", "default": 3}}))], [tool(inp=obj({"n": {"type": "integer", "default": 5}}))], {"default-changed"}),
    ("ref-target-tightened",
     [tool(inp=obj({"u": {"$ref": "#/$defs/U"}}, **{"$defs": {"U": {"enum": ["c", "f"]}}}))],
     [tool(inp=obj({"u": {"$ref": "#/$defs/U"}}, **{"$defs": {"U": {"enum": ["c"]}}}))], {"input-enum-value-removed"}),
    ("defs-renamed-only",
     [tool(inp=obj({"u": {"$ref": "#/$defs/U"}}, **{"$defs": {"U": S}}))],
     [tool(inp=obj({"u": {"$ref": "#/$defs/Unit"}}, **{"$defs": {"Unit": S}}))], {"schema-equivalent-change"}),
    ("inlined-ref", [tool(inp=obj({"u": {"$ref": "#/$defs/U"}}, **{"$defs": {"U": S}}))], [tool(inp=obj({"u": S}))], {"schema-equivalent-change"}),
]


@pytest.mark.parametrize(("old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_change_class(old: list[dict[str, Any]], new: list[dict[str, Any]], expected: set[str]) -> None:
    assert kinds(old, new) == expected


CATALOG_CASES: list[tuple[dict[str, Any], dict[str, Any], set[str]]] = [
    ({"resources": [{"uri": "x://a", "name": "a"}]}, {}, {"resource-removed"}),
    ({}, {"resources": [{"uri": "x://a", "name": "a"}]}, {"resource-added"}),
    ({"resources": [{"uri": "x://a", "name": "a"}]}, {"resources": [{"uri": "x://a", "name": "a", "mimeType": "text/plain"}]},
     {"resource-changed"}),
    ({"templates": [{"uriTemplate": "x://{id}", "name": "t"}]}, {}, {"resource-template-removed"}),
    ({}, {"templates": [{"uriTemplate": "x://{id}", "name": "t"}]}, {"resource-template-added"}),
    ({"templates": [{"uriTemplate": "x://{id}", "name": "t"}]}, {"templates": [{"uriTemplate": "x://{id}", "name": "u"}]},
     {"resource-template-changed"}),
    ({"prompts": [{"name": "p"}]}, {}, {"prompt-removed"}),
    ({}, {"prompts": [{"name": "p"}]}, {"prompt-added"}),
    ({"prompts": [{"name": "p"}]}, {"prompts": [{"name": "p", "arguments": [{"name": "a", "required": True}]}]},
     {"prompt-argument-required"}),
    ({"prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}, {"prompts": [{"name": "p", "arguments": [{"name": "a", "required": True}]}]},
     {"prompt-argument-required"}),
    ({"prompts": [{"name": "p"}]}, {"prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}, {"prompt-argument-added"}),
    ({"prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}, {"prompts": [{"name": "p"}]}, {"prompt-argument-removed"}),
    ({"prompts": [{"name": "p", "description": "x"}]}, {"prompts": [{"name": "p", "description": "y"}]}, {"prompt-changed"}),
    ({"prompts": [{"name": "p", "arguments": [{"name": "a", "description": "x"}]}]},
     {"prompts": [{"name": "p", "arguments": [{"name": "a", "description": "y"}]}]}, {"prompt-changed"}),
]


@pytest.mark.parametrize(("old", "new", "expected"), CATALOG_CASES)
def test_catalog_change_class(old: dict[str, Any], new: dict[str, Any], expected: set[str]) -> None:
    got = compare_views([view_from_wire({"name": "s"}, [], "a", **old)], [view_from_wire({"name": "s"}, [], "b", **new)])
    assert {c.kind for c in got.changes} == expected


def test_every_wire_kind_is_exercised() -> None:
    covered = set().union(*(c[3] for c in CASES)) | {"server-added", "server-removed", "server-info-changed"}
    covered |= set().union(*(c[2] for c in CATALOG_CASES))
    # (recorded-*: check --cassette's kinds, exercised by tests/generator/test_mock_cli.py)
    wire_kinds = {k for k, (sev, _) in KINDS.items()
                  if sev is not Severity.CODEGEN and not k.startswith(("error-", "client-input", "recorded-"))}
    assert wire_kinds - covered <= {"input-variant-added", "output-variant-removed", "output-constraint-tightened", "input-type-changed"}


def test_recursive_schema_terminates() -> None:
    tree = {"$ref": "#/$defs/Node"}
    old = obj({"root": tree}, **{"$defs": {"Node": obj({"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}})}})
    new = obj({"root": tree}, **{"$defs": {"Node": obj({"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}, "n": INT}, ["n"])}})
    got = compare_views([view_from_wire({"name": "s"}, [tool(inp=old)], "a")], [view_from_wire({"name": "s"}, [tool(inp=new)], "b")])
    assert [(c.kind, c.path) for c in got.changes] == [("input-required-added", "/inputSchema/properties/root/properties/n")]


def test_servers_pair_by_name_and_severity_order() -> None:
    a = [view_from_wire({"name": "x", "version": "1"}, [tool("t")], "a"), view_from_wire({"name": "y"}, [tool("t")], "a")]
    b = [view_from_wire({"name": "x", "version": "2"}, [tool("t"), tool("u")], "b"), view_from_wire({"name": "z"}, [], "b")]
    got = [(c.server, c.tool, c.kind) for c in compare_views(a, b).changes]
    assert got == [("x", "", "server-info-changed"), ("x", "u", "tool-added"), ("y", "", "server-removed"), ("z", "", "server-added")]


def test_a_version_the_live_server_never_sent_is_not_a_change() -> None:
    """A pulled spec says 0.0.0 for a server without serverInfo.version; the live side has none."""
    spec_side = [view_from_wire({"name": "x", "version": "0.0.0"}, [tool("t")], "spec")]
    for info in ({"name": "x"}, {"name": "x", "version": ""}):
        assert compare_views(spec_side, [view_from_wire(info, [tool("t")], "live")]).changes == []
        assert compare_views([view_from_wire(info, [tool("t")], "live")], spec_side).changes == []
    sent = [view_from_wire({"name": "x", "version": "0.1.0"}, [tool("t")], "live")]
    assert [c.kind for c in compare_views(spec_side, sent).changes] == ["server-info-changed"]


# -- from spec files: Python names, errors, client inputs, reports, CLI -----------------------

SPEC_V1 = """\
mcp-codegen: 1
server: {name: shop, version: 1.0.0}
$defs:
  Unit: {type: string, enum: [kg, lb]}
tools:
  - name: weigh
    description: Weigh | things.
    annotations: {readOnlyHint: true}
    inputSchema:
      type: object
      properties:
        item: {type: string, minLength: 1}
        unit: {$ref: "#/$defs/Unit"}
      required: [item]
    outputSchema:
      type: object
      properties:
        weight: {type: number}
        unit: {$ref: "#/$defs/Unit"}
      required: [weight, unit]
    errors:
      unknown_item: {description: No such item.}
  - name: ping
    inputSchema: {type: object, properties: {}}
"""

SPEC_V2 = """\
mcp-codegen: 1
server: {name: shop, version: 1.1.0}
$defs:
  Unit: {type: string, enum: [kg]}
tools:
  - name: weigh
    python_name: measure
    description: Weigh | things.
    annotations: {readOnlyHint: true}
    inputSchema:
      type: object
      properties:
        item: {type: string, minLength: 1}
        unit: {$ref: "#/$defs/Unit"}
      required: [item]
    outputSchema:
      type: object
      properties:
        weight: {type: number}
        unit: {$ref: "#/$defs/Unit"}
      required: [weight, unit]
    inputs:
      confirm:
        method: elicitation/create
        message: Sure?
        requestedSchema: {type: object, properties: {ok: {type: boolean}}, required: [ok]}
  - name: ping
    inputSchema: {type: object, properties: {}}
"""

SAFE_V2 = SPEC_V1.replace("version: 1.0.0", "version: 1.0.1").replace("Weigh | things.", "Weigh things.\\nCarefully.")


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pair")
    for name, text in (("old", SPEC_V1), ("new", SPEC_V2), ("safe", SAFE_V2)):
        (root / name).mkdir()
        (root / name / "shop.yaml").write_text(text)
    return root


def test_spec_files_codegen_and_declared_changes(pair: Path) -> None:
    result = diff(str(pair / "old"), str(pair / "new"))
    assert result.loaded, [d.render() for d in result.diagnostics]
    got = {(c.tool, c.kind, c.severity.value) for c in result.changes}
    assert got == {
        ("", "server-info-changed", "safe"),
        ("weigh", "python-method-renamed", "codegen"),
        ("weigh", "python-class-renamed", "codegen"),
        ("weigh", "error-removed", "codegen"),
        ("weigh", "client-input-added", "breaking"),
        ("weigh", "input-enum-value-removed", "breaking"),
        ("weigh", "output-enum-value-removed", "safe"),
    }
    renamed = {(c.old, c.new) for c in result.changes if c.kind == "python-class-renamed"}
    assert renamed == {("WeighInput", "MeasureInput"), ("WeighOutput", "MeasureOutput")}
    enum = next(c for c in result.changes if c.kind == "input-enum-value-removed")
    assert enum.path == "/inputSchema/properties/unit/enum" and enum.old == ["lb"]
    assert enum.file.endswith("new/shop.yaml") and enum.line == 14  # located in the spec, through the $ref
    fp = result.fingerprints["shop/ping"]
    assert fp["old"] == fp["new"] == tool_fingerprint({"name": "ping", "inputSchema": {"type": "object", "properties": {}}})
    assert not result.ok


def test_json_junit_sarif_shapes(pair: Path) -> None:
    result = diff(str(pair / "old"), str(pair / "new"), allow=[("weigh", "client-input-added")])
    data = json.loads(render_json(result))
    assert set(data) == {"old", "new", "ok", "summary", "changes", "fingerprints", "diagnostics"}
    assert data["summary"] == {"breaking": 2, "codegen": 4, "safe": 2, "allowed": 1, "blocking": 5}
    assert data["ok"] is False and data["old"].endswith("old")
    change = data["changes"][0]
    assert set(change) == {"server", "tool", "kind", "severity", "path", "message", "old", "new", "allowed", "blocking", "location"}

    suites = ET.fromstring(render_junit(result))
    assert suites.tag == "testsuites" and suites.get("failures") == "1"
    cases = {c.get("name"): c for c in suites.iter("testcase")}
    assert set(cases) == {"(server)", "weigh", "ping"}
    failure = cases["weigh"].find("failure")
    assert failure is not None and "input-enum-value-removed" in (failure.text or "")
    assert cases["ping"].find("failure") is None

    sarif = json.loads(render_sarif(result))
    assert sarif["version"] == "2.1.0" and len(sarif["runs"]) == 1
    run = sarif["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rule_ids == sorted(rule_ids) and "input-enum-value-removed" in rule_ids
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["input-enum-value-removed"] == "error" and levels["error-removed"] == "warning"
    assert levels["output-enum-value-removed"] == "note"
    allowed = [r for r in run["results"] if r["ruleId"] == "client-input-added"]
    assert allowed[0]["suppressions"][0]["kind"] == "external"
    for r in run["results"]:
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith("shop.yaml") and loc["region"]["startLine"] >= 1


runner = CliRunner()


def test_cli_exit_codes_and_allow(pair: Path, tmp_path: Path) -> None:
    old, new, safe = str(pair / "old"), str(pair / "new"), str(pair / "safe")
    res = runner.invoke(app, ["diff", old, new], terminal_width=200)
    assert res.exit_code == 1, res.output
    assert "input-enum-value-removed" in res.output and res.output.rstrip().endswith("-> FAIL")
    assert runner.invoke(app, ["diff", old, new, "--allow-all-breaking"]).exit_code == 0
    rules = ["--allow", "weigh:input-enum-value-removed", "--allow", "w*:client-input-added"]
    assert runner.invoke(app, ["diff", old, new, *rules]).exit_code == 1  # codegen breaks remain
    assert runner.invoke(app, ["diff", old, new, *rules, "--wire-only"]).exit_code == 0
    assert runner.invoke(app, ["diff", old, new, "--allow", "*:breaking", "--allow", "shop/weigh:codegen"]).exit_code == 0
    assert runner.invoke(app, ["diff", old, new, "--allow", "ping:breaking", "--wire-only"]).exit_code == 1
    res = runner.invoke(app, ["diff", old, safe, "-f", "json", "--sarif", str(tmp_path / "r.sarif"), "--junit", str(tmp_path / "r.xml")])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["summary"]["safe"] == 2
    assert json.loads((tmp_path / "r.sarif").read_text())["version"] == "2.1.0"
    assert ET.parse(tmp_path / "r.xml").getroot().get("failures") == "0"
    assert runner.invoke(app, ["diff", old, str(pair / "missing")]).exit_code == 2
    assert runner.invoke(app, ["diff", old, new, "--allow", "nocolon"]).exit_code == 2


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(repo)}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def test_git_revisions(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "specs" / "shared").mkdir(parents=True)
    shared = repo / "specs" / "shared" / "types.yaml"
    spec = repo / "specs" / "shop.yaml"
    shared.write_text("$defs:\n  Unit: {type: string, enum: [kg, lb]}\n")
    spec.write_text(SPEC_V1.replace("$defs:\n  Unit: {type: string, enum: [kg, lb]}\n", "$defs:\n  Unit: {$ref: 'shared/types.yaml#/$defs/Unit'}\n"))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    shared.write_text("$defs:\n  Unit: {type: string, enum: [kg]}\n")  # only the referenced file changes
    git(repo, "commit", "-q", "-am", "v2")
    shared.write_text("$defs:\n  Unit: {type: string, enum: [kg, lb, g]}\n")  # uncommitted work tree edit
    before = shared.read_text()

    result = diff("git:HEAD~1:specs", "git:main:specs", cwd=repo)
    assert result.loaded, [d.render() for d in result.diagnostics]
    assert {c.kind for c in result.changes} == {"input-enum-value-removed", "output-enum-value-removed"}
    assert all(c.file == "git:main:specs/shop.yaml" for c in result.changes)

    result = diff("git:HEAD:specs/shop.yaml", "specs/shop.yaml", cwd=repo)  # revision vs work tree
    assert {c.kind for c in result.changes} == {"input-enum-value-added", "output-enum-value-added"}
    assert shared.read_text() == before and git(repo, "status", "--porcelain") == " M specs/shared/types.yaml\n"

    sub = repo / "specs"
    result = diff("git:HEAD~1:shop.yaml", "git:HEAD:shop.yaml", cwd=sub)  # paths relative to cwd, as in git
    assert {c.kind for c in result.changes} == {"input-enum-value-removed", "output-enum-value-removed"}

    bad = diff("git:nope:specs", "specs", cwd=repo)
    assert not bad.loaded and bad.diagnostics[0].code == "E060"
    assert not diff("git:HEAD:nowhere", "specs", cwd=repo).loaded
    assert not diff("git:HEAD:specs", "specs", cwd=tmp_path).loaded  # not a repository


def test_markup_in_spec_text_is_not_interpreted(tmp_path: Path) -> None:
    old = tmp_path / "a.yaml"
    new = tmp_path / "b.yaml"
    old.write_text(textwrap.dedent(SPEC_V1))
    new.write_text(SPEC_V1.replace("Weigh | things.", "'[bold red]x[/] [link=file:///etc]y[/link]'"))
    res = runner.invoke(app, ["diff", str(old), str(new)])
    assert res.exit_code == 0 and "[bold red]x[/]" in res.output


EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"
SPECS = Path(__file__).resolve().parents[2] / "specs"


def test_live_server_side_over_stdio(tmp_path: Path) -> None:
    import sys

    live = f"stdio:{sys.executable} -m weather --stdio"
    same = diff(str(SPECS / "weather.yaml"), live, cwd=EXAMPLES)
    assert same.loaded, [d.render() for d in same.diagnostics]
    assert same.changes == [] and same.ok  # the generated server serves exactly its spec
    # a spec that drifted from what the server runs: the live server lacks the new required input
    spec = (SPECS / "weather.yaml").read_text().replace("      required: [location]\n", "      required: [location, days]\n", 1)
    weather_spec(tmp_path, spec.replace("        unit: {$ref: \"#/$defs/Unit\"}\n      required: [location, days]",
                                                        "        unit: {$ref: \"#/$defs/Unit\"}\n        days: {type: integer}\n      required: [location, days]"))
    drift = diff(live, str(tmp_path / "weather.yaml"), cwd=EXAMPLES)
    assert drift.loaded, [d.render() for d in drift.diagnostics]
    assert {(c.tool, c.kind) for c in drift.changes} == {("get_weather", "input-required-added")}
    bad = diff(str(SPECS / "weather.yaml"), "stdio:", cwd=EXAMPLES)
    assert not bad.loaded and bad.diagnostics[0].code == "E070"


def test_workflow_doc_lists_every_kind_and_hooks_name_real_commands() -> None:
    import yaml

    repo = Path(__file__).resolve().parents[2]
    doc = (repo / "docs" / "sync-workflow.md").read_text()
    for kind, (severity, _) in KINDS.items():
        assert f"| `{kind}` | {severity.value} |" in doc, kind
    hooks = yaml.safe_load((repo / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"mcp-codegen-check", "mcp-codegen-build", "mcp-codegen-diff", "mcp-codegen-docs"}
    for hook in hooks:
        words = hook["entry"].split()
        assert words[0] == "mcp-codegen" and hook["pass_filenames"] is False
        res = runner.invoke(app, [*words[1:], "--help"])
        assert res.exit_code == 0, hook["id"]
        for opt in [w for w in words[2:] + hook.get("args", []) if w.startswith("--")]:
            assert opt in res.output, (hook["id"], opt)


CATALOG_V1 = """\
mcp-codegen: 1
server: {name: shelf, version: "1.0"}
tools: []
resources:
  - {uri: "test://a", name: alpha}
resourceTemplates:
  - uriTemplate: "test://items/{id}"
    name: item
    variables:
      id: {type: integer, minimum: 1}
prompts:
  - name: greet
    arguments:
      - {name: who, required: true}
      - {name: tone, enum: [warm, dry]}
      - {name: style}
"""


def test_catalog_types_and_python_names_from_specs(tmp_path: Path) -> None:
    """What the wire lists cannot show: a template variable's type, a prompt argument's enum, and
    the generated method names; a removed prompt argument breaks callers (servers refuse it)."""
    new = (CATALOG_V1.replace("id: {type: integer, minimum: 1}", "id: {type: integer, minimum: 10}")
           .replace("enum: [warm, dry]", "enum: [warm]")
           .replace("{uri: \"test://a\", name: alpha}", "{uri: \"test://a\", name: alpha, python_name: first}")
           .replace("      - {name: style}\n", ""))
    for name, text in (("old", CATALOG_V1), ("new", new)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "shelf.yaml").write_text(text)
    result = diff(str(tmp_path / "old"), str(tmp_path / "new"))
    assert result.loaded, [d.render() for d in result.diagnostics]
    got = {(c.kind, c.severity.value, c.path) for c in result.changes}
    assert got == {
        ("python-method-renamed", "codegen", ""),
        ("input-constraint-tightened", "breaking", "/variables/properties/id/minimum"),
        ("input-enum-value-removed", "breaking", "/arguments/properties/tone/enum"),
        ("prompt-argument-removed", "breaking", "/arguments/style"),
        ("python-kwarg-removed", "codegen", ""),
    }
    renamed = next(c for c in result.changes if c.kind == "python-method-renamed")
    assert (renamed.old, renamed.new) == ("read_alpha", "read_first")
