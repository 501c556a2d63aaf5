"""The ``python -m <pkg>`` command line (runtime main.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_codegen_runtime.server.base import ServerBase
from mcp_codegen_runtime.server.main import load_implementation
from support_server import EXAMPLES, DemoServer, modern_meta, server_env


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "weather", *args], cwd=EXAMPLES, env=server_env(), input="", capture_output=True, text=True, timeout=30
    )


def test_bad_impl_is_a_usage_error() -> None:
    for impl, needle in (("weather_impl", "module:Class"), ("weather_impl:Nope", "no attribute"), ("json:JSONDecoder", "not a subclass"), ("no_such_mod:X", "no_such_mod")):
        proc = _run("--stdio", "--impl", impl)
        assert proc.returncode == 2, impl
        assert needle in proc.stderr and proc.stdout == ""


def test_eof_exits_zero_and_stdout_stays_clean() -> None:
    proc = _run("--stdio")
    assert proc.returncode == 0 and proc.stdout == ""


def test_load_implementation() -> None:
    assert load_implementation("support_server:DemoServer", ServerBase) is DemoServer
    with pytest.raises(ValueError, match="not a subclass"):
        load_implementation("support_server:EchoIn", ServerBase)
    with pytest.raises(ValueError, match="no attribute"):
        load_implementation("support_server:Missing", ServerBase)


def test_startup_line_names_server_transport_and_versions() -> None:
    proc = _run("--stdio")
    assert proc.returncode == 0 and proc.stdout == ""
    assert "weather 1.2.0: MCP over stdio (protocol 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)" in proc.stderr


def test_help_lists_limits_and_environment() -> None:
    proc = _run("--help")
    for needle in ("--rate-limit", "--rate-burst", "--max-concurrency", "--call-timeout",
                   "MCP_CODEGEN_HTTP_TOKENS", "MCP_CODEGEN_RATE_LIMIT", "MCP_CODEGEN_STATE_KEY"):
        assert needle in " ".join(proc.stdout.split()), needle


def test_rate_limit_from_flag_and_environment() -> None:
    """3,000 quick calls: refused after the burst by default, all served with --rate-limit 0
    or MCP_CODEGEN_RATE_LIMIT=0 (and a bad value is a clear error)."""
    calls = "".join(
        json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "name": "get_forecast", "arguments": {"location": "Paris"}, "_meta": modern_meta()}}) + "\n"
        for i in range(3000))

    def limited(*args: str, **env: str) -> int:
        proc = subprocess.run([sys.executable, "-m", "weather", "--stdio", *args], cwd=EXAMPLES,
                              env=server_env(**env), input=calls, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.count("Rate limit exceeded")

    assert limited() > 0
    assert limited("--rate-limit", "0") == 0
    assert limited(MCP_CODEGEN_RATE_LIMIT="0") == 0
    bad = subprocess.run([sys.executable, "-m", "weather", "--stdio"], cwd=EXAMPLES, input="",
                         env=server_env(MCP_CODEGEN_RATE_LIMIT="fast"), capture_output=True, text=True, timeout=30)
    assert bad.returncode != 0 and "MCP_CODEGEN_RATE_LIMIT='fast' is not a number" in bad.stderr


def test_constructor_without_settings_and_missing_handlers_are_reported(tmp_path: Path) -> None:
    (tmp_path / "bad_impl.py").write_text(
        "from weather.server import WeatherServerBase\n"
        "class NoSettings(WeatherServerBase):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "class Partial(WeatherServerBase):\n"
        "    def get_weather(self, args, ctx):\n"
        "        raise NotImplementedError\n", "utf-8")
    env = server_env(PYTHONPATH=f"{tmp_path}{os.pathsep}{EXAMPLES}")
    proc = subprocess.run([sys.executable, "-m", "weather", "--stdio", "--impl", "bad_impl:NoSettings"], cwd=EXAMPLES,
                          env=env, input="", capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "must accept and pass on the base class's arguments" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "weather", "--stdio", "--impl", "bad_impl:Partial"], cwd=EXAMPLES,
                          env=env, input="", capture_output=True, text=True, timeout=30)
    warning = next(line for line in proc.stderr.splitlines() if "WARNING" in line)
    assert proc.returncode == 0 and warning == (
        "WARNING:mcp_codegen.server:Partial: 0 of 2 tools implemented; missing: tool get_forecast "
        "(specs/weather.yaml tool 'get_forecast'); still stubs (only raise NotImplementedError): tool get_weather "
        "(specs/weather.yaml tool 'get_weather'); calling these is an error"), proc.stderr


def test_json_log_format() -> None:
    proc = _run("--stdio", "--log-format", "json", "--impl", "weather_impl:WeatherService")
    lines = [json.loads(line) for line in proc.stderr.splitlines() if line.strip()]
    started = [entry for entry in lines if "MCP over stdio" in entry["message"]]
    assert len(started) == 1 and started[0]["level"] == "info", lines
    assert all({"time", "level", "logger", "message"} <= set(entry) for entry in lines)


@pytest.mark.parametrize("host", ["claude-desktop", "claude-code", "cursor", "vscode"])
def test_printed_host_config_starts_the_server_from_any_folder(host: str) -> None:
    """The printed entry (absolute interpreter, args, PYTHONPATH) starts the server from /."""
    import asyncio

    from mcp_codegen_runtime.client import ClientBase

    proc = _run("--print-config", host)
    assert proc.returncode == 0, proc.stderr
    config = json.loads(proc.stdout)
    servers = config["servers"] if host == "vscode" else config["mcpServers"]
    entry = servers["weather"]
    assert Path(entry["command"]).is_absolute() and (entry.get("type") == "stdio") == (host in ("vscode", "claude-code"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | entry["env"]

    async def main() -> None:
        async with ClientBase.stdio(entry["command"], entry["args"], env=env, cwd="/", audit=None) as c:
            assert [t.name for t in await c.list_tools()] == ["get_weather", "get_forecast"]
            result = await c.call_tool("get_forecast", {"location": "Paris"})
            assert result.text()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_write_config_merges_into_an_existing_host_configuration(tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"globalShortcut": "Ctrl+Space",
                                  "mcpServers": {"other": {"command": "npx", "args": ["x"]},
                                                 "weather": {"command": "stale", "env": {"API_KEY": "k"}}}}))
    config.chmod(0o600)
    proc = _run("--print-config", "claude-desktop", "--write-config", str(config))
    assert proc.returncode == 0, proc.stderr
    assert "replaced server 'weather'" in proc.stderr
    data = json.loads(config.read_text())
    assert data["globalShortcut"] == "Ctrl+Space" and data["mcpServers"]["other"] == {"command": "npx", "args": ["x"]}
    assert Path(data["mcpServers"]["weather"]["command"]).is_absolute()
    # the spec's server.implementation is what `-m weather` serves: no --impl, as in server.json's package
    assert data["mcpServers"]["weather"]["args"] == ["-m", "weather", "--stdio"]
    assert data["mcpServers"]["weather"]["env"]["API_KEY"] == "k" and "PYTHONPATH" in data["mcpServers"]["weather"]["env"]
    assert config.stat().st_mode & 0o777 == 0o600  # permissions kept
    fresh = tmp_path / ".vscode" / "mcp.json"  # created, in VS Code's shape
    proc = _run("--print-config", "vscode", "--write-config", str(fresh))
    assert proc.returncode == 0 and "added server 'weather'" in proc.stderr
    assert json.loads(fresh.read_text())["servers"]["weather"]["type"] == "stdio"
    commented = tmp_path / "mcp.json"
    commented.write_text('{\n  // my servers\n  "servers": {}\n}\n')
    proc = _run("--print-config", "vscode", "--write-config", str(commented))
    assert proc.returncode == 2 and "not plain JSON" in proc.stderr
    assert commented.read_text().startswith("{\n  // my servers")  # untouched
    assert _run("--write-config", str(fresh)).returncode == 2  # which host's shape?


def test_host_config_names_the_package_when_the_runtime_is_a_library(tmp_path: Path) -> None:
    from codegen import build
    from codegen.options import Options

    result, report = build([EXAMPLES.parent / "specs" / "weather.yaml"], tmp_path, options=Options(runtime="library"))
    assert report is not None, [d.render() for d in result.diagnostics]
    (tmp_path / "weather_impl.py").write_text((EXAMPLES / "weather_impl.py").read_text())
    proc = subprocess.run([sys.executable, "-m", "weather", "--print-config", "cursor", "--impl", "weather_impl:WeatherService"],
                          cwd=tmp_path, env=server_env(PYTHONPATH=str(tmp_path)), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["mcpServers"]["weather"]["args"][:2] == ["-m", "weather"]


def test_declared_environment_problems_are_logged_at_start_and_secrets_not_echoed() -> None:
    # specs/weather.yaml: WEATHER_API_KEY required and secret, WEATHER_UNITS with choices
    env = {k: v for k, v in server_env().items() if not k.startswith("WEATHER_")}
    proc = subprocess.run([sys.executable, "-m", "weather", "--stdio", "--impl", "weather_impl:WeatherService"],
                          cwd=EXAMPLES, env={**env, "WEATHER_UNITS": "kelvin"}, input="", capture_output=True,
                          text=True, timeout=30)
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("WARNING")]
    assert proc.returncode == 0 and proc.stdout == "" and warnings == [
        "WARNING:mcp_codegen.server:environment variable WEATHER_API_KEY is required and not set "
        "(API key of the weather service)",
        "WARNING:mcp_codegen.server:environment variable WEATHER_UNITS: 'kelvin' is not one of celsius, fahrenheit",
    ], proc.stderr
    proc = subprocess.run([sys.executable, "-m", "weather", "--stdio", "--impl", "weather_impl:WeatherService"],
                          cwd=EXAMPLES, env={**env, "WEATHER_API_KEY": "k-123", "WEATHER_UNITS": "celsius"}, input="",
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and "WARNING" not in proc.stderr and "k-123" not in proc.stderr, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "weather", "--stdio", "--impl", "weather_impl:WeatherService"],
                          cwd=EXAMPLES, env={**env, "WEATHER_API_KEY": ""}, input="", capture_output=True, text=True,
                          timeout=30)
    assert "WEATHER_API_KEY is required and not set" in proc.stderr  # empty is unset


def test_environment_problems_name_the_variable_never_a_secret_value() -> None:
    from mcp_codegen_runtime.server.hostconfig import environment_problems
    from mcp_codegen_runtime.wire.launch import EnvVarDef

    class Declared(DemoServer):
        env_vars = (EnvVarDef("TOKEN", "the\ntoken", required=True, secret=True, choices=("t-a", "t-b")),
                    EnvVarDef("MODE", required=True, default="fast"), EnvVarDef("EXTRA"))

    assert environment_problems(Declared, {"TOKEN": "t-zzz-secret"}) == [
        "environment variable TOKEN: its value is not one of t-a, t-b"]
    assert environment_problems(Declared, {"TOKEN": "t-b"}) == []  # MODE has a default, EXTRA is optional
    assert environment_problems(Declared, {}) == ["environment variable TOKEN is required and not set (the token)"]
    assert environment_problems(Declared, {"TOKEN": "t-a", "MODE": "x", "EXTRA": "y"}) == []
