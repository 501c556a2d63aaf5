"""A front on 127.0.0.1 that answers HTTP 503 to the first ``n`` ``tools/call`` POSTs, then proxies.

What an overloaded replica or a draining load balancer does: the request is refused before
anything processes it.  Every other request goes to the backend on a new connection with
``Connection: close`` and ``Host`` naming the backend, and its answer is piped back.  Request bodies need ``Content-Length``.
The loop runs in a thread; :meth:`FlakyFront.stop` closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

from common_support import free_port

_503 = (b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 0\r\ncontent-type: text/plain\r\n"
        b"content-length: 4\r\nconnection: close\r\n\r\nbusy")


class FlakyFront:
    """See the module docstring: ``refuse`` tools/call POSTs get 503, then everything is proxied."""

    def __init__(self, backend_port: int, refuse: int) -> None:
        self.backend_port = backend_port
        self.refuse = refuse
        self.refused = 0
        self.calls_forwarded = 0
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._server: asyncio.Server | None = None

    def __enter__(self) -> FlakyFront:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", self.port))
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            body = await reader.readexactly(length) if length else b""
            if b'"tools/call"' in body and self.refused < self.refuse:
                self.refused += 1
                writer.write(_503)
                await writer.drain()
                return
            if b'"tools/call"' in body:
                self.calls_forwarded += 1
            lines = [ln for ln in head.split(b"\r\n") if ln and not ln.lower().startswith((b"connection:", b"host:"))]
            lines.append(b"host: 127.0.0.1:%d" % self.backend_port)  # as a proxy does: the backend checks Host
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.backend_port)
            up_writer.write(b"\r\n".join(lines) + b"\r\nconnection: close\r\n\r\n" + body)
            await up_writer.drain()
            while chunk := await up_reader.read(65536):
                writer.write(chunk)
                await writer.drain()
            up_writer.close()
        writer.close()
