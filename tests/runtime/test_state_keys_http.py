"""State keys across servers and processes: cursors and ``requestState`` (2026-07-28) over HTTP.

* in process (the everything example under uvicorn in threads, real HTTP): two servers sharing
  a key but not their audience refuse each other's ``tools/list``, ``resources/list`` and
  ``prompts/list`` cursors and tool and prompt ``requestState`` with -32602 ("another
  server"); a third with the same key and audience accepts them;
* real processes (``python -m weather --http --page-size 1`` on 127.0.0.1): A with the key in
  ``MCP_CODEGEN_STATE_KEY``, B with it first in a ``--state-key-file`` (comments, an older key
  second), W with the same file and ``--workers 2``: a cursor from any of them pages on the
  others and an ``input_required`` round trip started on one completes on another; two
  processes without a key, or with another ``--state-audience``, refuse with -32602;
* start-up: a short, non-hex or empty key, a missing or keyless key file, and both sources at
  once stop ``python -m weather`` with a message naming the source and how to make a key (and
  not the key); a key file others may read starts with a warning.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from common_support import state_key, state_key_hex
from everything_impl import EverythingService
from http_stress_support import INVALID_PARAMS, messages_of, modern, modern_headers
from http_support import EXAMPLES, ServerProcess, serve_app
from mcp_codegen_runtime.server.settings import ServerSettings

KEY, OLD = state_key("shared"), state_key("previous")
NO_KEY: dict[str, str | None] = {"MCP_CODEGEN_STATE_KEY": None, "MCP_CODEGEN_STATE_KEY_FILE": None,
                                 "MCP_CODEGEN_STATE_AUDIENCE": None}
ELICIT: dict[str, Any] = {"elicitation": {}}
UNIT = {"unit": {"action": "accept", "content": {"unit": "fahrenheit"}}}


def rpc(url: str, rid: Any, method: str, params: dict[str, Any] | None = None, *, name: str | None = None,
        caps: dict[str, Any] | None = None) -> dict[str, Any]:
    """One 2026 request; its response message (result or error)."""
    res = httpx.post(url, json=modern(rid, method, params, caps), headers=modern_headers(method, name), timeout=15)
    found = [m for m in messages_of(res.headers.get("content-type", ""), res.content) if "method" not in m]
    assert len(found) == 1 and found[0]["id"] == rid, (res.status_code, res.text[:300])
    out: dict[str, Any] = found[0]
    return out


def refused(msg: dict[str, Any], why: str = "") -> bool:
    return msg.get("error", {}).get("code") == INVALID_PARAMS and why in msg["error"]["message"]


# ------------------------------------------------------------------ in process: audiences
@contextlib.contextmanager
def everything(audience: str | None) -> Iterator[str]:
    server = EverythingService(ServerSettings(page_size=1, state_audience=audience), state_keys=[KEY])
    with serve_app(server.asgi_app()) as url:
        yield url


def _tokens(url: str) -> dict[str, Any]:
    """A cursor of each list and a tool and a prompt ``requestState``, all minted by ``url``."""
    tokens = {}
    for method, key in (("tools/list", "tools"), ("resources/list", "resources"), ("prompts/list", "prompts")):
        result = rpc(url, method, method)["result"]
        assert len(result[key]) == 1 and result["nextCursor"], result
        tokens[method] = result["nextCursor"]
    tool = rpc(url, "t", "tools/call", {"name": "test_input_required_result_elicitation", "arguments": {}},
               name="test_input_required_result_elicitation", caps=ELICIT)["result"]
    prompt = rpc(url, "p", "prompts/get", {"name": "test_input_required_result_prompt", "arguments": {}},
                 name="test_input_required_result_prompt", caps=ELICIT)["result"]
    assert tool["resultType"] == prompt["resultType"] == "input_required", (tool, prompt)
    tokens["tools/call"], tokens["prompts/get"] = tool["requestState"], prompt["requestState"]
    return tokens


def _present(url: str, tokens: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every token of :func:`_tokens` presented to ``url``: method -> response."""
    out = {method: rpc(url, f"{method} again", method, {"cursor": tokens[method]})
           for method in ("tools/list", "resources/list", "prompts/list")}
    name = {"action": "accept", "content": {"name": "Ada"}}
    out["tools/call"] = rpc(url, "t2", "tools/call", {
        "name": "test_input_required_result_elicitation", "arguments": {},
        "requestState": tokens["tools/call"], "inputResponses": {"user_name": name}},
        name="test_input_required_result_elicitation", caps=ELICIT)
    context = {"action": "accept", "content": {"context": "tests"}}
    out["prompts/get"] = rpc(url, "p2", "prompts/get", {
        "name": "test_input_required_result_prompt", "arguments": {},
        "requestState": tokens["prompts/get"], "inputResponses": {"user_context": context}},
        name="test_input_required_result_prompt", caps=ELICIT)
    return out


