"""`mcp-codegen openapi` curation (the spec's `openapi` section, --overlay), re-conversion, the
command line, and `diff` of two OpenAPI documents."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from openapi_support import v3, write_doc

from codegen.commands.diff import diff
from codegen.commands.openapi.convert import convert, write

OK = {"200": {"description": "ok"}}


def _doc(extra_param: bool = False) -> dict:
    params = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
              {"name": "verbose", "in": "query", "schema": {"type": "boolean"}},
              {"name": "api-version", "in": "query", "required": True, "schema": {"type": "string"}}]
    if extra_param:
        params.append({"name": "lang", "in": "query", "schema": {"type": "string"}})
    return v3({"/pets/{id}": {"get": {"operationId": "getPet", "tags": ["pet"], "parameters": params, "responses": OK},
                              "delete": {"operationId": "deletePet", "tags": ["pet"], "parameters": params[:1],
                                         "responses": OK}},
               "/store/orders": {"get": {"operationId": "listOrders", "tags": ["store"], "responses": OK},
                                 "post": {"tags": ["store"], "responses": OK}}})


CURATION = """\
openapi:
  exclude: {methods: [DELETE]}
  tools:
    getPet:
      name: pet_get
      description: Fetch one pet.
      hide: [verbose]
      pin: {api-version: "2024-01-01"}
      annotations: {title: Get a pet}
    POST /store/orders: {name: order_create}
