"""Protocol fuzzing over Streamable HTTP: the generated weather server as a uvicorn process.

One ``python -m weather --http`` process (tests/support/http_stress_impl.py adds slow and chatty
behaviours to ``get_forecast``) serves the whole module, with a 64 kB body limit and a
1 s body timeout.  Both eras: stateless 2026-07-28 POSTs, and legacy sessions
(2025-11-25, and 2025-03-26 which allows batches).  Every request is hand-written on a
raw socket, so nothing is cleaned up by a client library.

* a table of malformed requests with the exact status and JSON-RPC error each must get:
  invalid JSON, wrong types, huge and unusable ids, nested batches, missing fields,
  missing/wrong/duplicated headers, bad session ids and ``Last-Event-ID``, oversized
  bodies with and without ``Content-Length``;
* hypothesis: random JSON-RPC values and byte-mutated requests with randomly dropped,
  duplicated, re-cased or garbage headers, in both eras.  Every answer keeps the
  invariants of :func:`http_stress_support.check_answer` (never 5xx, status agrees with
  the JSON-RPC code, the id is the request's, nothing leaks), a valid request with
  exactly one broken standard header is ``400``/``-32020``;
* slow-loris clients (headers and bodies sent a byte at a time, SSE answers never read),
  abrupt disconnects mid-request and mid-SSE-stream, and 2026 and legacy cancellations
  racing each other;
* all the while a canary client calls the server every 50 ms and must always be served;
  the server process never dies and its RSS growth over the module stays bounded
  (printed).

``MCP_CODEGEN_FUZZ=long`` runs more examples, connections and rounds.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from common_support import wait_until
from http_stress_support import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LONG,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    V2026,
    V_BATCH,
    V_LEGACY,
    Canary,
    HttpServer,
    RawAnswer,
    check_answer,
    forecast,
    forecast_text,
    http_request,
    legacy_call,
    legacy_headers,
    legacy_init,
    meta,
    modern,
    modern_headers,
    raw_exchange,
    recv_until,
    sse_messages,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

LIMIT = 64 * 1024
JSON_ONLY = {"content-type": "application/json", "accept": "application/json"}


class Env:
    """The module's server and its two legacy sessions."""

    def __init__(self, srv: HttpServer) -> None:
        self.srv = srv
        self.port = srv.port
        self.sid = self._session(V_LEGACY)
        self.sid_batch = self._session(V_BATCH)
        self.rss_start = 0
        self.parser = "h11"
        self.canary = Canary(srv.url)

    def _session(self, version: str) -> str:
        res = httpx.post(self.srv.url, json=legacy_init(0, version), headers=JSON_ONLY)
        assert res.status_code == 200, res.text
        sid = res.headers["mcp-session-id"]
        note = httpx.post(self.srv.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                          headers=legacy_headers(sid, version, sse=False))
        assert note.status_code == 202
        return sid

    def send(self, headers: list[tuple[str, str]] | dict[str, str], body: bytes, **kw: Any) -> RawAnswer:
        answer = raw_exchange(self.port, http_request(self.port, "POST", headers, body, **kw))
        assert answer is not None, "the server closed the connection without answering"
        return answer

    def stats(self) -> dict[str, int]:
        body, headers = forecast("stats", "stats")
        res = httpx.post(self.srv.url, json=body, headers=headers, timeout=10)
        data: dict[str, int] = json.loads(res.json()["result"]["content"][0]["text"])
        return data

    def healthy(self) -> None:
        """The server answers, and the canary client was served all along."""
        body, headers = forecast("healthy", "Tokyo", 2)
        res = httpx.post(self.srv.url, json=body, headers=headers, timeout=10)
        assert res.status_code == 200 and res.json()["result"]["content"][0]["text"] == forecast_text("Tokyo", 2)
        assert self.srv.alive()
        assert not self.canary.failures, self.canary.failures[:3]


@pytest.fixture(scope="module", params=["off", "on"])  # the fast extra off and on in the server process
def env(request: pytest.FixtureRequest) -> Iterator[Env]:
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_CODEGEN_ACCELERATOR", request.param)
    try:
        for e in _env():
            e.parser = "httptools" if request.param == "on" else "h11"  # uvicorn's parser in the server (serve.py)
            yield e
    finally:
        mp.undo()


def _env() -> Iterator[Env]:
    settings_ = {"max_message_bytes": LIMIT, "rate_limit_per_second": 1e6, "rate_limit_burst": 1_000_000,
                 "max_concurrent_calls": 1000}  # the load suite tests the limits
    with HttpServer("--body-timeout", "1", settings=settings_) as srv:
        e = Env(srv)
        for _ in range(20):  # warm up before the memory baseline
            e.healthy()
        e.rss_start = srv.rss_kb()
        with e.canary:
            yield e
        assert srv.alive()


def _dump(value: Any) -> bytes:
    return json.dumps(value).encode()


