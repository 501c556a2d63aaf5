"""Connections of an agent's tool functions: one client per server, reused, drift-checked.

:func:`agent_client` returns the connected blocking typed client (``XSyncClient``) of a server
named in the configuration (``client/agent/config.py``): the first call in a process reads the
server's entry, starts the server (stdio) or opens the connection (HTTP), runs the handshake and
:meth:`~client.async_client.ClientBase.check_compat` (the drift check, ``client/agent/options.py``);
every later call gets the same client.  The clients are closed when the interpreter exits
(``atexit``; a stdio server is asked to stop, then terminated).

:func:`agent_client_async` does the same for the async typed client (``XClient``), once per
server per running event loop: each ``asyncio.run`` gets its own, closed when that loop ends
(a keeper task of the loop closes them when ``asyncio.run`` cancels what is left).

Importing this module reads no file, starts nothing and opens no socket.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...wire.errors import McpError, TransportClosedError
from ..async_client import ClientBase
from ..sync_client import SyncClientBase
from ..types import CompatReport
from .config import ServerConfigError, ServerEntry, find_server
from .options import DriftPolicy, client_options, drift_policy

logger = logging.getLogger("mcp_codegen.client.agent")

S = TypeVar("S", bound="SyncClientBase[Any]")
A = TypeVar("A", bound=ClientBase)


class ServerDriftError(McpError):
    """The server differs from the generated client and the drift policy is ``raise``.

    ``report`` is the :class:`~client.types.CompatReport` (``None`` when the check itself failed).
    """

    def __init__(self, message: str, report: CompatReport | None = None) -> None:
        super().__init__(message)
        self.report = report


def drift_summary(report: CompatReport, most: int = 5) -> str:
    """The differences of a report on one line: what breaks calls in full, what the server
    adds (harmless) as a count beyond the first ``most`` names."""
    breaking = [f"- {n} (missing on server)" for n in report.removed]
    breaking += [f"~ {c.name} ({', '.join(c.fields) or 'schemas'} differ)" for c in report.changed]
    breaking += [f"{'-' if c.change == 'removed' else '~'} {c.kind} {c.key}" + (f" ({c.detail})" if c.detail else "")
                 for c in report.catalog if c.change != "added"]
    added = [*report.added, *(f"{c.kind} {c.key}" for c in report.catalog if c.change == "added")]
    if added:
        more = f" and {len(added) - most} more" if len(added) > most else ""
        breaking.append(f"server only: {', '.join(added[:most])}{more}")
    return "; ".join(breaking) or "no details"


def judge_drift(server: str, policy: DriftPolicy, outcome: CompatReport | McpError,
                redact: Callable[[str], str] = str) -> None:
    """Apply the drift policy to the outcome of a new connection's ``check_compat()``.

    ``warn`` logs one warning line on ``mcp_codegen.client.agent``; ``raise`` raises
    :class:`ServerDriftError` (also when the check itself failed).  ``redact`` hides the
    entry's secrets in the text of a failed check (:meth:`ServerEntry.redact`).
    """
    if isinstance(outcome, McpError):
        message = redact(f"MCP server {server!r}: the drift check could not run ({type(outcome).__name__}: {outcome})")
        if policy == "raise":
            raise ServerDriftError(message) from scrub(outcome, redact)
        _warn_once(message)
        return
    if outcome.compatible:
        return
    message = (f"MCP server {server!r} differs from its generated client (regenerate the client, e.g. with "
               f"mcp-codegen pull): {drift_summary(outcome)}")
    if policy == "raise":
        raise ServerDriftError(message, outcome)
    _warn_once(message)


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """One warning line per server and difference (a reconnection that finds the same drift is quiet)."""
    if message not in _warned:
        _warned.add(message)
        logger.warning("%s", message)


def _sync_drift(server: str, entry: ServerEntry, client: SyncClientBase[Any]) -> None:
    policy = drift_policy(entry)
    if policy == "off":
        return
    try:
        outcome: CompatReport | McpError = client.check_compat()
    except McpError as exc:
        outcome = exc
    judge_drift(server, policy, outcome, entry.redact)


async def _async_drift(server: str, entry: ServerEntry, client: ClientBase) -> None:
    policy = drift_policy(entry)
    if policy == "off":
        return
    try:
        outcome: CompatReport | McpError = await client.check_compat()
    except McpError as exc:
        outcome = exc
    judge_drift(server, policy, outcome, entry.redact)


#: The most lines of a server's captured stderr an error shows.
STDERR_LINES = 20


def connect_failed(server: str, entry: ServerEntry, exc: McpError, stderr: str) -> McpError:
    """The error of a first connection that failed: a lost transport (the command failed, the
    server exited) becomes a :class:`TransportClosedError` naming the server and its entry; other
    errors keep their class.  Both get the last lines of the server's captured stderr as a note.
    No value taken from the environment is left in the error or in those it was caused by
    (:func:`scrub`)."""
    what = ("started as " if entry.transport == "stdio" else "at ") + f"{entry.label!r} (from {entry.source})"
    out: McpError = exc
    if isinstance(exc, TransportClosedError):
        out = TransportClosedError(f"MCP server {server!r} could not be connected: {exc.message}; {what}",
                                   data=exc.data)
        out.__cause__ = exc
    else:
        exc.add_note(f"connecting MCP server {server!r}, {what}")
    tail = stderr.splitlines()[-STDERR_LINES:]
    if tail:
        out.add_note("the server's stderr ended with:\n" + "\n".join(f"  {line}" for line in tail))
    scrub(out, entry.redact)
    return out


def scrub(exc: BaseException, redact: Callable[[str], str]) -> BaseException:
    """Pass the texts of ``exc`` and of every exception in its chain (``__cause__``,
    ``__context__``) through ``redact``, in place: arguments, ``message`` and ``data`` of an
    :class:`McpError`, the file names of an ``OSError``, notes.  Returns ``exc``."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        item = stack.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        item.args = tuple(_redacted(a, redact) for a in item.args)
        if isinstance(item, McpError):
            item.message = redact(item.message)
            item.data = _redacted(item.data, redact)
        if isinstance(item, OSError):
            item.filename, item.filename2 = _redacted(item.filename, redact), _redacted(item.filename2, redact)
        notes = getattr(item, "__notes__", None)
        if isinstance(notes, list):
            notes[:] = [_redacted(n, redact) for n in notes]
        stack += [item.__cause__, item.__context__]
    return exc


