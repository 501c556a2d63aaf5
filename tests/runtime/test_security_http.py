"""Security over Streamable HTTP: the generated weather server as a uvicorn subprocess.

Servers (``python -m weather --http``, tests/support/http_stress_impl.py): the main one with bearer
tokens for alice and bob, signing key ``k1`` and low string/depth limits; one with keys
``k2,k1`` (rotation); one without tokens, whose ``requestState`` expires at once and whose
rate limit is low.

* ``requestState`` (2026 MRTR, ``get_weather`` asking for the unit): altered at every
  character, truncated, extended, signed with a foreign key or for another purpose,
  expired, signed for another server (audience), presented for another tool, other
  arguments or by another principal: ``-32602``
  with HTTP 200 and the request's id, never a result.  An old key still listed verifies
  (rotation between processes); a replay of the very same call is accepted by design.
* bearer tokens: missing, other schemes, wrong, prefix/suffix/case variants, duplicated
  ``Authorization`` headers: 401 with ``WWW-Authenticate`` on POST, GET and DELETE; a
  legacy session is bound to its principal (404 for anyone else).
* ``Origin``/``Host``: foreign, look-alike, other-port, ``null`` and duplicated values are
  403 on every method; the server's own names pass.
* no answer of the whole module carries a traceback, a source path or the internal path a
  crashing handler puts in its exception (which does reach the server log).
* size limits act before parsing: a 50 MB body with ``Content-Length`` is refused from the
  header, a chunked one as soon as it passes the limit, quickly and without the server's
  RSS growing by anything like 50 MB; string-length and depth limits reject before
  dispatch in both eras.
* the rate-limit key of an unauthenticated client cannot be changed with
  ``X-Forwarded-For``.
"""

from __future__ import annotations

import base64
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from common_support import flip_char as _flip
from common_support import state_key, state_key_hex
from http_stress_support import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    LONG,
    RATE_LIMITED,
    SECRET_PATH,
    V_LEGACY,
    HttpServer,
    assert_no_leak,
    check_answer,
    forecast,
    http_request,
    legacy_call,
    legacy_headers,
    legacy_init,
    messages_of,
    modern,
    modern_headers,
    raw_exchange,
    tool_error_code,
)
from mcp_codegen_runtime.server.signing import Signer

TOKENS = {"alice": "tok-alice-0123456789", "bob": "tok-bob-9876543210"}
ELICIT: dict[str, Any] = {"elicitation": {}}
SEEN: list[int] = [0]  # answers scanned for leaks


@pytest.fixture(scope="module")
def main_server() -> Iterator[HttpServer]:
    with HttpServer(settings={"max_string_length": 1000, "max_depth": 10}, tokens=TOKENS,
                    env={"MCP_CODEGEN_STATE_KEY": state_key_hex("k1")}) as srv:
        yield srv
        assert srv.alive()


@pytest.fixture(scope="module")
def rotated() -> Iterator[HttpServer]:
    with HttpServer(tokens=TOKENS, env={"MCP_CODEGEN_STATE_KEY": state_key_hex("k2", "k1")}) as srv:
        yield srv


@pytest.fixture(scope="module")
def open_server() -> Iterator[HttpServer]:
    settings = {"request_state_ttl": -5, "rate_limit_per_second": 0.001, "rate_limit_burst": 3}
    with HttpServer(settings=settings, env={"MCP_CODEGEN_STATE_KEY": state_key_hex("k1")}) as srv:
        yield srv


def post(url: str, body: Any, headers: dict[str, str] | list[tuple[str, str]], **kw: Any) -> httpx.Response:
    """POST and scan the answer: invariants and no leaks."""
    res = httpx.post(url, content=json.dumps(body).encode(), headers=headers, timeout=15, **kw)
    rid = body.get("id") if isinstance(body, dict) else None
    check_answer(res.status_code, res.headers.get("content-type", ""), res.content, rid=rid, what=body)
    SEEN[0] += 1
    return res


def weather_call(rid: Any, who: str | None, location: str = "Paris", **params: Any) -> tuple[dict[str, Any], dict[str, str]]:
    body = modern(rid, "tools/call", {"name": "get_weather", "arguments": {"location": location}, **params}, caps=ELICIT)
    return body, modern_headers("tools/call", "get_weather", TOKENS.get(who or ""))