def test_audience_mismatch_refuses_cursors_and_request_state_in_process() -> None:
    with everything(None) as a, everything("everything-staging") as b, everything("everything") as c:
        tokens = _tokens(a)  # audience: the server's name, "everything"
        for method, msg in _present(b, tokens).items():
            assert refused(msg, "another server"), (method, msg)
        accepted = _present(c, tokens)  # same key, same audience (named explicitly)
        for method in ("tools/list", "resources/list", "prompts/list"):
            assert accepted[method]["result"], accepted[method]
        assert "Hello, Ada!" in str(accepted["tools/call"]["result"]["content"])
        assert "Prompt with context: tests" in str(accepted["prompts/get"]["result"]["messages"])
        back = _tokens(b)
        assert all(refused(msg, "another server") for msg in _present(a, back).values())


# ------------------------------------------------------------------ real processes
@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("keys") / "state-keys"
    path.write_text(f"# state keys of the weather service: the first signs\n{KEY.hex()}\n\n{OLD.hex()}  # retired soon\n",
                    encoding="utf-8")
    path.chmod(0o600)
    return path


@pytest.fixture(scope="module")
def processes(key_file: Path) -> Iterator[dict[str, ServerProcess]]:
    """A (key in the variable), B (key file), W (key file, 2 workers), C and D (no key), S
    (the key, another audience): each ``python -m weather --http --page-size 1``."""
    started: dict[str, ServerProcess] = {}
    plans: dict[str, tuple[tuple[str, ...], dict[str, str | None]]] = {
        "A": ((), {**NO_KEY, "MCP_CODEGEN_STATE_KEY": KEY.hex()}),
        "B": (("--state-key-file", str(key_file)), NO_KEY),
        "W": (("--state-key-file", str(key_file), "--workers", "2"), NO_KEY),
        "C": ((), NO_KEY),
        "D": ((), NO_KEY),
        "S": (("--state-audience", "weather-staging"), {**NO_KEY, "MCP_CODEGEN_STATE_KEY": KEY.hex()}),
    }
    try:
        for label, (args, env) in plans.items():
            started[label] = ServerProcess.weather("--page-size", "1", *args, env=env)
        yield started
    finally:
        for proc in started.values():
            proc.stop()


def cursor_of(url: str) -> str:
    first = rpc(url, "l1", "tools/list")["result"]
    assert [t["name"] for t in first["tools"]] == ["get_weather"], first
    return str(first["nextCursor"])


def state_of(url: str) -> str:
    result = rpc(url, "w1", "tools/call", {"name": "get_weather", "arguments": {"location": "Paris"}},
                 name="get_weather", caps=ELICIT)["result"]
    assert result["resultType"] == "input_required" and "unit" in result["inputRequests"], result
    return str(result["requestState"])


def next_page(url: str, cursor: str) -> dict[str, Any]:
    return rpc(url, "l2", "tools/list", {"cursor": cursor})


def finish(url: str, state: str) -> dict[str, Any]:
    return rpc(url, "w2", "tools/call", {"name": "get_weather", "arguments": {"location": "Paris"},
                                         "requestState": state, "inputResponses": UNIT}, name="get_weather", caps=ELICIT)


def test_shared_key_carries_cursors_and_input_required_between_processes(processes: dict[str, ServerProcess]) -> None:
    urls = {label: processes[label].url for label in "ABW"}
    pairs = [(x, y) for x in urls for y in urls if x != y]
    for x, y in pairs:
        for attempt in range(3):  # new connections: W may answer from either worker
            page = next_page(urls[y], cursor_of(urls[x]))
            assert [t["name"] for t in page["result"]["tools"]] == ["get_forecast"], (x, y, attempt, page)
            assert "nextCursor" not in page["result"]
            done = finish(urls[y], state_of(urls[x]))
            assert done["result"]["structuredContent"] == {"temperature": 64.4, "conditions": "sunny", "unit": "fahrenheit"}, \
                (x, y, attempt, done)
    assert all(p.alive() for p in processes.values())


