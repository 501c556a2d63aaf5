"""``pull --stdio``: the runtime's stdio transport, speaking to a server process that was
started before the event loop (:mod:`.spawn`) instead of spawning its own.

Everything else is :class:`~mcp_codegen_runtime.client.transports.StdioTransport`'s own code:
reading lines (the same size limit), capturing stderr, sending, and the shutdown sequence
(stdin closed, wait, SIGTERM, wait, SIGKILL, by PID).  The process is wrapped in the
handful of members of :class:`asyncio.subprocess.Process` that transport uses.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from mcp_codegen_runtime.client.transports import ClientTransport, MessageSink, StdioTransport

if TYPE_CHECKING:
    import os


class _Process:
    """A started :class:`subprocess.Popen` seen through asyncio streams."""

    def __init__(self, popen: subprocess.Popen[bytes], stdin: asyncio.StreamWriter,
                 stdout: asyncio.StreamReader, stderr: asyncio.StreamReader) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def wait(self) -> int:
        while (code := self._popen.poll()) is None:
            await asyncio.sleep(0.005)
        return code

    def terminate(self) -> None:
        self._popen.terminate()

    def kill(self) -> None:
        self._popen.kill()


async def _reader(loop: asyncio.AbstractEventLoop, pipe: Any, limit: int) -> asyncio.StreamReader:
    stream = asyncio.StreamReader(limit=limit, loop=loop)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream, loop=loop), pipe)
    return stream


class AdoptedStdioTransport(StdioTransport):
    """:class:`StdioTransport` (stderr captured) over ``popen`` (its three pipes open), already
    running ``command args...`` with ``env`` and ``cwd``; :meth:`fresh` spawns anew."""

    def __init__(self, popen: subprocess.Popen[bytes], command: str, args: Sequence[str] = (), *,
                 env: Mapping[str, str] | None = None, cwd: str | os.PathLike[str] | None = None,
                 **options: Any) -> None:
        super().__init__(command, args, env=env, cwd=cwd, stderr="capture", **options)
        self._popen: subprocess.Popen[bytes] | None = popen

    async def start(self, sink: MessageSink) -> None:
        await ClientTransport.start(self, sink)
        popen, self._popen = self._popen, None
        assert popen is not None and popen.stdin and popen.stdout and popen.stderr, "adopted twice"
        loop = asyncio.get_running_loop()
        stdout = await _reader(loop, popen.stdout, self.max_line_bytes)
        stderr = await _reader(loop, popen.stderr, self.max_line_bytes)  # pull captures stderr
        protocol = asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop)
        transport, _ = await loop.connect_write_pipe(lambda: protocol, popen.stdin)
        stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        self._proc = cast("asyncio.subprocess.Process", _Process(popen, stdin, stdout, stderr))
        self._reader = asyncio.create_task(self._read_loop(), name="mcp-stdio-reader")
        self._stderr_task = asyncio.create_task(self._stderr_loop(), name="mcp-stdio-stderr")
