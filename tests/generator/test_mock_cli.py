"""``mcp-codegen proxy --record`` (stdio and HTTP) and ``check --cassette``, with ``mcp-codegen mock``
as the real server: secrets never reach the cassette; a narrowed output schema is drift."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from common_support import free_port, run_sdk_client, stop_pid, wait_port
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from pull_support import REPO, cli

WEATHER = REPO / "specs" / "weather.yaml"
SECRET = "tok-9f8e7d6c5b4a3210"
SPEC_SECRET = "spec-secret-0123456789"


def _spec_with_upstream(tmp_path: Path) -> Path:
    """The weather spec plus an ``upstream`` section naming a credential variable (issue 41's form)."""
    spec = tmp_path / "weather.yaml"
    spec.write_text(WEATHER.read_text() + "upstream:\n  base_url: https://api.example.com\n  security:\n"
                    "    - {scheme: bearer, env: WEATHER_API_TOKEN}\n")
    return spec


def _record_stdio(tmp_path: Path, cassette: Path, body: Any, *extra: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "MY_TOKEN": SECRET, "WEATHER_API_TOKEN": SPEC_SECRET}
    params = StdioServerParameters(command=sys.executable, cwd=str(REPO), env=env, args=[
        "-m", "codegen", "proxy", "--record", str(cassette), "--redact-env", "MY_TOKEN", *extra, "--",
        # a secret option on the child's command line (the shell drops it before starting the mock)
        "sh", "-c", 'shift 2; exec "$@"', "sh", "--api-key", SECRET, sys.executable, "-m", "codegen", "mock", str(WEATHER)])
    run_sdk_client(params, "legacy", body, read_timeout=60, timeout=120)


def test_stdio_recording_scrubs_secrets_and_check_finds_a_narrowed_output(tmp_path: Path) -> None:
    cassette = tmp_path / "weather.cassette"
    spec = _spec_with_upstream(tmp_path)

    async def calls(client: Client) -> None:
        ok = await client.call_tool("get_weather", {"location": f"Paris {SECRET}"})
        assert not ok.is_error
        assert not (await client.call_tool("get_weather", {"location": SPEC_SECRET})).is_error
        assert not (await client.call_tool("get_forecast", {"location": "Oslo"})).is_error

    _record_stdio(tmp_path, cassette, calls, "--spec", str(spec))
    text = cassette.read_text()
    assert SECRET not in text and SPEC_SECRET not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["cassette"] == 1 and lines[0]["transport"] == "stdio"
    assert lines[0]["command"][4:6] == ["--api-key", "<redacted>"]
    calls_recorded = [x["message"]["params"] for x in lines[1:] if x["message"].get("method") == "tools/call"]
    assert calls_recorded[0]["arguments"] == {"location": "Paris <redacted>"}
    assert calls_recorded[1]["arguments"] == {"location": "<redacted>"}
    assert [x["seq"] for x in lines[1:]] == list(range(1, len(lines)))

    unchanged = cli("check", "--cassette", str(cassette), str(WEATHER))
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    assert "0 breaking" in unchanged.stdout
    shutil.copytree(REPO / "specs" / "ui", tmp_path / "ui")  # the views the spec's ui section reads
    narrowed = tmp_path / "narrowed.yaml"  # the recorded answers used any number and any text
    narrowed.write_text(WEATHER.read_text().replace("        temperature: {type: number}\n",
                                                    "        temperature: {type: number, maximum: -300}\n")
                        .replace("        conditions: {type: string}\n",
                                 "        conditions: {type: string, enum: [never]}\n"))
    drift = cli("check", "--cassette", str(cassette), str(narrowed), "--format", "json")
    assert drift.returncode == 1, drift.stdout + drift.stderr
    report = json.loads(drift.stdout)
    kinds = {(c["tool"], c["kind"]) for c in report["changes"]}
    assert kinds == {("get_weather", "recorded-output-invalid")}
    assert len(report["changes"]) == 2 and all("no longer fits" in c["message"] for c in report["changes"])
    assert any("temperature" in c["message"] for c in report["changes"])
    renamed = tmp_path / "renamed.yaml"
    renamed.write_text(narrowed.read_text().replace("name: get_forecast", "name: get_outlook")
                       .replace("minimum: 1, maximum: 7", "minimum: 5, maximum: 7"))
    table = cli("check", "--cassette", str(cassette), str(renamed))
    assert table.returncode == 1 and "recorded-tool-unknown" in table.stdout and "FAIL" in table.stdout


def test_http_recording_passes_sse_through_and_scrubs_headers(tmp_path: Path) -> None:
    upstream_port, proxy_port = free_port(), free_port()
    cassette = tmp_path / "http.cassette"
    logs = [tmp_path / "mock.log", tmp_path / "proxy.log"]
    mock = subprocess.Popen([sys.executable, "-m", "codegen", "mock", str(WEATHER), "--http", "--port", str(upstream_port)],
                            cwd=REPO, stdout=logs[0].open("w"), stderr=subprocess.STDOUT)
    proxy = subprocess.Popen([sys.executable, "-m", "codegen", "proxy", "--record", str(cassette), "--upstream",
                              f"http://user:pw-{SECRET}@127.0.0.1:{upstream_port}/mcp?api_key={SECRET}",
                              "--port", str(proxy_port)],
                             cwd=REPO, stdout=logs[1].open("w"), stderr=subprocess.STDOUT)
    try:
        wait_port(upstream_port, 60, mock, logs[0].read_text)
        wait_port(proxy_port, 60, proxy, logs[1].read_text)
        url = f"http://127.0.0.1:{proxy_port}/mcp"

        async def calls(client: Client) -> None:
            result = await client.call_tool("get_weather", {"location": "Paris"})
            assert not result.is_error and result.structured_content is not None

        for mode in ("legacy", "2026-07-28"):
            run_sdk_client(url, mode, calls, read_timeout=30, timeout=60)
        raw = httpx.post(url, json={"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
            headers={"Authorization": f"Bearer {SECRET}", "X-Api-Key": SECRET, "Cookie": f"s={SECRET}",
                     "Accept": "application/json, text/event-stream"}, timeout=30)
        assert raw.status_code == 200 and "serverInfo" in raw.text
    finally:
        stop_pid(proxy)
        stop_pid(mock)
    text = cassette.read_text()
    assert SECRET not in text and "pw-" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["transport"] == "http" and lines[0]["upstream"].startswith("http://127.0.0.1:")
    answers = [x for x in lines[1:] if x["dir"] == "s2c" and "structuredContent" in json.dumps(x["message"])]
    assert len(answers) == 2 and all(x["http"]["status"] == 200 for x in answers)
    raw_request = next(x for x in lines[1:] if x["dir"] == "c2s" and x["message"].get("id") == 9)
    headers = raw_request["http"]["headers"]
    assert headers["authorization"] == headers["x-api-key"] == headers["cookie"] == "<redacted>"
