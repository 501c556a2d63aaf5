"""`mcp-codegen openapi`: what a document's operations, parameters, bodies, schemas, responses and
security schemes become (expected values written by hand from the contract, docs/openapi.md)."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from openapi_support import codes, run, spec_errors, tool, v3

OK = {"200": {"description": "ok"}}


def test_petstore_shape_server_upstream_and_validity(tmp_path: Path) -> None:
    doc = v3({"/pets/{petId}": {"get": {"operationId": "getPet", "summary": "Find a pet", "description": "By id.",
                                        "parameters": [{"name": "petId", "in": "path", "required": True,
                                                        "schema": {"type": "integer"}}],
                                        "responses": OK}}},
             info={"title": "Pet Store", "version": "1.0.19", "description": "Pets.\n\nAnd more."},
             servers=[{"url": "https://{env}.example.com/api/{v}", "variables": {"env": {"default": "petstore3"},
                                                                                  "v": {"default": "v3"}}}])
    conv = run(tmp_path, doc)
    assert conv.ok, codes(conv)
    assert conv.text is not None and conv.data is not None
    assert conv.text.startswith("# Converted by `mcp-codegen openapi` from ../api.yaml (OpenAPI 3.0.3, API version 1.0.19).\n")
    assert conv.data["mcp-codegen"] == 1
    assert conv.data["server"] == {"name": "api", "version": "1.0.19", "title": "Pet Store", "description": "Pets.",
                                   "instructions": "Pets.\n\nAnd more."}
    assert conv.data["upstream"]["baseUrl"] == "https://petstore3.example.com/api/v3"
    assert conv.data["upstream"]["source"]["path"] == "../api.yaml"
    assert conv.data["openapi"] == {"source": "../api.yaml"}
    t = tool(conv, "getPet")
    assert t["description"] == "Find a pet\n\nBy id.\n\nHTTP GET /pets/{petId} (operationId getPet)"
    assert t["annotations"] == {"readOnlyHint": True, "openWorldHint": True}
    assert t["inputSchema"] == {"type": "object", "properties": {"petId": {"type": "integer"}}, "required": ["petId"]}
    assert t["http"] == {"method": "GET", "path": "/pets/{petId}", "operationId": "getPet",
                         "args": {"petId": {"in": "path", "name": "petId"}}}
    assert "outputSchema" not in t
    assert spec_errors(tmp_path, conv.text) == []


def test_annotations_from_the_method(tmp_path: Path) -> None:
    ops = {m: {"responses": OK} for m in ("get", "put", "post", "delete", "patch", "head", "options")}
    conv = run(tmp_path, v3({"/x": ops}))
    assert tool(conv, "delete_x")["annotations"] == {"readOnlyHint": False, "destructiveHint": True,
                                                     "idempotentHint": True, "openWorldHint": True}
    assert tool(conv, "put_x")["annotations"] == {"readOnlyHint": False, "idempotentHint": True, "openWorldHint": True}
    assert tool(conv, "post_x")["annotations"] == {"readOnlyHint": False, "openWorldHint": True}
    assert tool(conv, "patch_x")["annotations"] == {"readOnlyHint": False, "openWorldHint": True}
    for name in ("get_x", "head_x", "options_x"):
        assert tool(conv, name)["annotations"] == {"readOnlyHint": True, "openWorldHint": True}


def test_tool_names_sanitised_shortened_and_collisions_named(tmp_path: Path) -> None:
    long_id = "a" * 70
    doc = v3({"/a": {"get": {"operationId": "pets.list all", "responses": OK},
                     "post": {"operationId": "pets_list_all", "responses": OK}},
              "/b/{id}/c": {"get": {"responses": OK}},
              "/long": {"get": {"operationId": long_id, "responses": OK}}})
    conv = run(tmp_path, doc)
    assert conv.data is not None
    names = [t["name"] for t in conv.data["tools"]]
    # hashlib.sha256(b"POST /a").hexdigest()[:8] == "2b964797"; of b"GET /long": "ae9676f6"
    assert names == ["pets_list_all", "pets_list_all_2b964797", "get_b_id_c", "a" * 55 + "_ae9676f6"]
    clash = [d for d in conv.diagnostics if d.code == "W121"]
    assert len(clash) == 1
    assert "POST /a" in clash[0].message and "GET /a" in clash[0].message
    assert all(len(n) <= 64 for n in names)


def test_argument_collisions_precedence_and_descriptions(tmp_path: Path) -> None:
    doc = v3({"/items/{id}": {"put": {
        "operationId": "putItem",
        "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                       {"name": "id", "in": "query", "description": "Query id.", "schema": {"type": "string"}},
                       {"name": "X-Trace id", "in": "header", "schema": {"type": "string"}},
                       {"name": "Accept", "in": "header", "schema": {"type": "string"}},
                       {"name": "session", "in": "cookie", "schema": {"type": "string"}}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["id"],
            "properties": {"id": {"type": "integer", "description": "Body id."}, "name": {"type": "string"}}}}}},
        "responses": OK}}})
    conv = run(tmp_path, doc)
    t = tool(conv, "putItem")
    props = t["inputSchema"]["properties"]
    assert list(props) == ["id", "id_query", "X-Trace_id", "session", "id_body", "name"]
    assert props["id_query"]["description"] == "Query id. (query parameter `id`)"
    assert props["X-Trace_id"]["description"] == "(header `X-Trace id`)"
    assert props["id_body"] == {"type": "integer", "description": "Body id. (body field `id`)"}
    assert t["inputSchema"]["required"] == ["id", "id_body"]
    assert t["http"]["args"] == {"id": {"in": "path", "name": "id"}, "id_query": {"in": "query", "name": "id"},
                                 "X-Trace_id": {"in": "header", "name": "X-Trace id"},
                                 "session": {"in": "cookie", "name": "session"},
                                 "id_body": {"in": "body", "name": "id"}, "name": {"in": "body", "name": "name"}}
    assert t["http"]["body"] == {"contentType": "application/json", "required": True}
    assert t["annotations"]["idempotentHint"] is True


def test_style_explode_recorded_and_json_in_query(tmp_path: Path) -> None:
    doc = v3({"/s": {"get": {"operationId": "s", "parameters": [
        {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
        {"name": "ids", "in": "query", "style": "pipeDelimited", "explode": False,
         "schema": {"type": "array", "items": {"type": "integer"}}},
        {"name": "filter", "in": "query", "style": "deepObject", "schema": {"type": "object"}},
        {"name": "q", "in": "query", "allowReserved": True, "schema": {"type": "string"}},
        {"name": "where", "in": "query", "content": {"application/json": {"schema": {"type": "object"}}}},
        {"name": "old", "in": "query", "deprecated": True, "schema": {"type": "string"}}], "responses": OK}}})
    t = tool(run(tmp_path, doc), "s")
    assert t["http"]["args"] == {"tags": {"in": "query", "name": "tags", "style": "form", "explode": True},
                                 "ids": {"in": "query", "name": "ids", "style": "pipeDelimited", "explode": False},
                                 "filter": {"in": "query", "name": "filter", "style": "deepObject", "explode": False},
                                 "q": {"in": "query", "name": "q", "allowReserved": True},
                                 "where": {"in": "query", "name": "where"},
                                 "old": {"in": "query", "name": "old"}}
    props = t["inputSchema"]["properties"]
    assert props["where"] == {"type": "string", "contentMediaType": "application/json", "contentSchema": {"type": "object"},
                              "description": "(the value as application/json text)"}
    assert props["old"]["description"] == "Deprecated."


def test_schema_keywords_nullable_exclusive_example_extensions(tmp_path: Path) -> None:
    doc = v3({"/t": {"get": {"operationId": "t", "responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/T"}}}}}}}},
        components={"schemas": {
            "T": {"type": "object", "x-internal": True, "xml": {"name": "t"}, "properties": {
                "a": {"type": "string", "nullable": True, "example": "hi"},
                "b": {"type": "string", "enum": ["x", "y"], "nullable": True},
                "c": {"type": "number", "minimum": 1, "exclusiveMinimum": True, "maximum": 9, "exclusiveMaximum": False},
                "d": {"$ref": "#/components/schemas/U", "nullable": True, "description": "A U."},
                "e": {"allOf": [{"$ref": "#/components/schemas/U"}], "nullable": True},
                "f": {"type": "string", "format": "binary"}}},
            "U": {"type": "object", "properties": {"kind": {"type": "string"}},
                  "discriminator": {"propertyName": "kind", "mapping": {"u": "#/components/schemas/U", "v": "V"}}},
            "V": {"type": "integer", "required": True}}})
    conv = run(tmp_path, doc)
    assert conv.data is not None
    t = conv.data["$defs"]["T"]
    assert t == {"type": "object", "properties": {
        "a": {"type": ["string", "null"], "examples": ["hi"]},
        "b": {"type": ["string", "null"], "enum": ["x", "y", None]},
        "c": {"type": "number", "exclusiveMinimum": 1, "maximum": 9},
        "d": {"anyOf": [{"$ref": "#/$defs/U"}, {"type": "null"}], "description": "A U."},
        "e": {"anyOf": [{"allOf": [{"$ref": "#/$defs/U"}]}, {"type": "null"}]},
        "f": {"type": "string", "contentEncoding": "base64"}}}
    assert conv.data["$defs"]["U"]["discriminator"] == {"propertyName": "kind",
                                                        "mapping": {"u": "#/$defs/U", "v": "#/$defs/V"}}
    assert conv.data["$defs"]["V"] == {"type": "integer"}
    assert "W124" in codes(conv)  # `required: true` on a schema dropped
    assert conv.text is not None and spec_errors(tmp_path, conv.text) == []


def test_read_only_write_only_variants_and_recursion(tmp_path: Path) -> None:
    doc = v3({"/nodes": {"post": {"operationId": "addNode", "requestBody": {"required": True, "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}},
        "responses": {"201": {"description": "made", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}}}}},
        components={"schemas": {
            "Node": {"type": "object", "required": ["id", "name"], "properties": {
                "id": {"type": "integer", "readOnly": True},
                "secret": {"type": "string", "writeOnly": True},
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                "tag": {"$ref": "#/components/schemas/Tag"}}},
            "Tag": {"type": "object", "properties": {"label": {"type": "string"}}}}})
    conv = run(tmp_path, doc)
    assert conv.data is not None
    defs = conv.data["$defs"]
    assert sorted(defs) == ["Node", "NodeInput", "Tag"]
    # the response keeps writeOnly properties, optional (an answer holding one still fits)
    assert defs["Node"] == {"type": "object", "required": ["id", "name"], "properties": {
        "id": {"type": "integer", "readOnly": True}, "secret": {"type": "string", "writeOnly": True},
        "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}, "tag": {"$ref": "#/$defs/Tag"}}}
    assert defs["NodeInput"] == {"type": "object", "required": ["name"], "properties": {
        "secret": {"type": "string", "writeOnly": True}, "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/NodeInput"}}, "tag": {"$ref": "#/$defs/Tag"}}}
    t = tool(conv, "addNode")
    assert list(t["inputSchema"]["properties"]) == ["secret", "name", "children", "tag"]
    assert t["inputSchema"]["properties"]["children"] == {"type": "array", "items": {"$ref": "#/$defs/NodeInput"}}
    assert t["outputSchema"] == defs["Node"]  # an object response, inline at the root
    assert conv.text is not None and spec_errors(tmp_path, conv.text) == []


def test_results_wrap_anyof_errors(tmp_path: Path) -> None:
    problem = {"type": "object", "properties": {"detail": {"type": "string"}}}
    doc = v3({"/list": {"get": {"operationId": "list", "responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}},
                                                 "text/csv": {}}},
        "404": {"description": "Not here"},
        "418": {"description": "Teapot"},
        "4XX": {"description": "Client error", "content": {"application/problem+json": {"schema": problem}}},
        "default": {"description": "Other"}}}},
        "/two": {"get": {"operationId": "two", "responses": {
            "201": {"description": "a", "content": {"application/json": {"schema": {"type": "integer"}}}},
            "200": {"description": "b", "content": {"application/json": {"schema": {"type": "string"}}}}}}},
        "/text": {"get": {"operationId": "text", "responses": {
            "200": {"description": "t", "content": {"text/plain": {"schema": {"type": "string"}}}}}}}})
    conv = run(tmp_path, doc)
    t = tool(conv, "list")
    assert t["outputSchema"] == {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "string"}}},
                                 "required": ["result"]}
    assert t["http"]["wrap"] == "result"
    assert t["http"]["accept"] == "application/json, text/csv"
    assert t["http"]["errors"] == {"404": "not_found", "418": "http_418", "4XX": "http_4xx", "default": "upstream_error"}
    status = {"type": "integer"}
    assert t["errors"] == {
        "not_found": {"description": "Not here (HTTP 404)",
                      "data": {"type": "object", "properties": {"status": status, "body": {}}, "required": ["status"]}},
        "http_418": {"description": "Teapot (HTTP 418)",
                     "data": {"type": "object", "properties": {"status": status, "body": {}}, "required": ["status"]}},
        "http_4xx": {"description": "Client error (HTTP 4XX)",
                     "data": {"type": "object", "properties": {"status": status, "body": problem}, "required": ["status"]}},
        "upstream_error": {"description": "Other (any other HTTP error status)",
                           "data": {"type": "object", "properties": {"status": status, "body": {}}, "required": ["status"]}}}
    two = tool(conv, "two")
    assert two["outputSchema"]["properties"]["result"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    text = tool(conv, "text")
    assert "outputSchema" not in text and "wrap" not in text["http"]
    assert text["http"]["accept"] == "text/plain"
    assert conv.text is not None and spec_errors(tmp_path, conv.text) == []


def test_bodies_non_object_form_multipart_octet(tmp_path: Path) -> None:
    doc = v3({"/arr": {"post": {"operationId": "arr", "requestBody": {"content": {"application/json": {
        "schema": {"type": "array", "items": {"type": "integer"}}}}}, "responses": OK}},
        "/opt": {"post": {"operationId": "opt", "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}}}}, "responses": OK}},
        "/form": {"post": {"operationId": "form", "requestBody": {"required": True, "content": {
            "application/xml": {"schema": {"type": "object"}},
            "application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {"q": {"type": "string"}}}}}},
            "responses": OK}},
        "/up": {"post": {"operationId": "up", "requestBody": {"required": True, "content": {"multipart/form-data": {
            "schema": {"type": "object", "properties": {"file": {"type": "string", "format": "binary"},
                                                        "doc": {"type": "string", "format": "binary"},
                                                        "note": {"type": "string"}}},
            "encoding": {"file": {"contentType": "image/png"}}}}}, "responses": OK}},
        "/raw": {"put": {"operationId": "raw", "requestBody": {"content": {"application/octet-stream": {}}},
                         "responses": OK}},
        "/odd": {"put": {"operationId": "odd", "requestBody": {"content": {"application/vnd.weird": {}}},
                         "responses": OK}}})
    conv = run(tmp_path, doc)
    arr = tool(conv, "arr")
    assert arr["inputSchema"] == {"type": "object", "properties": {"body": {"type": "array", "items": {"type": "integer"}}}}
    assert arr["http"]["args"] == {"body": {"in": "body"}}
    opt = tool(conv, "opt")  # optional body with a required property: one `body` argument
    assert list(opt["inputSchema"]["properties"]) == ["body"]
    form = tool(conv, "form")
    assert form["http"]["body"] == {"contentType": "application/x-www-form-urlencoded", "required": True}
    assert form["http"]["args"] == {"q": {"in": "body", "name": "q"}}
    up = tool(conv, "up")
    assert up["http"]["body"] == {"contentType": "multipart/form-data", "required": True,
                                  "files": {"file": {"contentType": "image/png"},
                                            "doc": {"contentType": "application/octet-stream"}}}
    assert up["inputSchema"]["properties"]["file"] == {"type": "string", "contentEncoding": "base64"}
    raw = tool(conv, "raw")
    assert raw["inputSchema"]["properties"] == {"body": {"type": "string", "contentEncoding": "base64"}}
    assert raw["http"]["body"] == {"contentType": "application/octet-stream", "required": False}
    warned = [d for d in conv.diagnostics if d.code == "W120"]
    assert len(warned) == 1 and "application/vnd.weird" in warned[0].message and "PUT /odd" in warned[0].message


def test_security_schemes_and_requirements(tmp_path: Path) -> None:
    doc = v3({"/a": {"get": {"operationId": "a", "security": [{"basic": []}], "responses": OK},
                     "post": {"operationId": "b", "security": [], "responses": OK},
                     "put": {"operationId": "c", "responses": OK}}},
             security=[{"key": []}, {"cc": ["read"]}, {}, {"digest": []}],
             components={"securitySchemes": {
                 "key": {"type": "apiKey", "in": "query", "name": "api-key"},
                 "bearer": {"type": "http", "scheme": "bearer"},
                 "basic": {"type": "http", "scheme": "basic"},
                 "digest": {"type": "http", "scheme": "digest"},
                 "cc": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://auth.example.com/token",
                                                                          "scopes": {"write": "w", "read": "r"}}}},
                 "code": {"type": "oauth2", "flows": {"authorizationCode": {
                     "authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {}}}},
                 "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://o"}}})
    conv = run(tmp_path, doc, name="my-api")
    assert conv.data is not None
    up = conv.data["upstream"]
    assert up["security"] == {
        "key": {"type": "apiKey", "in": "query", "name": "api-key", "env": "MY_API_KEY"},
        "bearer": {"type": "bearer", "env": "MY_API_BEARER"},
        "basic": {"type": "basic", "env": {"username": "MY_API_BASIC_USERNAME", "password": "MY_API_BASIC_PASSWORD"}},
        "cc": {"type": "oauth2", "tokenUrl": "https://auth.example.com/token", "scopes": ["read", "write"],
               "env": {"clientId": "MY_API_CC_CLIENT_ID", "clientSecret": "MY_API_CC_CLIENT_SECRET"}},
        "code": {"type": "bearer", "env": "MY_API_CODE"},
        "oidc": {"type": "bearer", "env": "MY_API_OIDC"}}
    assert up["defaultSecurity"] == [["key"], ["cc"], []]
    assert tool(conv, "a")["http"]["security"] == [["basic"]]
    assert tool(conv, "b")["http"]["security"] == []
    assert "security" not in tool(conv, "c")["http"]
    assert codes(conv).count("W122") == 2  # the digest scheme, and the requirement naming it


def test_swagger2_host_formdata_file_collection_format(tmp_path: Path) -> None:
    doc = {"swagger": "2.0", "info": {"title": "Old", "version": "1"}, "host": "old.example.com", "basePath": "/v2",
           "schemes": ["http", "https"], "consumes": ["application/json"], "produces": ["application/json"],
           "securityDefinitions": {"basic": {"type": "basic"},
                                   "app": {"type": "oauth2", "flow": "application", "tokenUrl": "https://t/token",
                                           "scopes": {"x": "x"}}},
           "paths": {"/pets/{id}/photo": {"post": {
               "operationId": "upload", "consumes": ["multipart/form-data"],
               "parameters": [{"name": "id", "in": "path", "required": True, "type": "integer"},
                              {"name": "tags", "in": "query", "type": "array", "items": {"type": "string"},
                               "collectionFormat": "multi"},
                              {"name": "sizes", "in": "query", "type": "array", "items": {"type": "integer"}},
                              {"name": "photo", "in": "formData", "type": "file", "required": True},
                              {"name": "caption", "in": "formData", "type": "string", "description": "Text."}],
               "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Pet"}},
                             "404": {"description": "no pet"}}}},
                     "/pets": {"post": {"operationId": "add", "parameters": [
                         {"name": "pet", "in": "body", "required": True, "schema": {"$ref": "#/definitions/Pet"}}],
                         "responses": {"201": {"description": "made"}}}}},
           "definitions": {"Pet": {"type": "object", "required": ["name"],
                                   "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0,
                                                                                      "exclusiveMinimum": True}}}}}
    conv = run(tmp_path, doc)
    assert conv.ok, [d.render() for d in conv.diagnostics]
    assert conv.data is not None
    assert conv.data["upstream"]["baseUrl"] == "https://old.example.com/v2"
    assert conv.data["upstream"]["security"]["basic"]["type"] == "basic"
    assert conv.data["upstream"]["security"]["app"]["type"] == "oauth2"
    assert conv.data["$defs"]["Pet"]["properties"]["age"] == {"type": "integer", "exclusiveMinimum": 0}
    up = tool(conv, "upload")
    assert up["inputSchema"] == {"type": "object", "properties": {
        "id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}},
        "sizes": {"type": "array", "items": {"type": "integer"}},
        "photo": {"type": "string", "contentEncoding": "base64"},
        "caption": {"type": "string", "description": "Text."}}, "required": ["id", "photo"]}
    assert up["http"]["args"]["tags"] == {"in": "query", "name": "tags", "style": "form", "explode": True}
    assert up["http"]["args"]["sizes"] == {"in": "query", "name": "sizes", "style": "form", "explode": False}
    assert up["http"]["body"] == {"contentType": "multipart/form-data", "required": True,
                                  "files": {"photo": {"contentType": "application/octet-stream"}}}
    assert up["outputSchema"] == {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}, "age": {"type": "integer", "exclusiveMinimum": 0}}}
    add = tool(conv, "add")
    assert add["http"]["args"] == {"name": {"in": "body", "name": "name"}, "age": {"in": "body", "name": "age"}}
    assert conv.text is not None and spec_errors(tmp_path, conv.text) == []


def test_openapi_31_type_lists_and_ref_siblings(tmp_path: Path) -> None:
    doc = {"openapi": "3.1.0", "info": {"title": "N", "version": "1"}, "servers": [{"url": "https://n.example.com"}],
           "paths": {"/n": {"get": {"operationId": "n", "parameters": [
               {"name": "a", "in": "query", "schema": {"type": ["string", "null"]}},
               {"name": "b", "in": "query", "schema": {"$ref": "#/components/schemas/B", "description": "Bee."}}],
               "responses": OK}}},
           "components": {"schemas": {"B": {"type": "string", "examples": ["b1"]}}}}
    t = tool(run(tmp_path, doc), "n")
    assert t["inputSchema"]["properties"] == {"a": {"type": ["string", "null"]},
                                              "b": {"$ref": "#/$defs/B", "description": "Bee."}}


def test_relative_server_needs_base_url(tmp_path: Path) -> None:
    doc = v3({"/x": {"get": {"responses": OK}}}, servers=[{"url": "/api"}])
    conv = run(tmp_path, doc)
    assert conv.text is None
    assert [(d.code, d.line, d.pointer) for d in conv.diagnostics] == [("E148", 6, "/servers/0/url")]  # line 6: `- url: /api`
    conv = run(tmp_path, doc, base_url="https://api.example.com/base/")
    assert conv.data is not None and conv.data["upstream"]["baseUrl"] == "https://api.example.com/base"


def test_a_path_key_with_a_fragment_or_a_query_becomes_the_request_path_and_fixed_values() -> None:
    """Documents tell operations of one path apart by ``#name`` (never sent) or ``?k=v`` (sent on
    every call): the binding's path is the request path, the query a fixed value."""
    from codegen.commands.openapi.writer import request_path

    assert request_path("/cookies#formNonExploded") == ("/cookies", [])
    assert request_path("/users?action=create&x=") == ("/users", [("action", "create"), ("x", "")])
    assert request_path("#only") == ("/", [])


