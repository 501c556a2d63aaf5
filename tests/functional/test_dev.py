"""``mcp-codegen dev``: build, serve over HTTP, restart on implementation and spec changes, keep
serving through a broken spec, stop the server by its PID on Ctrl-C."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from common_support import free_port, wait_port, wait_until

from codegen.runtime.client import ClientBase
from codegen.runtime.wire import errors as E

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
                return [t["name"] for t in await c.list_tools()]
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
