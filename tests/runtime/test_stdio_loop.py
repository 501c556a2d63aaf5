"""The stdio server's event loop: uvloop's with the ``fast`` extra installed (uvloop is in
the test dependencies), the standard one when ``MCP_CODEGEN_ACCELERATOR=off``; a call is
answered the same on both."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_codegen_runtime.wire import accelerator
from mcp_codegen_runtime.wire import protocol as p

EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"


@pytest.mark.parametrize(("switch", "loop"), [("off", "asyncio.unix_events"), ("on", "uvloop")])
def test_the_stdio_server_runs_on_the_loop_the_switch_chooses(switch: str, loop: str) -> None:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": p.V2025_11_25, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_forecast", "arguments": {"location": "paris", "days": 1}}}
    data = "\n".join([json.dumps(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}', json.dumps(call)])
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES), "MCP_CODEGEN_ACCELERATOR": switch}
    proc = subprocess.run([sys.executable, "-m", "weather", "--stdio", "--log-level", "DEBUG"], cwd=EXAMPLES,
                          env=env, input=(data + "\n").encode(), capture_output=True, timeout=120)
    stderr = proc.stderr.decode()
    assert f"serving stdio on the event loop {loop}." in stderr, stderr
    answers = {a["id"]: a for a in map(json.loads, proc.stdout.splitlines())}
    assert answers[1]["result"]["content"][0]["text"] == "day 1: sunny, 18.0 C"


def test_loop_factory_follows_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvloop

    monkeypatch.setenv("MCP_CODEGEN_ACCELERATOR", "off")
    assert accelerator.loop_factory() is None
    monkeypatch.setenv("MCP_CODEGEN_ACCELERATOR", "")
    assert accelerator.loop_factory() is uvloop.new_event_loop