"""


def _convert(tmp: Path, doc: dict, **kw: object) -> tuple[Path, str]:
    source = write_doc(tmp, doc)
    out = tmp / "specs" / "api.yaml"
    conv = convert(source, out, **kw)  # type: ignore[arg-type]
    assert conv.ok, [d.render() for d in conv.diagnostics]
    assert write(conv, out) == []
    return out, out.read_text("utf-8")


def test_overlay_applied_and_kept_across_reconversion(tmp_path: Path) -> None:
    overlay = tmp_path / "curation.yaml"
    overlay.write_text(CURATION)
    out, first = _convert(tmp_path, _doc(), overlay=overlay)
    data = yaml.safe_load(first)
    assert [t["name"] for t in data["tools"]] == ["pet_get", "listOrders", "order_create"]
    pet = data["tools"][0]
    assert pet["description"] == "Fetch one pet.\n\nHTTP GET /pets/{id} (operationId getPet)"
    assert pet["annotations"] == {"readOnlyHint": True, "openWorldHint": True, "title": "Get a pet"}
    assert pet["inputSchema"] == {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    assert pet["http"]["fixed"] == [{"in": "query", "name": "api-version", "value": "2024-01-01"}]
    assert data["openapi"] == {"source": "../api.yaml", **yaml.safe_load(CURATION)["openapi"]}
    # a newer document, converted again without --overlay: the section is read from the spec itself
    _, second = _convert(tmp_path, _doc(extra_param=True))
    again = yaml.safe_load(second)
    assert again["openapi"] == data["openapi"]
    assert [t["name"] for t in again["tools"]] == ["pet_get", "listOrders", "order_create"]
    assert list(again["tools"][0]["inputSchema"]["properties"]) == ["id", "lang"]
    # the same inputs: the same bytes
    _, third = _convert(tmp_path, _doc(extra_param=True))
    assert third == second


def test_include_by_tag_path_glob_and_operation(tmp_path: Path) -> None:
    overlay = tmp_path / "o.yaml"
    overlay.write_text("include: {tags: [store]}\nexclude: {operations: ['POST /store/orders']}\n")
    _, text = _convert(tmp_path, _doc(), overlay=overlay)
    assert [t["name"] for t in yaml.safe_load(text)["tools"]] == ["listOrders"]
    overlay.write_text("include: {paths: ['/pets/*'], operations: [listOrders]}\n")
    _, text = _convert(tmp_path, _doc(), overlay=overlay)
    assert [t["name"] for t in yaml.safe_load(text)["tools"]] == ["getPet", "deletePet", "listOrders"]


def test_bad_curation_is_located(tmp_path: Path) -> None:
    overlay = tmp_path / "o.yaml"
    overlay.write_text("tools:\n  getPet:\n    hide: [id]\n    nmae: x\n  nosuch: {name: y}\nincldue: {}\n")
    conv = convert(write_doc(tmp_path, _doc()), tmp_path / "specs" / "api.yaml", overlay=overlay)
    assert conv.text is None
    found = sorted((d.code, d.line, d.pointer) for d in conv.diagnostics)
    assert found == [("E146", 4, "/tools/getPet/nmae"), ("E146", 6, "/incldue")]
    overlay.write_text("tools:\n  getPet:\n    hide: [id, nothere]\n  nosuch: {name: y}\n")
    conv = convert(write_doc(tmp_path, _doc()), tmp_path / "specs" / "api.yaml", overlay=overlay)
    found = sorted((d.code, d.line, d.pointer) for d in conv.diagnostics)
    assert found == [("E146", 3, "/tools/getPet/hide/0"), ("W123", 3, "/tools/getPet/hide/1"),
                     ("W123", 4, "/tools/nosuch")]


def test_refuses_to_replace_a_spec_it_did_not_write(tmp_path: Path) -> None:
    out = tmp_path / "specs" / "api.yaml"
    out.parent.mkdir()
    out.write_text("mcp-codegen: 1\nserver: {name: mine, version: '1'}\ntools: []\n")
    conv = convert(write_doc(tmp_path, _doc()), out)
    assert [(d.code, d.line) for d in conv.diagnostics] == [("E147", 1)]
    assert convert(write_doc(tmp_path, _doc()), out, force=True).ok


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_command_line(tmp_path: Path) -> None:
    write_doc(tmp_path, _doc(), "pets.yaml")
    done = _cli("openapi", "pets.yaml", "-o", "specs/pets.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("wrote specs/pets.yaml (4 tool(s) from pets.yaml)")
    assert (tmp_path / "specs" / "pets.yaml").read_text().startswith("# Converted by `mcp-codegen openapi` from ../pets.yaml")
    done = _cli("validate", "specs/pets.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = _cli("openapi", "pets.yaml", "-o", "-", "--name", "pets", cwd=tmp_path)
    assert printed.returncode == 0 and "name: pets\n" in printed.stdout
    write_doc(tmp_path, "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n", "rel.yaml")
    bad = _cli("openapi", "rel.yaml", "-o", "specs/rel.yaml", cwd=tmp_path)
    assert bad.returncode == 1
    assert "rel.yaml:1:1: error[E148]" in bad.stderr and "--base-url" in bad.stderr
    assert not (tmp_path / "specs" / "rel.yaml").exists()


def test_diff_of_two_openapi_documents(tmp_path: Path) -> None:
    old = v3({"/items": {"get": {"operationId": "listItems", "parameters": [
        {"name": "state", "in": "query", "schema": {"type": "string", "enum": ["open", "closed", "all"]}}],
        "responses": OK}},
        "/items/{id}": {"get": {"operationId": "getItem", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}], "responses": OK},
            "delete": {"operationId": "deleteItem", "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}], "responses": OK}}})
    new = v3({"/items": {"get": {"operationId": "listItems", "parameters": [
        {"name": "state", "in": "query", "schema": {"type": "string", "enum": ["open", "closed"]}}],
        "responses": OK}},
        "/items/{id}": {"get": {"operationId": "getItem", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
            {"name": "shop", "in": "query", "required": True, "schema": {"type": "string"}}], "responses": OK}}})
    write_doc(tmp_path, old, "v1.yaml")
    write_doc(tmp_path, json.dumps(new), "v2.json")  # one side JSON
    result = diff("v1.yaml", "v2.json", cwd=tmp_path)
    assert result.loaded, [d.render() for d in result.diagnostics]
    breaking = sorted((c.tool, c.kind) for c in result.changes if c.blocking)
    assert breaking == [("deleteItem", "tool-removed"), ("getItem", "input-required-added"),
                        ("listItems", "input-enum-value-removed")]
