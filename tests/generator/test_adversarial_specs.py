"""Adversarial specs: hostile text, names, references, nesting and output paths.

Each case ends in one of two ways: a located diagnostic (and no output), or a package that
imports cleanly, runs no injected code (a canary file must not appear after importing it and
calling into it) and carries the spec's text exactly (tools/list on the wire, ``SERVER_INFO``,
model defaults and enum values; docstrings up to whitespace).

The golden cases ``escaping`` and ``names`` pin the generated text of a few of these; this
suite covers the full list in ``adversarial_support.NASTY`` and checks behaviour, not bytes.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from adversarial_support import NASTY, build_spec, run_python, snapshot, write_spec

from codegen.api import build, generate
from codegen.commands.cli.main import main as cli_main  # noqa: F401  (import check: the CLI module loads)

MANY = 5000  # enum size for the "huge enum" case


def _nasty_spec() -> dict[str, Any]:
    tools = []
    for i, text in enumerate(NASTY):
        prop = text if text.strip() else f"blank{i}"
        tools.append({
            "name": f"t{i}",
            "title": text,
            "description": text,
            "inputSchema": {
                "type": "object",
                "description": text,
                "properties": {
                    "p": {"type": "string", "description": text, "default": text, "title": text},
                    "e": {"type": "string", "enum": [text, text + "2"], "description": text},
                    "c": {"const": text},
                    "arr": {"type": "array", "items": {"type": "string"}, "default": [text], "examples": [[text]]},
                    prop: {"type": "integer", "description": text},
                    "ref": {"$ref": "#/$defs/Shared"},
                },
            },
            "outputSchema": {"type": "object", "properties": {"o": {"type": "string", "description": text}}},
            "errors": {f"err_{i}": {"description": text}},
            "inputs": {"ask": {"method": "elicitation/create", "message": text or "m",
                               "requestedSchema": {"type": "object", "properties": {"a": {"type": "string", "description": text}}}}},
            "_meta": {"note": text},
        })
    return {
        "mcp-codegen": 1,
        "server": {"name": "nasty", "version": "1.0.0", "title": "\n".join(NASTY), "instructions": "".join(NASTY)},
        "$defs": {"Shared": {"type": "object", "description": "\n".join(NASTY),
                             "properties": {"s": {"type": "string", "description": "\\\"\"\"", "default": "\"\"\"\\"}}}},
        "tools": tools,
    }


CHECK = r'''
import asyncio, inspect, json, os, sys
spec = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "spec.json", encoding="utf-8"))
import nasty, nasty.models, nasty.server, nasty.client, nasty.errors, nasty.tools, nasty.__main__
from nasty.tools import SERVER_INFO, TOOLS
from nasty.server import NastyServerBase
from nasty.client import NastyClient

def norm(s): return " ".join(str(s).split())
problems = []
def check(ok, what):
    if not ok: problems.append(what)

check(SERVER_INFO.title == spec["server"]["title"], "server title")
check(SERVER_INFO.instructions == spec["server"]["instructions"], "server instructions")
for tdef, tspec in zip(TOOLS, spec["tools"], strict=True):
    text = tspec["description"]
    w = tdef.wire
    check(w["title"] == tspec["title"] and w["description"] == text, f"{tdef.name} wire text")
    props = w["inputSchema"]["properties"]
    check(props == tspec["inputSchema"]["properties"], f"{tdef.name} wire inputSchema")
    check(w.get("_meta") == tspec["_meta"], f"{tdef.name} wire _meta")
    model = tdef.input_model
    fields = {(f.alias or n): f for n, f in model.model_fields.items()}
    check(set(fields) == set(tspec["inputSchema"]["properties"]), f"{tdef.name} field names {sorted(fields)}")
    check(fields["p"].default == text, f"{tdef.name} default {fields['p'].default!r}")
    check(fields["arr"].default == [text], f"{tdef.name} array default")
    ann = fields["e"].annotation
    enum_cls = next(a for a in getattr(ann, "__args__", (ann,)) if a is not type(None))
    check([m.value for m in enum_cls] == [text, text + "2"], f"{tdef.name} enum values")
    check(model.model_validate({"c": text}).model_dump(by_alias=True, exclude_unset=True) == {"c": text}, f"{tdef.name} const")
    err_cls = tdef.errors[next(iter(tspec["errors"]))]
    if text.strip():
        check(norm(inspect.cleandoc(err_cls.__doc__)) == norm(text), f"{tdef.name} error doc {err_cls.__doc__!r}")
        method_doc = inspect.cleandoc(getattr(NastyServerBase, tdef.method).__doc__)
        check(norm(method_doc).startswith(norm(text)), f"{tdef.name} method doc {method_doc[:60]!r}")
        client_doc = inspect.cleandoc(getattr(NastyClient, tdef.method).__doc__)
        check(norm(client_doc).startswith(norm(text)), f"{tdef.name} client doc")

class Impl(NastyServerBase):
    pass

async def main():
    server = Impl()
    async with NastyClient.in_process(server) as client:
        tools = await client.list_tools()
        for wire, tspec in zip(tools, spec["tools"], strict=True):
            check(wire.description == tspec["description"] and wire.title == tspec["title"], "tools/list text")
            check(wire.input_schema["properties"] == tspec["inputSchema"]["properties"], "tools/list schema")
        for tdef in TOOLS:
            res = await client.call_raw(tdef.name, {"p": tdef.wire["description"]})
            check(res.isError, f"{tdef.name} call should be a not-implemented error")

asyncio.run(main())
check(not os.path.exists("CANARY"), "CANARY file created: injected code ran")
print(json.dumps(problems))
'''


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_nasty_text_is_carried_exactly(tmp_path: Path, fmt: str) -> None:
    spec = _nasty_spec()
    result, report, out = build_spec(tmp_path, spec, fmt)
    assert result.ok and report is not None, "\n".join(d.render() for d in result.diagnostics)
    run = tmp_path / "run"
    run.mkdir()
    (run / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    proc = run_python(CHECK, out, run)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
    assert not (run / "CANARY").exists() and not (tmp_path / "CANARY").exists()
    for path in out.rglob("*.py"):
        assert "\x00" not in path.read_text("utf-8")


def test_json_surrogate_pairs_are_joined_and_lone_ones_refused(tmp_path: Path) -> None:
    spec = _minimal("emoji 😀 𝔘")
    good = write_spec(tmp_path / "good", spec)  # json.dumps writes \ud83d\ude00 escapes
    assert "\\ud83d\\ude00" in good.read_text()
    result, report = build([good], tmp_path / "good" / "out")
    assert result.ok and report is not None
    tools = (tmp_path / "good" / "out" / "adv" / "tools.py").read_text("utf-8")
    # the wire JSON is ASCII-escaped in tools.py: one escaped pair per astral character
    assert "emoji \\ud83d\\ude00 \\ud835\\udd18" in tools
    wire = json.loads(tools.split('wire=json.loads(r"""', 1)[1].split('"""', 1)[0])
    assert wire["description"] == "emoji 😀 𝔘"
    bad = tmp_path / "bad" / "spec.json"
    bad.parent.mkdir()
    bad.write_text(good.read_text().replace("\\ud83d\\ude00", "\\ud83d"), encoding="utf-8")
    result = generate([bad])
    assert [d.code for d in result.diagnostics] == ["E004"]
    assert result.diagnostics[0].pointer == "/tools/0/description" and result.diagnostics[0].line > 0
    bad_yaml = tmp_path / "bad" / "spec.yaml"
    bad_yaml.write_text('mcp-codegen: 1\nserver: {name: adv, version: "1"}\ntools:\n  - name: t\n    description: "x\\udc00"\n'
                        "    inputSchema: {type: object}\n", encoding="utf-8")
    result = generate([bad_yaml])
    assert [(d.code, d.line) for d in result.diagnostics] == [("E004", 5)]


def test_json_with_raw_control_characters_builds(tmp_path: Path) -> None:
    """Valid JSON that YAML refuses (raw DEL, C1 controls) still loads, keeping the text."""
    text = "del\x7f c1\x85\x9b end"
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(_minimal(text), ensure_ascii=False), encoding="utf-8")
    result, report = build([path], tmp_path / "out")
    assert result.ok and report is not None, [d.render() for d in result.diagnostics]
    proc = run_python("from adv.tools import TOOLS; print(ascii(TOOLS[0].wire['description']))", tmp_path / "out", tmp_path)
    assert proc.stdout.strip() == ascii(text)


def test_json_numbers_keep_their_json_type(tmp_path: Path) -> None:
    spec = _minimal("n")
    spec["tools"][0]["inputSchema"]["properties"] = {"x": {"type": "number", "maximum": 1e5, "default": 1e-3}}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec).replace("100000.0", "1e5").replace("0.001", "1e-3"), encoding="utf-8")
    assert "1e5" in path.read_text()
    result = generate([path])
    assert result.ok, [d.render() for d in result.diagnostics]
    tools = next(f.content for f in result.files if f.path == "adv/tools.py")
    assert '"maximum": 100000.0' in tools and '"default": 0.001' in tools


# ------------------------------------------------------------------ names
def _minimal(description: str = "d", name: str = "adv", tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"mcp-codegen": 1, "server": {"name": name, "version": "1.0"},
            "tools": tools or [{"name": "t", "description": description, "inputSchema": {"type": "object", "properties": {}}}]}


HOSTILE_NAMES = ["__init__", "__class__", "__dict__", "_runtime", "None", "True", "async", "await", "match", "case",
                 "type", "print", "exec", "eval", "handle", "authorize", "settings", "close", "connect", "call_raw",
                 "list_tools", "server_info", "tool_defs", "client", "models", "errors", "tools", "self", "ctx", "args",
                 "0", "9lives", "...", "model_config", "model_fields", "model_validate", "BaseModel", "Field"]


def test_hostile_tool_and_field_names_build_and_work(tmp_path: Path) -> None:
    props = {n: {"type": "string"} for n in HOSTILE_NAMES} | {"": {"type": "string"}, "a b": {"type": "integer"}}
    tools = [{"name": n, "description": n, "inputSchema": {"type": "object", "properties": props}} for n in HOSTILE_NAMES]
    spec = _minimal(name="__init__", tools=tools)
    result, report, out = build_spec(tmp_path, spec)
    assert result.ok and report is not None, "\n".join(d.render() for d in result.diagnostics)
    (pkg,) = [p.name for p in out.iterdir() if p.is_dir()]
    code = f'''
import asyncio, json
import {pkg}.server as s, {pkg}.client as c, {pkg}.tools as t
base = next(v for k, v in vars(s).items() if k.endswith("ServerBase") and k != "ServerBase")
client_cls = next(v for k, v in vars(c).items() if k.endswith("Client") and not k.endswith("SyncClient") and k != "ClientBase")
names = {{d.name: d.method for d in t.TOOLS}}
assert len(set(names.values())) == len(names), names
class Impl(base):
    pass
for name, method in names.items():
    async def handler(self, args, ctx, _n=name):
        return "ran " + _n + " " + json.dumps(args.model_dump(by_alias=True, exclude_unset=True), sort_keys=True)
    setattr(Impl, method, handler)
async def main():
    server = Impl()
    assert server.settings.page_size > 0      # runtime attributes are not shadowed
    async with client_cls.in_process(server) as cl:
        listed = [x.name for x in await cl.list_tools()]
        assert listed == list(names), listed
        for name in names:
            res = await cl.call_raw(name, {{"__init__": "v", "": "e", "a b": 1}})
            text = res.content[0].text
            assert not res.isError and text.startswith("ran " + name + " "), (name, res)
            assert json.loads(text.split(" ", 2)[2]) == {{"__init__": "v", "": "e", "a b": 1}}, text
asyncio.run(main())
print("ok")
'''
    proc = run_python(code, out, tmp_path)
    assert proc.stdout.strip() == "ok", proc.stderr[-3000:]


@pytest.mark.parametrize("names", [["get-x", "get_x"], ["Get.X", "get_x"], ["a.b", "a-b"], ["...", "-"]])
def test_names_colliding_after_normalisation_are_errors(names: list[str]) -> None:
    tools = [{"name": n, "inputSchema": {"type": "object"}} for n in names]
    result = generate([_write_tmp(_minimal(tools=tools))])
    codes = {d.code for d in result.diagnostics}
    assert not result.ok and "E030" in codes
    assert all(d.line > 0 and d.pointer.startswith("/tools/") for d in result.diagnostics if d.code == "E030")


def test_invalid_tool_names_are_errors() -> None:
    bad = ["a b", "x" * 129, "tool\n", "\ttool", "nul\x00", "", "del\x7f"]
    tools = [{"name": n, "inputSchema": {"type": "object"}} for n in bad]
    result = generate([_write_tmp(_minimal(tools=tools))])
    assert not result.ok
    assert sorted(d.pointer for d in result.diagnostics if d.code in ("E020", "E010")) == [f"/tools/{i}/name" for i in range(len(bad))]


@pytest.mark.parametrize(("key", "value"), [("package", "x\n"), ("class_name", "X\n"), ("implementation", "m:C\n")])
def test_name_patterns_refuse_a_trailing_newline(key: str, value: str) -> None:
    spec = _minimal()
    spec["server"][key] = value
    result = generate([_write_tmp(spec)])
    assert not result.ok
    assert [(d.code, d.pointer) for d in result.diagnostics if d.is_error] == [("E010", f"/server/{key}")]


_TMP_COUNTER = iter(range(1_000_000))


def _write_tmp(spec: dict[str, Any], fmt: str = "json") -> Path:
    base = Path(os.environ.get("PYTEST_TMPDIR", "/tmp")) / f"mcp-codegen-adv-{os.getpid()}-{next(_TMP_COUNTER)}"
    return write_spec(base, spec, fmt)


# ------------------------------------------------------------------ references and nesting
def test_recursive_object_refs_build(tmp_path: Path) -> None:
    spec = _minimal()
    spec["$defs"] = {
        "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}},
        "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
        "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
    }
    spec["tools"][0]["inputSchema"]["properties"] = {"node": {"$ref": "#/$defs/Node"}, "a": {"$ref": "#/$defs/A"}}
    result, report, out = build_spec(tmp_path, spec)
    assert result.ok and report is not None, [d.render() for d in result.diagnostics]
    code = ("from adv.models import TInput\n"
            "m = TInput.model_validate({'node': {'next': {'kids': [{}]}}, 'a': {'b': {'a': {}}}})\n"
            "print(m.model_dump(exclude_none=True, by_alias=True))")
    proc = run_python(code, out, tmp_path)
    assert proc.stdout.strip() == "{'node': {'next': {'kids': [{}]}}, 'a': {'b': {'a': {}}}}", proc.stderr[-2000:]


@pytest.mark.parametrize("ref,code", [
    ("#/$defs/A", "E027"),                      # A -> B -> A, nothing but refs
    ("https://example.com/schema.json", "E025"),
    ("http://127.0.0.1:9/x.json#/a", "E025"),
    ("file:///etc/passwd", "E025"),
    ("//example.com/x.json", "E026"),
    ("../outside.json", "E026"),
    ("/etc/hostname", "E026"),
    ("sub/../../outside.json", "E026"),
    ("link/outside.json", "E026"),              # a symlink in the spec folder pointing out of it
    ("#/$defs/Missing", "E024"),
    ("#anchor", "E024"),
])
def test_bad_refs_are_located_errors(tmp_path: Path, ref: str, code: str) -> None:
    (tmp_path / "outside.json").write_text('{"type": "string"}')
    spec_dir = tmp_path / "specs"
    spec_dir.mkdir()
    (spec_dir / "sub").mkdir()
    (spec_dir / "link").symlink_to(tmp_path)
    spec = _minimal()
    spec["$defs"] = {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}} if code == "E027" else {}
    spec["tools"][0]["inputSchema"]["properties"] = {"x": {"$ref": ref}}
    start = time.monotonic()
    result = generate([write_spec(spec_dir, spec)])
    assert time.monotonic() - start < 10
    assert not result.ok and not result.files
    hits = [d for d in result.diagnostics if d.code == code]
    assert hits, [d.render() for d in result.diagnostics]
    assert all(d.line > 0 for d in hits)


@pytest.mark.parametrize("fmt", ["json", "yaml"])
@pytest.mark.parametrize("depth", [100, 1000, 20000])
def test_deep_nesting_is_a_quick_e028(depth: int, fmt: str, tmp_path: Path) -> None:
    open_, close = ('{"type": "object", "properties": {"a": ', "}}") if fmt == "json" else ("{type: object, properties: {a: ", "}}")
    inner = open_ * depth + '{"type": "string"}' + close * depth
    text = ('{"mcp-codegen": 1, "server": {"name": "deep", "version": "1"}, "tools": [{"name": "t", "inputSchema": '
            + inner + "}]}")
    path = tmp_path / f"deep.{fmt}"
    path.write_text(text if fmt == "json" else text.replace('"mcp-codegen"', "mcp-codegen"), encoding="utf-8")
    start = time.monotonic()
    result = generate([path])
    took = time.monotonic() - start
    assert [d.code for d in result.diagnostics] == ["E028"], [d.render()[:200] for d in result.diagnostics]
    assert result.diagnostics[0].line >= 1 and result.diagnostics[0].col > 1
    assert took < 5, f"E028 took {took:.1f}s"


def test_huge_enum_builds(tmp_path: Path) -> None:
    values = [f"v{i}-{NASTY[i % len(NASTY)]}" for i in range(MANY)]
    spec = _minimal()
    spec["tools"][0]["inputSchema"]["properties"] = {"e": {"type": "string", "enum": values}}
    start = time.monotonic()
    result, report, out = build_spec(tmp_path, spec)
    print(f"\n{MANY}-value enum built in {time.monotonic() - start:.1f}s")
    assert result.ok and report is not None, [d.render()[:300] for d in result.diagnostics]
    code = ("import json, sys\nfrom adv.models import TInput\nann = TInput.model_fields['e'].annotation\n"
            "enum = next(a for a in getattr(ann, '__args__', (ann,)) if a is not type(None))\n"
            "print(json.dumps([m.value for m in enum]))")
    proc = run_python(code, out, tmp_path)
    assert json.loads(proc.stdout) == values, proc.stderr[-2000:]


# ------------------------------------------------------------------ output paths
def test_symlinked_package_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "adv").symlink_to(elsewhere, target_is_directory=True)
    result, report = build([write_spec(tmp_path / "s", _minimal())], out)
    assert report is None and any(d.code == "E040" for d in result.diagnostics)
    assert list(elsewhere.iterdir()) == []


def test_symlinked_file_in_package_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    spec = write_spec(tmp_path / "s", _minimal())
    result, report = build([spec], out)
    assert report is not None
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / "adv" / "models.py").unlink()
    (out / "adv" / "models.py").symlink_to(victim)
    inside = out / "adv" / "errors.py"
    inside.unlink()
    inside.symlink_to(out / "adv" / "tools.py")  # a link that stays inside is refused too
    before = snapshot(out)
    result, report = build([spec], out)
    assert report is None
    assert sorted(d.message for d in result.diagnostics if d.code == "E040") == [
        "output path 'adv/errors.py' is a symlink; refusing to write through it",
        "output path 'adv/models.py' escapes the output folder",
    ]
    assert victim.read_text() == "precious" and snapshot(out) == before


@pytest.mark.parametrize("name", ["../evil", "/tmp/evil", "..", "a/../../b", "C:\\evil", "~root"])
def test_server_names_cannot_escape_the_output_folder(tmp_path: Path, name: str) -> None:
    out = tmp_path / "deep" / "out"
    result, report = build([write_spec(tmp_path / "s", _minimal(name=name))], out)
    if report is None:
        assert not result.ok and all(d.line >= 0 for d in result.diagnostics)
    produced = {p.resolve() for p in tmp_path.rglob("*") if p.is_file()} - {(tmp_path / "s" / "spec.json").resolve()}
    assert all(p.is_relative_to(out.resolve()) for p in produced), sorted(map(str, produced))


def test_package_override_cannot_escape(tmp_path: Path) -> None:
    spec = _minimal()
    for bad in ["../x", "/abs", "a.b", "A"]:
        spec["server"]["package"] = bad
        result = generate([write_spec(tmp_path, spec)])
        assert [d.code for d in result.diagnostics] == ["E010"], bad
        assert result.diagnostics[0].pointer == "/server/package"


_BOMB = "\n".join(["a: &a [x, x, x, x, x, x, x, x, x]"]
                  + [f"{c}: &{c} [{', '.join(['*' + p] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)]) + "\n"


@pytest.mark.parametrize(("text", "code", "line"), [
    (_BOMB, "E006", None),  # 9^9 values if expanded: refused quickly instead
    ("a: &a [*a]\n", "E006", 1),
    ("mcp-codegen: 1\nserver: !foo {name: x}\n", "E005", 2),
    ("mcp-codegen: 1\nx: !!python/name:os.system ''\n", "E005", 2),
    ("mcp-codegen: 1\nx: !!int 'x'\n", "E005", 2),
    ("base: &b {type: string}\nm: {<<: *b, minLength: 1}\n", "E005", 2),
])
def test_yaml_tags_merge_keys_and_alias_bombs_are_located_errors(tmp_path: Path, text: str, code: str,
                                                                   line: int | None) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(text, "utf-8")
    started = time.monotonic()
    result = generate([spec])
    assert time.monotonic() - started < 30  # bounded work (was minutes and gigabytes)
    errors = [d for d in result.diagnostics if d.is_error]
    assert [d.code for d in errors] == [code], [d.render() for d in errors]
    assert errors[0].line >= 1 and (line is None or errors[0].line == line)


def test_yaml_aliases_within_limits_still_work(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver: {name: al, version: '1'}\ntools:\n"
                    "  - {name: a, inputSchema: &s {type: object, properties: {q: {type: string}}}}\n"
                    "  - {name: b, inputSchema: *s}\n", "utf-8")
    result = generate([spec])
    assert result.ok, [d.render() for d in result.diagnostics]


def test_programming_language_type_names_get_a_did_you_mean(tmp_path: Path) -> None:
    spec = _minimal(tools=[{"name": "t", "inputSchema": {"type": "object", "properties": {
        "n": {"type": "int"}, "m": {"type": ["str", "null"]}}}}])
    result = generate([_write_tmp(spec)])
    hints = {d.pointer.rsplit("/", 2)[-2]: d.hint for d in result.diagnostics if d.code == "E023"}
    assert "did you mean 'integer'" in hints["n"] and "did you mean 'string' for 'str'" in hints["m"]