# ------------------------------------------------------------------ exact answers
def _modern_call(rid: Any = 1) -> tuple[dict[str, Any], dict[str, str]]:
    return forecast(rid, "Paris", 1)


def _replace(headers: dict[str, str], **values: str | None) -> dict[str, str]:
    out = dict(headers)
    for key, value in values.items():
        key = key.replace("_", "-")
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


Case = Callable[[Env], tuple[list[tuple[str, str]] | dict[str, str], bytes, dict[str, Any]]]


def _case_table() -> dict[str, Case]:
    body, headers = _modern_call()
    good = _dump(body)
    mh = modern_headers("tools/list")

    def modern_raw(raw: bytes, **kw: Any) -> Case:
        return lambda e: (mh, raw, kw)

    def legacy(raw: bytes | Any, batch: bool = False, **kw: Any) -> Case:
        data = raw if isinstance(raw, bytes) else _dump(raw)
        return lambda e: (legacy_headers(e.sid_batch if batch else e.sid, V_BATCH if batch else V_LEGACY, sse=False), data, kw)

    def call_with(hdrs: list[tuple[str, str]] | dict[str, str], **kw: Any) -> Case:
        return lambda e: (hdrs, good, kw)

    def by_parser(hdrs: list[tuple[str, str]] | dict[str, str], h11: dict[str, Any], httptools: dict[str, Any]) -> Case:
        """A header one parser passes to the application and the other refuses itself: the fast
        extra's httptools (llhttp) answers a plain 400 for control characters in a value and for
        obsolete line folding, where h11 lets them through."""
        return lambda e: (hdrs, good, httptools if e.parser == "httptools" else h11)

    dup = list(headers.items())
    cases: dict[str, Case] = {
        # bodies, 2026
        "invalid JSON": modern_raw(b'{"jsonrpc": "2.0", "id": 1, "method": ', status=400, code=PARSE_ERROR),
        "empty body": modern_raw(b"", status=400, code=PARSE_ERROR),
        "not UTF-8": modern_raw(b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}', status=400, code=PARSE_ERROR),
        "NaN id": modern_raw(b'{"jsonrpc":"2.0","id":NaN,"method":"tools/list"}', status=400, code=PARSE_ERROR),
        "5000-digit id": modern_raw(b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"tools/list"}', status=400,
                                    code=PARSE_ERROR),
        "deep nesting": modern_raw(b"[" * 30_000 + b"]" * 30_000, status=400, code=PARSE_ERROR),
        "JSON scalar": modern_raw(b"42", status=400, code=INVALID_REQUEST),
        "batch in 2026": modern_raw(_dump([modern(1, "tools/list")]), status=400, code=INVALID_REQUEST),
        "nested batch in 2026": modern_raw(_dump([[modern(1, "tools/list")], []]), status=400, code=INVALID_REQUEST),
        "empty batch in 2026": modern_raw(b"[]", status=400, code=INVALID_REQUEST),
        "float id": modern_raw(_dump({**modern(1, "tools/list"), "id": 1.5}), status=400, code=INVALID_REQUEST, id=None),
        "bool id": modern_raw(_dump({**modern(1, "tools/list"), "id": True}), status=400, code=INVALID_REQUEST, id=None),
        "object id": modern_raw(_dump({**modern(1, "tools/list"), "id": {"a": 1}}), status=400, code=INVALID_REQUEST, id=None),
        "no jsonrpc": modern_raw(_dump({k: v for k, v in modern(3, "tools/list").items() if k != "jsonrpc"}),
                                 status=400, code=INVALID_REQUEST, id=3),
        "jsonrpc 1.0": modern_raw(_dump({**modern(3, "tools/list"), "jsonrpc": "1.0"}), status=400, code=INVALID_REQUEST, id=3),
        "method not a string": modern_raw(_dump({**modern(3, "tools/list"), "method": 7}), status=400, code=INVALID_REQUEST),
        "params a list": modern_raw(_dump({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": [1]}),
                                    status=400, code=INVALID_REQUEST, id=3),
        "no _meta": modern_raw(_dump({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {}}),
                               status=400, code=INVALID_PARAMS, id=4),
        "a response in 2026": modern_raw(_dump({"jsonrpc": "2.0", "id": 4, "result": {}}), status=400, code=INVALID_REQUEST),
        "huge integer id": lambda e: (mh, _dump(modern(10**300, "tools/list")), {"status": 200, "id": 10**300}),
        "negative id": lambda e: (mh, _dump(modern(-(2**63), "tools/list")), {"status": 200, "id": -(2**63)}),
        "empty string id": lambda e: (mh, _dump(modern("", "tools/list")), {"status": 200, "id": ""}),
        "unknown method": lambda e: (modern_headers("x/y"), _dump(modern(5, "x/y")), {"status": 404, "code": METHOD_NOT_FOUND, "id": 5}),
        "2026 notification": lambda e: (modern_headers("notifications/x"),
                                        _dump({"jsonrpc": "2.0", "method": "notifications/x", "params": {"_meta": meta()}}),
                                        {"status": 202}),
        "unknown tool": lambda e: (modern_headers("tools/call", "nope"),
                                   _dump(modern(6, "tools/call", {"name": "nope", "arguments": {}})),
                                   {"status": 200, "code": INVALID_PARAMS, "id": 6}),
        "arguments a string": lambda e: (headers, _dump({**body, "params": {**body["params"], "arguments": "x"}}),
                                         {"status": 200, "code": INVALID_PARAMS, "id": 1}),
        # headers, 2026
        "Mcp-Method missing": call_with(_replace(headers, mcp_method=None), status=400, code=HEADER_MISMATCH, id=1),
        "Mcp-Name missing": call_with(_replace(headers, mcp_name=None), status=400, code=HEADER_MISMATCH, id=1),
        "version header missing": call_with(_replace(headers, mcp_protocol_version=None), status=400, code=HEADER_MISMATCH, id=1),
        "version header legacy": call_with(_replace(headers, mcp_protocol_version=V_LEGACY), status=400, code=HEADER_MISMATCH, id=1),
        "Mcp-Name other tool": call_with(_replace(headers, mcp_name="get_weather"), status=400, code=HEADER_MISMATCH, id=1),
        "Mcp-Name control char": by_parser(_replace(headers, mcp_name="get_forecast\x7f"),
                                           h11={"status": 400, "code": HEADER_MISMATCH, "id": 1}, httptools={"status": 400}),
        "Mcp-Name bad base64": call_with(_replace(headers, mcp_name="=?base64?!!?="), status=400, code=HEADER_MISMATCH, id=1),
        "Mcp-Name base64 ok": call_with(_replace(headers, mcp_name="=?base64?Z2V0X2ZvcmVjYXN0?="), status=200, id=1),
        "Mcp-Method duplicated, other value": call_with(dup + [("Mcp-Method", "tools/list")], status=400, code=HEADER_MISMATCH, id=1),
        "Mcp-Name duplicated, other value": call_with(dup + [("MCP-NAME", "get_weather")], status=400, code=HEADER_MISMATCH, id=1),
        "version duplicated, other value": call_with(dup + [("mcp-protocol-version", V_LEGACY)], status=400, code=HEADER_MISMATCH, id=1),
        "Mcp-Name duplicated, same value": call_with(dup + [("Mcp-Name", "get_forecast")], status=200, id=1),
        "Content-Type missing": call_with(_replace(headers, content_type=None), status=415, code=INVALID_REQUEST),
        "Content-Type text/plain": call_with(_replace(headers, content_type="text/plain"), status=415, code=INVALID_REQUEST),
        "Content-Type with charset": call_with(_replace(headers, content_type="application/json; charset=utf-8"), status=200, id=1),
        "Accept text/html": call_with(_replace(headers, accept="text/html"), status=406, code=INVALID_REQUEST),
        "Accept missing": call_with(_replace(headers, accept=None), status=200, id=1),
        "header with NUL": call_with(dup + [("X-Evil", "a\x00b")], status=400),
        "header line folding": by_parser(dup + [("X-Fold", "a\r\n b")], h11={"status": 200, "id": 1},  # h11 unfolds it
                                         httptools={"status": 400}),
        # sizes
        "body over the limit": modern_raw(_dump(modern(7, "tools/list", {"pad": "x" * LIMIT})), status=413, code=INVALID_REQUEST),
        "body over the limit, chunked": lambda e: (
            [*mh.items(), ("Transfer-Encoding", "chunked")],
            _chunked(_dump(modern(7, "tools/list", {"pad": "x" * LIMIT}))),
            {"status": 413, "code": INVALID_REQUEST, "content_length": False},
        ),
        "body under the limit, chunked": lambda e: (
            [*mh.items(), ("Transfer-Encoding", "chunked")], _chunked(_dump(modern(8, "tools/list"))),
            {"status": 200, "id": 8, "content_length": False},
        ),
        "Content-Length too small": modern_raw(_dump(modern(9, "tools/list")), status=400, content_length=False,
                                               extra=[("Content-Length", "5")]),
        # legacy sessions
        "legacy: batch in 2025-11-25": legacy([legacy_call(1)], status=400, code=INVALID_REQUEST),
        "legacy: nested batch in 2025-03-26": legacy([[legacy_call(1)], legacy_call(2), [], 5], batch=True, status=200,
                                                      batch_ids=["2", "null", "null", "null"]),
        "legacy: empty batch": legacy(b"[]", batch=True, status=400, code=INVALID_REQUEST),
        "legacy: notifications-only batch": legacy([{"jsonrpc": "2.0", "method": "notifications/x"}], batch=True, status=202),
        "legacy: invalid JSON": legacy(b"{", status=400, code=PARSE_ERROR),
        "legacy: float id": legacy({"jsonrpc": "2.0", "id": 2.5, "method": "ping"}, status=400, code=INVALID_REQUEST, id=None),
        "legacy: huge id": legacy({"jsonrpc": "2.0", "id": 10**300, "method": "ping"}, status=200, id=10**300),
        "legacy: unknown method": legacy({"jsonrpc": "2.0", "id": 3, "method": "nope"}, status=200, code=METHOD_NOT_FOUND, id=3),
        "legacy: a response nobody waits for": legacy({"jsonrpc": "2.0", "id": "srv-999", "result": {}}, status=202),
        "legacy: second initialize": legacy(legacy_init(4), status=200, id=4),
        "legacy: unknown session": lambda e: (legacy_headers("nope", sse=False), _dump(legacy_call(1)),
                                             {"status": 404, "code": INVALID_REQUEST}),
        "legacy: session id missing": lambda e: (_replace(legacy_headers(e.sid, sse=False), mcp_session_id=None),
                                                _dump(legacy_call(1)), {"status": 400, "code": INVALID_REQUEST}),
        "legacy: session id duplicated, other value": lambda e: (
            [*legacy_headers(e.sid, sse=False).items(), ("Mcp-Session-Id", e.sid_batch)], _dump(legacy_call(1)),
            {"status": 404, "code": INVALID_REQUEST}),
        "legacy: unsupported version header": lambda e: (legacy_headers(e.sid, "1999-01-01", sse=False), _dump(legacy_call(1)),
                                                        {"status": 400, "code": INVALID_REQUEST}),
        "legacy: 2026 version header": lambda e: (legacy_headers(e.sid, V2026, sse=False), _dump(legacy_call(1)),
                                                 {"status": 400, "code": INVALID_REQUEST}),
    }
    return cases


def _chunked(data: bytes, size: int = 4096) -> bytes:
    out = b""
    for i in range(0, len(data), size):
        piece = data[i:i + size]
        out += b"%x\r\n%s\r\n" % (len(piece), piece)
    return out + b"0\r\n\r\n"


CASES = _case_table()


@pytest.mark.parametrize("name", list(CASES))
def test_malformed_requests_get_exact_answers(env: Env, name: str) -> None:
    headers, body, expect = CASES[name](env)
    expect = dict(expect)
    items = list(headers.items()) if isinstance(headers, dict) else list(headers)
    items += expect.pop("extra", [])
    kw = {"content_length": expect.pop("content_length", True)}
    answer = env.send(items, body, **kw)
    rid = expect.get("id", "absent")
    msgs = check_answer(answer.status, answer.content_type, answer.body, rid=None if rid == "absent" else rid, what=name)
    assert answer.status == expect["status"], (name, answer.status, answer.body[:300])
    if "code" in expect:
        assert msgs and msgs[-1]["error"]["code"] == expect["code"], (name, answer.body[:300])
    if rid != "absent":
        assert msgs[-1]["id"] == rid, (name, msgs[-1])
    if "batch_ids" in expect:
        assert sorted(json.dumps(m.get("id")) for m in msgs[0]) == expect["batch_ids"], msgs
    if answer.status == 200 and "code" not in expect and not name.startswith("legacy") and "result" in msgs[-1]:
        assert msgs[-1]["result"]
    env.healthy()


def test_request_heads_are_bounded_by_either_parser(env: Env) -> None:
    """h11 refuses a request head past 16 KiB; httptools keeps any, so the fast extra's protocol
    (server/http/onewrite.py) refuses the same with 431.  A valid call with a 1 MB header is
    never served (its answer would be 200), on either path; a 15 kB header still is."""
    body, headers = forecast("big", "Paris")
    data = _dump(body)
    small = env.send([*headers.items(), ("X-Pad", "a" * 15_000)], data)
    assert small.status == 200, small.body[:200]
    answer = raw_exchange(env.port, http_request(env.port, "POST", [*headers.items(), ("X-Pad", "a" * 1_000_000)], data))
    if answer is not None:  # else the connection was closed while the head was still coming: refused too
        assert answer.status == (431 if env.parser == "httptools" else 400), (answer.status, answer.body[:200])
    env.healthy()


def test_last_event_id_garbage_is_404_not_500(env: Env) -> None:
    base = {**legacy_headers(env.sid), "accept": "text/event-stream"}
    for value in ("\xb2-1", "1-\xb2", "9" * 5000 + "-0", "1-" + "9" * 5000, "-", "", "0-", "x-1", "1-1-1", " 1 - 1 ",
                  "\xbd-\xbd", "1" * 4301):
        answer = raw_exchange(env.port, http_request(env.port, "GET", {**base, "last-event-id": value}))
        assert answer is not None
        check_answer(answer.status, answer.content_type, answer.body, what=f"Last-Event-ID {value[:20]!r}")
        assert answer.status == 404, (value[:20], answer.status, answer.body[:200])
    for value in ("\xb2", "9" * 5000):  # a session id of digits cannot crash the lookup either
        answer = raw_exchange(env.port, http_request(env.port, "POST", legacy_headers(value), _dump(legacy_call(1))))
        assert answer is not None and answer.status == 404
    env.healthy()


# ------------------------------------------------------------------ hypothesis
_ALPHABET = st.characters(min_codepoint=0x21, max_codepoint=0xFF, exclude_categories=["Cc"])
garbage = st.one_of(
    st.text(_ALPHABET, min_size=1, max_size=40),
    st.sampled_from(["tools/list", "tools/call", "TOOLS/LIST", "get_forecast", "get_weather", V2026, V_LEGACY, V_BATCH,
                     "=?base64?Z2V0X2ZvcmVjYXN0?=", "=?base64?", "=?base64?@@?=", "*/*", "text/event-stream", "null",
                     "application/json", "x" * 8000, "0", "-1", "99999999999999999999"]),
)
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
                      st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                          max_leaves=15)
