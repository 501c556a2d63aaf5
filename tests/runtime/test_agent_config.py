"""The configuration an agent's tool functions connect through (``client/agent/config.py``,
``client/agent/options.py``): host formats, where each host keeps its files, ``${VAR}``
expansion, and the agent options."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from mcp_codegen_runtime.client.agent import options as O
from mcp_codegen_runtime.client.agent.config import (
    ServerConfigError,
    config_files,
    find_server,
    parse_entry,
    read_servers,
    strip_jsonc,
)
from mcp_codegen_runtime.client.agent.connect import ServerDriftError, drift_summary, judge_drift
from mcp_codegen_runtime.client.hooks import default_audit_hook
from mcp_codegen_runtime.client.types import CompatReport, ToolCallInfo, ToolChange
from mcp_codegen_runtime.wire.errors import ConfirmationDeniedError, ProtocolError


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for name in ("MCP_CODEGEN_SERVERS", "MCP_CODEGEN_DRIFT", "MCP_CODEGEN_TIMEOUT", "MCP_CODEGEN_CONFIRM",
                 "MCP_CODEGEN_AUDIT", "MCP_CODEGEN_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    return folder


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return path


def stdio(command: str = "srv", **more: Any) -> dict[str, Any]:
    return {"command": command, **more}


# ------------------------------------------------------------------------- the formats
def test_stdio_and_http_entries_in_every_spelling(tmp_path: Path) -> None:
    src = tmp_path / "mcp.json"
    e = parse_entry("a", {"command": "node", "args": ["x.js", 3], "env": {"N": 1, "B": True}, "cwd": "sub"}, src, {})
    assert (e.transport, e.command, e.args, dict(e.env), e.cwd) == (
        "stdio", "node", ("x.js", "3"), {"N": "1", "B": "true"}, str(tmp_path / "sub"))
    assert parse_entry("a", {"type": "stdio", "command": "x", "cwd": "/abs"}, src, {}).cwd == "/abs"
    for kind in ("http", "streamable-http", "streamableHttp", None):
        raw: dict[str, Any] = {"url": "https://h/mcp", "headers": {"A": "b"}}
        if kind:
            raw["type"] = kind
        e = parse_entry("h", raw, src, {})
        assert (e.transport, e.url, dict(e.headers)) == ("http", "https://h/mcp", {"A": "b"})


@pytest.mark.parametrize("raw, message", [
    ({"type": "sse", "url": "https://h/sse"}, "the old HTTP+SSE transport is not supported"),
    ({"type": "websocket", "url": "x"}, "unknown \"type\" 'websocket'"),
    ({"args": ["x"]}, "a stdio entry needs \"command\""),
    ({"type": "http"}, "an HTTP entry needs \"url\""),
    ({"command": "x", "args": "a b"}, "'args' must be a list of strings"),
    ({"command": "x", "env": ["A=1"]}, "'env' must be an object of strings"),
    ("npx server", "the entry is not a JSON object"),
])
def test_unusable_entries_say_which_key(tmp_path: Path, raw: Any, message: str) -> None:
    with pytest.raises(ServerConfigError, match="server 'x' in .*mcp.json: ") as caught:
        parse_entry("x", raw, tmp_path / "mcp.json", {})
    assert message in str(caught.value)


def test_references_are_expanded_and_a_missing_one_is_named(tmp_path: Path) -> None:
    env = {"TOKEN": "t0k3n", "DIR": "/opt/srv"}
    raw = {"command": "${DIR}/bin/srv", "args": ["--key=${TOKEN}", "${env:DIR}", "${UNSET:-fallback}"],
           "env": {"API_KEY": "${TOKEN}"}}
    e = parse_entry("s", raw, tmp_path / "mcp.json", env)
    assert (e.command, e.args, dict(e.env)) == ("/opt/srv/bin/srv", ("--key=t0k3n", "/opt/srv", "fallback"),
                                                {"API_KEY": "t0k3n"})
    h = parse_entry("h", {"url": "https://x/${DIR}", "headers": {"Authorization": "Bearer ${TOKEN}"}},
                    tmp_path / "mcp.json", env)
    assert dict(h.headers) == {"Authorization": "Bearer t0k3n"}
    assert "t0k3n" not in repr(e) + repr(h)  # secrets stay out of repr
    for key, raw2 in (("headers.X-Key", {"url": "u", "headers": {"X-Key": "${NOPE}"}}),
                      ("args[1]", {"command": "c", "args": ["a", "${NOPE}"]}),
                      ("url", {"url": "https://${NOPE}/mcp"})):
        with pytest.raises(ServerConfigError) as caught:
            parse_entry("s", raw2, tmp_path / "mcp.json", env)
        assert str(caught.value) == (f"server 's': {key} refers to ${{NOPE}}, which is not set in the environment "
                                     f"(set NOPE, or change the entry)")
    with pytest.raises(ServerConfigError, match=r"uses \$\{input:key\}, which only VS Code can fill in"):
        parse_entry("s", {"command": "c", "env": {"K": "${input:key}"}}, tmp_path / ".vscode" / "mcp.json", env)
    ws = parse_entry("s", {"command": "c", "args": ["${workspaceFolder}/x"]}, tmp_path / ".vscode" / "mcp.json", env)
    assert ws.args == (f"{tmp_path}/x",)


def test_vscode_env_file(tmp_path: Path) -> None:
    write(tmp_path / ".env", "# keys\nexport API_KEY='k1'\nOTHER = two words \n\nQUOTED=\"x=y\"\n")
    src = tmp_path / ".vscode" / "mcp.json"
    e = parse_entry("s", {"command": "c", "envFile": "${workspaceFolder}/.env", "env": {"OTHER": "mine"}}, src, {})
    assert dict(e.env) == {"API_KEY": "k1", "OTHER": "mine", "QUOTED": "x=y"}  # env wins over the file
    write(tmp_path / "bad.env", "OK=1\nnot a line\n")
    with pytest.raises(ServerConfigError, match=r"envFile .*bad.env line 2 is not NAME=value"):
        parse_entry("s", {"command": "c", "envFile": "bad.env"}, src, {})
    with pytest.raises(ServerConfigError, match=r"envFile .*none.env cannot be read"):
        parse_entry("s", {"command": "c", "envFile": "none.env"}, src, {})


def test_jsonc_comments_and_trailing_commas() -> None:
    text = '{\n // a comment\n "servers": {"a": {"command": "x // not a comment", /* inline */ "args": ["/*", ],},},\n}'
    assert json.loads(strip_jsonc(text)) == {"servers": {"a": {"command": "x // not a comment", "args": ["/*"]}}}
    assert json.loads(strip_jsonc('{"a": "q\\"//x", "b": 1}')) == {"a": 'q"//x', "b": 1}


def test_a_broken_file_is_an_error_and_a_missing_one_is_empty(tmp_path: Path) -> None:
    assert read_servers(tmp_path / "none.json") == {}
    with pytest.raises(ServerConfigError, match="bad.json: not a JSON configuration"):
        read_servers(write(tmp_path / "bad.json", "{nope"))
    with pytest.raises(ServerConfigError, match="'mcpServers' is not a JSON object"):
        read_servers(write(tmp_path / "list.json", {"mcpServers": []}))


# --------------------------------------------------------------------------- the hosts
def test_claude_code_local_project_user_in_that_order(home: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    write(home / ".claude.json", {"mcpServers": {"u": stdio("user"), "both": stdio("user-both")},
                                  "projects": {str(project): {"mcpServers": {"local": stdio("local")}}}})
    write(project / ".mcp.json", {"mcpServers": {"both": stdio("project-both"), "local": stdio("project-local")}})
    monkeypatch.chdir(deep)
    monkeypatch.setenv("MCP_CODEGEN_SERVERS", "claude-code")
    got = {n: find_server(n, tmp_path / "servers").command for n in ("u", "both", "local")}
    assert got == {"u": "user", "both": "project-both", "local": "local"}
    assert find_server("both", tmp_path).source == str(project / ".mcp.json")


def test_cursor_vscode_and_claude_desktop_files(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    write(project / ".cursor" / "mcp.json", {"mcpServers": {"c": stdio("cursor-project")}})
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"c": stdio("cursor-global"), "g": stdio("cursor-g")}})
    write(project / ".vscode" / "mcp.json", '{"servers": {"v": {"type": "stdio", "command": "code-srv",},}, // x\n}')
    write(home / ".config" / "Code" / "User" / "mcp.json", {"servers": {"vu": {"url": "https://vu/mcp"}}})
    write(home / ".config" / "Claude" / "claude_desktop_config.json", {"mcpServers": {"d": stdio("desktop")}})
    cases = {"cursor": {"c": "cursor-project", "g": "cursor-g"}, "vscode": {"v": "code-srv"},
             "claude-desktop": {"d": "desktop"}}
    for host, expected in cases.items():
        monkeypatch.setenv("MCP_CODEGEN_SERVERS", host)
        assert {n: find_server(n, tmp_path).command for n in expected} == expected
    monkeypatch.setenv("MCP_CODEGEN_SERVERS", "vscode")
    assert find_server("vu", tmp_path).url == "https://vu/mcp"
    monkeypatch.setenv("MCP_CODEGEN_SERVERS", os.pathsep.join(["cursor", "claude-desktop"]))
    assert find_server("d", tmp_path).command == "desktop"  # a list: the first file naming it wins
    monkeypatch.setenv("MCP_CODEGEN_SERVERS", "zed")
    with pytest.raises(ServerConfigError, match="MCP_CODEGEN_SERVERS: 'zed' is neither a configuration file nor a host \\(claude-desktop, "):
        find_server("d", tmp_path)


def test_default_is_root_mcp_json(home: Path, tmp_path: Path) -> None:
    root = tmp_path / "servers"
    write(root / "mcp.json", {"mcpServers": {"w": stdio("weather-srv")}})
    assert config_files(root, {}) == [(root / "mcp.json", "servers")]
    assert find_server("w", root).command == "weather-srv"


# ------------------------------------------------------------------------- the options
def entry(**options: Any) -> Any:
    return parse_entry("s", {"command": "c", **options}, Path("/cfg/mcp.json"), {})


def test_option_values_defaults_and_environment_precedence() -> None:
    assert (O.drift_policy(entry(), {}), O.call_timeout(entry(), {})) == ("warn", 120.0)
    assert O.drift_policy(entry(drift="raise"), {}) == "raise"
    assert O.drift_policy(entry(drift="raise"), {"MCP_CODEGEN_DRIFT": "off"}) == "off"
    assert O.call_timeout(entry(timeout=5), {"MCP_CODEGEN_TIMEOUT": "2.5"}) == 2.5
    with pytest.raises(ServerConfigError, match="MCP_CODEGEN_DRIFT: drift must be warn, raise or off, not 'loud'"):
        O.drift_policy(entry(), {"MCP_CODEGEN_DRIFT": "loud"})
    for bad in (0, -1, "soon", True, float("inf")):
        with pytest.raises(ServerConfigError, match="timeout must be a positive number"):
            O.call_timeout(entry(timeout=bad), {})
    opts = O.client_options(entry(timeout=7), {})
    assert (opts["timeout"], opts["max_timeout"], opts["stderr"]) == (7.0, 7.0, "capture")
    assert opts["elicitation"] is None and opts["sampling"] is None
    assert O.client_options(entry(elicitation="json:loads"), {"MCP_CODEGEN_SAMPLING": "json:dumps"})["sampling"] \
        is json.dumps
    assert opts["confirm"] is O.refuse_destructive and opts["audit"] is default_audit_hook
    assert O.client_options(entry(confirm="allow", audit="off"), {})["confirm"] is None
    assert O.audit_hook(entry(audit="off"), {}) is None
    assert O.confirm_hook(entry(), {"MCP_CODEGEN_CONFIRM": "deny"}) is O.refuse_writes
    assert O.confirm_hook(entry(), {"MCP_CODEGEN_CONFIRM": "json:dumps"}) is json.dumps
    with pytest.raises(ServerConfigError, match="'confirm' of server 's' in /cfg/mcp.json: 'json' is not a module:function"):
        O.confirm_hook(entry(confirm="json"), {})
    with pytest.raises(ServerConfigError, match="'json' has no 'nope'"):
        O.audit_hook(entry(audit="json:nope"), {})


def info(annotations: dict[str, Any]) -> ToolCallInfo:
    return ToolCallInfo(tool="t", arguments={}, reason="destructive", annotations=annotations)


def test_the_default_confirm_refuses_only_declared_destructive_tools() -> None:
    with pytest.raises(ConfirmationDeniedError, match="t is declared destructive and no confirmation hook"):
        O.refuse_destructive(info({"destructiveHint": True}))
    assert O.refuse_destructive(info({}))  # no annotations: goes ahead
    assert O.refuse_destructive(info({"destructiveHint": False, "readOnlyHint": False}))
    with pytest.raises(ConfirmationDeniedError, match="not declared read-only"):
        O.refuse_writes(info({}))


def test_oauth_uses_file_storage_0600(home: Path, tmp_path: Path) -> None:
    h = parse_entry("h", {"url": "https://h/mcp", "oauth": {"client_id": "${CID}", "scope": "read"}},
                    tmp_path / "mcp.json", {"CID": "abc"})
    settings = O.oauth_settings(h, {})
    assert (settings.client_id, settings.scope) == ("abc", "read")
    assert settings.storage.path == home / ".config" / "mcp-codegen" / "oauth-tokens.json"
    settings.storage.save("https://h/mcp", {"token": {"access_token": "x"}})
    assert stat.S_IMODE(settings.storage.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(settings.storage.path.parent.stat().st_mode) == 0o700
    named = O.oauth_settings(h, {"MCP_CODEGEN_TOKEN_FILE": str(tmp_path / "t.json")})
    assert named.storage.path == tmp_path / "t.json"
    own = parse_entry("h", {"url": "https://h/mcp", "headers": {"authorization": "Bearer x"}}, tmp_path / "m", {})
    assert O.oauth_settings(own, {}) is None  # the entry authorizes itself
    assert O.oauth_settings(parse_entry("h", {"url": "u", "oauth": False}, tmp_path / "m", {}), {}) is None
    with pytest.raises(ServerConfigError, match="unknown keys secret"):
        O.oauth_settings(parse_entry("h", {"url": "u", "oauth": {"secret": 1}}, tmp_path / "m", {}), {})


# --------------------------------------------------------------------------- the drift
def test_drift_judgement(caplog: pytest.LogCaptureFixture) -> None:
    report = CompatReport(added=tuple(f"extra{i}" for i in range(7)), removed=("gone",),
                          changed=(ToolChange("moved", "a", "b", ("inputSchema",)),), unchanged=())
    assert drift_summary(report) == ("- gone (missing on server); ~ moved (inputSchema differ); server only: "
                                     "extra0, extra1, extra2, extra3, extra4 and 2 more")
    with pytest.raises(ServerDriftError) as caught:
        judge_drift("s", "raise", report)
    assert caught.value.report is report
    caplog.set_level(logging.WARNING, "mcp_codegen.client.agent")
    judge_drift("unit-s", "warn", report)
    judge_drift("unit-s", "warn", report)
    judge_drift("unit-s", "warn", ProtocolError("no tools/list"))
    lines = [r.getMessage() for r in caplog.records if r.name == "mcp_codegen.client.agent"]
    assert lines == ["MCP server 'unit-s' differs from its generated client (regenerate the client, e.g. with "
                     "mcp-codegen pull): " + drift_summary(report),
                     "MCP server 'unit-s': the drift check could not run (ProtocolError: no tools/list)"]
    judge_drift("s", "raise", CompatReport(added=("new",), removed=(), changed=(), unchanged=("a",)))  # compatible