def _redacted(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v, redact) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_redacted(v, redact) for v in value)
    return value


def _check_type(server: str, client: object, client_cls: type) -> None:
    if not isinstance(client, client_cls):
        raise TypeError(f"MCP server {server!r} is already connected with {type(client).__name__}, "
                        f"not {client_cls.__name__}")


# ------------------------------------------------------------------------------- blocking
_sync_clients: dict[str, SyncClientBase[Any]] = {}
_sync_locks: dict[str, threading.Lock] = {}
_registry_lock = threading.Lock()
_atexit_registered = False


def _open(client_cls: type[Any], entry: ServerEntry) -> Any:
    """An unconnected client of ``client_cls`` (sync or async: the constructors are twins),
    whose transport describes itself by the entry's label (``${NAME}`` unexpanded): the
    errors of every later call name the server without the secrets of its URL or command."""
    options = client_options(entry)
    if entry.transport == "http":
        client = client_cls.http(entry.url, **options)
        description = f"HTTP server {entry.label}"
    else:
        assert entry.command is not None
        client = client_cls.stdio(entry.command, entry.args, **options)
        description = f"stdio server {entry.label!r}"
    inner = client.client if isinstance(client, SyncClientBase) else client
    inner.transport.description = description
    return client


def agent_client(server: str, client_cls: type[S], *, root: Path) -> S:
    """The connected blocking client of ``server``, one per process (see the module docstring).

    Args:
        server: the server's name in the configuration.
        client_cls: the generated ``XSyncClient``.
        root: the ``servers/`` folder (its ``mcp.json`` is the default configuration).

    Raises:
        ServerConfigError: the server is not configured, or its entry is unusable.
        ServerDriftError: the server differs from the client and the drift policy is ``raise``.
        McpError: the server could not be started or reached (e.g. :class:`TransportClosedError`).
    """
    global _atexit_registered
    with _registry_lock:
        client = _sync_clients.get(server)
        if client is not None and not client.is_closed:
            _check_type(server, client, client_cls)
            return client  # type: ignore[return-value]
        lock = _sync_locks.setdefault(server, threading.Lock())
    with lock:
        with _registry_lock:
            client = _sync_clients.get(server)
        if client is not None:
            if not client.is_closed:
                _check_type(server, client, client_cls)
                return client  # type: ignore[return-value]
            _discard(server, client)  # the server exited or the connection broke: connect again
        entry = find_server(server, root)
        fresh: S = _open(client_cls, entry)
        try:
            try:
                fresh.connect()
            except McpError as exc:
                failed = connect_failed(server, entry, exc, fresh.client.stderr_output)
                if failed is exc:
                    raise
                raise failed from failed.__cause__
            _sync_drift(server, entry, fresh)
        except BaseException:
            fresh.close()
            raise
        with _registry_lock:
            _sync_clients[server] = fresh
            if not _atexit_registered:
                atexit.register(close_agent_clients)
                if hasattr(os, "register_at_fork"):  # not on Windows
                    os.register_at_fork(after_in_child=_forget_after_fork)
                _atexit_registered = True
        return fresh


