"""Client transports in isolation: stdio spawning, framing, stderr, env/cwd, shutdown escalation."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from client_fakes import run
from mcp_codegen_runtime.client.inprocess import InProcessTransport
from mcp_codegen_runtime.client.transports import StdioTransport
from mcp_codegen_runtime.wire.errors import TransportClosedError

# A tiny line-echo "server": answers every request with {"echo": params}, after writing
# noise (a non-JSON line) and a large message; reports env and cwd; logs to stderr.
ECHO = textwrap.dedent(
    """
    import json, os, sys
    print("this is not json", flush=True)
    sys.stderr.write("hello from stderr\\n"); sys.stderr.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        result = {"echo": msg.get("params"), "env": os.environ.get("MCP_TEST_VAR"), "cwd": os.getcwd(),
                  "big": "x" * 200000}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\\n")
        sys.stdout.flush()
    """
)

STUBBORN = textwrap.dedent(
    """
    import signal, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.stdin.close()
    print("ready", flush=True)
    while True:
        time.sleep(0.1)
    """
)


class Sink:
    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.closed_with: TransportClosedError | None = None
        self.got = asyncio.Event()

    async def deliver(self, message: Any) -> None:
        self.messages.append(message)
        self.got.set()

    def closed(self, error: TransportClosedError) -> None:
        self.closed_with = error


def test_stdio_framing_env_cwd_and_stderr_capture(tmp_path: Path) -> None:
    async def main() -> None:
        t = StdioTransport(sys.executable, ["-c", ECHO], env={"MCP_TEST_VAR": "v1"}, cwd=tmp_path, stderr="capture")
        sink = Sink()
        await t.start(sink)
        await t.send({"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"text": "line\nbreak é"}})
        await asyncio.wait_for(sink.got.wait(), 10)
        msg = sink.messages[0]
        assert msg["id"] == 1 and msg["result"]["echo"] == {"text": "line\nbreak é"}
        assert msg["result"]["env"] == "v1"
        assert Path(msg["result"]["cwd"]).resolve() == tmp_path.resolve()
        assert len(msg["result"]["big"]) == 200000
        await t.aclose()
        assert "hello from stderr" in t.stderr_output
        assert sink.closed_with is not None
        assert t.process is not None and t.process.returncode == 0  # exited on stdin EOF
        with pytest.raises(TransportClosedError):
            await t.send({"jsonrpc": "2.0", "id": 2, "method": "x"})

    run(main())


def test_stdio_shutdown_escalates_to_kill() -> None:
    async def main() -> None:
        t = StdioTransport(sys.executable, ["-c", STUBBORN], stderr="discard", shutdown_timeout=0.3)
        sink = Sink()
        await t.start(sink)
        await asyncio.sleep(0.3)
        start = time.monotonic()
        await t.aclose()
        elapsed = time.monotonic() - start
        assert t.process is not None and t.process.returncode == -9  # SIGKILL
        assert 0.5 <= elapsed < 3.0  # waited after stdin close and after SIGTERM

    run(main())


#: Exits on its own 0.6 s after stdin closes (as the npm servers do after 350 ms); SIGTERM ends it at once.
LINGERING = "import sys, time\nsys.stdin.read()\ntime.sleep(0.6)\n"


@pytest.mark.parametrize(("exit_grace", "returncode"), [(None, 0), (0.05, -15)])
def test_stdio_exit_grace_is_the_wait_before_sigterm(exit_grace: float | None, returncode: int) -> None:
    """Without ``exit_grace`` a lingering server is waited for (``shutdown_timeout``, 2 s) and exits
    by itself; with it, SIGTERM comes after ``exit_grace`` seconds (``pull`` uses 0.1 s)."""
    async def main() -> None:
        t = StdioTransport(sys.executable, ["-c", LINGERING], stderr="discard", exit_grace=exit_grace)
        await t.start(Sink())
        await asyncio.sleep(0.3)  # the interpreter is up and reading stdin
        await t.aclose()
        assert t.process is not None and t.process.returncode == returncode
        assert t.fresh().exit_grace == exit_grace

    run(main())


def test_in_process_rejects_objects_without_an_endpoint() -> None:
    with pytest.raises(TypeError):
        InProcessTransport(object())
