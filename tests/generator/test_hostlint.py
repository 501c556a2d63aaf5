"""The host-limits lint (W111, codegen/spec/hosts.py): each rule tripped by a spec made for it,
and only by it; a spec that trips none; the profiles ``--host`` takes; docs/hosts.md lists
every rule."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from codegen.spec.hostlint import lint_paths
from codegen.spec.hosts import RULES, select

ROOT = Path(__file__).resolve().parents[2]
CLEAN_TOOL: dict[str, Any] = {"name": "ok_tool", "description": "Does one thing.",
                              "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}


def _tool(**changes: Any) -> dict[str, Any]:
    tool = json.loads(json.dumps(CLEAN_TOOL))
    tool.update(changes)
    return tool


def _schema(**changes: Any) -> dict[str, Any]:
    schema = json.loads(json.dumps(CLEAN_TOOL["inputSchema"]))
    schema.update(changes)
    return schema


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def _spec(tmp_path: Path, tools: list[dict[str, Any]], server: str = "srv") -> Path:
    path = tmp_path / "spec.json"  # JSON is YAML: the loader gives every value a line
    path.write_text(json.dumps({"mcp-codegen": 1, "server": {"name": server, "version": "1"}, "tools": tools},
                               indent=1), "utf-8")
    return path


def _findings(path: Path, profile: str = "all") -> list[tuple[str, str]]:
    """(rule id, pointer) of every W111 for ``path``."""
    out = []
    for d in lint_paths([path], profile):
        assert d.code == "W111" and not d.is_error and d.line > 0 and "source: https://" in d.hint
        rule = re.search(r"rule ([a-z0-9-]+)\)$", d.message)
        assert rule, d.message
        out.append((rule.group(1), d.pointer))
    return sorted(out)


#: rule id -> (tools, server name, the (rule, pointer) findings expected under --host all)
CASES: dict[str, tuple[list[dict[str, Any]], str, list[tuple[str, str]]]] = {
    "name-length": ([_tool(name="a" * 65)], "s", [("name-length", "/tools/0/name"), ("prefixed-name", "/tools/0/name")]),
    "name-charset": ([_tool(name="notes.create")], "srv", [("name-charset", "/tools/0/name")]),
    "gemini-name": ([_tool(name="2fa-check")], "srv", [("gemini-name", "/tools/0/name")]),
    "prefixed-name": ([_tool(name="t" * 30)], "s" * 28, [("prefixed-name", "/tools/0/name")]),
    "root-type": ([_tool(inputSchema={"properties": {"a": {"type": "string"}}})], "srv",
                  [("root-type", "/tools/0/inputSchema")]),
    "root-union": ([_tool(inputSchema=_schema(anyOf=[{"required": ["a"]}, {"required": ["b"]}]))], "srv",
                   [("root-union", "/tools/0/inputSchema/anyOf"), ("union", "/tools/0/inputSchema/anyOf")]),
    "root-enum-not": ([_tool(inputSchema=_schema(**{"not": {"required": ["a"]}}))], "srv",
                      [("gemini-keyword", "/tools/0/inputSchema/not"), ("root-enum-not", "/tools/0/inputSchema/not")]),
    "ref": ([_tool(inputSchema=_schema(properties={"a": {"$ref": "#/$defs/A"}}, **{"$defs": {"A": {"type": "string"}}}))],
            "srv", [("ref", "/tools/0/inputSchema/$defs"), ("ref", "/tools/0/inputSchema/properties/a/$ref")]),
    "type-list": ([_tool(inputSchema=_schema(properties={"a": {"type": ["string", "null"]}}))], "srv",
                  [("type-list", "/tools/0/inputSchema/properties/a/type")]),
    "union": ([_tool(inputSchema=_schema(properties={"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}))],
              "srv", [("union", "/tools/0/inputSchema/properties/a/anyOf")]),
    "gemini-keyword": ([_tool(inputSchema=_schema(additionalProperties=False))], "srv",
                       [("gemini-keyword", "/tools/0/inputSchema/additionalProperties")]),
    "depth": ([_tool(inputSchema=_nested(11))], "srv",
              [("depth", "/tools/0/inputSchema" + "/properties/x" * 11)]),
    "properties": ([_tool(inputSchema=_schema(properties={f"p{i}": {"type": "string"} for i in range(5001)}))], "srv",
                   [("properties", "/tools/0/inputSchema")]),
    "enum-values": ([_tool(inputSchema=_schema(properties={"a": {"type": "string", "enum": [f"v{i}" for i in range(1001)]}}))],
                    "srv", [("enum-values", "/tools/0/inputSchema")]),
    "description-length": ([_tool(description="x" * 1025)], "srv", [("description-length", "/tools/0/description")]),
    "no-description": ([{k: v for k, v in CLEAN_TOOL.items() if k != "description"}], "srv",
                       [("no-description", "/tools/0")]),
    "tool-count-128": ([_tool(name=f"t{i}") for i in range(129)], "srv",
                       [("tool-count-128", "/tools"), ("tool-count-40", "/tools")]),
    "tool-count-40": ([_tool(name=f"t{i}") for i in range(41)], "srv", [("tool-count-40", "/tools")]),
}


def test_every_rule_has_a_case() -> None:
    assert sorted(CASES) == sorted(r.id for r in RULES)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_trips_on_its_case(tmp_path: Path, rule: str) -> None:
    tools, server, expected = CASES[rule]
    assert _findings(_spec(tmp_path, tools, server)) == expected


def test_limits_are_not_off_by_one(tmp_path: Path) -> None:
    at_limits = [_tool(name="a" * 54, description="x" * 1024, inputSchema=_nested(10))] + [
        _tool(name=f"t{i}") for i in range(39)]
    assert _findings(_spec(tmp_path, at_limits, "s")) == []  # mcp__s__ + 54 = 62 characters, 40 tools


def test_a_clean_spec_trips_nothing(tmp_path: Path) -> None:
    assert _findings(_spec(tmp_path, [CLEAN_TOOL])) == []


def test_schemas_behind_refs_are_reported_where_they_are_written(tmp_path: Path) -> None:
    (tmp_path / "shared.yaml").write_text("$defs:\n  Money:\n    type: [number, 'null']\n", "utf-8")
    path = tmp_path / "spec.yaml"
    path.write_text("mcp-codegen: 1\nserver: {name: srv, version: '1'}\n$defs:\n  Id: {oneOf: [{type: string}, {type: integer}]}\n"
                    "tools:\n  - name: pay\n    description: Pays.\n    inputSchema:\n      type: object\n"
                    "      properties:\n        id: {$ref: '#/$defs/Id'}\n        amount: {$ref: 'shared.yaml#/$defs/Money'}\n",
                    "utf-8")
    found = {(d.file, d.line, d.pointer, d.message.rsplit("rule ", 1)[1]) for d in lint_paths([path], "gemini")}
    assert found == {
        (f"{tmp_path.name}/spec.yaml", 4, "/$defs/Id/oneOf", "union)"),
        (f"{tmp_path.name}/spec.yaml", 11, "/tools/0/inputSchema/properties/id/$ref", "ref)"),
        (f"{tmp_path.name}/spec.yaml", 12, "/tools/0/inputSchema/properties/amount/$ref", "ref)"),
        (f"{tmp_path.name}/shared.yaml", 3, "/$defs/Money/type", "type-list)"),
    }


def test_profiles() -> None:
    common = [r.id for r, _ in select("common")[0]]
    assert common == ["name-length", "name-charset", "root-type", "root-union", "no-description", "tool-count-128"]
    assert [r.id for r, _ in select("all")[0]] == [r.id for r in RULES]
    assert select("none") == ([], None)
    cursor = [(r.id, hosts) for r, hosts in select("cursor")[0]]
    assert cursor == [("no-description", ("cursor",)), ("tool-count-40", ("cursor",))]
    pair = [(r.id, hosts) for r, hosts in select("vscode, openai")[0] if r.id.startswith("tool-count")]
    assert pair == [("tool-count-128", ("openai", "vscode"))]
    rules, error = select("claude,chatgpt")
    assert rules == [] and error and "chatgpt" in error


def test_the_default_profile_skips_single_host_rules(tmp_path: Path) -> None:
    path = _spec(tmp_path, [_tool(name="notes.create", inputSchema=_schema(additionalProperties=False))])
    assert _findings(path, "common") == [("name-charset", "/tools/0/name")]
    assert _findings(path, "gemini") == [("gemini-keyword", "/tools/0/inputSchema/additionalProperties")]
    assert _findings(path, "none") == []


def test_docs_list_every_rule_with_its_hosts() -> None:
    text = (ROOT / "docs" / "hosts.md").read_text("utf-8").split("\n## Rules\n", 1)[1]
    rows = dict(re.findall(r"^\| `([a-z0-9-]+)` \| ([^|]+) \|", text, re.M))
    assert list(rows) == [r.id for r in RULES]
    for rule in RULES:
        assert rows[rule.id].strip() == ", ".join(rule.hosts), rule.id