def _discard(server: str, client: SyncClientBase[Any]) -> None:
    """Drop a lost client (its loop thread is stopped; the process is already gone or going)."""
    with _registry_lock:
        if _sync_clients.get(server) is client:
            del _sync_clients[server]
    try:
        client.close()
    except Exception as exc:
        logger.debug("closing the lost connection to MCP server %r: %s", server, exc)


def _forget_after_fork() -> None:
    """In a forked child the parent's connections are not usable (their threads did not
    follow): forget them without closing, the parent still owns them."""
    global _registry_lock
    _sync_clients.clear()
    _sync_locks.clear()
    _registry_lock = threading.Lock()


def close_agent_clients() -> None:
    """Close every blocking client :func:`agent_client` opened (run at interpreter exit)."""
    with _registry_lock:
        clients = list(_sync_clients.items())
        _sync_clients.clear()
    for server, client in clients:
        try:
            client.close()
        except Exception as exc:  # closing must go on with the others
            logger.debug("closing MCP server %r: %s", server, exc)


# ---------------------------------------------------------------------------------- async
class _LoopClients:
    """The async clients of one event loop, and the task that closes them when it ends."""

    def __init__(self) -> None:
        self.clients: dict[str, ClientBase] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.keeper: asyncio.Task[None] | None = None

    async def keep(self) -> None:
        """Wait until cancelled (``asyncio.run`` cancels what is left when its coroutine ends),
        then close the clients."""
        loop = asyncio.get_running_loop()
        try:
            await loop.create_future()
        finally:
            _loops.pop(loop, None)  # the task holds the loop: without this the entry would never go
            clients = list(self.clients.items())
            self.clients.clear()
            for server, client in clients:
                await _aclose_quietly(server, client)


async def _aclose_quietly(server: str, client: ClientBase) -> None:
    try:
        await client.aclose()
    except Exception as exc:  # closing goes on with the others
        logger.debug("closing MCP server %r: %s", server, exc)


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClients] = weakref.WeakKeyDictionary()


async def agent_client_async(server: str, client_cls: type[A], *, root: Path) -> A:
    """The connected async client of ``server``, one per running event loop (see the module
    docstring); arguments and errors as :func:`agent_client` (``client_cls``: the generated
    ``XClient``)."""
    loop = asyncio.get_running_loop()
    state = _loops.get(loop)
    if state is None:
        state = _loops[loop] = _LoopClients()
        state.keeper = loop.create_task(state.keep(), name="mcp-agent-clients")
    client = state.clients.get(server)
    if client is None or client.is_closed:
        lock = state.locks.setdefault(server, asyncio.Lock())
        async with lock:
            client = state.clients.get(server)
            if client is not None and client.is_closed:
                state.clients.pop(server, None)
                await _aclose_quietly(server, client)
                client = None
            if client is None:
                entry = find_server(server, root)
                fresh: A = _open(client_cls, entry)
                try:
                    try:
                        await fresh.connect()
                    except McpError as exc:
                        failed = connect_failed(server, entry, exc, fresh.stderr_output)
                        if failed is exc:
                            raise
                        raise failed from failed.__cause__
                    await _async_drift(server, entry, fresh)
                except BaseException:
                    await fresh.aclose()
                    raise
                state.clients[server] = client = fresh
    _check_type(server, client, client_cls)
    return client  # type: ignore[return-value]


async def aclose_agent_clients() -> None:
    """Close the async clients :func:`agent_client_async` opened in the running loop (they
    are closed anyway when ``asyncio.run`` ends)."""
    state = _loops.get(asyncio.get_running_loop())
    if state is None:
        return
    for server, client in list(state.clients.items()):
        state.clients.pop(server, None)
        await _aclose_quietly(server, client)


__all__ = [
    "ServerConfigError",
    "ServerDriftError",
    "aclose_agent_clients",
    "agent_client",
    "agent_client_async",
    "close_agent_clients",
    "connect_failed",
    "drift_summary",
    "judge_drift",
    "scrub",
]
