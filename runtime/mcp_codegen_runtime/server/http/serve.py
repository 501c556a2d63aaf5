"""Serving with uvicorn: listening sockets, graceful drain, and ``--workers`` processes.

Sockets: the listening socket is made here, not by uvicorn, as a TCP socket
(``IPPROTO_TCP``) with ``TCP_NODELAY``, so every accepted connection has Nagle's algorithm
off.  (A socket made as ``socket(AF_INET)`` has protocol 0; asyncio then leaves Nagle on for
its connections and a response written in two parts waits for the client's delayed ACK,
~40 ms.)

Drain (:func:`serve`), on SIGTERM or SIGINT, in this order:

1. ``/readyz`` answers 503 at once; for ``shutdown_delay`` seconds the server goes on
   accepting and serving, so a load balancer polling readiness stops sending traffic
   before connections are refused (0 by default: use a ``preStop`` hook instead);
2. ``subscriptions/listen`` streams end with their final result and legacy GET streams
   end, so their clients reconnect (elsewhere), and the listening socket closes, in the same
   step: later connection attempts are refused;
3. idle keep-alive connections close; a connection with a request in flight closes after
   its response.  Requests in flight get up to ``grace`` seconds; those still running then
   are cancelled and their connections cut;
4. lifespan shutdown (every legacy session ends) and the process exits with status 0.

A second SIGINT skips what is left of the waiting (uvicorn's forced exit).

Workers (:func:`run_workers`): N processes (``multiprocessing`` spawn) each bind their own
socket to the same port with ``SO_REUSEPORT``, so the kernel spreads connections over them
(Linux balances by connection hash; other systems may not balance).  They inherit the
parent's environment, shared state key included (``python -m <pkg>`` draws one when none is
configured).  The parent reserves the port (bound, not listening: it takes no connections)
so a port in use fails at once, forwards SIGTERM and SIGINT to the workers (as SIGTERM: each
drains as above; a second SIGINT forces them), and exits when they have exited: with status
0 if all exited with 0 (or, still starting, were ended by that SIGTERM), else 1.  When one
worker ends while the others still serve, the parent stops them too (a supervisor such as
Kubernetes or systemd restarts the whole).  Workers watch the parent and drain if it dies.
``SO_REUSEPORT`` lets any process of the same user bind that port too (a second
``--workers`` server started on the same port joins the first instead of failing).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import threading
import time
from types import FrameType
from typing import Any

from ...wire import accelerator
from ..logs import configure_logging
from .factory import app_from_env
from .onewrite import protocol_class

logger = logging.getLogger("mcp_codegen.http")


def bind_socket(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A bound TCP socket (not yet listening) with ``TCP_NODELAY`` (module docstring).

    Args:
        host: the address to bind.
        port: the port (0: any free port).
        reuse_port: set ``SO_REUSEPORT`` (several processes on one port).

    Returns:
        The socket.

    Raises:
        SystemExit: the address cannot be bound, or ``SO_REUSEPORT`` is not available.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP,
                                                             flags=socket.AI_PASSIVE)[0]
    except OSError as exc:
        raise SystemExit(f"cannot bind {host}:{port}: {exc}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            if not hasattr(socket, "SO_REUSEPORT"):
                raise SystemExit("--workers needs SO_REUSEPORT, which this system does not have")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise SystemExit(f"cannot bind {host}:{port}: {exc}") from None
    return sock


def serve(app: Any, sock: socket.socket, options: dict[str, Any], *, grace: float, shutdown_delay: float = 0.0) -> None:
    """Serve ``app`` on ``sock`` with uvicorn until SIGTERM/SIGINT, then drain (module docstring).

    Args:
        app: the ASGI application (its ``begin_drain()`` and ``close_streams()`` are called
            when it has them, as :class:`~server.http.app.HttpApp` does).
        sock: the bound socket (:func:`bind_socket`).
        options: further ``uvicorn.Config`` options.
        grace: seconds requests in flight may still run once the socket is closed.
        shutdown_delay: seconds of serving on with ``/readyz`` at 503 before that.
    """
    import uvicorn  # type: ignore[import-not-found, unused-ignore]  # optional: the http extra

    class DrainingServer(uvicorn.Server):  # type: ignore[misc, unused-ignore]  # Any without uvicorn's types
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            begin = getattr(app, "begin_drain", None)
            if begin is not None:
                begin()  # readiness turns 503 now, not at the next tick of uvicorn's main loop
            super().handle_exit(sig, frame)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + shutdown_delay
            while not self.force_exit and loop.time() < deadline:
                await asyncio.sleep(min(0.05, max(0.0, deadline - loop.time())))
            close = getattr(app, "close_streams", None)
            if close is not None:
                close()  # no await before uvicorn closes the listener: nothing new opens in between
            await super().shutdown(sockets)

    # the event loop and the HTTP parser: uvloop and httptools with the fast extra (as uvicorn's
    # "auto" would pick them), the standard loop and h11 when MCP_CODEGEN_ACCELERATOR switches the
    # accelerator off; uvicorn's protocol for that parser, each response written at once
    # (.onewrite); an explicit option wins
    loop = "uvloop" if accelerator.loop_factory() is not None else "asyncio"
    native = {"loop": loop, "http": protocol_class(accelerator.http_parser())}
    config = uvicorn.Config(app, **{**native, **options, "timeout_graceful_shutdown": grace})  # a float works (typed int)
    # uvicorn raises the signal that stopped it again once it has drained, for the handler it
    # found: make that an exit with status 0
    previous = {sig: signal.signal(sig, _drained) for sig in (signal.SIGTERM, signal.SIGINT)}
    gc.freeze()  # the start-up heap lives as long as the process: out of full collections (as stdio)
    try:
        DrainingServer(config).run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _drained(sig: int, frame: FrameType | None) -> None:
    """The handler of SIGTERM/SIGINT around :func:`serve` (uvicorn's own is in place while it
    serves): the signal uvicorn raises again after draining, or one before it started."""
    raise SystemExit(0)


def _watch_parent(parent: int) -> None:
    """Drain (SIGTERM to this process) once the parent process is gone."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)


