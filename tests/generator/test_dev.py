"""``mcp-codegen dev``: build, serve over HTTP, restart on implementation and spec changes, keep
serving through a broken spec, stop the server by its PID on Ctrl-C."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from common_support import free_port, wait_port, wait_until
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.wire import errors as E

REPO = Path(__file__).resolve().parents[2]

IMPL = '''
from todo import Context, TodoServerBase
from todo.models import EchoInput, EchoOutput


class TodoService(TodoServerBase):
    async def echo(self, args: EchoInput, ctx: Context) -> EchoOutput:
        return EchoOutput(message=args.message.upper())
'''


def _call(url: str, tool: str, args: dict[str, Any]) -> Any:
    async def main() -> Any:
        async with ClientBase.http(url, audit=None) as c:
            if tool == "":
                return [t.name for t in await c.list_tools()]
            return (await c.call_tool(tool, args)).structuredContent

    return asyncio.run(asyncio.wait_for(main(), 30))


def _try(url: str, tool: str, args: dict[str, Any]) -> Any:
    try:
        return _call(url, tool, args)
    except (TimeoutError, E.McpError, OSError) as exc:
        return exc


def test_dev_loop(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-m", "codegen", "init", "todo"], cwd=tmp_path, env=env, check=True,
                   capture_output=True, timeout=60)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = (tmp_path / "dev.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "codegen", "dev", "specs/todo.yaml", "-o", "out", "--port", str(port),
                             "--interval", "0.1"], cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)  # its own process group: cleaned up whole if the test fails
    try:
        wait_port(port, 60, proc, lambda: (tmp_path / "dev.log").read_text())
        text = (tmp_path / "dev.log").read_text()
        assert f"--cli {url} --transport http --method tools/list" in text  # the Inspector command
        assert "wrote out/todo_impl.py" in text
        stub = _try(url, "echo", {"message": "hi"})
        assert isinstance(stub, E.ToolError) and "not implemented" in stub.message
        # the implementation changes: the server restarts with it
        (tmp_path / "out" / "todo_impl.py").write_text(IMPL)
        wait_until(lambda: _try(url, "echo", {"message": "hi"}) == {"message": "HI"}, 60, "a restart with the new code")
        # the spec changes: rebuilt and restarted with the new tool
        spec = tmp_path / "specs" / "todo.yaml"
        spec.write_text(spec.read_text() + "  - name: shout\n    inputSchema: {type: object}\n")
        wait_until(lambda: _try(url, "", {}) == ["echo", "shout"], 60, "the new tool to be served")
        # the stub of the handler it needs is printed, ready to paste (issue 44)
        text = (tmp_path / "dev.log").read_text()
        assert "the spec now declares shout(); add it to todo_impl:TodoService" in text, text[-2000:]
        assert "  async def shout(self, args: ShoutInput, ctx: Context)" in text, text[-2000:]
        assert "the spec now declares echo()" not in text
        # a broken spec: the build fails, the last server keeps serving
        spec.write_text(spec.read_text().replace("- name: shout", "- name: 'bad name!'"))
        wait_until(lambda: "failed; the running server is unchanged" in (tmp_path / "dev.log").read_text(), 60,
                   "the failed build to be reported")
        assert _try(url, "", {}) == ["echo", "shout"]
        server_pids = [line.rsplit("pid ", 1)[1].rstrip("]") for line in (tmp_path / "dev.log").read_text().splitlines()
                       if line.startswith("serving todo")]
        assert len(server_pids) >= 3  # started, restarted for the code, restarted for the spec
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        last = int(server_pids[-1])
        wait_until(lambda: not Path(f"/proc/{last}").exists() or "zombie" in Path(f"/proc/{last}/status").read_text().lower(),
                   10, "the server to stop")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the dev loop and the server it started
            proc.wait(10)
        log.close()


# -- dev just works: default output, src/ layout, relative PYTHONPATH, precise restarts, Inspector --

SPEC = """\
mcp-codegen: 1
server: {name: todo, version: 1.0.0}
tools:
  - name: echo
    description: Echo the message.
    inputSchema:
      type: object
      properties:
        message: {$ref: "shared/message.yaml#/$defs/Message"}
      required: [message]
    outputSchema:
      type: object
      properties: {message: {type: string}}
      required: [message]
