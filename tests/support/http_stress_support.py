"""Helpers for the HTTP fuzz, load and security suites (tests/test_{fuzz,load,security}_http.py).

* :class:`HttpServer`: ``python -m weather --http --impl http_stress_impl:StressWeather``
  (the generated weather server with test behaviours, see tests/support/http_stress_impl.py) on
  127.0.0.1, with ServerSettings from ``MCP_STRESS_SETTINGS`` (low rate and concurrency
  limits), stderr to a file, RSS, stopped by its PID;
* :func:`raw_exchange`: one hand-written HTTP/1.1 request over a socket, parsed answer;
* :func:`assert_no_leak`: no traceback, source path or internal path in a response;
* :func:`check_answer`: the status/JSON-RPC invariants every answer must satisfy;
* 2026 / legacy request builders and :func:`percentiles`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common_support import free_port, stop_pid, wait_port

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "generated_examples"
TESTS = ROOT / "tests" / "support"
LONG = os.environ.get("MCP_CODEGEN_FUZZ", "").lower() == "long"
SETTINGS_ENV = "MCP_STRESS_SETTINGS"
#: The internal path a crashing handler puts in its exception (must never reach a client).
SECRET_PATH = "/srv/internal-secret/weather_db.sqlite"

V2026 = "2026-07-28"
V_LEGACY = "2025-11-25"
V_BATCH = "2025-03-26"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_INFO = "io.modelcontextprotocol/clientInfo"
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION = -32020, -32021, -32022
#: JSON-RPC codes the transport answers with HTTP 400.
CODES_400 = frozenset({PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION})
RATE_LIMITED = "mcp-codegen.rate_limited"
TIMED_OUT = "mcp-codegen.timeout"


# ------------------------------------------------------------------ the server process
class HttpServer:
    """``python -m weather --http --impl http_stress_impl:StressWeather`` on 127.0.0.1.

    ``settings``: ServerSettings fields (JSON-able); ``tokens``: principal -> bearer token;
    ``args``: extra command-line flags.  Stopped by its PID in :meth:`stop`.
    """

    def __init__(self, *args: str, settings: dict[str, Any] | None = None, tokens: dict[str, str] | None = None,
                 env: dict[str, str] | None = None, port: int | None = None) -> None:
        self.port = port or free_port()  # a given port: a restart of a server stopped on it
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = os.pathsep.join([str(EXAMPLES), str(TESTS), str(ROOT)])
        full_env[SETTINGS_ENV] = json.dumps(settings or {})
        full_env.pop("MCP_CODEGEN_HTTP_TOKENS", None)
        if tokens:
            full_env["MCP_CODEGEN_HTTP_TOKENS"] = ",".join(f"{who}={tok}" for who, tok in tokens.items())
        full_env.update(env or {})
        self._log = tempfile.NamedTemporaryFile(prefix="mcp-http-stress-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "weather", "--http", "--host", "127.0.0.1", "--port", str(self.port),
             "--impl", "http_stress_impl:StressWeather", *args],
            cwd=EXAMPLES, env=full_env, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
        )
        try:
            wait_port(self.port, 20, self.proc, detail=lambda: self.log()[-2000:])
        except Exception:
            self.stop()
            raise

    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss_kb(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))

    def cpu_seconds(self) -> float:
        """User + system CPU time the server process used so far."""
        with open(f"/proc/{self.proc.pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log(self) -> str:
        return Path(self._log.name).read_text(errors="replace")

    def stop(self) -> None:
        stop_pid(self.proc, 8)
        self._log.close()

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        with contextlib.suppress(OSError):
            os.unlink(self._log.name)


# ------------------------------------------------------------------ requests
def meta(caps: dict[str, Any] | None = None) -> dict[str, Any]:
    return {META_VERSION: V2026, META_CAPS: caps or {}, META_INFO: {"name": "stress", "version": "0"}}


def modern(rid: Any, method: str, params: dict[str, Any] | None = None, caps: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**(params or {}), "_meta": meta(caps)}}


def modern_headers(method: str, name: str | None = None, token: str | None = None) -> dict[str, str]:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": V2026, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return headers


def forecast(rid: Any, location: str = "Paris", days: int = 1, token: str | None = None,
             progress: str | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """A 2026 ``get_forecast`` call: (body, headers); ``progress``: a progress token."""
    body = modern(rid, "tools/call", {"name": "get_forecast", "arguments": {"location": location, "days": days}})
    if progress is not None:
        body["params"]["_meta"]["progressToken"] = progress
    return body, modern_headers("tools/call", "get_forecast", token)


def legacy_call(rid: Any, location: str = "Paris", days: int = 1, progress: str | None = None) -> dict[str, Any]:
    """A legacy ``get_forecast`` call (inside a session)."""
    params: dict[str, Any] = {"name": "get_forecast", "arguments": {"location": location, "days": days}}
    if progress is not None:
        params["_meta"] = {"progressToken": progress}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def forecast_text(location: str, days: int) -> str:
    """What the weather example answers for Paris/London/Tokyo."""
    celsius, conditions = {"paris": (18.0, "sunny"), "london": (12.5, "rain"), "tokyo": (22.0, "cloudy")}[location.lower()]
    return "\n".join(f"day {i + 1}: {conditions}, {celsius + i:.1f} C" for i in range(days))


def legacy_init(rid: Any = 0, version: str = V_LEGACY, caps: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": caps or {}, "clientInfo": {"name": "stress", "version": "0"}}}


def legacy_headers(sid: str, version: str = V_LEGACY, token: str | None = None, sse: bool = True) -> dict[str, str]:
    headers = {"content-type": "application/json",
               "accept": "application/json, text/event-stream" if sse else "application/json",
               "mcp-session-id": sid, "mcp-protocol-version": version}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return headers


def sse_messages(text: str) -> list[Any]:
    """The JSON messages of an SSE body (priming events and comments skipped)."""
    out = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].removeprefix(" ") for line in block.split("\n") if line.startswith("data:")]
        if data and "".join(data):
            out.append(json.loads("\n".join(data)))
    return out


def messages_of(content_type: str, body: bytes) -> list[Any]:
    """The JSON-RPC messages of an answer body (JSON or SSE); [] for an empty body."""
    if not body:
        return []
    if content_type.startswith("text/event-stream"):
        return sse_messages(body.decode())
    if content_type.startswith("application/json"):
        return [json.loads(body)]
    return []


def response_of(messages: list[Any], rid: Any) -> dict[str, Any] | None:
    found = [m for m in messages if isinstance(m, dict) and "method" not in m and m.get("id") == rid]
    assert len(found) <= 1, f"request {rid!r} answered {len(found)} times: {messages}"
    return found[0] if found else None


def tool_error_code(result: dict[str, Any]) -> str | None:
    code = result.get("_meta", {}).get("mcp-codegen/error", {}).get("code")
    return code if isinstance(code, str) else None


# ------------------------------------------------------------------ leaks and invariants
_LEAKS = ("Traceback", 'File "', SECRET_PATH, "internal-secret", "site-packages", str(ROOT), str(EXAMPLES),
          "_runtime/", ".py\", line")


def assert_no_leak(body: bytes | str, what: Any = "") -> None:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    for marker in _LEAKS:
        assert marker not in text, f"{marker!r} reached a client ({what}): {text[:500]}"


ALLOWED_STATUS = frozenset({200, 202, 400, 401, 403, 404, 405, 406, 408, 409, 413, 415})


def check_answer(status: int, content_type: str, body: bytes, *, rid: Any = None, what: Any = "") -> list[Any]:
    """Invariants of any answer; returns its JSON-RPC messages.

    Never 5xx; no leak; a JSON body is one JSON-RPC message; an error's HTTP status agrees
    with its code (400 codes are never 200, -32601 is 404 or 200); the response to a
    request with a usable id carries that id or null; nothing is answered twice.
    """
    assert status in ALLOWED_STATUS, f"status {status} for {what}: {body[:300]!r}"
    assert_no_leak(body, what)
    if status == 202:
        assert body == b"", (what, body[:200])
        return []
    msgs = messages_of(content_type, body)
    if content_type.startswith("application/json"):
        assert len(msgs) == 1 and isinstance(msgs[0], (dict, list)), (what, body[:200])
    for msg in msgs:
        for one in msg if isinstance(msg, list) else [msg]:
            assert isinstance(one, dict) and one.get("jsonrpc") == "2.0", (what, one)
            if "error" in one and "method" not in one:
                code = one["error"]["code"]
                assert isinstance(code, int) and isinstance(one["error"]["message"], str), (what, one)
                if status == 200 and not isinstance(msg, list):
                    assert code not in CODES_400 - {INVALID_PARAMS}, f"{code} answered with 200 ({what})"
                if status == 400:
                    assert code in CODES_400, f"{code} answered with 400 ({what})"
                if status == 404:
                    assert code in (METHOD_NOT_FOUND, INVALID_REQUEST), (what, one)
    if rid is not None and status in (200, 400, 404) and msgs and not isinstance(msgs[0], list):
        finals = [m for m in msgs if isinstance(m, dict) and "method" not in m]
        assert len(finals) <= 1, (what, msgs)
        for m in finals:
            assert m.get("id") in (rid, None), f"answer id {m.get('id')!r} for request id {rid!r} ({what})"
    return msgs


# ------------------------------------------------------------------ raw HTTP
@dataclass
class RawAnswer:
    status: int
    headers: dict[str, str]
    body: bytes
    raw: bytes = field(repr=False, default=b"")

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")


def parse_answer(data: bytes) -> RawAnswer | None:
    """Parse one HTTP/1.1 response (Content-Length, chunked or until close); None if empty."""
    if not data:
        return None
    head, sep, rest = data.partition(b"\r\n\r\n")
    assert sep, f"incomplete response head: {data[:300]!r}"
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        body = rest[: int(headers["content-length"])]
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0] or b"0", 16)
            if size == 0:
                break
            body += rest[:size]
            rest = rest[size + 2:]
    else:
        body = rest
    return RawAnswer(status, headers, body, data)


def raw_exchange(port: int, request: bytes, *, timeout: float = 10.0, shut_write: bool = False) -> RawAnswer | None:
    """Send ``request`` bytes on a fresh connection and read until the server closes it.

    The request should carry ``Connection: close``.  None when the server closed without
    answering.
    """
    with socket.create_connection(("127.0.0.1", port), timeout) as sock:
        sock.settimeout(timeout)
        with contextlib.suppress(OSError):
            sock.sendall(request)
            if shut_write:
                sock.shutdown(socket.SHUT_WR)
        data = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            data += chunk
            answer = _complete(data)
            if answer is not None:
                return answer
    return parse_answer(data)


def _complete(data: bytes) -> RawAnswer | None:
    head, sep, rest = data.partition(b"\r\n\r\n")
    if not sep:
        return None
    match = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    if match and len(rest) >= int(match.group(1)):
        return parse_answer(data)
    if re.search(rb"(?im)^transfer-encoding:\s*chunked", head) and rest.endswith(b"0\r\n\r\n"):
        return parse_answer(data)
    return None


def http_request(port: int, method: str, headers: list[tuple[str, str]] | dict[str, str], body: bytes = b"", *,
                 content_length: bool = True, path: str = "/mcp", host: str | None = "default") -> bytes:
    """The bytes of one HTTP/1.1 request (``Connection: close``; duplicate headers allowed)."""
    items = list(headers.items()) if isinstance(headers, dict) else list(headers)
    lines = [f"{method} {path} HTTP/1.1"]
    if host == "default":
        lines.append(f"Host: 127.0.0.1:{port}")
    elif host is not None:
        lines.append(f"Host: {host}")
    lines += [f"{k}: {v}" for k, v in items]
    if content_length:
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")
    return b"".join(_wire(line) + b"\r\n" for line in lines) + b"\r\n" + body


def _wire(text: str) -> bytes:
    """Header text as bytes: latin-1 when possible (what servers decode with), else UTF-8."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8")