def _worker(host: str, port: int, options: dict[str, Any], grace: float, shutdown_delay: float, log: tuple[str, str],
            parent: int) -> None:
    """One worker process of :func:`run_workers` (the target of a spawned process)."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _drained)  # stopped before serving: nothing to drain
    os.setpgid(0, 0)  # a terminal's Ctrl+C reaches the parent only, which forwards it once
    configure_logging(*log)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    sock = bind_socket(host, port, reuse_port=True)
    serve(app_from_env(), sock, options, grace=grace, shutdown_delay=shutdown_delay)


def run_workers(count: int, host: str, port: int, options: dict[str, Any], *, grace: float, shutdown_delay: float = 0.0,
                log: tuple[str, str] = ("WARNING", "text")) -> int:
    """Run ``count`` worker processes on one port and supervise them (module docstring).

    The application comes from :func:`~server.http.factory.app_from_env`: describe it first
    with :func:`~server.http.factory.export_app_env`, and set a shared state key (the workers
    inherit the environment).

    Args:
        count: how many processes.
        host: the address to bind.
        port: the port (0: a free one, chosen once for all).
        options: further ``uvicorn.Config`` options.
        grace: seconds requests in flight may still run once a worker's socket is closed.
        shutdown_delay: seconds of serving on with ``/readyz`` at 503 before that.
        log: ``(level, format)`` of each worker's logging.

    Returns:
        The exit status: 0 when every worker exited with 0, else 1.
    """
    reservation = bind_socket(host, port, reuse_port=True)
    port = reservation.getsockname()[1]
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_worker, name=f"mcp-worker-{i + 1}", daemon=False,
                               args=(host, port, options, grace, shutdown_delay, log, os.getpid()))
               for i in range(count)]
    stopping = threading.Event()
    asked = threading.Event()  # a signal asked to stop (not a worker ending on its own)

    def stop_all(sig: int) -> None:
        first = not stopping.is_set()
        stopping.set()
        for worker in workers:
            if worker.pid is not None and worker.exitcode is None:
                try:
                    os.kill(worker.pid, signal.SIGTERM if first or sig != signal.SIGINT else signal.SIGINT)
                except ProcessLookupError:
                    pass

    def forward(sig: int, frame: FrameType | None) -> None:
        asked.set()
        stop_all(sig)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        for worker in workers:
            worker.start()
        if stopping.is_set():  # a signal came while starting: reach the workers started since
            stop_all(signal.SIGTERM)
        while any(worker.exitcode is None for worker in workers):
            multiprocessing.connection.wait([w.sentinel for w in workers if w.exitcode is None], timeout=0.5)
            if not stopping.is_set() and any(worker.exitcode is not None for worker in workers):
                stop_all(signal.SIGTERM)  # one worker ended on its own: stop the others
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        reservation.close()
    # killed by the SIGTERM it was sent while still starting (before it handles signals): stopped
    ok = (0, -signal.SIGTERM) if asked.is_set() else (0,)
    for worker in workers:
        if worker.exitcode not in ok:
            logger.error("worker %s (pid %s) exited with status %s", worker.name, worker.pid, worker.exitcode)
    return 0 if all(worker.exitcode in ok for worker in workers) else 1


__all__ = ["bind_socket", "run_workers", "serve"]
