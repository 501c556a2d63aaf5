"""Client transports: a message-level duplex channel to one MCP server.

The client core (``session.JsonRpcSession``) only knows :class:`ClientTransport`:
it calls :meth:`~ClientTransport.start` once with a :class:`MessageSink`, then
:meth:`~ClientTransport.send` for every outgoing JSON-RPC message (requests, the
notifications, and legacy responses to server requests), and :meth:`~ClientTransport.aclose`
at the end.  Every message from the server — responses, notifications, legacy server
requests — goes to ``sink.deliver``; loss of the channel goes to ``sink.closed`` exactly
once.

Adding a transport (e.g. Streamable HTTP with httpx) means writing one subclass; the core
is untouched.  Guidance for HTTP:

* ``send(message)`` POSTs one message.  For a request, start a task that reads the reply
  (``application/json``: one message; ``text/event-stream``: every event's data) and
  feeds each message to ``sink.deliver``; return once the POST is accepted.
  Notifications and (legacy) responses to server requests: 202, nothing to deliver.
* Headers come from the message itself (``Mcp-Method`` = ``method``, ``Mcp-Name`` =
  ``params.name``/``params.uri``, 2026 ``MCP-Protocol-Version`` = the ``_meta`` version)
  and from :meth:`~ClientTransport.set_protocol` (the legacy negotiated version); the
  legacy ``Mcp-Session-Id`` and the GET stream are the transport's own business.
* An HTTP error whose body is a JSON-RPC error: deliver it as the response of the
  request.  A 4xx without a usable body: deliver a synthetic JSON-RPC error for the
  request id (e.g. -32600), so the era probe falls back to ``initialize``.
* 2026 cancellation is closing the response stream: when the core sends
  ``notifications/cancelled`` for an in-flight request, close that request's stream
  instead of (or besides) POSTing the notification.
* A lost connection that cannot be retried: call ``_report_closed(reason)``.

Implemented here:

* :class:`StdioTransport` — spawns the server, newline-delimited JSON on stdin/stdout,
  stderr passed through, captured (``stderr="capture"``) or discarded; shutdown per the
  spec: close stdin, wait, SIGTERM, wait, SIGKILL.
* :class:`~client.inprocess.InProcessTransport` (in ``inprocess.py``) — connects to a server
  object in the same event loop, no subprocess and no socket.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

from ..wire import jsonrpc
from ..wire import protocol as p
from ..wire.errors import ParseError, TransportClosedError

logger = logging.getLogger("mcp_codegen.client.transport")

JsonMessage = dict[str, Any] | list[Any]


class MessageSink(Protocol):
    """Where a transport delivers what it receives (implemented by the client session)."""

    async def deliver(self, message: JsonMessage) -> None:
        """One parsed JSON-RPC message (or a legacy batch array) from the server."""

    def closed(self, error: TransportClosedError) -> None:
        """The channel is gone; called once, never followed by ``deliver``."""


class ClientTransport:
    """Base class of client transports (see the module docstring for the contract)."""

    #: Short human-readable description, used in error messages and audit records.
    description: str = "transport"

    def __init__(self) -> None:
        self._sink: MessageSink | None = None
        self._closed_reported = False
        self.era: str | None = None
        self.protocol_version: str | None = None
        #: Called with the new ``InitializeResult`` when the transport replaced a lost session on
        #: its own (legacy HTTP after a 404, ``client/http/legacy.py``); set by the client core.
        self.on_session_renewed: Callable[[dict[str, Any]], Awaitable[None] | None] | None = None
        #: Ids of requests the transport knows never reached the server (a refused connection):
        #: the session marks their errors ``requestSent: False`` when the channel closes.
        self.unsent_ids: set[Any] = set()

    async def start(self, sink: MessageSink) -> None:
        """Open the channel; from now on deliver incoming messages to ``sink``."""
        self._sink = sink

    async def send(self, message: JsonMessage) -> None:
        """Send one message; raise :class:`TransportClosedError` if the channel is gone."""
        raise NotImplementedError

    async def aclose(self) -> None:
        """Close the channel and release every resource (idempotent)."""

    def fresh(self) -> ClientTransport | None:
        """A new, unstarted transport with the same settings (the retry policy reconnects with
        it, ``client/retry_policy.py``), or None when this transport cannot be reopened."""
        return None

    async def ensure_listening(self, timeout: float | None = None) -> None:
        """Make sure messages the server sends unprompted reach the client (legacy HTTP opens
        its GET stream; stream transports always deliver them); ``timeout`` bounds the wait."""

    async def settle_listening(self) -> None:
        """After the legacy handshake: if this transport listens, wait (briefly) until its
        channel for unprompted messages is open, so the first call's server requests (an
        elicitation sent on the GET stream) find it.  Stream transports have nothing to wait for."""

    def set_protocol(self, era: str, version: str) -> None:
        """The negotiated era (``"modern"``/``"legacy"``) and protocol version."""
        self.era = era
        self.protocol_version = version

    # -- helpers for subclasses ------------------------------------------------------

    async def deliver(self, message: JsonMessage) -> None:
        """Hand one received message to the sink (dropped once the channel is reported closed)."""
        if self._sink is not None and not self._closed_reported:
            await self._sink.deliver(message)

    def _report_closed(self, reason: str) -> None:
        if self._closed_reported:
            return
        self._closed_reported = True
        if self._sink is not None:
            self._sink.closed(TransportClosedError(f"{self.description}: {reason}"))


def parse_incoming(data: bytes | str) -> JsonMessage | None:
    """One message from the server, or None (logged) when it is not one.

    A response that cannot be read (invalid JSON, nested too deeply, a lone surrogate) but
    whose ``id`` shows at its start becomes a -32700 error response for that id: the one
    call fails with :class:`ParseError` at once and the connection stays usable.
    """
    if not data.strip():
        return None
    try:
        value = jsonrpc.decode(data)
    except ParseError as exc:
        rid = jsonrpc.salvage_response_id(data)
        shown = data[:200].decode("utf-8", "replace") if isinstance(data, bytes) else data[:200]
        if rid is None:
            logger.warning("ignoring an unreadable message from the server (%s): %s", exc.message, shown)
            return None
        logger.warning("unreadable response to request %r (%s)", rid, exc.message)
        return jsonrpc.error(rid, p.PARSE_ERROR, f"unreadable response from the server: {exc.message}")
    if isinstance(value, (dict, list)):
        return value
    logger.warning("ignoring a JSON value that is not a message: %.200s", str(value))
    return None


def encode_message(message: JsonMessage) -> bytes:
    """One stdio frame: compact JSON (no raw newline inside) plus ``\\n``."""
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


StderrMode = Literal["passthrough", "capture", "discard"]


#: How many of a captured stderr's last lines the error of a server that exited quotes.
STDERR_TAIL_LINES = 5


class StdioTransport(ClientTransport):
    """Spawn ``command args...`` and speak newline-delimited JSON-RPC over its stdio.

    Args:
        command: the executable (looked up on ``PATH``).
        args: its arguments.
        env: extra environment variables, laid over the current environment (or over
            nothing when ``inherit_env=False``).
        cwd: working directory of the server.
        stderr: ``"capture"`` (the default: kept in memory, last ``stderr_max_lines`` lines,
            see :attr:`stderr_output`, and the last few quoted when the server exits while
            connected; the server's start-up line stays out of the program's own output),
            ``"passthrough"`` (the server's stderr is this process's stderr) or ``"discard"``.
        shutdown_timeout: seconds to wait after closing stdin, and again after SIGTERM.
        exit_grace: seconds to wait after closing stdin, before SIGTERM, when that wait should
            be shorter than ``shutdown_timeout`` (None: ``shutdown_timeout``).
        max_line_bytes: the largest accepted message line.
    """

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: StderrMode = "capture",
        inherit_env: bool = True,
        shutdown_timeout: float = 2.0,
        max_line_bytes: int = 32 * 1024 * 1024,
        stderr_max_lines: int = 2000,
        exit_grace: float | None = None,
    ) -> None:
        super().__init__()
        if stderr not in ("passthrough", "capture", "discard"):
            raise ValueError(f"stderr must be 'passthrough', 'capture' or 'discard', not {stderr!r}")
        self.command = command
        self.args = tuple(args)
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.stderr_mode: StderrMode = stderr
        self.inherit_env = inherit_env
        self.shutdown_timeout = shutdown_timeout
        self.exit_grace = exit_grace
        self.max_line_bytes = max_line_bytes
        self.description = f"stdio server {command!r}"
        self._stderr_lines: collections.deque[str] = collections.deque(maxlen=stderr_max_lines)
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self._write_lock = asyncio.Lock()
        self._closing = False

    def fresh(self) -> StdioTransport:
        """The same command, to be spawned again (its description kept: a caller may have set
        one that hides secrets of the command line)."""
        again = StdioTransport(self.command, self.args, env=self.env, cwd=self.cwd, stderr=self.stderr_mode,
                              inherit_env=self.inherit_env, shutdown_timeout=self.shutdown_timeout,
                              max_line_bytes=self.max_line_bytes, stderr_max_lines=self._stderr_lines.maxlen or 2000,
                              exit_grace=self.exit_grace)
        again.description = self.description
        return again

    @property
    def process(self) -> asyncio.subprocess.Process | None:
        """The server process (``None`` before :meth:`start`)."""
        return self._proc

    @property
    def stderr_output(self) -> str:
        """What the server wrote to stderr (``stderr="capture"`` only; last lines)."""
        return "".join(self._stderr_lines)

    async def start(self, sink: MessageSink) -> None:
        await super().start(sink)
        if self.inherit_env:
            env: dict[str, str] | None = dict(os.environ)
            if self.env:
                env.update(self.env)  # type: ignore[union-attr]
        else:
            env = dict(self.env or {})
        stderr: int | None = {
            "passthrough": None,
            "capture": asyncio.subprocess.PIPE,
            "discard": asyncio.subprocess.DEVNULL,
        }[self.stderr_mode]
        try:
            self._proc = await asyncio.create_subprocess_exec(
                self.command,
                *self.args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                env=env,
                cwd=self.cwd,
                limit=self.max_line_bytes,
            )
        except OSError as exc:
            # the description, not the command line nor the OSError's file name: a caller may
            # have hidden secrets of the command in the description (client/agent/)
            raise TransportClosedError(f"cannot start {self.description}: {exc.strerror or type(exc).__name__}") from None
        self._reader = asyncio.create_task(self._read_loop(), name="mcp-stdio-reader")
        if self.stderr_mode == "capture":
            self._stderr_task = asyncio.create_task(self._stderr_loop(), name="mcp-stdio-stderr")

    async def _read_loop(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        reason = "server closed its stdout"
        try:
            while True:
                try:
                    line = await proc.stdout.readline()
                except ValueError:  # longer than the StreamReader limit
                    reason = f"message larger than {self.max_line_bytes} bytes"
                    break
                if not line:
                    break
                message = parse_incoming(line)
                if message is not None:
                    await self.deliver(message)
        except asyncio.CancelledError:
            reason = "transport closed"
            raise
        except Exception as exc:
            logger.exception("stdio reader failed")
            reason = f"reader failed: {exc!r}"
        finally:
            if not self._closing and reason == "server closed its stdout":
                # Give the process a moment to exit so the message can carry its status.
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(proc.wait(), 0.5)
                if proc.returncode is not None:
                    reason = f"server exited with status {proc.returncode}"
                    if self._stderr_task is not None:  # what it said last, as passthrough would have shown
                        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                            await asyncio.wait_for(asyncio.shield(self._stderr_task), 0.5)
                        tail = [line.rstrip() for line in list(self._stderr_lines)[-STDERR_TAIL_LINES:] if line.strip()]
                        if tail:
                            reason += "; its last stderr lines: " + " | ".join(tail)
            self._report_closed(reason)

    async def _stderr_loop(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        with contextlib.suppress(Exception):
            while True:
                line = await proc.stderr.readline()
                if not line:
                    return
                self._stderr_lines.append(line.decode("utf-8", errors="replace"))

    async def send(self, message: JsonMessage) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or self._closed_reported or self._closing:
            raise TransportClosedError(f"{self.description}: not connected")
        data = encode_message(message)
        async with self._write_lock:
            try:
                proc.stdin.write(data)
                await proc.stdin.drain()
            except (ConnectionError, RuntimeError, OSError) as exc:
                raise TransportClosedError(f"{self.description}: write failed: {exc!r}") from exc

    async def aclose(self) -> None:
        if self._closing:
            return
        self._closing = True
        proc = self._proc
        if proc is not None:
            if proc.stdin is not None:
                with contextlib.suppress(Exception):
                    proc.stdin.close()
                    await proc.stdin.wait_closed()
            for step in ("wait", "terminate", "kill"):
                if proc.returncode is not None:
                    break
                if step == "terminate":
                    with contextlib.suppress(ProcessLookupError):
                        proc.terminate()
                elif step == "kill":
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                wait = self.exit_grace if step == "wait" and self.exit_grace is not None else self.shutdown_timeout
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(proc.wait(), wait)
        for task in (self._reader, self._stderr_task):
            if task is not None and not task.done():
                # Let the reader drain what is left (EOF follows the exit), then stop it.
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                    await asyncio.wait_for(asyncio.shield(task), 0.5)
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._report_closed("transport closed")
