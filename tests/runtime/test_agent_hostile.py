"""A hostile or careless agent configuration (issue 44, attacks 2 and 3): an ``envFile`` (or a
configuration file) that is a device or a FIFO is refused at once, without reading it, and a
secret expanded from ``${VAR}`` never reaches an error text or a log line."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

#: Each probe runs in a child with this much address space and this long: before the fix
#: ``/dev/zero`` grew until memory ran out and a FIFO with no writer blocked forever.
MEMORY = 1024 * 1024 * 1024
SECONDS = 30


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def probe(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a child Python under the memory limit; a hang fails the test."""
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                              timeout=SECONDS, preexec_fn=_limited)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still reading after {SECONDS} s")


ENV_FILE = """
    from pathlib import Path
    from mcp_codegen_runtime.client.agent.config import ServerConfigError, parse_entry
    try:
        parse_entry("s", {{"command": "c", "envFile": {target!r}}}, Path({source!r}), {{}})
    except ServerConfigError as exc:
        print(exc)
    else:
        print("READ")
"""


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dev-null-dir"])
def test_an_env_file_that_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":  # no writer: opening it for reading would block forever
        target = tmp_path / "env.fifo"
        os.mkfifo(target)
    elif kind == "dev-zero":  # endless zeros
        target = tmp_path / "zero.env"
        target.symlink_to("/dev/zero")
    else:
        target = tmp_path / "folder.env"
        target.mkdir()
    out = probe(ENV_FILE.format(target=str(target), source=str(tmp_path / "mcp.json")))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "cannot be read" in out.stdout and str(target) in out.stdout, out.stdout


def test_an_env_file_larger_than_the_bound_is_refused(tmp_path: Path) -> None:
    from mcp_codegen_runtime.client.agent.config import MAX_ENV_FILE_BYTES, ServerConfigError, parse_entry

    big = tmp_path / "big.env"
    big.write_text("A=" + "x" * MAX_ENV_FILE_BYTES + "\n", "utf-8")
    with pytest.raises(ServerConfigError, match=f"larger than {MAX_ENV_FILE_BYTES} bytes"):
        parse_entry("s", {"command": "c", "envFile": str(big)}, tmp_path / "mcp.json", {})


def test_a_configuration_file_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "mcp.json"
    os.mkfifo(fifo)
    out = probe(f"""
        from pathlib import Path
        from mcp_codegen_runtime.client.agent.config import ServerConfigError, read_servers
        try:
            read_servers(Path({str(fifo)!r}))
        except ServerConfigError as exc:
            print(exc)
    """)
    assert "not a regular file" in out.stdout, (out.stdout, out.stderr[-2000:])


def test_a_regular_env_file_is_still_read(tmp_path: Path) -> None:
    from mcp_codegen_runtime.client.agent.config import parse_entry

    (tmp_path / ".env").write_text("A=1\nexport B='two'\n", "utf-8")
    entry = parse_entry("s", {"command": "c", "envFile": ".env"}, tmp_path / "mcp.json", {})
    assert dict(entry.env) == {"A": "1", "B": "two"}
    assert json.dumps(dict(entry.env))  # plain strings


# ------------------------------------------------------------------ secrets never shown (attack 2)
SECRET = "s3cr3t-Token+/value"  # characters an HTTP library percent-encodes
EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"


def _every_text(exc: BaseException) -> str:
    """Everything a traceback of ``exc`` would print: the chain's messages, notes and reprs."""
    import traceback

    return "".join(traceback.format_exception(exc)) + repr(exc.args)


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MCP_CODEGEN_SERVERS", "MCP_CODEGEN_DRIFT", "MCP_CODEGEN_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_SECRET", SECRET)


def _config(root: Path, servers: dict[str, object]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "mcp.json").write_text(json.dumps({"mcpServers": servers}), "utf-8")
    return root


@pytest.mark.usefixtures("secret_env")
@pytest.mark.parametrize("where", ["query", "userinfo", "path"])
def test_a_secret_in_an_http_url_is_not_in_the_connection_error(tmp_path: Path, where: str) -> None:
    from common_support import free_port
    from mcp_codegen_runtime.client.agent import connect
    from mcp_codegen_runtime.wire.errors import McpError
    from weather.client import WeatherSyncClient

    port = free_port()  # nothing listens there
    url = {"query": f"http://127.0.0.1:{port}/mcp?key=${{AGENT_SECRET}}",
           "userinfo": f"http://user:${{AGENT_SECRET}}@127.0.0.1:{port}/mcp",
           "path": f"http://127.0.0.1:{port}/t/${{AGENT_SECRET}}/mcp"}[where]
    root = _config(tmp_path / "servers", {"remote": {"url": url, "drift": "off", "timeout": 10}})
    try:
        with pytest.raises(McpError) as caught:
            connect.agent_client("remote", WeatherSyncClient, root=root)
    finally:
        connect.close_agent_clients()
    text = _every_text(caught.value)
    assert "could not be connected" in text and "${AGENT_SECRET}" in text
    for form in (SECRET, "s3cr3t-Token%2B%2Fvalue", "s3cr3t-Token+%2Fvalue"):
        assert form not in text


@pytest.mark.usefixtures("secret_env")
def test_a_secret_in_a_command_its_arguments_or_echoed_on_stderr_is_not_shown(tmp_path: Path) -> None:
    from mcp_codegen_runtime.client.agent import connect
    from mcp_codegen_runtime.wire.errors import McpError
    from weather.client import WeatherSyncClient

    root = _config(tmp_path / "servers", {
        "missing": {"command": str(tmp_path / "${AGENT_SECRET}" / "server"), "drift": "off"},
        "echo": {"command": sys.executable, "args": ["-c", "import sys; print('token', sys.argv[1], file=sys.stderr)",
                                                     "${AGENT_SECRET}"], "drift": "off"},
    })
    for name in ("missing", "echo"):
        try:
            with pytest.raises(McpError) as caught:
                connect.agent_client(name, WeatherSyncClient, root=root)
        finally:
            connect.close_agent_clients()
        text = _every_text(caught.value)
        assert "could not be connected" in text and SECRET not in text, text
    assert "token ${AGENT_SECRET}" in text  # the stderr line is kept, its value hidden


@pytest.mark.usefixtures("secret_env")
def test_a_later_call_after_the_server_died_does_not_show_the_secret(tmp_path: Path) -> None:
    from mcp_codegen_runtime.client.agent import connect
    from mcp_codegen_runtime.wire.errors import McpError
    from weather.client import WeatherSyncClient

    folder = tmp_path / SECRET.replace("/", "_").replace("+", "_")
    folder.mkdir()
    (folder / "python").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n', "utf-8")
    (folder / "python").chmod(0o755)
    os.environ["AGENT_SECRET"] = folder.name
    root = _config(tmp_path / "servers", {"weather": {
        "command": str(tmp_path / "${AGENT_SECRET}" / "python"), "args": ["-m", "weather", "--stdio"],
        "cwd": str(EXAMPLES), "env": {"PYTHONPATH": str(EXAMPLES)}, "stderr": "discard", "drift": "off"}})
    try:
        client = connect.agent_client("weather", WeatherSyncClient, root=root)
        process = client.client.transport.process  # type: ignore[attr-defined]
        process.kill()
        with pytest.raises(McpError) as caught:
            for _ in range(3):  # the first call may still see the process going
                client.get_weather(location="Paris")
                client = connect.agent_client("weather", WeatherSyncClient, root=root)
                client.client.transport.process.kill()  # type: ignore[attr-defined]
    finally:
        connect.close_agent_clients()
    text = _every_text(caught.value)
    assert folder.name not in text, text
