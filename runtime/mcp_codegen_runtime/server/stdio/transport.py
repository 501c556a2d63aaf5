"""stdio transport (server side): newline-delimited JSON-RPC on stdin/stdout.

* stdout carries protocol messages only (``sys.stdout`` is pointed at stderr while serving,
  so a stray ``print`` cannot corrupt the stream); logs go to stderr.
* Each request runs in its own task (see :class:`~server.session.ServerSession`).
* A line longer than ``settings.max_message_bytes`` is answered with ``-32600`` (id null)
  and skipped without being buffered; invalid JSON gets ``-32700`` (id null).
* On stdin EOF, pending server->client requests fail at once, running requests get
  ``settings.shutdown_grace`` seconds, then the coroutine returns.
* Backpressure: while more than 4 MiB of output wait for a client that does not read
  stdout, no further request is read (memory stays bounded; the client's writes block).

When stdin and stdout are pipes or sockets (the normal case: a client spawned the server),
both are driven by the event loop itself (``connect_read_pipe`` / ``connect_write_pipe``),
which avoids two thread hand-offs per message.  Otherwise (a file, a terminal, an object
without a file descriptor) reading happens in a daemon thread (``os.read`` on the file
descriptor) and writing in a single worker thread.  Either way nothing blocks the event
loop and output order is preserved.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import stat
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import IO, TYPE_CHECKING

from ...wire import accelerator, jsonrpc
from ...wire import protocol as p
from ...wire.errors import ParseError
from ..connection import Connection, Outgoing
from ..session import ServerSession
from .pipe import LinePipe

if TYPE_CHECKING:
    from ..interface import ServedServer

logger = logging.getLogger("mcp_codegen.stdio")
_CHUNK = 65536
#: Output bytes waiting for the client beyond which no further request is read.
_OUTPUT_HIGH = 4 * 1024 * 1024


def _reader(stream: IO[bytes]) -> Callable[[], bytes]:
    try:
        fd = stream.fileno()
    except (OSError, AttributeError, ValueError):
        read1 = getattr(stream, "read1", None)
        if read1 is not None:
            return lambda: bytes(read1(_CHUNK))
        return lambda: stream.read(_CHUNK)
    return lambda: os.read(fd, _CHUNK)


def _pipe_fd(stream: IO[bytes]) -> int | None:
    """The descriptor of ``stream`` if the event loop can drive it (a pipe or a socket)."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, AttributeError, ValueError):
        return None
    return fd if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) else None


class _LoopPipes:
    """stdin/stdout as event-loop pipes (see the module docstring): stdin read by a
    :class:`~server.stdio.pipe.LinePipe`, stdout written through a ``StreamWriter``."""

    def __init__(self, lines: LinePipe, writer: asyncio.StreamWriter) -> None:
        self.lines = lines
        self.writer = writer

    @classmethod
    async def open(cls, in_fd: int, out_fd: int, make_lines: Callable[[], LinePipe]) -> _LoopPipes | None:
        loop = asyncio.get_running_loop()
        read_pipe = os.fdopen(in_fd, "rb", buffering=0, closefd=False)
        write_pipe = os.fdopen(out_fd, "wb", buffering=0, closefd=False)
        lines = make_lines()
        try:
            await loop.connect_read_pipe(lambda: lines, read_pipe)
            transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, write_pipe)
        except (OSError, ValueError, NotImplementedError):
            return None
        return cls(lines, asyncio.StreamWriter(transport, protocol, None, loop))


