"""A tiny HTTP/1.1 load balancer on 127.0.0.1 for the legacy-session tests.

:class:`LoadBalancer` listens on a free loopback port and sends every request to one of its
backends, chosen per request (not per connection, so keep-alive cannot hide a missing
session):

* ``"round_robin"``: the next backend in turn;
* ``"sticky"``: the backend named by the replica prefix of ``Mcp-Session-Id``
  (``<replica>.<random>``, the mapping given as ``replicas``), round robin for requests
  without one (``initialize``) — what docs/legacy-load-balancing.md configures in nginx.

Each request goes to the backend on a new connection with ``Connection: close`` and
``Host`` naming the backend (as nginx does by default), and its
answer (JSON or an SSE stream) is piped back until the backend closes; then the client
connection is closed too (the backend's ``connection: close`` header tells the client).
Request bodies need ``Content-Length`` (httpx sends it).  With ``failover=True`` a backend that
refuses the connection is skipped for the next one (nginx's default ``proxy_next_upstream error``:
the request was not sent, so any request may go elsewhere), and 502 when none answers;
:meth:`LoadBalancer.drop_connections` cuts every open client connection mid-stream.  Bounded: at most ``max_clients``
connections at once, 64 KiB of request head, 10 s to send a request.  The loop runs in a
thread; :meth:`LoadBalancer.stop` closes the listener and every open pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from dataclasses import dataclass
from typing import Literal

from common_support import free_port

Mode = Literal["round_robin", "sticky"]
_MAX_HEAD = 64 * 1024


@dataclass(frozen=True)
class Routed:
    """One proxied request: its method, the backend index, its session id and the status."""

    method: str
    backend: int
    session_id: str | None
    status: int


class LoadBalancer:
    """See the module docstring.

    Args:
        backends: ``(host, port)`` of each backend.
        mode: ``"round_robin"`` or ``"sticky"``.
        replicas: sticky mode: replica id -> backend index.
        max_clients: the most client connections served at once.
    """

    def __init__(self, backends: list[tuple[str, int]], *, mode: Mode = "round_robin",
                 replicas: dict[str, int] | None = None, max_clients: int = 32, failover: bool = False) -> None:
        self.backends = backends
        self.failover = failover
        #: Connections :meth:`drop_connections` cut so far.
        self.dropped = 0
        self.mode = mode
        self.replicas = dict(replicas or {})
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        #: Every request proxied so far, in order.
        self.routed: list[Routed] = []
        self._turn = itertools.cycle(range(len(backends)))
        self._limit = asyncio.Semaphore(max_clients)
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lb-proxy", daemon=True)

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> LoadBalancer:
        self._thread.start()
        if not self._started.wait(10) or self._server is None:
            raise RuntimeError("the load balancer did not start")
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        self._loop.close()

    def drop_connections(self, *, wait: float = 5.0) -> int:
        """Cut every client connection open now (mid-request or mid-stream); how many.

        Connections here carry one request each, so between two calls none may be open: it
        waits up to ``wait`` seconds for at least one to open, so that the fault is a real cut.
        """
        async def drop() -> int:
            deadline = self._loop.time() + wait
            while not self._tasks and self._loop.time() < deadline:
                await asyncio.sleep(0.002)
            tasks = list(self._tasks)
            for task in tasks:
                task.cancel()
            return len(tasks)

        count = asyncio.run_coroutine_threadsafe(drop(), self._loop).result(10)
        self.dropped += count
        return count

    def __enter__(self) -> LoadBalancer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._accept, "127.0.0.1", self.port))
        self._started.set()
        self._loop.run_forever()

    async def _shutdown(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._server.wait_closed()

    # -- proxying ------------------------------------------------------------------------------
    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            async with self._limit:
                await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, TimeoutError):
            pass
        except asyncio.CancelledError:
            pass  # stop(): end quietly (asyncio 3.11 logs a handler task that ends cancelled)
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _choose(self, session_id: str | None) -> int:
        if self.mode == "sticky" and session_id is not None:
            replica = session_id.partition(".")[0]
            if replica in self.replicas:
                return self.replicas[replica]
        return next(self._turn)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        if len(head) > _MAX_HEAD:
            raise ValueError("request head too large")
        lines = head.decode("latin-1").split("\r\n")
        request_line, fields = lines[0], [line for line in lines[1:] if line]
        headers = {}
        for line in fields:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            raise ValueError("chunked request bodies are not supported")
        length = int(headers.get("content-length", "0"))
        body = await asyncio.wait_for(reader.readexactly(length), 10) if length else b""
        session_id = headers.get("mcp-session-id")
        index = self._choose(session_id)
        host, port = self.backends[index]
        for _ in range(len(self.backends) if self.failover else 1):
            try:
                up_reader, up_writer = await asyncio.open_connection(host, port)
                break
            except OSError:
                if not self.failover:
                    raise
                index = (index + 1) % len(self.backends)
                host, port = self.backends[index]
        else:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            await writer.drain()
            self.routed.append(Routed(request_line.split(" ", 1)[0], -1, session_id, 502))
            return
        try:
            dropped = ("connection", "keep-alive", "host")
            kept = [line for line in fields if line.partition(":")[0].strip().lower() not in dropped]
            new_head = [request_line, f"host: {host}:{port}", *kept, "connection: close"]  # nginx's default Host
            up_writer.write(("\r\n".join(new_head) + "\r\n\r\n").encode("latin-1") + body)
            await up_writer.drain()
            status_line = await up_reader.readline()
            parts = status_line.split()
            status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
            self.routed.append(Routed(request_line.split(" ", 1)[0], index, session_id, status))
            writer.write(status_line)
            while chunk := await up_reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        finally:
            up_writer.close()
            with contextlib.suppress(Exception):
                await up_writer.wait_closed()