# ------------------------------------------------------------------ numbers
def percentiles(samples: list[float]) -> tuple[float, float, float]:
    """(p50, p99, max) in milliseconds of latencies given in seconds."""
    ordered = sorted(samples)
    if not ordered:
        return (0.0, 0.0, 0.0)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return at(0.50), at(0.99), ordered[-1] * 1000


# ------------------------------------------------------------------ the canary
class Canary:
    """A well-behaved client calling the server every ``period`` seconds in a thread.

    ``with Canary(url) as canary: ...`` then ``canary.failures`` (must stay empty: the
    server never hangs or refuses an innocent client) and ``canary.latencies``.
    """

    def __init__(self, url: str, *, token: str | None = None, period: float = 0.05, timeout: float = 5.0) -> None:
        import threading

        self.url = url
        self.token = token
        self.period = period
        self.timeout = timeout
        self.failures: list[str] = []
        self.latencies: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import httpx

        with httpx.Client(timeout=self.timeout) as client:
            n = 0
            while not self._stop.is_set():
                n += 1
                body, headers = forecast(f"canary-{n}", "London", 2, token=self.token)
                start = time.monotonic()
                try:
                    res = client.post(self.url, json=body, headers=headers)
                    got = res.json()["result"]["content"][0]["text"]
                    if res.status_code != 200 or got != forecast_text("London", 2):
                        self.failures.append(f"{res.status_code}: {res.text[:200]}")
                except Exception as exc:
                    self.failures.append(repr(exc))
                self.latencies.append(time.monotonic() - start)
                self._stop.wait(self.period)

    def __enter__(self) -> Canary:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(self.timeout + 2)

    def report(self, what: str) -> str:
        p50, p99, worst = percentiles(self.latencies)
        return f"{what}: canary {len(self.latencies)} calls, p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {worst:.1f} ms"


def recv_until(sock: socket.socket, marker: bytes, timeout: float = 5.0) -> bytes:
    """Read from ``sock`` until ``marker`` has arrived (or the timeout/close); all bytes read."""
    sock.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    while marker not in data and time.monotonic() < deadline:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data
