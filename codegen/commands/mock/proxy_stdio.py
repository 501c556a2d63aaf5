"""``mcp-codegen proxy --record FILE -- COMMAND...``: a recording stdio pass-through.

The client talks to our stdin/stdout; the real server is COMMAND, a child process whose stdin
and stdout we hold (its stderr is ours).  Two threads copy lines, byte for byte, one each way,
and write every line to the cassette (:mod:`.cassette`) just before passing it on; a line that is not JSON is
passed on and recorded as ``{"unparsed": ...}``.  When the client closes our stdin, the child's
stdin is closed and its remaining output still passed on; when the child exits, we exit with
its status.  SIGTERM and SIGINT are passed on to the child.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from .cassette import CassetteWriter, Scrubber


def _pump(source: IO[bytes], sink: IO[bytes], direction: str, cassette: CassetteWriter) -> None:
    for line in iter(source.readline, b""):
        text = line.decode("utf-8", "replace").strip()
        if text:  # recorded before it is passed on: a request's line always precedes its answer's
            try:
                cassette.message(direction, json.loads(text))
            except json.JSONDecodeError:
                cassette.raw(direction, text)
        try:
            sink.write(line)
            sink.flush()
        except (BrokenPipeError, ValueError, OSError):
            break


def run_stdio_proxy(command: list[str], record: Path, scrubber: Scrubber, server: dict[str, Any] | None = None) -> int:
    """Run ``command`` behind our stdin/stdout, recording to ``record``; the child's exit status."""
    cassette = CassetteWriter(record, scrubber, {"transport": "stdio", "server": server,
                                                  "command": scrubber.command(command)})
    try:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    except OSError as exc:
        cassette.close()
        print(f"mcp-codegen proxy: cannot start {command[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    assert child.stdin is not None and child.stdout is not None
    child_in = child.stdin

    def forward(signum: int, frame: Any) -> None:
        if child.poll() is None:
            child.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    stdin = os.fdopen(sys.stdin.fileno(), "rb", buffering=0, closefd=False)
    stdout = os.fdopen(sys.stdout.fileno(), "wb", buffering=0, closefd=False)

    def client_side() -> None:
        _pump(stdin, child_in, "c2s", cassette)
        try:
            child_in.close()
        except OSError:
            pass

    reader = threading.Thread(target=client_side, name="proxy-c2s", daemon=True)
    reader.start()
    _pump(child.stdout, stdout, "s2c", cassette)
    status = child.wait()
    cassette.close()
    return status


__all__ = ["run_stdio_proxy"]
