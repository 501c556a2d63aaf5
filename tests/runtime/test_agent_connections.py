"""``agent_client`` / ``agent_client_async`` (issue 29 points 3, 4, 6) against real server processes:
the committed examples started over stdio and HTTP from an ``mcp.json`` in a temporary folder,
called through their generated typed clients."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from common_support import free_port, stop_pid, wait_port, wait_until, weather_spec
from everything.client import EverythingClient, EverythingSyncClient
from mcp_codegen_runtime.client.agent import connect as everything_agent
from mcp_codegen_runtime.client.agent import connect as notes_agent
from mcp_codegen_runtime.client.agent import connect as weather_agent
from mcp_codegen_runtime.client.agent.config import ServerConfigError
from mcp_codegen_runtime.client.gencode import agent_client, agent_client_async
from mcp_codegen_runtime.client.gencode import agent_client as weather_agent_client
from mcp_codegen_runtime.client.gencode import agent_client_async as weather_agent_client_async
from mcp_codegen_runtime.wire.errors import ConfirmationDeniedError, McpTimeoutError, TransportClosedError
from notes.client import NotesSyncClient
from notes.errors import NotFoundError
from weather.client import WeatherClient, WeatherSyncClient
from weather.models import GetWeatherOutput, Unit

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "generated_examples"
ENV_NAMES = ("MCP_CODEGEN_SERVERS", "MCP_CODEGEN_DRIFT", "MCP_CODEGEN_TIMEOUT", "MCP_CODEGEN_CONFIRM",
             "MCP_CODEGEN_AUDIT", "MCP_CODEGEN_TOKEN_FILE")


def stdio_entry(package: str, *extra: str, **more: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", package, "--stdio", *extra], "cwd": str(EXAMPLES),
            "env": {"PYTHONPATH": str(EXAMPLES)}, "stderr": "discard", **more}


def write_config(root: Path, servers: dict[str, Any], key: str = "mcpServers") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / "mcp.json"
    path.write_text(json.dumps({key: servers}, indent=2), "utf-8")
    return path


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No MCP_CODEGEN_* variable of the caller's; every connection closed after the test."""
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    yield
    for module in (everything_agent, notes_agent, weather_agent):
        module.close_agent_clients()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "servers"
    write_config(folder, {"everything": stdio_entry("everything"), "weather": stdio_entry("weather"),
                          "notes": stdio_entry("notes")})
    return folder


def pid_of(client: Any) -> int:
    inner = client.client if hasattr(client, "client") else client
    return int(inner.transport.process.pid)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


# ------------------------------------------------------------------------ one per process
def test_one_stdio_process_per_server_reused_by_every_call(root: Path) -> None:
    first = agent_client("everything", EverythingSyncClient, root=root)
    assert first.test_simple_text().text() == "This is a simple text response for testing."
    pid = pid_of(first)
    for _ in range(3):
        again = agent_client("everything", EverythingSyncClient, root=root)
        assert again is first
        assert again.test_simple_text().text() == "This is a simple text response for testing."
    assert pid_of(agent_client("everything", EverythingSyncClient, root=root)) == pid
    weather = weather_agent_client("weather", WeatherSyncClient, root=root)
    assert weather.get_weather(location="Paris", unit=Unit.celsius) == GetWeatherOutput(
        temperature=18.0, conditions="sunny", unit=Unit.celsius)
    assert pid_of(weather) != pid  # one process per server
    assert alive(pid) and alive(pid_of(weather))


def test_a_server_that_exited_is_started_again(root: Path) -> None:
    client = weather_agent_client("weather", WeatherSyncClient, root=root)
    pid = pid_of(client)
    os.kill(pid, 9)
    wait_until(lambda: client.is_closed, timeout=30, what="the client noticing its server died")
    again = weather_agent_client("weather", WeatherSyncClient, root=root)
    assert again is not client and pid_of(again) != pid
    assert again.get_forecast(location="London", days=1).text() == "day 1: rain, 12.5 C"


def test_the_wrong_client_class_for_a_connected_server_is_refused(root: Path) -> None:
    weather_agent_client("weather", WeatherSyncClient, root=root)
    with pytest.raises(TypeError, match="already connected with WeatherSyncClient"):
        weather_agent.agent_client("weather", NotesSyncClient, root=root)  # type: ignore[type-var]