def final(res: httpx.Response) -> dict[str, Any]:
    msgs = [m for m in messages_of(res.headers.get("content-type", ""), res.content) if "method" not in m]
    assert len(msgs) == 1, res.text[:300]
    out: dict[str, Any] = msgs[0]
    return out


def issue_state(url: str, who: str | None = "alice", location: str = "Paris") -> str:
    body, headers = weather_call("s0", who, location)
    result = final(post(url, body, headers))["result"]
    assert result["resultType"] == "input_required" and "unit" in result["inputRequests"], result
    return str(result["requestState"])


ANSWER = {"unit": {"action": "accept", "content": {"unit": "fahrenheit"}}}


def present(url: str, rid: Any, state: Any, who: str | None = "alice", location: str = "Paris",
            tool: str = "get_weather", answers: dict[str, Any] | None = None) -> dict[str, Any]:
    args = {"location": location} if tool == "get_weather" else {"location": location, "days": 1}
    params = {"name": tool, "arguments": args, "requestState": state, "inputResponses": answers if answers is not None else {}}
    body = modern(rid, "tools/call", params, caps=ELICIT)
    res = post(url, body, modern_headers("tools/call", tool, TOKENS.get(who or "")))
    assert res.status_code == 200, res.text[:300]
    msg = final(res)
    assert msg["id"] == rid
    return msg


# ------------------------------------------------------------------ requestState
def test_request_state_forgeries_are_rejected(main_server: HttpServer) -> None:
    url = main_server.url
    state = issue_state(url)
    ok = present(url, "ok", state, answers=ANSWER)
    assert ok["result"]["structuredContent"]["temperature"] == 64.4
    body_b64, mac_b64 = state.split(".")
    payload = json.loads(base64.urlsafe_b64decode(body_b64 + "=" * (-len(body_b64) % 4)))
    payload["r"] = ANSWER  # answers smuggled into the state instead of sent
    step = 1 if LONG else 3
    forged = {_flip(state, i) for i in range(0, len(state), step) if state[i] != "."}
    forged |= {state + "x", state[:-1], state[:-4], body_b64, "." + mac_b64, state + "." + mac_b64, "", "..", " " + state,
               Signer("mrtr requestState", [state_key("attacker")], "weather").sign(payload, ttl=600),
               Signer("tools/list cursor", [state_key("k1")], "weather").sign(payload, ttl=600),
               Signer("mrtr requestState", [state_key("k1")], "other server").sign(payload, ttl=600)}
    for i, token in enumerate(sorted(forged)):
        msg = present(url, f"f{i}", token)
        assert msg.get("error", {}).get("code") == INVALID_PARAMS, (token, msg)
    for i, bad in enumerate([5, [state], {"s": state}, True]):
        msg = present(url, f"t{i}", bad)
        assert msg["error"]["code"] == INVALID_PARAMS, msg
    print(f"\n{len(forged) + 4} forged requestState values refused over HTTP")


def test_request_state_is_bound_to_tool_arguments_and_principal(main_server: HttpServer) -> None:
    url = main_server.url
    state = issue_state(url, "alice")
    for rid, kw in (("tool", {"tool": "get_forecast"}), ("args", {"location": "London"}), ("bob", {"who": "bob"})):
        msg = present(url, rid, state, answers=ANSWER, **kw)
        assert msg["error"]["code"] == INVALID_PARAMS and "another request" in msg["error"]["message"], msg
    body, headers = weather_call("anon", None, requestState=state, inputResponses=ANSWER)
    assert post(url, body, headers).status_code == 401
    first = present(url, "r1", state, answers=ANSWER)
    replay = present(url, "r2", state, answers=ANSWER)  # same call, same answers: accepted by design
    assert first["result"]["structuredContent"] == replay["result"]["structuredContent"]


def test_request_state_expiry_and_key_rotation(main_server: HttpServer, rotated: HttpServer,
                                               open_server: HttpServer) -> None:
    expired = issue_state(open_server.url, None)
    msg = present(open_server.url, "e", expired, who=None, answers=ANSWER)
    assert msg["error"]["code"] == INVALID_PARAMS and "Expired" in msg["error"]["message"], msg
    old = issue_state(main_server.url)  # signed with k1: still listed by the rotated server
    msg = present(rotated.url, "rot", old, answers=ANSWER)
    assert msg["result"]["structuredContent"]["temperature"] == 64.4, msg
    new = issue_state(rotated.url)  # signed with k2: unknown to the main server
    msg = present(main_server.url, "new", new, answers=ANSWER)
    assert msg["error"]["code"] == INVALID_PARAMS, msg