METHODS = ["tools/list", "tools/call", "server/discover", "ping", "initialize", "logging/setLevel",
           "notifications/cancelled", "notifications/initialized", "resources/list", "", "x" * 200]
STANDARD = ["content-type", "accept", "mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id", "origin",
            "last-event-id", "mcp-param-region", "authorization"]


@st.composite
def bodies(draw: st.DrawFn, era: str) -> tuple[Any, bytes]:
    """(decoded value or None, body bytes)."""
    kind = draw(st.sampled_from(["valid", "valid", "structured", "structured", "junk", "mutated", "batch"]))
    rid = draw(st.one_of(st.integers(-(2**63), 2**63), st.text(max_size=12), st.just(10**200)))
    if kind == "valid" or kind == "mutated":
        method = draw(st.sampled_from(["tools/list", "tools/call", "server/discover"])) if era == "modern" else \
            draw(st.sampled_from(["tools/list", "tools/call", "ping"]))
        params: dict[str, Any] = {}
        if method == "tools/call":
            params = {"name": draw(st.sampled_from(["get_forecast", "get_weather", "nope"])),
                      "arguments": draw(st.one_of(st.just({"location": "Paris", "days": 2}),
                                                  st.just({"location": "Paris", "unit": "celsius"}),
                                                  st.fixed_dictionaries({"location": st.text(max_size=10)}), json_value))}
        value: Any = modern(rid, method, params) if era == "modern" else {"jsonrpc": "2.0", "id": rid, "method": method,
                                                                          "params": params}
        data = _dump(value)
        if kind == "mutated":
            raw = bytearray(data)
            for _ in range(draw(st.integers(1, 5))):
                pos = draw(st.integers(0, len(raw) - 1))
                op = draw(st.integers(0, 2))
                if op == 0:
                    raw[pos] = draw(st.integers(0, 255))
                elif op == 1:
                    del raw[pos:pos + draw(st.integers(1, 8))]
                else:
                    raw[pos:pos] = draw(st.binary(min_size=1, max_size=4))
            data = bytes(raw)
            try:
                value = json.loads(data)
            except ValueError:
                value = None
        return value, data
    if kind == "structured":
        value = {"jsonrpc": draw(st.sampled_from(["2.0", "2.0", "1.0", None])),
                 "id": draw(st.one_of(st.integers(), st.text(max_size=5), st.none(), st.booleans(), st.floats(allow_nan=False),
                                      st.lists(st.integers(), max_size=2))),
                 "method": draw(st.one_of(st.sampled_from(METHODS), json_leaf)),
                 "params": draw(st.one_of(st.none(), json_value, st.fixed_dictionaries({"_meta": st.one_of(json_value, st.just(meta()))})))}
        for key in draw(st.lists(st.sampled_from(["jsonrpc", "id", "method", "params"]), max_size=2)):
            value.pop(key, None)
        return value, _dump(value)
    if kind == "batch":
        value = draw(st.lists(st.one_of(json_value, st.just(legacy_call(1)), st.lists(st.just(legacy_call(2)), max_size=2)),
                              max_size=4))
        return value, _dump(value)
    value = draw(json_value)
    return value, _dump(value)


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    era = draw(st.sampled_from(["modern", "modern", "legacy", "batch", "none"]))
    value, data = draw(bodies("modern" if era in ("modern", "none") else "legacy"))
    fields: dict[str, Any] = value if isinstance(value, dict) else {}
    method: str = fields["method"] if isinstance(fields.get("method"), str) else "tools/list"
    params: dict[str, Any] = fields["params"] if isinstance(fields.get("params"), dict) else {}
    if era == "modern":
        name = params["name"] if method == "tools/call" and isinstance(params.get("name"), str) else None
        headers = list(modern_headers(method, name).items())
    elif era == "none":
        headers = list(JSON_ONLY.items())
    else:
        headers = [("content-type", "application/json"), ("accept", draw(st.sampled_from(
            ["application/json", "application/json, text/event-stream", "text/event-stream"]))),
            ("mcp-session-id", "<batch>" if era == "batch" else "<legacy>"),
            ("mcp-protocol-version", V_BATCH if era == "batch" else V_LEGACY)]
    original = list(headers)
    mutations = draw(st.lists(st.tuples(st.sampled_from(["drop", "dup-same", "dup-other", "replace", "recase", "add"]),
                                        st.integers(0, 20), garbage, st.sampled_from(STANDARD)), max_size=3))
    for op, index, junk, extra_name in mutations:
        if op == "add" or not headers:
            headers.append((extra_name, junk))
            continue
        i = index % len(headers)
        name, current = headers[i]
        if op == "drop":
            del headers[i]
        elif op == "dup-same":
            headers.append((name, current))
        elif op == "dup-other":
            headers.append((name, junk))
        elif op == "replace":
            headers[i] = (name, junk)
        else:
            headers[i] = (name.upper() if name.islower() else name.lower(), current)
    return {"era": era, "value": value, "data": data, "headers": headers, "original": original, "mutations": mutations}


