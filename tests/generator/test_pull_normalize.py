"""The pull normalizer on sloppy server schemas, and what build tolerates on its own.

Each sloppy case is a tools/list entry as real servers publish them.  For each: the notes
pull makes (code and place), the entry written to the spec; then all cases together must
give a spec that builds (no errors), imports, and reports every loosening as a warning.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
from pathlib import Path
from typing import Any

import pytest
import yaml
from pull_support import imported

from codegen import build
from codegen.commands.pull.flow import ServerSnapshot, check_spec, spec_from_snapshot, write_spec
from codegen.diagnostics import CODES, Level

OBJ: dict[str, Any] = {"type": "object"}

#: name -> (tools/list entry, expected notes as (code, pointer relative to the tool), checks on the entry)
CASES: dict[str, tuple[dict[str, Any], set[tuple[str, str]]]] = {
    "no_root_type": ({"inputSchema": {"properties": {"x": {"type": "string"}}, "required": ["x"]}}, set()),
    "string_root": ({"inputSchema": {"type": "string", "description": "d"}}, {("W102", "/inputSchema")}),
    "ref_root": ({"inputSchema": {"$ref": "#/$defs/Args", "$defs": {"Args": {
        "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}}, {("W104", "/inputSchema")}),
    "union_root": ({"inputSchema": {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                                              {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}},
                   {("W104", "/inputSchema")}),
    "default_null": ({"inputSchema": {"type": "object", "properties": {
        "s": {"type": "string", "default": None}, "n": {"type": "integer", "default": "5"}}}}, set()),
    "nullable_type": ({"inputSchema": {"type": "object", "properties": {"v": {"type": ["string", "null"]}}, "required": ["v"]},
                       "outputSchema": {"type": "object", "properties": {"w": {"type": ["number", "null"]}}}}, set()),
    "additional_properties": ({"inputSchema": {"type": "object", "additionalProperties": {}, "properties": {
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        "s": {"type": "object", "additionalProperties": "false"},
        "z": {"type": "object", "additionalProperties": None}}}},
        {("W102", "/inputSchema/properties/s/additionalProperties"), ("W102", "/inputSchema/properties/z/additionalProperties")}),
    "huge_description": ({"description": "Long. " * 2000, "inputSchema": OBJ}, set()),
    "draft07": ({"inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                                 "definitions": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
                                 "properties": {"p": {"$ref": "#/definitions/Point"},
                                                "t": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}}}, set()),
    "draft04_bounds": ({"inputSchema": {"type": "object", "properties": {
        "n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}, "m": {"type": "number", "exclusiveMaximum": False}}}},
        {("W104", "/inputSchema/properties/n/exclusiveMinimum"), ("W102", "/inputSchema/properties/m/exclusiveMaximum")}),
    "draft03_required": ({"inputSchema": {"type": "object", "properties": {"r": {"type": "string", "required": True}}}},
                         {("W104", "/inputSchema/properties/r/required")}),
    "type_names": ({"inputSchema": {"type": "object", "properties": {"a": {"type": "any"}, "i": {"type": "int"}}}},
                   {("W102", "/inputSchema/properties/a/type"), ("W104", "/inputSchema/properties/i/type")}),
    "tuple_items": ({"inputSchema": {"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "string"}]}}}},
                    {("W104", "/inputSchema/properties/t/items")}),
    "bad_refs": ({"inputSchema": {"type": "object", "properties": {
        "net": {"$ref": "https://example.com/schema.json"}, "anchor": {"$ref": "#here"}, "gone": {"$ref": "#/$defs/Gone"}}}},
        {("W102", "/inputSchema/properties/net/$ref"), ("W102", "/inputSchema/properties/anchor/$ref"),
         ("W102", "/inputSchema/properties/gone/$ref")}),
    "recursive_defs": ({"inputSchema": {"type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}}, "$defs": {
        "Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}}, set()),
    "ref_cycle": ({"inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
                                   "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}},
                  {("W102", "/inputSchema/$defs/A/$ref")}),
    "array_output": ({"inputSchema": OBJ, "outputSchema": {"type": "array", "items": {"type": "string"}}}, set()),
    "boolean_output": ({"inputSchema": OBJ, "outputSchema": True}, {("W102", "/outputSchema")}),
    "odd_fields": ({"inputSchema": OBJ, "vendorField": 1, "title": 5, "errors": [],
                    "annotations": {"readOnlyHint": "yes", "destructiveHint": False, "category": "fs"}},
                   {("W104", "/title"), ("W104", "/errors"), ("W104", "/annotations/readOnlyHint")}),
    "get-sum": ({"inputSchema": OBJ}, set()),
    "get_sum": ({"inputSchema": OBJ}, {("W104", "/python_name")}),
    "getSum": ({"inputSchema": OBJ}, {("W104", "/python_name")}),
    "timeout": ({"inputSchema": OBJ}, set()),  # lowering renames the method (ClientBase has .timeout)
    "ns/slashed": ({"inputSchema": OBJ}, set()),  # build: W103
}


def _tools() -> list[dict[str, Any]]:
    return [{"name": name, **copy.deepcopy(entry)} for name, (entry, _) in CASES.items()]


def _entry(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in data["tools"] if t["name"] == name)


@pytest.fixture(scope="module")
def pulled() -> Any:
    return spec_from_snapshot(ServerSnapshot({"name": "Sloppy Server", "version": "0.1"}, "Be careful.", _tools()))


@pytest.mark.parametrize("case", list(CASES))
def test_each_loosening_is_noted(pulled: Any, case: str) -> None:
    got = {(n.code, n.pointer) for n in pulled.notes if n.tool == case}
    assert got == CASES[case][1]
    for code, pointer in got:  # ... and written as a comment above the tool
        assert f"# pull: {code} {pointer.lstrip('/')}:" in pulled.text


def test_written_entries(pulled: Any) -> None:
    data = pulled.data
    # the live name verbatim (so diff agrees); the package name follows from it (sloppy_server)
    assert data["server"] == {"name": "Sloppy Server", "version": "0.1", "target": "client", "instructions": "Be careful."}
    assert [t["name"] for t in data["tools"]] == sorted(CASES)
    # tolerated by build: copied as written
    for case in ("no_root_type", "default_null", "nullable_type", "draft07", "array_output", "recursive_defs"):
        assert _entry(data, case) == {"name": case, **CASES[case][0]}
    assert _entry(data, "string_root")["inputSchema"] == {"description": "d", "type": "object"}
    ref_root = _entry(data, "ref_root")["inputSchema"]
    assert ref_root["type"] == "object" and ref_root["required"] == ["q"] and "$ref" not in ref_root
    props = _entry(data, "draft04_bounds")["inputSchema"]["properties"]
    assert props == {"n": {"type": "number", "exclusiveMinimum": 0}, "m": {"type": "number"}}
    assert _entry(data, "draft03_required")["inputSchema"]["required"] == ["r"]
    assert _entry(data, "type_names")["inputSchema"]["properties"] == {"a": {}, "i": {"type": "integer"}}
    assert _entry(data, "tuple_items")["inputSchema"]["properties"]["t"]["prefixItems"] == [{"type": "string"}]
    assert _entry(data, "bad_refs")["inputSchema"]["properties"] == {"net": {}, "anchor": {}, "gone": {}}
    assert "outputSchema" not in _entry(data, "boolean_output")
    odd = _entry(data, "odd_fields")
    # vendor keys are kept verbatim (tool and annotations); only unusable values are dropped
    assert set(odd) == {"name", "inputSchema", "annotations", "vendorField"} and odd["vendorField"] == 1
    assert odd["annotations"] == {"destructiveHint": False, "category": "fs"}
    assert _entry(data, "huge_description")["description"] == "Long. " * 2000  # verbatim, never clipped
    assert "python_name" not in _entry(data, "get-sum")
    assert {_entry(data, "getSum")["python_name"], _entry(data, "get_sum")["python_name"]} == {"get_sum_2", "get_sum_3"}
    assert yaml.safe_load(pulled.text) == data


def test_output_is_deterministic() -> None:
    tools = _tools()
    one = spec_from_snapshot(ServerSnapshot({"name": "s", "version": "1"}, None, tools)).text
    two = spec_from_snapshot(ServerSnapshot({"name": "s", "version": "1"}, None, list(reversed(tools)))).text
    assert one == two


def test_unusable_and_duplicate_tools_are_dropped() -> None:
    tools = [{"name": "ok", "inputSchema": OBJ}, {"name": "ok", "inputSchema": {"type": "object", "properties": {}}},
             {"name": "has space", "inputSchema": OBJ}, {"name": "", "inputSchema": OBJ}, {"inputSchema": OBJ}]
    result = spec_from_snapshot(ServerSnapshot({"name": "s", "version": "1"}, None, tools))
    assert [t["name"] for t in result.data["tools"]] == ["ok"] and result.data["tools"][0]["inputSchema"] == OBJ
    assert sum(n.code == "W104" for n in result.notes) == 4


def test_shared_defs_hoisted_or_renamed() -> None:
    unit = {"type": "string", "enum": ["c", "f"]}
    tools = [
        {"name": "a", "inputSchema": {"type": "object", "properties": {"u": {"$ref": "#/$defs/Unit"}}, "$defs": {"Unit": unit}}},
        {"name": "b", "inputSchema": {"type": "object", "properties": {"u": {"$ref": "#/$defs/Unit"}}, "$defs": {"Unit": unit}},
         "outputSchema": {"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "$defs": {"P": {"type": "object", "properties": {"x": {"type": "number"}}}}}},
        {"name": "c", "inputSchema": {"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "$defs": {"P": {"type": "object", "properties": {"y": {"type": "string"}}}}}},
    ]
    result = spec_from_snapshot(ServerSnapshot({"name": "s", "version": "1"}, None, tools))
    assert result.data["$defs"] == {"Unit": unit}  # identical everywhere: shared, wire unchanged
    assert "$defs" not in result.data["tools"][0]["inputSchema"]
    names = {_entry(result.data, t)[k]["$defs"]["P"]["x-python-name"] for t, k in (("b", "outputSchema"), ("c", "inputSchema"))}
    assert names == {"BOutputP", "CP"}  # bodies differ: kept local, distinct class names


def test_sloppy_spec_builds_imports_and_warns(pulled: Any, tmp_path: Path) -> None:
    diags = check_spec(pulled, "sloppy.yaml")
    assert not [d.render() for d in diags if d.level is Level.ERROR]
    assert all(d.code in CODES for d in diags)
    noted = {(d.code, d.pointer) for d in diags}
    index = {t["name"]: i for i, t in enumerate(pulled.data["tools"])}
    for case, (_, expected) in CASES.items():  # every pull note is a located warning
        for code, pointer in expected:
            assert (code, f"/tools/{index[case]}{pointer}") in noted
    # what build tolerates by itself (W102/W103), located at the sloppy places
    assert ("W102", f"/tools/{index['no_root_type']}/inputSchema") in noted
    assert ("W102", f"/tools/{index['default_null']}/inputSchema/properties/s/default") in noted
    assert ("W102", f"/tools/{index['default_null']}/inputSchema/properties/n/default") in noted
    assert ("W103", f"/tools/{index['ns/slashed']}/name") in noted

    spec = tmp_path / "sloppy.yaml"
    write_spec(pulled.text, spec)
    result, report = build([spec], tmp_path / "out")
    assert report is not None, [d.render() for d in result.diagnostics]
    with imported(tmp_path / "out", "sloppy_server") as mods:
        client, models = mods["client"].SloppyServerClient, mods["models"]

        def params(method: str) -> Any:
            return inspect.signature(getattr(client, method)).parameters

        assert list(params("no_root_type")) == ["self", "x"]
        assert repr(params("default_null")["s"].default) == repr(params("default_null")["n"].default) == "UNSET"
        assert list(params("ref_root")) == ["self", "q"]
        assert {"get_sum", "get_sum_2", "get_sum_3", "timeout_", "ns_slashed"} <= set(dir(client))
        assert models.NoRootTypeInput.model_validate({"x": "a"}).x == "a"
        assert models.ArrayOutputOutput.model_validate(["a", "b"]).root == ["a", "b"]
        tree = models.RecursiveDefsInput.model_validate({"tree": {"kids": [{"kids": []}]}})
        assert tree.tree is not None and tree.tree.kids is not None and len(tree.tree.kids) == 1


def test_write_spec_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "x.yaml"
    write_spec("one\n", target)
    with pytest.raises(FileExistsError):
        write_spec("two\n", target)
    assert target.read_text("utf-8") == "one\n"
    write_spec("two\n", target, force=True)
    assert target.read_text("utf-8") == "two\n"


@pytest.mark.parametrize("text", ["yes", "1.0", "null", "~", "- x", "a: b", "#c", "multi\nline\n", "trail \nspace", "",
                                  "tab\there", "ünïcödé ✓", "'quoted'", '"dq"', "{x}", "[y]", "@at", "%pct", "`tick`"])
def test_yaml_emitter_round_trips(text: str) -> None:
    tool = {"name": "t", "description": text, "inputSchema": {"type": "object", "properties": {
        "p": {"type": "string", "enum": [text, "other"], "default": text, "description": text}}}}
    result = spec_from_snapshot(ServerSnapshot({"name": "s", "version": "1", "title": text or "x"}, text or None, [tool]))
    assert yaml.safe_load(result.text) == result.data  # also asserted inside; kept explicit here


def test_live_snapshot_from_in_process_server() -> None:
    """read_server on the generated weather server in process (no subprocess): the API path."""
    import sys

    from mcp_codegen_runtime.client import ClientBase

    from codegen.commands.pull.flow import read_server

    examples = str(Path(__file__).resolve().parents[2] / "generated_examples")
    sys.path.insert(0, examples)
    try:
        import weather_impl

        snapshot = asyncio.run(read_server(ClientBase.in_process(weather_impl.WeatherService())))
    finally:
        sys.path.remove(examples)
    assert snapshot.server_info["name"] == "weather" and snapshot.era == "modern"
    assert sorted(t["name"] for t in snapshot.tools) == ["get_forecast", "get_weather"]


def test_terminal_escapes_in_server_info_do_not_break_pull() -> None:
    """A hostile serverInfo (ESC, BEL) gives a readable name and a spec that loads and builds."""
    snapshot = ServerSnapshot({"name": "\x1b[31mevil\x07 server", "version": "1\x07", "title": "t\x1b]0;x\x07"},
                              "instr\x1b[2J", [{"name": "a", "description": "d\x1b[31m", "inputSchema": OBJ}])
    result = spec_from_snapshot(snapshot)
    assert result.data["server"]["name"] == "evil server"
    assert yaml.safe_load(result.text) == result.data
    assert not [d.render() for d in check_spec(result, "evil.yaml") if d.level is Level.ERROR]


def test_pull_hints_name_the_real_cause() -> None:
    from mcp_codegen_runtime.wire.errors import TransportClosedError, UnsupportedProtocolVersionError

    from codegen.commands.pull.flow import PullError, _pull_hint

    def failing(cause: Exception, text: str) -> PullError:
        try:
            raise PullError(text) from cause
        except PullError as exc:
            return exc

    version = _pull_hint(failing(UnsupportedProtocolVersionError("x"), "answered with protocol version '2023-01-01'"))
    assert "--era or --protocol-version will not help" in version
    assert "--era legacy" not in version
    assert "timeout" in _pull_hint(PullError("no complete answer from the server within 5 s"))
    assert "exited" in _pull_hint(failing(TransportClosedError("gone"), "TransportClosedError: gone"))


def test_catalog_is_normalized_into_spec_entries() -> None:
    from codegen.commands.pull.catalog import normalize_catalog

    catalog, notes = normalize_catalog(
        [{"uri": "x://a", "name": "a.md", "size": 3, "vendorKey": 1}, {"uri": "x://a", "name": "other"},
         {"name": "no uri"}, {"uri": "x://b", "name": "a-md"}],
        [{"uriTemplate": "x://{id}", "name": "t"}, {"uriTemplate": "x://{ids*}", "name": "exploded"}],
        [{"name": "p", "arguments": [{"name": "q", "required": True, "schema": {}}, "junk"]}, {"name": "p"}])
    assert catalog["resources"] == [{"uri": "x://a", "name": "a.md", "size": 3},
                                    {"uri": "x://b", "name": "a-md", "python_name": "a_md_2"}]
    assert catalog["resourceTemplates"] == [{"uriTemplate": "x://{id}", "name": "t"}]
    assert catalog["prompts"] == [{"name": "p", "arguments": [{"name": "q", "required": True}]}]
    messages = " | ".join(n.message for n in notes)
    for expected in ("'vendorKey' left out", "duplicate 'x://a'", "no uri or name", "explode", "'schema' left out",
                     "duplicate 'p'", "Python name read_a_md_2"):
        assert expected in messages, (expected, messages)