# ------------------------------------------------------------------ bearer tokens
def test_wrong_bearer_tokens_are_refused(main_server: HttpServer) -> None:
    url = main_server.url
    good = TOKENS["alice"]
    body, headers = forecast(1, "Paris")
    wrong = [None, f"Basic {base64.b64encode(b'alice:' + good.encode()).decode()}", "Bearer", "Bearer ", f"Token {good}",
             "Bearer wrong", f"Bearer {good[:-1]}", f"Bearer {good}x", f"Bearer {good.upper()}", f"Bearer {good[:5]}",
             f"Bearer {good} {good}", f"Bearer {TOKENS['alice'] + TOKENS['bob']}", f"{good}", "Bearer \u00e9",
             f"Bearer {good}\u00a0"]
    for value in wrong:
        hdrs = [(k, v) for k, v in headers.items()] + ([("authorization", value)] if value is not None else [])
        answer = raw_exchange(main_server.port, http_request(main_server.port, "POST", hdrs, json.dumps(body).encode()))
        assert answer is not None
        check_answer(answer.status, answer.content_type, answer.body, what=value)
        assert answer.status == 401, (value, answer.status, answer.body[:200])
        assert answer.headers["www-authenticate"].startswith('Bearer realm="mcp"')
    # two Authorization headers that disagree: refused, whichever comes first
    for pair in ((f"Bearer {good}", "Bearer wrong"), ("Bearer wrong", f"Bearer {good}")):
        hdrs = list(headers.items()) + [("authorization", pair[0]), ("authorization", pair[1])]
        answer = raw_exchange(main_server.port, http_request(main_server.port, "POST", hdrs, json.dumps(body).encode()))
        assert answer is not None and answer.status == 401, (pair, answer)
    ok = post(url, body, {**headers, "authorization": f"Bearer {good}"})
    assert ok.status_code == 200 and "result" in final(ok)
    # GET and DELETE ask for the token too; a legacy session belongs to its principal
    init = post(url, legacy_init(0), {"content-type": "application/json", "accept": "application/json",
                                      "authorization": f"Bearer {good}"})
    sid = init.headers["mcp-session-id"]
    assert httpx.get(url, headers={**legacy_headers(sid), "accept": "text/event-stream"}).status_code == 401
    assert httpx.delete(url, headers=legacy_headers(sid)).status_code == 401
    assert httpx.delete(url, headers=legacy_headers(sid, token="wrong")).status_code == 401
    as_bob = post(url, legacy_call(2), legacy_headers(sid, token=TOKENS["bob"], sse=False))
    assert as_bob.status_code == 404 and final(as_bob)["error"]["code"] == INVALID_REQUEST
    assert httpx.delete(url, headers=legacy_headers(sid, token=TOKENS["bob"])).status_code == 404
    as_alice = post(url, legacy_call(3), legacy_headers(sid, token=good, sse=False))
    assert as_alice.status_code == 200 and "result" in final(as_alice)
    assert httpx.delete(url, headers=legacy_headers(sid, token=good)).status_code == 200


