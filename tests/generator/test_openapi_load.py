"""`mcp-codegen openapi` on broken documents: every problem a located diagnostic, never a traceback
(hand-written cases, then a seeded fuzz over mutated documents)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from openapi_support import run, v3, write_doc

from codegen.commands.openapi.convert import convert
from codegen.diagnostics import CODES

OK = {"200": {"description": "ok"}}


def located(conv: Any) -> list[tuple[str, int, str]]:
    return [(d.code, d.line, d.pointer) for d in conv.diagnostics if d.is_error]


def test_yaml_syntax_error(tmp_path: Path) -> None:
    conv = run(tmp_path, "openapi: 3.0.0\ninfo: {title: x\npaths: {}\n")
    assert conv.text is None
    assert [(d.code, d.line) for d in conv.diagnostics] == [("E002", 3)]


def test_not_openapi_and_unsupported_version(tmp_path: Path) -> None:
    assert located(run(tmp_path, "mcp-codegen: 1\n")) == [("E140", 1, "")]
    assert located(run(tmp_path, "swagger: '1.2'\ninfo: {}\n")) == [("E140", 1, "/swagger")]
    assert located(run(tmp_path, "- a list\n")) == [("E140", 1, "")]


def test_wrong_shapes_are_located(tmp_path: Path) -> None:
    text = ("openapi: 3.0.3\n"
            "info: {title: t, version: '1'}\n"
            "servers: [{url: 'https://x.example.com'}]\n"
            "paths:\n"
            "  /a:\n"
            "    get: [not, a, mapping]\n"
            "  b: {}\n"
            "  /c:\n"
            "    get:\n"
            "      parameters:\n"
            "        - {name: q, in: body}\n"
            "      responses: 7\n")
    conv = run(tmp_path, text)
    assert conv.text is None
    assert located(conv) == [("E141", 6, "/paths/~1a/get"), ("E141", 7, "/paths/b"),
                             ("E141", 11, "/paths/~1c/get/parameters/0/in"), ("E141", 12, "/paths/~1c/get/responses")]
    rendered = [d.render() for d in conv.diagnostics]
    assert rendered[0].startswith("api.yaml:6:10: error[E141]: an operation must be a mapping (at /paths/~1a/get)") \
        or rendered[0].startswith(str(tmp_path / "api.yaml") + ":6:10: error[E141]")


def test_missing_paths(tmp_path: Path) -> None:
    conv = run(tmp_path, "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://x.example.com'}]\n")
    assert located(conv) == [("E141", 1, "")]


def test_ref_problems(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "common.yaml").write_text("Name: {type: string}\nLoop: {$ref: '#/Loop'}\n")
    (tmp_path.parent / f"{tmp_path.name}-outside.yaml").write_text("X: {type: string}\n")
    doc = v3({"/a": {"get": {"operationId": "a", "parameters": [
        {"name": "n", "in": "query", "schema": {"$ref": "shared/common.yaml#/Name"}},
        {"name": "m", "in": "query", "schema": {"$ref": "shared/common.yaml#/Missing"}},
        {"name": "o", "in": "query", "schema": {"$ref": f"../{tmp_path.name}-outside.yaml#/X"}},
        {"name": "p", "in": "query", "schema": {"$ref": "https://example.com/s.yaml#/X"}},
        {"$ref": "#/components/parameters/Cycle"},
        {"name": "r", "in": "query", "schema": {"$ref": "shared/nothere.yaml"}}], "responses": OK}}},
        components={"parameters": {"Cycle": {"$ref": "#/components/parameters/Cycle"}}})
    conv = run(tmp_path, doc)
    errors = sorted((d.code, d.pointer) for d in conv.diagnostics if d.is_error)
    assert errors == [
        ("E142", "/paths/~1a/get/parameters/1/schema/$ref"),
        ("E142", "/paths/~1a/get/parameters/5/schema/$ref"),
        ("E143", "/paths/~1a/get/parameters/3/schema/$ref"),
        ("E144", "/paths/~1a/get/parameters/2/schema/$ref"),
        ("E145", "/components/parameters/Cycle/$ref"),
    ]
    assert all(d.line > 0 for d in conv.diagnostics)


def test_ref_into_local_file_becomes_a_def(tmp_path: Path) -> None:
    (tmp_path / "models.yaml").write_text("Pet: {type: object, properties: {self: {$ref: '#/Pet'}, n: {type: string}}}\n")
    doc = v3({"/p": {"get": {"operationId": "p", "responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": {"type": "array", "items": {"$ref": "models.yaml#/Pet"}}}}}}}}})
    conv = run(tmp_path, doc)
    assert conv.ok, [d.render() for d in conv.diagnostics]
    assert conv.data is not None
    assert conv.data["$defs"] == {"Pet": {"type": "object", "properties": {"self": {"$ref": "#/$defs/Pet"},
                                                                           "n": {"type": "string"}}}}


_BASE = v3({"/pets/{id}": {
    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
    "get": {"operationId": "getPet", "tags": ["pet"], "parameters": [{"$ref": "#/components/parameters/Q"}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Pet"}}}}, "404": {"$ref": "#/components/responses/NF"}}},
    "post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}},
                                         "multipart/form-data": {"schema": {"type": "object"}}}},
             "security": [{"key": []}], "responses": {"201": {"description": "made"}}}}},
    components={"schemas": {"Pet": {"type": "object", "required": ["name"], "nullable": True, "properties": {
        "name": {"type": "string", "enum": ["a"]}, "kids": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
        "n": {"type": "number", "minimum": 1, "exclusiveMinimum": True}}, "discriminator": {"propertyName": "name"}}},
        "parameters": {"Q": {"name": "q", "in": "query", "style": "form", "schema": {"type": "array", "items": {}}}},
        "responses": {"NF": {"description": "nf"}},
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "k"}}},
    security=[{"key": []}])
_JUNK: list[Any] = [None, 0, -1, 1.5, True, "", "x", "#/nope", [], [1, "a"], {}, {"$ref": "#/components"},
                    {"$ref": "#/paths"}, {"$ref": 3}, {"type": "bogus"}, "/", {"a": {"b": None}}]


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _nodes(v, (*path, i))
    return out


def _mutate(doc: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for _ in range(rnd.randint(1, 4)):
        path = rnd.choice(_nodes(doc)[1:])
        parent: Any = doc
        for key in path[:-1]:
            parent = parent[key]
        if rnd.random() < 0.2 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(rnd.choice(_JUNK))
    return doc


@pytest.mark.parametrize("seed", range(8))
def test_fuzz_no_traceback(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    for i in range(40):
        doc = _mutate(_BASE, rnd)
        path = write_doc(tmp_path, json.dumps(doc), f"d{i}.json")
        conv = convert(path, tmp_path / "specs" / f"d{i}.yaml")
        assert all(d.code in CODES for d in conv.diagnostics)
        assert (conv.text is None) == any(d.is_error for d in conv.diagnostics)
        for d in conv.diagnostics:
            assert d.render()