async def serve_stdio(
    server: ServedServer, *, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None
) -> None:
    """Serve ``server`` over stdio until stdin reaches EOF."""
    loop = asyncio.get_running_loop()
    logger.debug("serving stdio on the event loop %s.%s", type(loop).__module__, type(loop).__name__)
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    in_fd, out_fd = _pipe_fd(inp), _pipe_fd(out)
    lines = jsonrpc.LineBuffer(server.settings.max_message_bytes)
    pipes: _LoopPipes | None = None
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-stdout")
    broken = threading.Event()
    queued = [0]  # bytes handed to the writer thread and not yet written (no-pipe path)
    room = asyncio.Event()
    room.set()

    def write(data: bytes) -> None:
        if broken.is_set():
            return
        try:
            out.write(data)
            out.flush()
        except (OSError, ValueError):
            broken.set()

    async def sink(message: Outgoing) -> None:
        try:
            data = jsonrpc.encode(message)
        except (TypeError, ValueError):
            logger.error("outgoing message is not JSON-serializable")
            if not isinstance(message, dict) or "id" not in message or "method" in message:
                return
            data = jsonrpc.encode(jsonrpc.error(message["id"], p.INTERNAL_ERROR, "Internal error"))
        if pipes is None:
            queued[0] += len(data)
            if queued[0] > _OUTPUT_HIGH:
                room.clear()
            try:
                await loop.run_in_executor(writer, write, data)
            finally:
                queued[0] -= len(data)
                if queued[0] <= _OUTPUT_HIGH:
                    room.set()
            return
        if broken.is_set():
            return
        try:
            transport = pipes.writer.transport
            transport.write(data)  # what StreamWriter.write does, one frame fewer
            if transport.get_write_buffer_size() or transport.is_closing():  # else drain() has nothing to wait for
                await pipes.writer.drain()
        except (OSError, RuntimeError, ValueError):
            broken.set()

    conn = Connection(sink)
    session = ServerSession(server, conn)

    def busy() -> bool:
        return broken.is_set() or pipes is None or pipes.writer.transport.get_write_buffer_size() > _OUTPUT_HIGH

    if in_fd is not None and out_fd is not None:
        pipes = await _LoopPipes.open(in_fd, out_fd, lambda: LinePipe(lines, session.start, busy))
    chunks: asyncio.Queue[bytes] = asyncio.Queue(maxsize=16)
    read = _reader(inp)

    def pump() -> None:
        while True:
            try:
                chunk = read()
            except (OSError, ValueError):
                chunk = b""
            try:
                asyncio.run_coroutine_threadsafe(chunks.put(chunk), loop).result()
            except (RuntimeError, asyncio.CancelledError):
                return  # loop gone
            if not chunk:
                return

    async def output_room() -> None:
        """Backpressure: while the client is not reading our output (more than
        ``_OUTPUT_HIGH`` bytes waiting), stop reading its requests."""
        if broken.is_set():
            return
        if pipes is None:
            await room.wait()
            return
        transport = pipes.writer.transport
        while not broken.is_set() and transport.get_write_buffer_size() > _OUTPUT_HIGH:
            try:
                await pipes.writer.drain()
            except (OSError, RuntimeError, ValueError):
                broken.set()
            if transport.is_closing():
                break

    async def handle_line(line: bytes | object) -> None:
        await output_room()
        if isinstance(line, bytes):
            try:
                message, text = jsonrpc.decode_measured(line)
            except ParseError as exc:
                session.conn.refuse_answer(line, exc)  # an answer the server waits for: fail its call now
                await sink(jsonrpc.error(None, p.PARSE_ERROR, "Parse error"))
                return
            await session.feed(message, text)
        else:
            await sink(jsonrpc.error(None, p.INVALID_REQUEST, "Invalid Request: message too large"))

    try:
        if pipes is not None:
            while not broken.is_set():
                item = await pipes.lines.next_item()
                if item is None:
                    break
                kind, value = item
                if kind == "message":
                    await output_room()
                    await session.feed(value)
                else:
                    await handle_line(value)
        else:
            threading.Thread(target=pump, name="mcp-stdin", daemon=True).start()
            while True:
                chunk = await chunks.get()
                for line in lines.feed(chunk) if chunk else lines.flush():
                    await handle_line(line)
                if not chunk or broken.is_set():
                    break
    finally:
        server.close_subscriptions()
        await session.aclose(server.settings.shutdown_grace)
        await server.close_shared()
        writer.shutdown(wait=True)
        if pipes is not None:
            pipes.lines.close()
            pipes.writer.close()


def run_stdio(server: ServedServer) -> None:
    """Blocking entry point: protect stdout, then serve until EOF.

    What exists now (modules, classes, the server) lives as long as the process: it is
    moved out of the garbage collector's reach (``gc.freeze``), so the full collections
    that calls with large arguments trigger do not walk it again each time (stdio, 20 kB
    arguments: 7 to 10% of the server's time).  The event loop is uvloop's when the ``fast``
    extra is installed (:func:`wire.accelerator.loop_factory`).
    """
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr
    gc.freeze()
    try:
        with asyncio.Runner(loop_factory=accelerator.loop_factory()) as runner:
            runner.run(serve_stdio(server, stdout=protocol_out))
    except KeyboardInterrupt:
        pass