"""

SRC_IMPL = '''
from todo import Context, TodoServerBase
from todo.models import EchoInput, EchoOutput

import helpers


class TodoService(TodoServerBase):
    async def echo(self, args: EchoInput, ctx: Context) -> EchoOutput:
        return EchoOutput(message=helpers.transform(args.message))
'''


def _tools(url: str) -> Any:
    async def main() -> Any:
        async with ClientBase.http(url, audit=None) as c:
            return await c.list_tools()

    try:
        return asyncio.run(asyncio.wait_for(main(), 30))
    except (TimeoutError, E.McpError, OSError) as exc:
        return exc


def _served_pids(log: Path) -> list[str]:
    return [line.rsplit("pid ", 1)[1].rstrip("]") for line in log.read_text().splitlines() if line.startswith("serving todo")]


def _inspector_bin() -> str:
    return subprocess.run([str(REPO / "scripts" / "inspector")], capture_output=True, text=True, timeout=900,
                          check=True).stdout.strip()


def test_dev_serves_a_src_layout_and_restarts_only_for_what_it_imported(tmp_path: Path) -> None:
    """No -o: ./generated.  The implementation is src/todo_impl.py (found without PYTHONPATH, as the
    src/ layout), importing helpers.py from lib/ through a *relative* PYTHONPATH=lib.  Editing
    helpers.py, a module it imports for the first time (broken, then fixed) and src/todo_impl.py
    restarts it with the new behaviour; a new unrelated .py file does not restart it; a spec edit
    and a $ref-ed file edit rebuild and restart.  The printed Inspector commands work
    pasted into a non-interactive shell (real npx, the pinned Inspector)."""
    (tmp_path / "specs" / "shared").mkdir(parents=True)
    (tmp_path / "specs" / "todo.yaml").write_text(SPEC)
    shared = tmp_path / "specs" / "shared" / "message.yaml"
    shared.write_text("$defs:\n  Message: {type: string, description: What to echo.}\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "todo_impl.py").write_text(SRC_IMPL)
    (tmp_path / "lib").mkdir()
    helpers = tmp_path / "lib" / "helpers.py"
    helpers.write_text("def transform(text: str) -> str:\n    return text.upper()\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(["lib", str(REPO)])}
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log_path = tmp_path / "dev.log"
    log = log_path.open("w")
    proc = subprocess.Popen([sys.executable, "-m", "codegen", "dev", "specs/todo.yaml", "--port", str(port),
                             "--interval", "0.1"], cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        wait_port(port, 60, proc, log_path.read_text)
        wait_until(lambda: _try(url, "echo", {"message": "hi"}) == {"message": "HI"}, 30, "the src/ implementation")
        text = log_path.read_text()
        assert "output folder: generated (the default" in text
        assert (tmp_path / "generated" / "todo" / "server.py").is_file()
        assert "implementation: todo_impl:TodoService (scaffold) from src/todo_impl.py" in text
        assert not (tmp_path / "generated" / "todo_impl.py").exists() and "wrote" not in text  # no stub

        # the printed commands, pasted into a non-interactive shell: real npx, the pinned Inspector
        inspector_bin = _inspector_bin()
        printed = [line.strip() for line in text.splitlines() if line.strip().startswith("npx -y ")]
        assert printed[0] == f"npx -y @modelcontextprotocol/inspector --transport http --server-url {url}"
        shell_env = {**os.environ, "PATH": os.pathsep.join([inspector_bin, os.environ["PATH"]]),
                     "npm_config_offline": "true"}
        for line, check in ((printed[1], lambda out: [t["name"] for t in json.loads(out)["tools"]] == ["echo"]),
                            (printed[2], lambda out: json.loads(out)["structuredContent"] == {"message": "TEXT"})):
            ran = subprocess.run(["bash", "-c", line], cwd=Path(inspector_bin).parent, env=shell_env,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
            assert ran.returncode == 0 and check(ran.stdout), (line, ran.stdout, ran.stderr)

        # a module the implementation imported changes: restarted with the new behaviour
        helpers.write_text("def transform(text: str) -> str:\n    return text[::-1]\n")
        wait_until(lambda: _try(url, "echo", {"message": "abc"}) == {"message": "cba"}, 60, "a restart with lib/helpers.py")
        assert "lib/helpers.py changed: restarting" in log_path.read_text()
        # a module imported for the first time is broken: the server fails; fixing that module restarts it
        (tmp_path / "lib" / "extra.py").write_text("def suffix(:\n")
        helpers.write_text("import extra\n\ndef transform(text: str) -> str:\n    return text + extra.suffix()\n")
        wait_until(lambda: "the server exited with status 1" in log_path.read_text(), 60, "the broken server to exit")
        (tmp_path / "lib" / "extra.py").write_text("def suffix() -> str:\n    return '?'\n")
        wait_until(lambda: _try(url, "echo", {"message": "abc"}) == {"message": "abc?"}, 60, "a restart with lib/extra.py")
        # the implementation itself, src/todo_impl.py, changes
        (tmp_path / "src" / "todo_impl.py").write_text(SRC_IMPL.replace("helpers.transform(args.message)",
                                                                        "'impl: ' + helpers.transform(args.message)"))
        wait_until(lambda: _try(url, "echo", {"message": "abc"}) == {"message": "impl: abc?"}, 60,
                   "a restart with src/todo_impl.py")
        assert "src/todo_impl.py changed: restarting" in log_path.read_text()
        pids = _served_pids(log_path)

        # unrelated new files (in the project folder, in src/): no restart
        (tmp_path / "scratch.py").write_text("print('not imported')\n")
        (tmp_path / "src" / "notes.py").write_text("X = 1\n")
        time.sleep(2.0)  # 20 polls
        assert _served_pids(log_path) == pids
        assert _try(url, "echo", {"message": "abc"}) == {"message": "impl: abc?"}

        # the spec changes: rebuilt and restarted with the new tool
        spec = tmp_path / "specs" / "todo.yaml"
        spec.write_text(spec.read_text() + "  - name: shout\n    inputSchema: {type: object}\n")
        wait_until(lambda: _try(url, "", {}) == ["echo", "shout"], 60, "the new tool to be served")
        # a $ref-ed file changes: rebuilt and restarted with the new description
        shared.write_text("$defs:\n  Message: {type: string, description: The text to echo back.}\n")

        def described() -> bool:
            tools = _tools(url)
            return isinstance(tools, list) and "The text to echo back." in json.dumps(tools[0].input_schema)

        wait_until(described, 60, "the $ref-ed description to be served")
        assert len(_served_pids(log_path)) == len(pids) + 2
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        log.close()


NPX_SHIM = """#!/bin/sh
printf '%s\\n' "$@" > "$NPX_ARGV"
exec sleep 300
"""


def test_dev_inspector_starts_the_web_ui_pointed_at_the_server_and_stops_it(tmp_path: Path) -> None:
    """--inspector runs `npx -y @modelcontextprotocol/inspector --transport http --server-url URL`
    (recorded by an npx stand-in on PATH) and stops it by its PID when dev stops; the output folder
    is [tool.mcp-codegen] output when set; a usage error of dev is one line ending with "see ... --help"."""
    (tmp_path / "specs" / "shared").mkdir(parents=True)
    (tmp_path / "specs" / "todo.yaml").write_text(SPEC)
    (tmp_path / "specs" / "shared" / "message.yaml").write_text("$defs:\n  Message: {type: string}\n")
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "npx").write_text(NPX_SHIM)
    (shim / "npx").chmod(0o755)
    argv_file = tmp_path / "npx-argv.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO), "PATH": os.pathsep.join([str(shim), os.environ["PATH"]]),
           "NPX_ARGV": str(argv_file)}
    bad = subprocess.run([sys.executable, "-m", "codegen", "dev", "specs/todo.yaml", "--port", "x"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert bad.stderr.strip().endswith("codegen dev --help") and "'--port'" in bad.stderr
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log_path = tmp_path / "dev.log"
    log = log_path.open("w")
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\noutput = "build/gen"\n')  # dev's output default
    proc = subprocess.Popen([sys.executable, "-m", "codegen", "dev", "specs/todo.yaml", "--port", str(port),
                             "--interval", "0.1", "--inspector"], cwd=tmp_path, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_port(port, 60, proc, log_path.read_text)
        assert f"output folder: {tmp_path / 'build' / 'gen'}\n" in log_path.read_text()
        assert (tmp_path / "build" / "gen" / "todo" / "server.py").is_file()
        wait_until(lambda: argv_file.exists() and argv_file.read_text().endswith("\n"), 30, "the Inspector to start")
        assert argv_file.read_text().splitlines() == ["-y", "@modelcontextprotocol/inspector", "--transport", "http",
                                                      "--server-url", url]
        [pid] = [int(line.rsplit("pid ", 1)[1].rstrip("]")) for line in log_path.read_text().splitlines()
                 if line.startswith("started the MCP Inspector")]
        assert Path(f"/proc/{pid}").exists()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        wait_until(lambda: not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower(),
                   10, "the Inspector to stop")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        log.close()


def test_dev_inspector_web_ui_is_connected_to_the_server(tmp_path: Path) -> None:
    """The real thing: `dev --inspector` starts the pinned Inspector's web UI through real npx (the
    package resolved from the project's node_modules, offline), the UI's server list holds the
    dev server's URL, and stopping dev stops the UI."""
    (tmp_path / "specs" / "shared").mkdir(parents=True)
    (tmp_path / "specs" / "todo.yaml").write_text(SPEC)
    (tmp_path / "specs" / "shared" / "message.yaml").write_text("$defs:\n  Message: {type: string}\n")
    inspector_bin = Path(_inspector_bin())
    (tmp_path / "node_modules").symlink_to(inspector_bin.parent / "node_modules")
    (tmp_path / "package.json").write_text((inspector_bin.parent / "package.json").read_text())
    port, ui_port, sandbox_port = free_port(), free_port(), free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = {**os.environ, "PYTHONPATH": str(REPO), "PATH": os.pathsep.join([str(inspector_bin), os.environ["PATH"]]),
           "npm_config_offline": "true", "CLIENT_PORT": str(ui_port), "MCP_SANDBOX_PORT": str(sandbox_port),
           "MCP_AUTO_OPEN_ENABLED": "false", "MCP_INSPECTOR_SECRET_STORE": "memory"}
    log_path = tmp_path / "dev.log"
    log = log_path.open("w")
    proc = subprocess.Popen([sys.executable, "-m", "codegen", "dev", "specs/todo.yaml", "--port", str(port),
                             "--interval", "0.1", "--inspector"], cwd=tmp_path, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_port(port, 60, proc, log_path.read_text)
        wait_until(lambda: "MCP_INSPECTOR_API_TOKEN=" in log_path.read_text(), 120, "the Inspector web UI to start")
        token = log_path.read_text().split("MCP_INSPECTOR_API_TOKEN=", 1)[1].split()[0]
        request = urllib.request.Request(f"http://127.0.0.1:{ui_port}/api/servers",
                                         headers={"x-mcp-remote-auth": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            servers = json.loads(answer.read())["mcpServers"]
        assert [s["url"] for s in servers.values()] == [url] and [s["type"] for s in servers.values()] == ["streamable-http"]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        wait_until(lambda: not _listening(ui_port), 15, "the Inspector to stop")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        log.close()


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), 0.5):
            return True
    except OSError:
        return False