CLOSE_AT_EXIT = """
import atexit, json, sys
from pathlib import Path
from mcp_codegen_runtime.client.gencode import agent_client
from everything.client import EverythingSyncClient

state = {}

def after_the_agent_clients_closed():  # registered first, so it runs after close_agent_clients
    proc = state["client"].client.transport.process
    print(json.dumps({"pid": proc.pid, "returncode": proc.returncode}), flush=True)

atexit.register(after_the_agent_clients_closed)
client = agent_client("everything", EverythingSyncClient, root=Path(sys.argv[1]))
state["client"] = client
assert client.test_simple_text().text()
"""


def test_connections_are_closed_at_interpreter_exit(root: Path, tmp_path: Path) -> None:
    script = tmp_path / "agent_script.py"
    script.write_text(CLOSE_AT_EXIT, "utf-8")
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES)}
    done = subprocess.run([sys.executable, str(script), str(root)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["returncode"] is not None  # the server was stopped before the interpreter finished
    assert not alive(seen["pid"])


FORK_SCRIPT = """
import json, os, sys
from pathlib import Path
from mcp_codegen_runtime.client.gencode import agent_client
from weather.client import WeatherSyncClient

root = Path(sys.argv[1])
parent = agent_client("weather", WeatherSyncClient, root=root)
parent_pid = parent.client.transport.process.pid
read, write = os.pipe()
child = os.fork()
if child == 0:
    mine = agent_client("weather", WeatherSyncClient, root=root)
    text = mine.get_forecast(location="Paris", days=1).text()
    os.write(write, json.dumps([mine.client.transport.process.pid, text]).encode())
    mine.close()
    os._exit(0)
os.waitpid(child, 0)
child_pid, text = json.loads(os.read(read, 4096))
print(json.dumps([parent_pid, child_pid, text, parent.get_forecast(location="London", days=1).text()]))
"""


def test_a_forked_child_opens_its_own_connection(root: Path, tmp_path: Path) -> None:
    script = tmp_path / "fork_script.py"
    script.write_text(FORK_SCRIPT, "utf-8")
    done = subprocess.run([sys.executable, str(script), str(root)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(EXAMPLES)})
    assert done.returncode == 0, done.stderr
    parent_pid, child_pid, text, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert parent_pid != child_pid
    assert (text, after) == ("day 1: sunny, 18.0 C", "day 1: rain, 12.5 C")  # the parent's connection still works


# ------------------------------------------------------------------------------ async twin
def test_async_clients_one_per_event_loop_and_asyncio_run_twice(root: Path) -> None:
    async def session() -> tuple[int, str]:
        a = await agent_client_async("everything", EverythingClient, root=root)
        b = await agent_client_async("everything", EverythingClient, root=root)
        assert a is b
        both = await asyncio.gather(a.test_simple_text(), b.test_simple_text())
        assert {r.text() for r in both} == {"This is a simple text response for testing."}
        return pid_of(a), (await a.test_simple_text()).text()

    first_pid, text = asyncio.run(session())
    second_pid, _ = asyncio.run(session())
    assert text == "This is a simple text response for testing."
    assert first_pid != second_pid  # each loop has its own connection ...
    wait_until(lambda: not alive(first_pid) and not alive(second_pid), timeout=30,
               what="the servers of ended loops stopping")  # ... closed when asyncio.run ends
    assert not everything_agent._loops  # and nothing of the ended loops is kept


def test_concurrent_first_calls_share_one_connection(root: Path) -> None:
    async def main() -> set[int]:
        clients = await asyncio.gather(*(weather_agent_client_async("weather", WeatherClient, root=root) for _ in range(5)))
        return {id(c) for c in clients} | {-pid_of(c) for c in clients}

    ids = asyncio.run(main())
    assert len(ids) == 2  # one client, one process


# ------------------------------------------------------------------------------------ HTTP
@pytest.fixture
def http_everything() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "everything", "--http", "--port", str(port)], cwd=EXAMPLES,
                            env={**os.environ, "PYTHONPATH": str(EXAMPLES)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_port(port, timeout=60, proc=proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_pid(proc)


def test_http_entry_with_expanded_headers(http_everything: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "servers"
    write_config(root, {"everything": {"type": "http", "url": http_everything,
                                       "headers": {"X-Agent-Token": "${AGENT_TEST_TOKEN}"}}})
    monkeypatch.setenv("AGENT_TEST_TOKEN", "s3cret-value")
    client = agent_client("everything", EverythingSyncClient, root=root)
    assert client.test_simple_text().text() == "This is a simple text response for testing."
    assert agent_client("everything", EverythingSyncClient, root=root) is client
    assert client.client.transport.headers["X-Agent-Token"] == "s3cret-value"  # type: ignore[attr-defined]

    async def twice() -> str:
        a = await agent_client_async("everything", EverythingClient, root=root)
        return (await a.test_simple_text()).text()

    assert asyncio.run(twice()) == asyncio.run(twice()) == "This is a simple text response for testing."


# ------------------------------------------------------------------------- config errors
def test_a_missing_variable_names_server_key_and_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_TEST_MISSING", raising=False)
    root = tmp_path / "servers"
    write_config(root, {"weather": stdio_entry("weather", env={"API_KEY": "${AGENT_TEST_MISSING}"})})
    with pytest.raises(ServerConfigError) as caught:
        weather_agent_client("weather", WeatherSyncClient, root=root)
    assert str(caught.value) == ("server 'weather': env.API_KEY refers to ${AGENT_TEST_MISSING}, which is not set in "
                                 "the environment (set AGENT_TEST_MISSING, or change the entry)")


def test_an_unknown_server_lists_the_names_and_the_files(root: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ServerConfigError) as caught:
        weather_agent_client("wether", WeatherSyncClient, root=root)
    assert str(caught.value) == (f"no MCP server 'wether' is configured; servers found: everything, notes, weather; "
                                 f"files looked at: {root / 'mcp.json'}; add it to {root / 'mcp.json'}")
    other = write_config(tmp_path / "elsewhere", {"catalog": stdio_entry("catalog")})
    monkeypatch.setenv("MCP_CODEGEN_SERVERS", f"{other}{os.pathsep}{tmp_path / 'absent.json'}")
    with pytest.raises(ServerConfigError) as caught:
        weather_agent_client("weather", WeatherSyncClient, root=root)
    assert str(caught.value) == (f"no MCP server 'weather' is configured; servers found: catalog; files looked at: "
                                 f"{other}, {tmp_path / 'absent.json'}; add it to one of them, or change "
                                 f"MCP_CODEGEN_SERVERS")


def test_the_environment_variable_points_at_a_vscode_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / ".vscode").mkdir(parents=True)
    entry = stdio_entry("weather")
    entry["type"] = "stdio"
    entry["env"] = {"PYTHONPATH": "${env:AGENT_TEST_EXAMPLES}"}
    text = json.dumps({"servers": {"weather": entry}}, indent=2)
    text = text.replace('"servers": {', '"servers": { // VS Code allows comments\n', 1).replace("}\n}", "},\n}")
    (project / ".vscode" / "mcp.json").write_text(text, "utf-8")
    monkeypatch.setenv("AGENT_TEST_EXAMPLES", str(EXAMPLES))
    monkeypatch.setenv("MCP_CODEGEN_SERVERS", "vscode")
    monkeypatch.chdir(project)
    client = weather_agent_client("weather", WeatherSyncClient, root=tmp_path / "no-servers-here")
    assert client.get_forecast(location="Paris", days=1).text().startswith("day 1:")


# ------------------------------------------------------------------------------ drift
def drifted(tmp_path: Path, **more: Any) -> Path:
    """A config whose "weather" runs the notes server: get_weather and get_forecast are missing."""
    return write_config(tmp_path / "servers", {"weather": stdio_entry("notes", **more)}).parent


def test_drift_warn_logs_one_line_per_server(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = drifted(tmp_path)
    caplog.set_level(logging.WARNING, "mcp_codegen.client.agent")
    client = weather_agent_client("weather", WeatherSyncClient, root=root)
    for _ in range(3):
        assert weather_agent_client("weather", WeatherSyncClient, root=root) is client
        with pytest.raises(Exception, match="get_forecast"):
            client.get_forecast(location="Paris")
    lines = [r.getMessage() for r in caplog.records if r.name == "mcp_codegen.client.agent"]
    assert len(lines) == 1, lines
    assert lines[0].startswith("MCP server 'weather' differs from its generated client")
    assert "- get_forecast (missing on server)" in lines[0] and "- get_weather (missing on server)" in lines[0]
    assert "\n" not in lines[0]


DRIFT_SCRIPT = """
import sys
from pathlib import Path
from mcp_codegen_runtime.client.gencode import agent_client
from weather.client import WeatherSyncClient

for _ in range(3):
    client = agent_client("weather", WeatherSyncClient, root=Path(sys.argv[1]))
    assert client.list_tools()
print("done")
"""


def test_drift_warning_reaches_stderr_once_without_logging_set_up(tmp_path: Path) -> None:
    root = drifted(tmp_path)
    script = tmp_path / "drift_script.py"
    script.write_text(DRIFT_SCRIPT, "utf-8")
    done = subprocess.run([sys.executable, str(script), str(root)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(EXAMPLES)})
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("MCP server 'weather' differs from its generated client"), lines


def test_drift_raise_refuses_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = drifted(tmp_path, drift="raise")
    with pytest.raises(weather_agent.ServerDriftError, match="differs from its generated client") as caught:
        weather_agent_client("weather", WeatherSyncClient, root=root)
    assert caught.value.report is not None and set(caught.value.report.removed) == {"get_forecast", "get_weather"}

    async def main() -> None:
        await weather_agent_client_async("weather", WeatherClient, root=root)

    with pytest.raises(weather_agent.ServerDriftError):
        asyncio.run(main())
    monkeypatch.setenv("MCP_CODEGEN_DRIFT", "off")  # the environment overrides the entry
    assert weather_agent_client("weather", WeatherSyncClient, root=root).list_tools()


def test_drift_of_a_changed_schema(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The weather server rebuilt from a spec whose get_forecast now takes up to 14 days: the
    committed client's get_forecast schema differs (warn: a line; raise: refused)."""
    from codegen import build

    text = (REPO / "specs" / "weather.yaml").read_text("utf-8")
    assert text.count("maximum: 7") == 1
    spec = weather_spec(tmp_path, text.replace("maximum: 7", "maximum: 14"))
    result, report = build([spec], tmp_path / "drifted")
    assert report is not None, [d.render() for d in result.diagnostics]
    entry = stdio_entry("weather", cwd=str(tmp_path / "drifted"))  # python -m: the working folder comes first
    entry["env"] = {"PYTHONPATH": str(EXAMPLES)}  # for weather_impl
    root = write_config(tmp_path / "servers", {"weather": entry}).parent
    caplog.set_level(logging.WARNING, "mcp_codegen.client.agent")
    client = weather_agent_client("weather", WeatherSyncClient, root=root)
    assert client.get_forecast(location="Paris", days=2).text().startswith("day 1:")  # still callable
    lines = [r.getMessage() for r in caplog.records if r.name == "mcp_codegen.client.agent"]
    assert lines == ["MCP server 'weather' differs from its generated client (regenerate the client, e.g. with "
                     "mcp-codegen pull): ~ get_forecast (inputSchema differ)"]
    weather_agent.close_agent_clients()
    monkeypatch.setenv("MCP_CODEGEN_DRIFT", "raise")
    with pytest.raises(weather_agent.ServerDriftError, match=r"~ get_forecast \(inputSchema differ\)") as caught:
        weather_agent_client("weather", WeatherSyncClient, root=root)
    assert caught.value.report is not None and [c.name for c in caught.value.report.changed] == ["get_forecast"]


def test_drift_off_asks_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    root = drifted(tmp_path, drift="off")
    caplog.set_level(logging.DEBUG)
    client = weather_agent_client("weather", WeatherSyncClient, root=root)
    assert not [r for r in caplog.records if r.name == "mcp_codegen.client.agent"]
    assert "delete_note" in {t.name for t in client.list_tools()}


def test_a_compatible_server_gives_no_warning(root: Path, caplog: pytest.LogCaptureFixture,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_DRIFT", "raise")
    caplog.set_level(logging.WARNING)
    weather_agent_client("weather", WeatherSyncClient, root=root).get_weather(location="Paris", unit=Unit.celsius)
    agent_client("everything", EverythingSyncClient, root=root)
    assert not [r for r in caplog.records if r.name == "mcp_codegen.client.agent"]


# ------------------------------------------------------------------------- timeout, hooks
SLOW_IMPL = """
import asyncio
from weather_impl import WeatherService

class SlowWeather(WeatherService):
    async def get_weather(self, args, ctx):
        await asyncio.sleep(120)
        return await super().get_weather(args, ctx)
"""


def test_every_call_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "slow_impl.py").write_text(SLOW_IMPL, "utf-8")
    entry = stdio_entry("weather", "--impl", "slow_impl:SlowWeather", timeout=1.5)
    entry["env"] = {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(EXAMPLES)])}
    root = write_config(tmp_path / "servers", {"weather": entry}).parent
    client = weather_agent_client("weather", WeatherSyncClient, root=root)
    with pytest.raises(McpTimeoutError):
        client.get_weather(location="Paris", unit=Unit.celsius)
    assert client.get_forecast(location="Paris", days=1).text().startswith("day 1:")  # the connection lives on


HOOKS = """
import json, os
CALLS = []

def fahrenheit(request):
    from mcp_codegen_runtime.client.types import ElicitationResponse
    CALLS.append(("elicitation", request.message))
    return ElicitationResponse(action="accept", content={"unit": "fahrenheit"})

def ask(info):
    CALLS.append((info.tool, info.reason))
    return info.arguments.get("id") != "n1"

def record(record):
    with open(os.environ["AGENT_TEST_AUDIT"], "a") as fh:
        fh.write(json.dumps([record.tool, record.outcome]) + "\\n")
"""


def test_destructive_tools_are_refused_without_a_confirmation_hook(root: Path) -> None:
    notes = notes_agent.agent_client("notes", NotesSyncClient, root=root)
    with pytest.raises(ConfirmationDeniedError) as caught:
        notes.delete_note(id="n1")
    assert "delete_note is declared destructive and no confirmation hook is configured" in str(caught.value)
    assert "MCP_CODEGEN_CONFIRM=module:function" in str(caught.value)
    created = notes.create_note(title="kept")  # not read-only, not declared destructive: goes ahead
    assert notes.get_note(id=created.id).title == "kept"


def test_the_configured_confirmation_and_audit_hooks_apply(root: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "agent_hooks_probe.py").write_text(HOOKS, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    audit = tmp_path / "audit.jsonl"
    monkeypatch.setenv("AGENT_TEST_AUDIT", str(audit))
    monkeypatch.setenv("MCP_CODEGEN_CONFIRM", "agent_hooks_probe:ask")
    monkeypatch.setenv("MCP_CODEGEN_AUDIT", "agent_hooks_probe:record")
    import agent_hooks_probe

    notes = notes_agent.agent_client("notes", NotesSyncClient, root=root)
    with pytest.raises(ConfirmationDeniedError, match="refused by the confirm hook"):
        notes.delete_note(id="n1")
    with pytest.raises(NotFoundError):  # the hook said yes: the call reached the server
        notes.delete_note(id="n999")
    notes.list_notes()  # read-only: the hook is not asked
    assert agent_hooks_probe.CALLS == [("delete_note", "destructive"), ("delete_note", "destructive")]
    records = [json.loads(line) for line in audit.read_text("utf-8").splitlines()]
    assert records == [["delete_note", "denied"], ["delete_note", "tool_error"], ["list_notes", "ok"]]


def test_the_configured_elicitation_handler_answers(root: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "agent_hooks_probe.py").write_text(HOOKS, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("MCP_CODEGEN_ELICITATION", "agent_hooks_probe:fahrenheit")
    import agent_hooks_probe

    agent_hooks_probe.CALLS.clear()
    out = weather_agent_client("weather", WeatherSyncClient, root=root).get_weather(location="Paris")
    assert (out.temperature, out.unit) == (64.4, Unit.fahrenheit)
    assert [c[0] for c in agent_hooks_probe.CALLS] == ["elicitation"]


def test_a_server_that_fails_to_start_shows_its_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crash = "import sys; sys.stderr.write('boom: API_KEY is not set\\n'); sys.exit(3)"
    root = write_config(tmp_path / "servers", {
        "broken": {"command": sys.executable, "args": ["-c", crash]},
        "absent": {"command": str(tmp_path / "no-such-binary")},
        "down": {"url": "http://127.0.0.1:${AGENT_TEST_PORT}/mcp"},
    }).parent
    monkeypatch.setenv("AGENT_TEST_PORT", str(free_port()))  # nothing listens there
    with pytest.raises(TransportClosedError) as caught:
        weather_agent_client("broken", WeatherSyncClient, root=root)
    text = str(caught.value)
    assert text.startswith("MCP server 'broken' could not be connected: ") and "status 3" in text, text
    assert f"started as {sys.executable!r} (from {root / 'mcp.json'})" in text
    assert caught.value.__notes__ == ["the server's stderr ended with:\n  boom: API_KEY is not set"]
    with pytest.raises(TransportClosedError, match="MCP server 'absent' could not be connected: cannot start"):
        weather_agent_client("absent", WeatherSyncClient, root=root)
    with pytest.raises(TransportClosedError) as caught:
        weather_agent_client("down", WeatherSyncClient, root=root)
    assert str(caught.value).startswith("MCP server 'down' could not be connected: ")
    assert str(caught.value).endswith("; at 'http://127.0.0.1:${AGENT_TEST_PORT}/mcp' (from " + str(root / "mcp.json") + ")")

    async def main() -> None:
        await weather_agent_client_async("broken", WeatherClient, root=root)

    with pytest.raises(TransportClosedError, match="MCP server 'broken' could not be connected"):
        asyncio.run(main())


def test_threads_share_one_connection(root: Path) -> None:
    with ThreadPoolExecutor(6) as pool:
        clients = list(pool.map(lambda _: weather_agent_client("weather", WeatherSyncClient, root=root), range(6)))
        texts = list(pool.map(lambda c: c.get_forecast(location="Paris", days=1).text(), clients))
    assert len({id(c) for c in clients}) == 1 and len({pid_of(c) for c in clients}) == 1
    assert set(texts) == {"day 1: sunny, 18.0 C"}


def test_a_bad_hook_reference_is_a_config_error(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_CONFIRM", "no_such_module_here:ask")
    with pytest.raises(ServerConfigError, match="MCP_CODEGEN_CONFIRM: cannot import 'no_such_module_here'"):
        weather_agent_client("weather", WeatherSyncClient, root=root)


# --------------------------------------------------------------------------------- sandbox
POISONED_IMPORT = """
import asyncio, atexit, builtins, os, socket, subprocess, sys, threading

def boom(*args, **kwargs):
    raise AssertionError("I/O or a start at import time")

before = atexit._ncallbacks()
real_open = builtins.open
socket.socket.connect = boom
socket.socket.bind = boom
subprocess.Popen.__init__ = boom
asyncio.create_subprocess_exec = boom
threading.Thread.start = boom
os.fork = boom
builtins.open = boom
import mcp_codegen_runtime.client.gencode, mcp_codegen_runtime.client.agent.connect, everything.client
import mcp_codegen_runtime.client.gencode, weather.client
builtins.open = real_open
assert atexit._ncallbacks() == before, "an atexit hook was registered at import"
assert threading.active_count() == 1
print("clean")
"""


def test_importing_does_no_io_and_starts_nothing(tmp_path: Path) -> None:
    script = tmp_path / "poisoned.py"
    script.write_text(textwrap.dedent(POISONED_IMPORT), "utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(EXAMPLES)})
    assert done.returncode == 0 and done.stdout.strip() == "clean", done.stderr


TYPED_USE = """
from pathlib import Path

from mcp_codegen_runtime.client.gencode import agent_client, agent_client_async
from everything.client import EverythingClient, EverythingSyncClient
from mcp_codegen_runtime.client.gencode import agent_client as weather_client
from weather.client import WeatherSyncClient

ROOT = Path(__file__).parent / "servers"


def temperature() -> float:
    return weather_client("weather", WeatherSyncClient, root=ROOT).get_weather(location="Paris").temperature


def text() -> str:
    client: EverythingSyncClient = agent_client("everything", EverythingSyncClient, root=ROOT)
    return client.test_simple_text().text()


async def text_async() -> str:
    client: EverythingClient = await agent_client_async("everything", EverythingClient, root=ROOT)
    return (await client.test_simple_text()).text()
"""


def test_a_script_using_it_passes_mypy_strict(tmp_path: Path) -> None:
    (tmp_path / "typed_use.py").write_text(TYPED_USE, "utf-8")
    env = {**os.environ, "MYPYPATH": str(EXAMPLES)}

    def mypy(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mypy", "--strict", name], cwd=tmp_path,
                              capture_output=True, text=True, timeout=600, env=env)

    done = mypy("typed_use.py")
    assert done.returncode == 0, done.stdout + done.stderr
    wrong = TYPED_USE.replace("-> float:", "-> str:")  # the typed client's result flows through agent_client
    (tmp_path / "wrong_use.py").write_text(wrong, "utf-8")
    done = mypy("wrong_use.py")
    assert done.returncode == 1 and 'Incompatible return value type (got "float", expected "str")' in done.stdout, \
        done.stdout
