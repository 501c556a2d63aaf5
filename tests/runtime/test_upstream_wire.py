"""Upstream-bound tools put each argument on the wire exactly as OpenAPI 3.1 says: path styles
(simple, label, matrix), query styles (form, spaceDelimited, pipeDelimited, deepObject,
allowReserved), headers, cookies, fixed values, the base URL's path, and every body type.
The expected bytes are written by hand from the OpenAPI 3.1.1 "Style Examples" table and
RFC 6570; the REST app (tests/support/rest_upstream_app.py) echoes what it received."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
from upstream_support import call, echoed, error_of, header, server_class, start_app, tool


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with start_app() as url:
        yield url


def _get(base: str, binding: dict[str, Any], args: dict[str, Any], upstream: dict[str, Any] | None = None) -> Any:
    props = {name: {} for name in binding.get("args", {})}
    definition = tool("t", {"method": "GET", **binding}, props)
    cls = server_class({"baseUrl": f"{base}/echo", **(upstream or {})}, [definition])
    return call(cls(), "t", args)


def _path(base: str, template: str, args: dict[str, Any], specs: dict[str, dict[str, Any]]) -> str:
    binding = {"path": template, "args": {n: {"in": "path", "name": n, **s} for n, s in specs.items()}}
    raw: str = echoed(_get(base, binding, args))["raw_path"]
    return raw


def _query(base: str, args: dict[str, Any], specs: dict[str, dict[str, Any]]) -> str:
    binding = {"path": "/q", "args": {n: {"in": "query", "name": n, **s} for n, s in specs.items()}}
    raw: str = echoed(_get(base, binding, args))["query"]
    return raw


# ------------------------------------------------------------------ path
def test_path_styles_primitive(base: str) -> None:
    specs = {"a": {}, "b": {"style": "label"}, "c": {"style": "matrix"}}
    assert _path(base, "/s/{a}/l/{b}/m/{c}", {"a": 5, "b": 5, "c": 5}, specs) == "/echo/s/5/l/.5/m/;c=5"


def test_path_styles_arrays_and_objects(base: str) -> None:
    specs = {"a": {}, "b": {"style": "label"}, "c": {"style": "matrix"}, "d": {"style": "label", "explode": True},
             "e": {"style": "matrix", "explode": True}}
    arr = ["blue", "black"]
    args = {"a": arr, "b": arr, "c": arr, "d": arr, "e": arr}
    assert _path(base, "/{a}/{b}/{c}/{d}/{e}", args, specs) == \
        "/echo/blue,black/.blue,black/;c=blue,black/.blue.black/;e=blue;e=black"
    obj = {"R": 100, "G": 200}
    specs = {"a": {}, "b": {"explode": True}, "c": {"style": "matrix", "explode": True}, "d": {"style": "label"}}
    assert _path(base, "/{a}/{b}/{c}/{d}", {"a": obj, "b": obj, "c": obj, "d": obj}, specs) == \
        "/echo/R,100,G,200/R=100,G=200/;R=100;G=200/.R,100,G,200"


@pytest.mark.parametrize(("value", "expected"), [
    ("../../admin?x=1#f", "/echo/users/..%2F..%2Fadmin%3Fx%3D1%23f/info"),
    ("..", "/echo/users/%2E%2E/info"),
    (".", "/echo/users/%2E/info"),
    ("a b/\u00e9%2F", "/echo/users/a%20b%2F%C3%A9%252F/info"),
    ("x;y=1,z", "/echo/users/x%3By%3D1%2Cz/info"),
])
def test_path_value_never_changes_the_path(base: str, value: str, expected: str) -> None:
    assert _path(base, "/users/{id}/info", {"id": value}, {"id": {}}) == expected


def test_empty_path_value_is_a_tool_error(base: str) -> None:
    message, code, _ = error_of(_get(base, {"path": "/users/{id}", "args": {"id": {"in": "path", "name": "id"}}},
                                     {"id": ""}))
    assert code == "mcp-codegen.upstream"
    assert message == "cannot send the arguments: the path parameter 'id' needs a non-empty value"


# ------------------------------------------------------------------ query
def test_form_explode_false_and_true(base: str) -> None:
    assert _query(base, {"ids": [1, 2, 3]}, {"ids": {"explode": False}}) == "ids=1,2,3"
    assert _query(base, {"ids": [1, 2]}, {"ids": {}}) == "ids=1&ids=2"
    assert _query(base, {"color": {"R": 100, "G": 200}}, {"color": {}}) == "R=100&G=200"
    assert _query(base, {"color": {"R": 100, "G": 200}}, {"color": {"explode": False}}) == "color=R,100,G,200"


def test_delimited_and_deep_object(base: str) -> None:
    specs = {"s": {"style": "spaceDelimited", "explode": False}, "p": {"style": "pipeDelimited", "explode": False},
             "filter": {"style": "deepObject"}}
    args = {"s": ["blue", "black"], "p": ["blue", "black"], "filter": {"a": 1, "b": "x y"}}
    assert _query(base, args, specs) == "s=blue%20black&p=blue%7Cblack&filter%5Ba%5D=1&filter%5Bb%5D=x%20y"


def test_scalars_null_and_encoding(base: str) -> None:
    args = {"flag": True, "n": None, "f": 1.5, "t": "a&b=c+d /\u00e9~"}
    specs: dict[str, dict[str, Any]] = {"flag": {}, "n": {}, "f": {}, "t": {}}
    assert _query(base, args, specs) == "flag=true&n=&f=1.5&t=a%26b%3Dc%2Bd%20%2F%C3%A9~"


def test_allow_reserved(base: str) -> None:
    specs = {"r": {"allowReserved": True}, "n": {}}
    value = "x/y:z?@!$'()*,;&=+[]#%41%"
    assert _query(base, {"r": value, "n": "x/y:z"}, specs) == \
        "r=x/y:z?@!$'()*,;%26%3D%2B%5B%5D%23%41%25&n=x%2Fy%3Az"


def test_omitted_optional_argument_is_not_sent(base: str) -> None:
    assert _query(base, {"a": "1"}, {"a": {}, "b": {}}) == "a=1"


def test_fixed_values_and_accept(base: str) -> None:
    binding = {"path": "/fixed/{v}", "accept": "application/json",
               "fixed": [{"in": "query", "name": "api-version", "value": "2024-01-01"},
                         {"in": "header", "name": "X-Client", "value": "mcp"},
                         {"in": "path", "name": "v", "value": 3}],
               "args": {"q": {"in": "query", "name": "q"}}}
    echo = echoed(_get(base, binding, {"q": "x"}))
    assert echo["raw_path"] == "/echo/fixed/3"
    assert echo["query"] == "api-version=2024-01-01&q=x"
    assert header(echo, "x-client") == ["mcp"]
    assert header(echo, "accept") == ["application/json"]


# ------------------------------------------------------------------ base URL
def test_path_joins_under_the_base_path(base: str) -> None:
    definition = tool("t", {"method": "GET", "path": "/pets"})
    for base_url in (f"{base}/echo/api/v3", f"{base}/echo/api/v3/"):
        cls = server_class({"baseUrl": base_url}, [definition])
        assert echoed(call(cls(), "t"))["raw_path"] == "/echo/api/v3/pets"
    cls = server_class({"baseUrl": f"{base}/echo/api?tenant=a%20b"}, [definition])
    echo = echoed(call(cls(), "t"))
    assert (echo["raw_path"], echo["query"]) == ("/echo/api/pets", "tenant=a%20b")


def test_base_url_precedence(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    definition = tool("t", {"method": "GET", "path": "/p"})
    spec = {"baseUrl": f"{base}/echo/spec"}
    assert echoed(call(server_class(spec, [definition])(), "t"))["raw_path"] == "/echo/spec/p"
    monkeypatch.setenv("PETS_BASE_URL", f"{base}/echo/env")  # default name: <SERVER>_BASE_URL
    assert echoed(call(server_class(spec, [definition])(), "t"))["raw_path"] == "/echo/env/p"
    monkeypatch.setenv("MY_URL", f"{base}/echo/named")
    named = {**spec, "env": "MY_URL"}
    assert echoed(call(server_class(named, [definition])(), "t"))["raw_path"] == "/echo/named/p"
    cls = server_class(named, [definition])
    cls.configure_upstream(f"{base}/echo/cli")  # type: ignore[attr-defined]
    assert echoed(call(cls(), "t"))["raw_path"] == "/echo/cli/p"
    monkeypatch.setenv("MY_URL", "not a url")
    message, code, _ = error_of(call(server_class(named, [definition])(), "t"))
    assert (message, code) == ("MY_URL: the upstream base URL must be an absolute http(s) URL", "mcp-codegen.upstream")
    with pytest.raises(ValueError, match="--upstream"):
        cls.configure_upstream("ftp://example.org")  # type: ignore[attr-defined]


# ------------------------------------------------------------------ headers and cookies
def test_headers_simple_style(base: str) -> None:
    binding = {"path": "/h", "args": {"ids": {"in": "header", "name": "X-Ids"},
                                      "obj": {"in": "header", "name": "X-Obj", "explode": True},
                                      "word": {"in": "header", "name": "X-Word"}}}
    echo = echoed(_get(base, binding, {"ids": [1, 2, 3], "obj": {"a": 1, "b": "x y"}, "word": "caf%C3"}))
    assert header(echo, "x-ids") == ["1,2,3"]
    assert header(echo, "x-obj") == ["a=1,b=x y"]
    assert header(echo, "x-word") == ["caf%C3"]  # headers are never percent-encoded


def test_header_with_a_line_break_is_refused(base: str) -> None:
    binding = {"path": "/h", "args": {"v": {"in": "header", "name": "X-V"}}}
    message, code, _ = error_of(_get(base, binding, {"v": "a\r\nX-Evil: 1"}))
    assert message == "cannot send the arguments: the header 'X-V' cannot carry a control character"
    assert code == "mcp-codegen.upstream"


def test_cookies(base: str) -> None:
    binding = {"path": "/c", "args": {"session": {"in": "cookie", "name": "session"},
                                      "prefs": {"in": "cookie", "name": "prefs", "explode": False}}}
    echo = echoed(_get(base, binding, {"session": "a b;c", "prefs": ["x", "y"]}))
    assert header(echo, "cookie") == ["session=a%20b%3Bc; prefs=x,y"]


# ------------------------------------------------------------------ bodies
def _post(base: str, body: dict[str, Any], args_spec: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    binding = {"method": "POST", "path": "/b", "body": body, "args": args_spec}
    definition = tool("t", binding, {name: {} for name in args_spec})
    return echoed(call(server_class({"baseUrl": f"{base}/echo"}, [definition])(), "t", args))


def _body(echo: dict[str, Any]) -> bytes:
    return base64.b64decode(echo["body"])


def test_json_body_spread_and_whole(base: str) -> None:
    spread = {"name": {"in": "body", "name": "name"}, "tags": {"in": "body", "name": "tags"},
              "q": {"in": "query", "name": "q"}}
    echo = _post(base, {"contentType": "application/json", "required": True}, spread,
                 {"name": "R\u00e9x", "tags": ["a"], "q": "1"})
    assert _body(echo) == '{"name":"R\u00e9x","tags":["a"]}'.encode()
    assert header(echo, "content-type") == ["application/json"]
    assert echo["query"] == "q=1"
    echo = _post(base, {"contentType": "application/merge-patch+json"}, {"body": {"in": "body"}}, {"body": [1, 2]})
    assert (_body(echo), header(echo, "content-type")) == (b"[1,2]", ["application/merge-patch+json"])
    # required object body with nothing given: {}; optional: no body at all
    echo = _post(base, {"contentType": "application/json", "required": True}, {"name": {"in": "body", "name": "n"}}, {})
    assert _body(echo) == b"{}"
    echo = _post(base, {"contentType": "application/json"}, {"name": {"in": "body", "name": "n"}}, {})
    assert (_body(echo), header(echo, "content-type")) == (b"", [])


def test_form_urlencoded_body(base: str) -> None:
    spec = {n: {"in": "body", "name": n} for n in ("name", "tags", "meta", "t")}
    echo = _post(base, {"contentType": "application/x-www-form-urlencoded"}, spec,
                 {"name": "Rex Dog&co", "tags": ["a", "b"], "meta": {"k": "v"}, "t": "~"})
    assert _body(echo) == b"name=Rex%20Dog%26co&tags=a&tags=b&meta%5Bk%5D=v&t=%7E"
    assert echo["parts"] == [{"name": "name", "value": "Rex Dog&co"}, {"name": "tags", "value": "a"},
                             {"name": "tags", "value": "b"}, {"name": "meta[k]", "value": "v"},
                             {"name": "t", "value": "~"}]


def test_multipart_body(base: str) -> None:
    spec = {n: {"in": "body", "name": n} for n in ("photo", "meta", "tags", "note")}
    png = b"\x89PNG\r\n\x1a\n-bytes"
    echo = _post(base, {"contentType": "multipart/form-data", "files": {"photo": {"contentType": "image/png"}}}, spec,
                 {"photo": base64.b64encode(png).decode(), "meta": {"a": 1}, "tags": ["x", "y"], "note": "hi"})
    assert echo["parts"] == [
        {"name": "photo", "filename": "photo", "content_type": "image/png", "data": base64.b64encode(png).decode()},
        {"name": "meta", "value": '{"a": 1}'},
        {"name": "tags", "value": "x"}, {"name": "tags", "value": "y"},
        {"name": "note", "value": "hi"},
    ]
    raw = _body(echo)
    assert b'Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"a": 1}\r\n' in raw
    assert b'Content-Disposition: form-data; name="note"\r\n\r\nhi\r\n' in raw
    assert header(echo, "content-type")[0].startswith("multipart/form-data; boundary=")


def test_binary_and_text_bodies(base: str) -> None:
    blob = b"\x00\x01\xfe\xff"
    echo = _post(base, {"contentType": "application/octet-stream"}, {"body": {"in": "body"}},
                 {"body": base64.b64encode(blob).decode()})
    assert (_body(echo), header(echo, "content-type")) == (blob, ["application/octet-stream"])
    echo = _post(base, {"contentType": "text/plain"}, {"body": {"in": "body"}}, {"body": "h\u00e9llo"})
    assert (_body(echo), header(echo, "content-type")) == ("h\u00e9llo".encode(), ["text/plain; charset=utf-8"])


def test_invalid_base64_is_a_tool_error(base: str) -> None:
    binding = {"method": "POST", "path": "/b", "body": {"contentType": "application/pdf"}, "args": {"body": {"in": "body"}}}
    definition = tool("t", binding, {"body": {}})
    result = call(server_class({"baseUrl": f"{base}/echo"}, [definition])(), "t", {"body": "not base64!"})
    assert error_of(result)[:2] == ("cannot send the arguments: the body is not valid base64", "mcp-codegen.upstream")


def test_one_pooled_client_closed_with_the_server(base: str) -> None:
    import asyncio

    from upstream_support import call_many

    server = server_class({"baseUrl": f"{base}/echo"}, [tool("t", {"method": "GET", "path": "/p"})])()
    pools: list[Any] = []

    async def run() -> None:
        first = await call_many(server, [("t", {})])  # call_many ends with server.close_shared()
        assert not first[0].get("isError"), first

    original = server.on_close

    def spy(close: Any) -> None:
        pools.append(server.__dict__["_upstream_state_"].client)
        original(close)

    server.on_close = spy  # type: ignore[method-assign]
    asyncio.run(run())
    assert len(pools) == 1 and pools[0]._client is None  # made once, closed by close_shared
