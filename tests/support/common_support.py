"""Helpers shared by the test support modules and test files.

* :func:`free_port`: a free TCP port on 127.0.0.1;
* :func:`wait_port`: wait until something listens on a port (fails early if the process exits);
* :func:`stop_pid`: stop a subprocess by its PID (SIGTERM, then SIGKILL after a grace period);
* :func:`run_async`: run a coroutine on a fresh event loop with a safety timeout;
* :func:`run_sdk_client` / :func:`list_tool_pages`: the official ``mcp`` SDK ``Client`` session
  used by the SDK interop tests (stdio and HTTP);
* :func:`flip_char`: forge a signed token by changing one character;
* :func:`weather_spec`: the weather example spec with its MCP Apps view, copied into a folder;
* :func:`state_key`: a fixed, valid 32-byte state key per label (bytes, or hex for the
  ``MCP_CODEGEN_STATE_KEY`` variable).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(condition: Callable[[], bool], timeout: float = 10.0, what: str = "the condition",
               interval: float = 0.02) -> None:
    """Return as soon as ``condition()`` is true (checked every ``interval`` s); fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(interval)


def wait_port(port: int, timeout: float = 15.0, proc: subprocess.Popen[Any] | None = None,
              detail: Callable[[], str] | None = None) -> None:
    """Wait until 127.0.0.1:``port`` accepts a connection.

    Raises :class:`RuntimeError` if ``proc`` exits first (with ``detail()`` appended, e.g. its log)
    and :class:`TimeoutError` after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            extra = f": {detail()}" if detail is not None else ""
            raise RuntimeError(f"server exited with {proc.returncode}{extra}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def stop_pid(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """Stop ``proc`` by its PID: SIGTERM, wait ``grace`` seconds, then SIGKILL."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(5)


def run_async(coro: Awaitable[Any], timeout: float = 30.0) -> Any:
    """Run a coroutine on a fresh event loop with a safety timeout."""

    async def guarded() -> Any:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(guarded())


def run_sdk_client(target: Any, mode: str, body: Callable[[Any], Awaitable[None]], *, elicit: Any = None,
                   read_timeout: float = 15, timeout: float = 30) -> None:
    """Open an official SDK ``mcp.Client`` on ``target`` (URL or stdio parameters) and run ``body(client)``."""
    from mcp import Client

    async def main() -> None:
        async with Client(target, mode=mode, elicitation_callback=elicit, read_timeout_seconds=read_timeout) as client:
            await body(client)

    run_async(main(), timeout)


def flip_char(token: str, pos: int) -> str:
    """``token`` with the character at ``pos`` changed (to ``A``, or ``B`` if it was ``A``): a forged token."""
    return token[:pos] + ("A" if token[pos] != "A" else "B") + token[pos + 1:]


async def list_tool_pages(client: Any) -> list[list[str]]:
    """The tool names of every ``tools/list`` page, following ``next_cursor`` (SDK client)."""
    pages: list[list[str]] = []
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
        pages.append([t.name for t in page.tools])
        cursor = page.next_cursor
        if cursor is None:
            break
    return pages


def state_key(label: str) -> bytes:
    """A valid state key (32 bytes) derived from ``label``: the same label, the same key."""
    return hashlib.sha256(f"mcp-codegen test state key {label}".encode()).digest()


def state_key_hex(*labels: str) -> str:
    """``MCP_CODEGEN_STATE_KEY`` for the keys of ``labels`` (comma-separated, first signs)."""
    return ",".join(state_key(label).hex() for label in labels)


def weather_spec(folder: Path, text: str | None = None) -> Path:
    """``specs/weather.yaml`` (or ``text``, an edited copy of it) written into ``folder``, with the files the spec
    reads beside it (``ui/``: the MCP Apps view of ``get_forecast``); the spec's path."""
    specs = Path(__file__).resolve().parents[2] / "specs"
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / "weather.yaml"
    spec.write_text((specs / "weather.yaml").read_text("utf-8") if text is None else text, "utf-8")
    shutil.copytree(specs / "ui", folder / "ui", dirs_exist_ok=True)
    return spec