def _usable_id(value: Any) -> Any:
    if isinstance(value, dict) and "method" in value and value.get("jsonrpc") == "2.0":
        rid = value.get("id")
        if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
            return rid
    return None


@settings(max_examples=400 if LONG else 120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
@given(case=requests())
def test_random_requests_keep_the_invariants(env: Env, case: dict[str, Any]) -> None:
    headers = [(k, {"<legacy>": env.sid, "<batch>": env.sid_batch}.get(v, v)) for k, v in case["headers"]]
    answer = env.send(headers, case["data"])
    if answer.status == 400 and answer.content_type.startswith("text/plain"):
        return  # uvicorn refused the HTTP framing (e.g. an empty header value after garbage)
    rid = _usable_id(case["value"])
    check_answer(answer.status, answer.content_type, answer.body, rid=rid, what=case)
    only_header_change = [m for m in case["mutations"] if not (m[0] == "dup-same")]
    if case["era"] == "modern" and len(only_header_change) == 1 and rid is not None:
        op, index, junk, _ = only_header_change[0]
        name = case["original"][index % len(case["original"])][0] if op != "add" and case["original"] else None
        value = case["value"]
        valid = value == json.loads(case["data"]) and isinstance(value.get("params"), dict)
        if valid and name in ("mcp-method", "mcp-protocol-version") and op in ("drop", "dup-other", "replace"):
            original = dict(modern_headers(value["method"]))[name]
            if op == "drop" or junk != original:
                assert answer.status == 400, (case, answer.body[:200])
                assert json.loads(answer.body)["error"]["code"] == HEADER_MISMATCH


def test_truncated_and_recased_calls(env: Env) -> None:
    """Valid 2026 calls (fast, slow, chatty) cut at a random byte and upper-cased after it."""
    rng = random.Random(11)
    for _ in range(150 if LONG else 40):
        body, headers = forecast(rng.randrange(10**9), rng.choice(["Paris", "sleep:0.1", "tick:3:0.01"]), 1,
                                 progress=rng.choice([None, "p"]))
        raw = _dump(body)
        cut = rng.randrange(len(raw) + 1)
        answer = raw_exchange(env.port, http_request(env.port, "POST", headers, raw[:cut] + raw[cut:].upper()))
        assert answer is not None
        check_answer(answer.status, answer.content_type, answer.body, rid=body["id"], what=(cut, raw))
        if cut == len(raw):
            assert answer.status == 200
    env.healthy()


# ------------------------------------------------------------------ slow and vanishing clients
def _drip(port: int, data: bytes, pause: float, stop: threading.Event, results: list[bytes]) -> None:
    """Send ``data`` one byte every ``pause`` seconds (until ``stop``), keep what comes back."""
    try:
        with socket.create_connection(("127.0.0.1", port), 5) as sock:
            sock.settimeout(0.001)
            got = b""
            for byte in data:
                if stop.is_set():
                    break
                sock.sendall(bytes([byte]))
                try:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    got += chunk
                except TimeoutError:
                    pass
                stop.wait(pause)
            sock.settimeout(3)
            try:
                while chunk := sock.recv(4096):
                    got += chunk
            except OSError:
                pass
            results.append(got)
    except OSError as exc:
        results.append(repr(exc).encode())


def test_slow_loris_clients_do_not_block_others(env: Env) -> None:
    body, headers = forecast(1, "Paris")
    request = http_request(env.port, "POST", headers, _dump(body))
    head_len = request.index(b"\r\n\r\n") + 4
    stop = threading.Event()
    header_results: list[bytes] = []
    body_results: list[bytes] = []
    threads: list[threading.Thread] = []
    n = 60 if LONG else 25
    for _ in range(n):  # headers a byte at a time: the request never starts
        threads.append(threading.Thread(target=_drip, args=(env.port, request[:head_len - 2], 0.02, stop, header_results)))
    for _ in range(n):  # complete headers, then the body a byte every 20 ms: past the 1 s body timeout
        threads.append(threading.Thread(target=_slow_body, args=(env.port, request, head_len, body_results)))
    # SSE answers nobody reads: chatty 2026 calls and a legacy call
    lazy = []
    for i in range(10):
        b, h = forecast(f"lazy-{i}", "tick:200:0.001", 1, progress="p")
        sock = socket.create_connection(("127.0.0.1", env.port), 5)
        sock.sendall(http_request(env.port, "POST", h, _dump(b)))
        lazy.append(sock)
    rss_before = env.srv.rss_kb()
    for t in threads:
        t.start()
    for _ in range(5):  # served while every dripper holds its connection
        env.healthy()
    # the body drippers end when the server times their bodies out (1 s): the server noticed them
    wait_until(lambda: len(body_results) == n, 15, "a 408 for every slow body")
    env.healthy()
    stop.set()
    for t in threads:
        t.join(10)
    for sock in lazy:
        sock.close()
    print(f"\n{n} header drippers, {n} body drippers, 10 unread SSE streams: served "
          f"5 calls meanwhile; RSS {rss_before} -> {env.srv.rss_kb()} kB")
    assert all(t.is_alive() is False for t in threads)
    timed_out = [r for r in body_results if r.startswith(b"HTTP/1.1 408")]
    assert len(timed_out) == len(body_results) == n, body_results[:3]
    for r in header_results:  # a request that never finished its headers gets nothing (or uvicorn's 400 on close)
        assert r == b"" or r.startswith(b"HTTP/1.1 400"), r[:200]
    deadline = time.monotonic() + 5
    while env.stats()["running"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert env.stats()["running"] == 0, "unread SSE calls were not cancelled when their clients left"
    env.healthy()


def _slow_body(port: int, request: bytes, head_len: int, results: list[bytes]) -> None:
    with socket.create_connection(("127.0.0.1", port), 5) as sock:
        sock.sendall(request[:head_len])
        sock.settimeout(5)
        try:
            for byte in request[head_len:head_len + 200]:
                sock.sendall(bytes([byte]))
                time.sleep(0.02)
        except OSError:
            pass
        got = b""
        try:
            while chunk := sock.recv(4096):
                got += chunk
        except OSError:
            pass
        results.append(got)


def test_abrupt_disconnects(env: Env) -> None:
    rng = random.Random(5)
    rounds = 60 if LONG else 20
    before = env.stats()
    # mid-request: at every kind of position, headers or body
    body, headers = forecast(1, "Paris")
    request = http_request(env.port, "POST", headers, _dump(body))
    for _ in range(rounds * 3):
        with socket.create_connection(("127.0.0.1", env.port), 5) as sock:
            sock.sendall(request[:rng.randrange(1, len(request))])
            if rng.random() < 0.5:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST
    # mid-SSE, 2026: the call is cancelled
    socks = []
    for i in range(rounds):
        b, h = forecast(f"sse-{i}", "tick:50:0.02", 1, progress=f"p{i}")
        sock = socket.create_connection(("127.0.0.1", env.port), 5)
        sock.sendall(http_request(env.port, "POST", h, _dump(b)))
        socks.append(sock)
    for sock in socks:  # each answer has started (the SSE headers) before its client leaves
        sock.settimeout(5)
        assert b"text/event-stream" in sock.recv(4096)
        sock.close()
    # mid-SSE, legacy: the call goes on and its stream can be resumed
    streams = []
    for i in range(5):
        sock = socket.create_connection(("127.0.0.1", env.port), 5)
        sock.sendall(http_request(env.port, "POST", legacy_headers(env.sid),
                                  _dump(legacy_call(f"drop-{i}", "tick:10:0.03", progress=f"q{i}"))))
        first = recv_until(sock, b"retry:")
        sock.close()
        event_id = first.split(b"id: ", 1)[1].split(b"\n", 1)[0].decode().strip()
        streams.append((f"drop-{i}", event_id))
    # every call ran to its end although its client left (the 2026 ones were cancelled)
    wait_until(lambda: env.stats()["running"] == 0, 10, "the dropped calls to finish")
    for rid, event_id in streams:
        res = httpx.get(env.srv.url, headers={**legacy_headers(env.sid), "accept": "text/event-stream",
                                              "last-event-id": event_id}, timeout=10)
        check_answer(res.status_code, res.headers["content-type"], res.content, what=rid)
        final = [m for m in sse_messages(res.text) if m.get("id") == rid]
        assert len(final) == 1 and final[0]["result"]["content"][0]["text"] == "done tick:10:0.03"
    deadline = time.monotonic() + 5
    while env.stats()["running"] and time.monotonic() < deadline:
        time.sleep(0.05)
    after = env.stats()
    assert after["running"] == 0
    assert after["cancelled"] - before["cancelled"] == rounds, (before, after)
    env.healthy()


def test_concurrent_cancellations(env: Env) -> None:
    """2026: closing the response cancels; legacy: notifications/cancelled, twice, in random order."""
    rng = random.Random(9)
    n = 120 if LONG else 40
    before = env.stats()

    # legacy: n slow calls on one session, each on its own connection
    answers: dict[str, RawAnswer | None] = {}

    def legacy_slow(rid: str) -> None:
        answers[rid] = raw_exchange(env.port, http_request(env.port, "POST", legacy_headers(env.sid),
                                                           _dump(legacy_call(rid, "sleep:20"))), timeout=15)

    ids = [f"c-{i}" for i in range(n)]
    threads = [threading.Thread(target=legacy_slow, args=(rid,)) for rid in ids]
    for t in threads:
        t.start()
    # 2026: n slow calls, abandoned at random moments
    socks = []
    for i in range(n):
        b, h = forecast(f"m-{i}", "sleep:20")
        sock = socket.create_connection(("127.0.0.1", env.port), 5)
        sock.sendall(http_request(env.port, "POST", h, _dump(b)))
        socks.append(sock)
    deadline = time.monotonic() + 10
    while env.stats()["running"] - before["running"] < 2 * n and time.monotonic() < deadline:
        time.sleep(0.05)
    order = ids + ids + ["c-unknown", 10**30, None]
    rng.shuffle(order)
    rng.shuffle(socks)
    cancel_headers = legacy_headers(env.sid, sse=False)

    def cancel(rid: Any) -> None:
        note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid, "reason": "fuzz"}}
        res = httpx.post(env.srv.url, json=note, headers=cancel_headers, timeout=10)
        assert res.status_code == 202, res.text

    cancellers = [threading.Thread(target=cancel, args=(rid,)) for rid in order]
    for i, t in enumerate(cancellers):
        t.start()
        if i < len(socks):
            socks[i].close()
    for t in cancellers:
        t.join(15)
    for sock in socks:
        sock.close()
    for t in threads:
        t.join(15)
    for rid in ids:  # a cancelled legacy request is never answered: its SSE stream ends without a response
        answer = answers[rid]
        assert answer is not None and answer.status == 200, (rid, answer)
        msgs = check_answer(answer.status, answer.content_type, answer.body, rid=rid, what=rid)
        assert not [m for m in msgs if m.get("id") == rid], f"cancelled request {rid} was answered"
    deadline = time.monotonic() + 5
    while env.stats()["running"] and time.monotonic() < deadline:
        time.sleep(0.05)
    after = env.stats()
    assert after["running"] == 0 and after["cancelled"] - before["cancelled"] == 2 * n, (before, after)
    env.healthy()