def test_a_discriminator_tells_overlapping_branches_apart(tmp_path: Path) -> None:
    """Branches that share a base schema all validate a value, so JSON Schema's oneOf refuses it;
    the discriminator's value (mapping tags, else the schema name) pins each $ref branch."""
    base = {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}, "n": {"type": "number"}}}
    doc = v3({"/events": {"post": {"operationId": "send", "requestBody": {"required": True, "content": {
        "application/json": {"schema": {
            "oneOf": [{"$ref": "#/components/schemas/Approved"}, {"$ref": "#/components/schemas/Denied"},
                      {"$ref": "#/components/schemas/Other"}],
            "discriminator": {"propertyName": "kind", "mapping": {
                "approved": "#/components/schemas/Approved", "ok": "#/components/schemas/Approved",
                "denied": "Denied"}}}}}},
        "responses": {"204": {"description": "sent"}}}}},
        components={"schemas": {"Approved": {"allOf": [{"$ref": "#/components/schemas/Base"}]},
                                "Denied": {"allOf": [{"$ref": "#/components/schemas/Base"}]},
                                "Other": {"allOf": [{"$ref": "#/components/schemas/Base"}]},
                                "Base": base}})
    conv = run(tmp_path, doc)
    assert conv.data is not None
    body = tool(conv, "send")["inputSchema"]["properties"]["body"]
    assert body["oneOf"] == [
        {"$ref": "#/$defs/Approved", "properties": {"kind": {"enum": ["approved", "ok"]}}, "required": ["kind"]},
        {"$ref": "#/$defs/Denied", "properties": {"kind": {"const": "denied"}}, "required": ["kind"]},
        {"$ref": "#/$defs/Other", "properties": {"kind": {"const": "Other"}}, "required": ["kind"]}]

    schema = {**tool(conv, "send")["inputSchema"], "$defs": conv.data["$defs"]}
    jsonschema.validate({"body": {"kind": "ok", "n": 1}}, schema)  # one branch only
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"body": {"kind": "nope"}}, schema)
    assert conv.text is not None and spec_errors(tmp_path, conv.text) == []
