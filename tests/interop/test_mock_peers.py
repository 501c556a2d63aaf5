"""Real peers against ``mcp-codegen mock``: the official Python SDK client (stdio and HTTP, both
eras), the official TypeScript SDK client (stdio and HTTP; the copy the npm everything server
brings), the MCP Inspector CLI (stdio), and a cassette recorded from the npm everything server
through ``mcp-codegen proxy --record`` replayed by ``mcp-codegen mock --replay``."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types
import pytest
from common_support import free_port, run_sdk_client, stop_pid, wait_port
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from pull_support import REPO, cli, npm_servers

WEATHER = REPO / "specs" / "weather.yaml"
SCENARIO = """\
- tool: get_weather
  when: {location: Atlantis}
  error: unknown_location
- tool: get_forecast
  when: {location: Slowtown}
  delay: 1.0
"""


def _codegen(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "codegen", *args], cwd=str(REPO))


async def _weather_checks(client: Client) -> None:
    tools = await client.list_tools()
    assert [t.name for t in tools.tools] == ["get_weather", "get_forecast"]
    schema = next(t for t in tools.tools if t.name == "get_weather").output_schema
    weather = await client.call_tool("get_weather", {"location": "Paris"})
    assert not weather.is_error
    jsonschema.validate(weather.structured_content, schema)
    declared = await client.call_tool("get_weather", {"location": "Atlantis"})
    assert declared.is_error and declared.content[0].text == "No such place."  # type: ignore[union-attr]
    start = time.monotonic()
    slow = await client.call_tool("get_forecast", {"location": "Slowtown"})
    assert time.monotonic() - start >= 1.0 and not slow.is_error
    assert isinstance(slow.content[0], types.TextContent) and "get_forecast" in slow.content[0].text
    invalid = await client.call_tool("get_weather", {"location": ""})
    assert invalid.is_error


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_python_sdk_over_stdio(tmp_path: Path, mode: str) -> None:
    (tmp_path / "scenario.yaml").write_text(SCENARIO)
    run_sdk_client(_codegen("mock", str(WEATHER), "--scenario", str(tmp_path / "scenario.yaml")), mode,
                   _weather_checks, read_timeout=30, timeout=120)


@contextlib.contextmanager
def _mock_over_http(tmp_path: Path) -> Iterator[str]:
    """``mcp-codegen mock`` of the weather spec with the scenario, over HTTP: its URL (stopped by PID)."""
    (tmp_path / "scenario.yaml").write_text(SCENARIO)
    port = free_port()
    log = tmp_path / "mock.log"
    proc = subprocess.Popen([sys.executable, "-m", "codegen", "mock", str(WEATHER), "--http", "--port", str(port),
                             "--scenario", str(tmp_path / "scenario.yaml")], cwd=REPO, stdout=log.open("w"),
                            stderr=subprocess.STDOUT)
    try:
        wait_port(port, 60, proc, log.read_text)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_pid(proc)
    assert f"MCP over Streamable HTTP at http://127.0.0.1:{port}/mcp" in log.read_text()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_python_sdk_over_http(tmp_path: Path, mode: str) -> None:
    with _mock_over_http(tmp_path) as url:
        run_sdk_client(url, mode, _weather_checks, read_timeout=30, timeout=120)


def test_inspector_cli_over_stdio() -> None:
    inspector = subprocess.run([str(REPO / "scripts" / "inspector")], capture_output=True, text=True, timeout=900,
                               check=True).stdout.strip()
    base = [str(Path(inspector) / "mcp-inspector"), "--cli", sys.executable, "-m", "codegen", "mock", str(WEATHER)]
    env = {"PATH": f"{inspector}:/usr/bin:/bin", "HOME": str(Path.home())}
    listed = subprocess.run([*base, "--method", "tools/list"], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert [t["name"] for t in json.loads(listed.stdout)["tools"]] == ["get_weather", "get_forecast"]
    called = subprocess.run([*base, "--method", "tools/call", "--tool-name", "get_weather", "--tool-arg", "location=Oslo"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert called.returncode == 0, called.stderr
    schema = json.loads((REPO / "generated_examples" / "weather" / "tools.py").read_text().split('r"""', 1)[1]
                        .split('"""', 1)[0])["outputSchema"]
    jsonschema.validate(json.loads(called.stdout)["structuredContent"], schema)


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("echo", {"message": "hello"}),
    ("get-sum", {"a": 2, "b": 40}),
    ("echo", {"message": "again"}),
]


