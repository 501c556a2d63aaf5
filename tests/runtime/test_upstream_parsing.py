"""``UpstreamDef.from_spec`` and ``HttpBinding.from_spec`` read the spec's JSON into frozen
dataclasses with OpenAPI's defaults, and refuse malformed input with a ValueError naming the key."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from mcp_codegen_runtime.server.upstream import HttpBinding, UpstreamDef
from mcp_codegen_runtime.server.upstream.binding import (
    ApiKeyScheme,
    ArgBinding,
    BasicScheme,
    BodyBinding,
    OAuth2Scheme,
    default_env,
)

UPSTREAM: dict[str, Any] = {
    "baseUrl": "https://petstore3.swagger.io/api/v3", "env": "PETSTORE_BASE_URL", "timeout": 10, "retries": 1,
    "forwardHeaders": ["X-Tenant"], "source": {"path": "petstore.yaml", "sha256": "ab", "version": "1.0.19"},
    "security": {
        "api_key": {"type": "apiKey", "in": "header", "name": "api_key", "env": "PETSTORE_API_KEY"},
        "basic": {"type": "basic", "env": {"username": "PETSTORE_USERNAME", "password": "PETSTORE_PASSWORD"}},
        "oauth": {"type": "oauth2", "tokenUrl": "https://auth.example/token", "scopes": ["read"],
                  "env": {"clientId": "PETSTORE_CLIENT_ID", "clientSecret": "PETSTORE_CLIENT_SECRET"}},
    },
    "defaultSecurity": [["api_key"], []],
}


def test_upstream_parsed() -> None:
    up = UpstreamDef.from_spec(UPSTREAM)
    assert (up.base_url, up.env, up.timeout, up.retries) == ("https://petstore3.swagger.io/api/v3",
                                                            "PETSTORE_BASE_URL", 10.0, 1)
    assert up.forward_headers == ("x-tenant",)
    assert up.security["api_key"] == ApiKeyScheme("header", "api_key", "PETSTORE_API_KEY")
    assert up.security["basic"] == BasicScheme("PETSTORE_USERNAME", "PETSTORE_PASSWORD")
    assert up.security["oauth"] == OAuth2Scheme("https://auth.example/token", ("read",), "PETSTORE_CLIENT_ID",
                                                "PETSTORE_CLIENT_SECRET")
    assert up.default_security == (("api_key",), ())
    defaults = UpstreamDef.from_spec({"baseUrl": "http://localhost:8080"})
    assert (defaults.env, defaults.timeout, defaults.retries, defaults.security) == (None, 30.0, 2, {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        up.base_url = "x"  # type: ignore[misc]
    assert default_env("pet-store 3") == "PET_STORE_3_BASE_URL"


@pytest.mark.parametrize(("change", "key"), [
    ({"baseUrl": "ftp://x"}, "upstream.baseUrl"),
    ({"baseUrl": None}, "upstream.baseUrl"),
    ({"env": "1BAD"}, "upstream.env"),
    ({"timeout": 0}, "upstream.timeout"),
    ({"retries": -1}, "upstream.retries"),
    ({"forwardHeaders": ["bad header"]}, "upstream.forwardHeaders"),
    ({"extra": 1}, "upstream.extra"),
    ({"security": {"k": {"type": "apiKey", "in": "body", "name": "k", "env": "K"}}}, "upstream.security.k.in"),
    ({"security": {"k": {"type": "bearer", "env": "not valid"}}}, "upstream.security.k.env"),
    ({"security": {"k": {"type": "basic", "env": {"username": "U"}}}}, "upstream.security.k.env.password"),
    ({"security": {"k": {"type": "oauth2", "tokenUrl": "/token", "env": {}}}}, "upstream.security.k.tokenUrl"),
    ({"security": {"k": {"type": "mutualTLS"}}}, "upstream.security.k.type"),
    ({"defaultSecurity": [["nope"]]}, "upstream.defaultSecurity[0]"),
    ({"defaultSecurity": "api_key"}, "upstream.defaultSecurity"),
])
def test_upstream_refused(change: dict[str, Any], key: str) -> None:
    with pytest.raises(ValueError) as info:
        UpstreamDef.from_spec({**UPSTREAM, **change})
    assert str(info.value).startswith(key + ":"), str(info.value)


def test_binding_parsed_with_openapi_defaults() -> None:
    b = HttpBinding.from_spec({
        "method": "post", "path": "/pet/{petId}", "operationId": "updatePet", "accept": "application/json",
        "args": {"petId": {"in": "path", "name": "petId"}, "status": {"in": "query", "name": "status"},
                 "X-Trace": {"in": "header", "name": "X-Trace"}, "session": {"in": "cookie", "name": "session"},
                 "name": {"in": "body", "name": "name"}},
        "body": {"contentType": "multipart/form-data", "required": True, "files": {"photo": {}}},
        "fixed": [{"in": "query", "name": "api-version", "value": "2024-01-01"}],
        "wrap": "result", "errors": {"404": "not_found", "4xx": "client_error", "default": "upstream_error"},
        "security": [["api_key"]],
    })
    assert (b.method, b.path, b.operation_id, b.accept, b.wrap) == ("POST", "/pet/{petId}", "updatePet",
                                                                    "application/json", "result")
    assert b.args["petId"] == ArgBinding("path", "petId", "simple", False)
    assert b.args["status"] == ArgBinding("query", "status", "form", True)
    assert b.args["X-Trace"] == ArgBinding("header", "X-Trace", "simple", False)
    assert b.args["session"] == ArgBinding("cookie", "session", "form", True)
    assert b.body == BodyBinding("multipart/form-data", True, {"photo": "application/octet-stream"})
    assert b.errors == {"404": "not_found", "4XX": "client_error", "default": "upstream_error"}
    assert b.security == (("api_key",),)
    assert HttpBinding.from_spec({"method": "GET", "path": "/x"}).security is None


GOOD: dict[str, Any] = {"method": "GET", "path": "/pet/{id}", "args": {"id": {"in": "path", "name": "id"}}}


@pytest.mark.parametrize(("change", "key"), [
    ({"method": "FETCH"}, "http.method"),
    ({"path": "pet"}, "http.path"),
    ({"path": "/pet/{id}?x=1"}, "http.path"),
    ({"path": "/pet/{id}/{other}"}, "http.path"),
    ({"args": {"id": {"in": "path", "name": "id", "style": "form"}}}, "http.args.id.style"),
    ({"args": {"id": {"in": "path", "name": "id"}, "q": {"in": "query", "name": "q", "explode": "yes"}}},
     "http.args.q.explode"),
    ({"args": {"id": {"in": "path", "name": "id", "allowReserved": True}}}, "http.args.id.allowReserved"),
    ({"args": {"id": {"in": "path", "name": "id"}, "h": {"in": "header", "name": "bad header"}}}, "http.args.h.name"),
    ({"args": {"id": {"in": "path", "name": "id"}, "b": {"in": "body"}}}, "http.body"),
    ({"args": {"id": {"in": "path", "name": "id"}, "b": {"in": "body"}, "c": {"in": "body", "name": "c"}},
      "body": {"contentType": "application/json"}}, "http.args.b"),
    ({"body": {"contentType": "json"}}, "http.body.contentType"),
    ({"body": {"contentType": "application/json", "files": {"f": {}}}}, "http.body.files"),
    ({"fixed": [{"in": "query", "name": "v"}]}, "http.fixed[0].value"),
    ({"fixed": [{"in": "body", "name": "v", "value": 1}]}, "http.fixed[0].in"),
    ({"errors": {"4xxx": "e"}}, "http.errors.4xxx"),
    ({"security": [["a"], "b"]}, "http.security[1]"),
    ({"wrap": ""}, "http.wrap"),
    ({"unknown": True}, "http.unknown"),
])
def test_binding_refused(change: dict[str, Any], key: str) -> None:
    with pytest.raises(ValueError) as info:
        HttpBinding.from_spec({**GOOD, **change})
    assert str(info.value).startswith(key + ":"), str(info.value)


def test_a_documented_path_with_spaces_is_sent_percent_encoded() -> None:
    """OpenAPI paths are literal text: one with a space (as in real documents) is encoded on the
    wire, not refused at import; a value never changes the path, an escape in the template stays."""
    from mcp_codegen_runtime.server.upstream.serialize import expand_path

    binding = HttpBinding.from_spec({"method": "GET", "path": "/cookies/form (non-exploded)/{id}",
                                     "args": {"id": {"in": "path", "name": "id"}}})
    assert binding.path == "/cookies/form (non-exploded)/{id}"
    assert expand_path(binding.path, {"id": "a%2Fb"}) == "/cookies/form%20(non-exploded)/a%2Fb"
    assert expand_path("/a%20b/{x}", {"x": "1"}) == "/a%20b/1"
    with pytest.raises(ValueError, match="http.path"):
        HttpBinding.from_spec({"method": "GET", "path": "/a\nb"})


def test_fixed_body_values_a_field_or_the_whole_body() -> None:
    """``openapi`` curation pins body arguments too (``pin``): a fixed field joins the body's
    fields, a fixed whole body (no name) is the body; one without ``http.body`` is refused."""
    from mcp_codegen_runtime.server.upstream.request import build

    binding = HttpBinding.from_spec({"method": "POST", "path": "/x", "body": {"contentType": "application/json"},
                                     "args": {"q": {"in": "body", "name": "q"}},
                                     "fixed": [{"in": "body", "name": "kind", "value": "cat"}]})
    assert build(binding, {"q": "z"}, "http://h/base").body.content == b'{"kind":"cat","q":"z"}'
    whole = HttpBinding.from_spec({"method": "PUT", "path": "/x", "body": {"contentType": "application/json"},
                                   "fixed": [{"in": "body", "value": [1, 2]}]})
    assert build(whole, {}, "http://h/base").body.content == b"[1,2]"
    with pytest.raises(ValueError, match=r"http.fixed\[0\]"):
        HttpBinding.from_spec({"method": "POST", "path": "/x", "fixed": [{"in": "body", "value": 1}]})