# ------------------------------------------------------------------ Origin and Host
def test_foreign_origin_and_host_are_refused(main_server: HttpServer) -> None:
    port = main_server.port
    auth = ("authorization", f"Bearer {TOKENS['alice']}")
    body, headers = forecast(1, "Paris")
    data = json.dumps(body).encode()
    foreign_origins = ["http://evil.example", "https://evil.example", "null", f"http://127.0.0.1.evil.example:{port}",
                       f"http://localhost.evil.example:{port}", f"http://evil.example/http://127.0.0.1:{port}",
                       f"http://127.0.0.1:{port + 1}", f"http://localhost:{port}@evil.example", "file://",
                       f"http://[::1]:{port + 1}", f"ws://evil.example:{port}", "http://localhost"]
    foreign_hosts = ["evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}", f"localhost:{port + 1}",
                     "localhost", f"[::2]:{port}", f"127.0.0.2:{port}", "0.0.0.0"]
    own_origins = [f"http://127.0.0.1:{port}", f"http://localhost:{port}", f"HTTP://LOCALHOST:{port}",
                   f"https://[::1]:{port}", f"http://127.0.0.1:{port}/"]
    methods = (("POST", data), ("GET", b""), ("DELETE", b""))
    for origin in foreign_origins:
        for method, payload in methods:
            hdrs = [*headers.items(), auth, ("origin", origin)]
            answer = raw_exchange(port, http_request(port, method, hdrs, payload))
            assert answer is not None and answer.status == 403, (method, origin, answer)
            check_answer(answer.status, answer.content_type, answer.body, what=origin)
    for host in foreign_hosts:
        for method, payload in methods:
            answer = raw_exchange(port, http_request(port, method, [*headers.items(), auth], payload, host=host))
            assert answer is not None and answer.status == 403, (method, host, answer)
    # a good Origin next to a foreign one: refused whichever comes first
    for pair in ((own_origins[0], "http://evil.example"), ("http://evil.example", own_origins[0])):
        hdrs = [*headers.items(), auth, ("origin", pair[0]), ("origin", pair[1])]
        answer = raw_exchange(port, http_request(port, "POST", hdrs, data))
        assert answer is not None and answer.status == 403, (pair, answer)
    for origin in own_origins:
        answer = raw_exchange(port, http_request(port, "POST", [*headers.items(), auth, ("origin", origin)], data))
        assert answer is not None and answer.status == 200, (origin, answer)
    for host in (f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        answer = raw_exchange(port, http_request(port, "POST", [*headers.items(), auth], data, host=host))
        assert answer is not None and answer.status == 200, (host, answer)


# ------------------------------------------------------------------ leaks
def test_failures_never_leak_tracebacks_or_paths(main_server: HttpServer) -> None:
    url = main_server.url
    token = TOKENS["alice"]
    answers: list[dict[str, Any]] = []
    for rid, (location, days) in enumerate([("crash", 1), ("Atlantis", 1), ("Paris", 99), ("", 1)]):
        body, headers = forecast(rid, location, days, token=token)
        answers.append(final(post(url, body, headers)))
    body = modern(10, "tools/call", {"name": "get_forecast", "arguments": {"location": 5}})
    answers.append(final(post(url, body, modern_headers("tools/call", "get_forecast", token))))
    init = post(url, legacy_init(0), {"content-type": "application/json", "accept": "application/json",
                                      "authorization": f"Bearer {token}"})
    sid = init.headers["mcp-session-id"]
    for version_sse in (True, False):
        res = post(url, legacy_call(20, "crash"), legacy_headers(sid, V_LEGACY, token=token, sse=version_sse))
        answers.append(final(res))
        res = post(url, {**legacy_call(21), "params": {"name": "get_forecast", "arguments": {"location": []}}},
                   legacy_headers(sid, token=token, sse=version_sse))
        answers.append(final(res))
    assert answers[0]["result"]["isError"] and "internal error" in answers[0]["result"]["content"][0]["text"]
    assert tool_error_code(answers[1]["result"]) == "unknown_location"
    assert_no_leak(json.dumps(answers))
    assert SECRET_PATH in main_server.log()  # the details stay in the server log
    print(f"\n{SEEN[0]} answers scanned for tracebacks and paths so far")


# ------------------------------------------------------------------ size limits
def _send_big(port: int, head: bytes, chunks: Iterator[bytes], budget: int) -> tuple[bytes, int, float]:
    """Send ``head`` then ``chunks`` (up to ``budget`` bytes) until the server answers or stops reading."""
    start = time.monotonic()
    sent = 0
    with socket.create_connection(("127.0.0.1", port), 10) as sock:
        sock.sendall(head)
        sock.settimeout(0.0)
        answer = b""
        try:
            for chunk in chunks:
                if sent >= budget:
                    break
                view = memoryview(chunk)
                while view:
                    try:
                        n = sock.send(view)
                        view = view[n:]
                        sent += n
                    except BlockingIOError:
                        try:
                            answer += sock.recv(65536)
                        except BlockingIOError:
                            time.sleep(0.001)
                        if answer:
                            raise StopIteration from None
                if time.monotonic() - start > 20:
                    break
        except (StopIteration, ConnectionResetError, BrokenPipeError):
            pass
        sock.settimeout(10)
        try:
            while b"\r\n\r\n" not in answer:
                more = sock.recv(65536)
                if not more:
                    break
                answer += more
        except OSError:
            pass
    return answer, sent, time.monotonic() - start


def test_huge_bodies_are_refused_before_parsing(main_server: HttpServer) -> None:
    port = main_server.port
    size = 50 * 1024 * 1024
    headers = [*modern_headers("tools/list", token=TOKENS["alice"]).items()]
    piece = b" " * 65536
    rss_before = main_server.rss_kb()
    peak = rss_before
    for chunked in (False, True):
        head = http_request(port, "POST", headers + ([("Transfer-Encoding", "chunked")] if chunked else
                                                     [("Content-Length", str(size))]), b"", content_length=False)
        frame = b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece
        answer, sent, elapsed = _send_big(port, head, iter(lambda frame=frame: frame, None), size)
        peak = max(peak, main_server.rss_kb())
        print(f"\n50 MB body ({'chunked' if chunked else 'Content-Length'}): {answer[:12]!r} after {sent >> 10} kB "
              f"sent, {elapsed:.2f} s; server RSS {rss_before} -> {main_server.rss_kb()} kB")
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert sent < size, "the server read the whole 50 MB"
        assert elapsed < 15
    assert peak - rss_before < 30_000, f"RSS grew by {peak - rss_before} kB"
    # a body just under the limit that is pathological JSON is cheap to refuse too
    deep = b"[" * 1_500_000 + b"]" * 1_500_000
    start = time.monotonic()
    res = httpx.post(main_server.url, content=deep, headers=modern_headers("tools/list", token=TOKENS["alice"]), timeout=30)
    assert res.status_code == 400 and res.json()["error"]["code"] == -32700
    print(f"3 MB of nested brackets: 400 in {time.monotonic() - start:.2f} s; RSS {main_server.rss_kb()} kB")
    assert main_server.rss_kb() - rss_before < 60_000


def test_string_and_depth_limits_before_dispatch(main_server: HttpServer) -> None:
    url = main_server.url
    token = TOKENS["alice"]
    deep: Any = "x"
    for _ in range(20):
        deep = [deep]
    init = post(url, legacy_init(0), {"content-type": "application/json", "accept": "application/json",
                                      "authorization": f"Bearer {token}"})
    sid = init.headers["mcp-session-id"]
    for i, args in enumerate([{"location": "sleep:" + "9" * 1001}, {"location": "Paris", "x" * 1001: 1},
                              {"location": deep}]):
        body = modern(i, "tools/call", {"name": "get_forecast", "arguments": args})
        res = post(url, body, modern_headers("tools/call", "get_forecast", token))
        assert res.status_code == 400 and final(res)["error"]["code"] == INVALID_REQUEST, res.text[:300]
        call = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "get_forecast", "arguments": args}}
        res = post(url, call, legacy_headers(sid, token=token, sse=False))
        assert res.status_code == 400 and final(res)["error"]["code"] == INVALID_REQUEST, res.text[:300]
    stats = final(post(url, *forecast("st", "stats", token=TOKENS["bob"])))
    assert json.loads(stats["result"]["content"][0]["text"])["started"] == 0  # no handler ran


# ------------------------------------------------------------------ rate-limit key
def test_forwarded_for_cannot_reset_the_rate_limit(open_server: HttpServer) -> None:
    url = open_server.url
    codes = []
    for k in range(10):  # exhaust the loopback address's bucket
        codes.append(tool_error_code(final(post(url, *forecast(k)))["result"]))
        if codes[-1] == RATE_LIMITED:
            break
    assert codes[-1] == RATE_LIMITED, codes
    for k, spoof in enumerate(["10.0.0.1", "10.0.0.2, 127.0.0.1", "203.0.113.9", "::1"]):
        body, headers = forecast(100 + k)
        for name in ("x-forwarded-for", "x-real-ip", "forwarded"):
            headers[name] = spoof if name != "forwarded" else f"for={spoof}"
        assert tool_error_code(final(post(url, body, headers))["result"]) == RATE_LIMITED, spoof