async def _everything_calls(client: Client) -> list[Any]:
    out = []
    for name, args in CALLS:
        result = await client.call_tool(name, args)
        out.append(result.model_dump(mode="json", by_alias=True, exclude_none=True))
    resources = await client.list_resources()
    first = resources.resources[0].uri
    read = await client.read_resource(first)
    out.append(read.model_dump(mode="json", by_alias=True, exclude_none=True))
    return out


def test_everything_server_recorded_then_replayed(tmp_path: Path) -> None:
    command = npm_servers()["everything"]
    spec = tmp_path / "everything.yaml"
    pulled = cli("pull", "--stdio", " ".join(command), "-o", str(spec), cwd=tmp_path, timeout=300)
    assert pulled.returncode == 0, pulled.stderr
    cassette = tmp_path / "everything.cassette"
    recorded: list[Any] = []
    replayed: list[Any] = []

    async def record(client: Client) -> None:
        recorded.extend(await _everything_calls(client))

    async def replay(client: Client) -> None:
        replayed.extend(await _everything_calls(client))
        missing = await client.call_tool("echo", {"message": "never sent"})
        assert missing.is_error
        text = missing.content[0].text  # type: ignore[union-attr]
        assert 'no recorded answer for tools/call echo {"message":"never sent"}' in text
        assert 'nearest recorded call: tools/call echo {"message":"hello"}' in text

    run_sdk_client(_codegen("proxy", "--record", str(cassette), "--", *command), "legacy", record,
                   read_timeout=60, timeout=180)
    assert recorded[0]["content"][0]["text"] == "Echo: hello"  # the real server answered through the proxy
    run_sdk_client(_codegen("mock", str(spec), "--replay", str(cassette)), "legacy", replay, read_timeout=60,
                   timeout=180)
    assert replayed == recorded


def _ts_client(*target: str) -> dict[str, Any]:
    """The official TypeScript SDK client (tests/support/ts_client.mjs) listing and calling the mock."""
    sdk = _ts_sdk()
    node = Path(subprocess.run([str(REPO / "scripts" / "node22")], capture_output=True, text=True, check=True,
                               timeout=600).stdout.strip()) / "node"
    calls = [["get_weather", {"location": "Paris"}], ["get_weather", {"location": "Atlantis"}]]
    proc = subprocess.run([str(node), str(REPO / "tests" / "support" / "ts_client.mjs"), str(sdk), json.dumps(calls),
                           *target], cwd=REPO, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _ts_sdk() -> Path:
    npm_servers()  # installs the pinned servers, whose dependencies hold the SDK
    sdk = REPO / ".tools" / "npm" / "node_modules" / "@modelcontextprotocol" / "sdk"
    assert (sdk / "package.json").is_file(), sdk
    return sdk


def _ts_checks(out: dict[str, Any]) -> None:
    tools = {t["name"]: t for t in out["tools"]}
    assert list(tools) == ["get_weather", "get_forecast"]
    weather, declared = out["results"]
    assert not weather.get("isError")
    jsonschema.validate(weather["structuredContent"], tools["get_weather"]["outputSchema"])
    assert declared["isError"] and declared["content"][0]["text"] == "No such place."


def test_typescript_sdk_over_stdio(tmp_path: Path) -> None:
    (tmp_path / "scenario.yaml").write_text(SCENARIO)
    _ts_checks(_ts_client("stdio", sys.executable, "-m", "codegen", "mock", str(WEATHER), "--scenario",
                          str(tmp_path / "scenario.yaml")))


def test_typescript_sdk_over_http(tmp_path: Path) -> None:
    with _mock_over_http(tmp_path) as url:
        _ts_checks(_ts_client("http", url))
