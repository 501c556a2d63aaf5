"""``pull``, step 1: connect to a live server and read what it says about itself
(:func:`read_server`, :func:`fetch`), in both eras, every ``tools/list`` page.

:func:`fetch_then` also runs the next steps (the spec text, the file) in a thread while the
connection closes: a stdio server takes its time to exit once its stdin is closed (the npm
servers about 0.35 s), and writing the spec need not wait for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mcp_codegen_runtime.client import ClientBase

T = TypeVar("T")


@dataclass(frozen=True)
class ServerSnapshot:
    """What a live server said about itself: ``serverInfo``, instructions and tools."""

    server_info: dict[str, Any]
    instructions: str | None
    tools: list[dict[str, Any]]
    era: str | None = None
    protocol_version: str | None = None
    resources: list[dict[str, Any]] = field(default_factory=list)
    templates: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    #: Lists taken as empty: declared but answered with -32601 (see ``ClientBase.wire_catalog``).
    notes: list[str] = field(default_factory=list)


class PullError(Exception):
    """The server could not be read (connection, protocol or timeout problem)."""


async def read_server(client: ClientBase) -> ServerSnapshot:
    """Connect, list every tool and close.

    Raises:
        PullError: with the server's stderr tail (stdio) when anything fails.
    """
    return (await _read_overlapped(client, None, None))[0]


async def _read_overlapped(client: ClientBase, then: Callable[[ServerSnapshot], T] | None,
                           timeout: float | None) -> tuple[ServerSnapshot, T | None]:
    """Connect and list everything (within ``timeout`` seconds), then close the connection
    *while* ``then(snapshot)`` runs in a thread: a stdio server takes its time to exit once
    its stdin is closed (the npm servers about 0.35 s), and writing the spec need not wait.

    Raises:
        PullError: the server could not be read (``then``'s own exceptions pass unchanged).
    """
    deadline = asyncio.timeout(timeout)
    try:
        try:
            async with deadline:
                await client.connect()
                tools = [t.raw for t in await client.list_tools(refresh=True)]
                (resources, templates, prompts), notes = await client.wire_catalog()
        except BaseException:
            await client.aclose()
            raise
        snapshot = ServerSnapshot(dict(client.server_identity), client.instructions, tools,
                                  client.era, client.protocol_version, resources, templates, prompts, list(notes))
    except TimeoutError as exc:
        if not deadline.expired():
            raise _read_error(client, exc) from exc
        raise PullError(f"no complete answer from the server within {timeout:g} s") from None
    except Exception as exc:
        raise _read_error(client, exc) from exc
    if then is None:
        await client.aclose()
        return snapshot, None
    work = asyncio.ensure_future(asyncio.to_thread(then, snapshot))
    try:
        await client.aclose()
    finally:
        done = await work  # an exception of ``then`` propagates once the server is closed
    return snapshot, done


def _read_error(client: ClientBase, exc: BaseException) -> PullError:
    """``exc`` as a :class:`PullError`, with the server's stderr tail (stdio)."""
    stderr = client.stderr_output.strip()
    tail = "\n".join(stderr.splitlines()[-15:])
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return PullError(detail + (f"\nserver stderr (last lines):\n{tail}" if tail else ""))


def fetch(client: ClientBase, timeout: float = 60.0) -> ServerSnapshot:
    """:func:`read_server` from synchronous code, bounded by ``timeout`` seconds overall."""
    return fetch_then(client, None, timeout)[0]


def fetch_then(client: ClientBase, then: Callable[[ServerSnapshot], T] | None,
               timeout: float = 60.0) -> tuple[ServerSnapshot, T | None]:
    """:func:`fetch`, running ``then(snapshot)`` (in a thread) while the connection closes.

    ``timeout`` bounds connecting and listing; closing and ``then`` are not counted.

    Raises:
        PullError: the server could not be read in time, or at all.
    """
    return asyncio.run(_read_overlapped(client, then, timeout))