def test_delete_session_mid_flight(env: Env) -> None:
    """DELETE while calls (SSE and JSON) and the GET stream are open: all end, nothing runs on."""
    before = env.stats()
    sid = env._session(V_LEGACY)
    answers: dict[Any, RawAnswer | None] = {}

    def call(rid: int) -> None:
        answers[rid] = raw_exchange(env.port, http_request(env.port, "POST", legacy_headers(sid, sse=rid % 2 == 0),
                                                           _dump(legacy_call(rid, "sleep:20"))), timeout=15)

    def listen() -> None:
        answers["get"] = raw_exchange(env.port, http_request(env.port, "GET", {**legacy_headers(sid),
                                                                               "accept": "text/event-stream"}), timeout=15)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)] + [threading.Thread(target=listen)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 10
    while env.stats()["running"] - before["running"] < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert httpx.delete(env.srv.url, headers=legacy_headers(sid), timeout=10).status_code == 200
    for t in threads:
        t.join(15)
    for rid, answer in answers.items():
        assert answer is not None, rid
        msgs = check_answer(answer.status, answer.content_type, answer.body, what=rid)
        assert not [m for m in msgs if "method" not in m], (rid, msgs)  # cancelled: no response
    after = env.stats()
    assert after["running"] == 0 and after["cancelled"] - before["cancelled"] == 8
    answer = env.send(legacy_headers(sid, sse=False), _dump(legacy_call(1)))
    assert answer.status == 404
    env.healthy()


def test_memory_stays_bounded(env: Env) -> None:
    """Runs last: RSS growth over the whole module (every test above) is bounded."""
    for _ in range(20):
        env.healthy()
    grown = env.srv.rss_kb() - env.rss_start
    print("\n" + env.canary.report("HTTP fuzz module"))
    print(f"HTTP fuzz: server RSS {env.rss_start} kB -> {env.rss_start + grown} kB (+{grown} kB)")
    assert grown < 150_000, f"the server grew by {grown} kB"
    assert "Traceback" not in env.srv.log(), env.srv.log()[-3000:]