def test_without_a_shared_key_or_audience_tokens_are_refused(processes: dict[str, ServerProcess]) -> None:
    url = {label: p.url for label, p in processes.items()}
    for x, y, why in (("C", "D", "Invalid"), ("D", "C", "Invalid"), ("A", "C", "Invalid"), ("C", "A", "Invalid"),
                      ("A", "S", "another server"), ("S", "B", "another server")):
        assert refused(next_page(url[y], cursor_of(url[x])), why), (x, y)
        assert refused(finish(url[y], state_of(url[x])), why), (x, y)
    # each still accepts its own tokens
    for label in "CDS":
        assert next_page(url[label], cursor_of(url[label]))["result"]["tools"][0]["name"] == "get_forecast"
        assert finish(url[label], state_of(url[label]))["result"]["structuredContent"]["unit"] == "fahrenheit"


# ------------------------------------------------------------------ start-up errors
def start(*args: str, **env: str | None) -> subprocess.CompletedProcess[str]:
    """``python -m weather --stdio`` with empty stdin: builds the server, then ends."""
    full = {k: v for k, v in os.environ.items() if k not in NO_KEY}
    full["PYTHONPATH"] = str(EXAMPLES)
    full.update({k: v for k, v in env.items() if v is not None})
    return subprocess.run([sys.executable, "-m", "weather", "--stdio", *args], cwd=EXAMPLES, env=full, input="",
                          capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("value, needle", [
    ("k1", "is not hexadecimal"),
    (state_key("x")[:16].hex(), "has 16 bytes, at least 32"),
    ("", "holds no key"),
    (f"{KEY.hex()},short", "key 2 of 2"),
])
def test_bad_key_in_the_variable_stops_the_server(value: str, needle: str) -> None:
    proc = start(MCP_CODEGEN_STATE_KEY=value)
    assert proc.returncode != 0 and proc.stdout == ""
    for text in ("MCP_CODEGEN_STATE_KEY", needle, 'python -c "import secrets; print(secrets.token_hex(32))"'):
        assert text in proc.stderr, (text, proc.stderr)
    assert "Traceback" not in proc.stderr and (len(value) < 2 or value not in proc.stderr)


def test_key_file_problems_stop_the_server(tmp_path: Path) -> None:
    missing = tmp_path / "missing-keys"
    for args, env, needles in (
        (("--state-key-file", str(missing)), {}, (str(missing), "cannot be read")),
        ((), {"MCP_CODEGEN_STATE_KEY_FILE": str(missing)}, (str(missing), "cannot be read")),
        (("--state-key-file", str(tmp_path)), {}, ("cannot be read",)),
    ):
        proc = start(*args, **env)
        assert proc.returncode != 0, proc.stderr
        assert all(n in proc.stderr for n in needles) and "Traceback" not in proc.stderr, proc.stderr
    empty = tmp_path / "empty-keys"
    empty.write_text("# no key yet\n\n", encoding="utf-8")
    empty.chmod(0o600)
    proc = start("--state-key-file", str(empty))
    assert proc.returncode != 0 and "holds no key" in proc.stderr and "secrets.token_hex(32)" in proc.stderr
    good = tmp_path / "keys"
    good.write_text(KEY.hex() + "\n", encoding="utf-8")
    good.chmod(0o600)
    proc = start("--state-key-file", str(good), MCP_CODEGEN_STATE_KEY=state_key_hex("other"))
    assert proc.returncode != 0 and "both MCP_CODEGEN_STATE_KEY and a state key file" in proc.stderr
    proc = start("--state-key-file", str(good))
    assert proc.returncode == 0 and "state key file" not in proc.stderr, proc.stderr
    if os.name == "posix":
        good.chmod(0o644)
        proc = start("--state-key-file", str(good))
        assert proc.returncode == 0 and "may be accessed by group or others (mode 644)" in proc.stderr, proc.stderr
        assert KEY.hex() not in proc.stderr


def test_help_documents_key_flags_and_variables() -> None:
    proc = start("--help")
    text = " ".join(proc.stdout.split())
    for needle in ("--state-key-file", "--state-audience", "MCP_CODEGEN_STATE_KEY_FILE", "MCP_CODEGEN_STATE_AUDIENCE",
                   "at least 32", "secrets.token_hex(32)", "move it first"):
        assert needle in text, needle
