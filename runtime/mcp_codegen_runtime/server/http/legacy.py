"""The legacy eras over HTTP (2025-03-26 … 2025-11-25): sessions and their event streams.

* ``initialize`` mints a session: ``Mcp-Session-Id`` bound to the caller's principal,
  ``<replica-id>.<random>`` with a replica id (``HttpSettings.replica_id`` or
  ``MCP_CODEGEN_REPLICA_ID``, for sticky routing), else ``<random>`` (32 characters of
  ``secrets.token_urlsafe``, 192 bits; all visible ASCII).  Later requests must carry it (missing: 400; unknown, expired or
  another principal's: 404); a request may carry another token of the same caller
  (refreshed, stepped up), and what it runs sees that token's principal (scopes, expiry;
  ``StreamConnection.principal``).  Idle sessions (no request running, no GET stream open) expire
  ``session_idle_timeout`` after their last use; at
  ``max_sessions`` the longest-idle one is dropped (503 when every session is busy), and one
  client (principal, else address) holds at most ``max_sessions_per_client`` of them.
* POST: a request is answered with SSE when the client accepts it (a priming event with
  an id and ``retry`` first, then the request's notifications and server->client
  requests, then the response) or JSON; notifications and responses get 202.  A request
  keeps running when its stream drops (disconnect is not cancellation); the client
  resumes with GET + ``Last-Event-ID`` (``<stream>-<seq>``).
* GET without ``Last-Event-ID`` opens the session's stream for unsolicited messages
  (``notifications/tools/list_changed``, requests unrelated to a call), one at a time
  (409 otherwise).  DELETE ends the session.  Without a session, or with a 2026
  ``MCP-Protocol-Version``, GET and DELETE are 405.

A session's connection routes each outgoing message to the SSE stream of the request it
relates to, or to the session's GET stream (:meth:`Session.stream_for`).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import secrets
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from ...wire import jsonrpc
from ...wire import protocol as p
from ..connection import Outgoing
from .access import client_key
from .answer import answer
from .request import HttpError, Receive, Request, Send, UnreadableMessage
from .responses import pump, send_empty, send_json, status_for
from .settings import HttpSettings
from .streams import CURRENT_STREAM, REQUEST_PRINCIPAL, EventStream, StreamConnection, StreamSlot, request_headers

if TYPE_CHECKING:
    from ..interface import ServedServer

#: The environment variable naming the replica when ``HttpSettings.replica_id`` is None.
REPLICA_ENV = "MCP_CODEGEN_REPLICA_ID"
_REPLICA_RX = re.compile(r"[A-Za-z0-9_-]{1,64}")

#: Finished request streams a session keeps for ``Last-Event-ID`` (the oldest go first).
_KEPT_STREAMS = 256


class Session:
    """A legacy session: its connection, in-flight request streams and the GET stream.

    Args:
        sid: the session id.
        principal: the identity that created it (the only one that may use it).
        client_key: the rate-limit key.
        limit: events kept per stream.
    """

    def __init__(self, sid: str, principal: Any, client_key: str, limit: int, *,
                 replay_ttl: float = 300.0, max_replay_bytes: int = 8 * 1024 * 1024) -> None:
        self.id = sid
        self.principal = principal
        self.limit = limit
        self.replay_ttl = replay_ttl
        self.max_replay_bytes = max_replay_bytes
        self.conn = StreamConnection(self.stream_for, principal, client_key)
        self.standalone = EventStream(0, limit, standalone=True)
        self.streams: OrderedDict[int, EventStream] = OrderedDict()
        self.by_request: dict[jsonrpc.RequestId, EventStream] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.last_seen = time.monotonic()
        self._numbers = itertools.count(1)

    def new_stream(self) -> EventStream:
        """A numbered stream for a new request (old finished ones are trimmed, see :meth:`trim`)."""
        self.trim()
        stream = EventStream(next(self._numbers), self.limit)
        self.streams[stream.number] = stream
        return stream

    def trim(self) -> None:
        """Forget finished streams nobody can resume any more: JSON-answered ones, those
        finished longer than ``replay_ttl`` ago, and the oldest beyond ``_KEPT_STREAMS`` or
        beyond ``max_replay_bytes`` of kept events (bounded memory per session)."""
        horizon = time.monotonic() - self.replay_ttl
        kept_bytes, budget, gone = 0, self.max_replay_bytes, []
        for stream in reversed(self.streams.values()):  # newest first; one pass, runs for every request
            if not stream.done:
                continue
            if stream.json_only or (stream.finished_at is not None and stream.finished_at < horizon):
                gone.append(stream.number)
                continue
            kept_bytes += stream.written_bytes or stream.weight()
            if kept_bytes > budget:
                gone.append(stream.number)
        for number in gone:
            del self.streams[number]
        while len(self.streams) > _KEPT_STREAMS:
            oldest = next(iter(self.streams.values()))
            if not oldest.done:
                break
            self.streams.popitem(last=False)

    def stream_for(self, related_to: jsonrpc.RequestId | None) -> EventStream:
        """Where an outgoing message goes: its request's SSE stream while open, else the GET stream."""
        stream = self.by_request.get(related_to) if related_to is not None else None
        if stream is None or stream.json_only or stream.done:
            stream = self.standalone
        return stream

    def find(self, number: int) -> EventStream | None:
        """The stream numbered ``number`` (0: the GET stream), if still kept."""
        return self.standalone if number == 0 else self.streams.get(number)

    @property
    def idle(self) -> bool:
        """No request running and no GET stream open."""
        return not self.tasks and not self.standalone.attached

    def close(self) -> None:
        """End the session: close its connection, cancel its requests, finish its streams."""
        self.conn.close()
        for task in list(self.tasks):
            task.cancel()
        self.standalone.finish()
        for stream in self.streams.values():
            stream.finish()


def _event_number(text: str) -> int | None:
    """A part of an SSE event id: ASCII digits only (``"\xb2".isdigit()`` is true), bounded."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def replica_id(configured: str | None) -> str | None:
    """The replica id: ``configured``, else ``MCP_CODEGEN_REPLICA_ID``, else None.

    Raises:
        ValueError: not 1-64 of ``A-Z a-z 0-9 _ -`` (the ``.`` ends it in a session id).
    """
    value = configured if configured is not None else (os.environ.get(REPLICA_ENV) or None)
    if value is not None and not _REPLICA_RX.fullmatch(value):
        raise ValueError(f"replica id {value!r} must be 1-64 characters of A-Z a-z 0-9 _ -")
    return value


def new_session_id(replica: str | None) -> str:
    """A fresh session id: ``<replica>.<random>``, or ``<random>`` without a replica."""
    token = secrets.token_urlsafe(24)
    return f"{replica}.{token}" if replica else token


class LegacyHandler:
    """The sessions of one application and its legacy POST, GET and DELETE (module docstring).

    Args:
        server: the server handling the messages.
        settings: the transport settings.
    """

    def __init__(self, server: ServedServer, settings: HttpSettings) -> None:
        self.server = server
        self.settings = settings
        self.sessions: dict[str, Session] = {}
        #: The prefix of this replica's session ids (None: none).
        self.replica = replica_id(settings.replica_id)

    def close_all(self) -> None:
        """End every session (application shutdown)."""
        for session in list(self.sessions.values()):
            session.close()
        self.sessions.clear()

    def close_streams(self) -> None:
        """End every open GET stream (the sessions go on; their clients may reconnect)."""
        for session in self.sessions.values():
            session.standalone.request_close()

    def _drop(self, session: Session) -> None:
        session.close()
        self.sessions.pop(session.id, None)

    def _prune(self, client: str) -> None:
        """Expire idle sessions, then make room for one more session of ``client``: its own
        longest-idle session goes when it holds its share, anyone's when the server is full.

        Raises:
            HttpError: 503 when the room would have to come from a busy session.
        """
        now = time.monotonic()
        for session in list(self.sessions.values()):
            if session.idle and now - session.last_seen > self.settings.session_idle_timeout:
                self._drop(session)
            else:
                session.trim()
        mine = [s for s in self.sessions.values() if s.conn.client_key == client]
        while len(mine) >= self.settings.sessions_per_client():
            idle = [s for s in mine if s.idle]
            if not idle:
                raise HttpError(503, p.INVALID_REQUEST, "Too many sessions for this client: end one (DELETE) first",
                                headers=[("retry-after", "5")])
            victim = min(idle, key=lambda s: s.last_seen)
            self._drop(victim)
            mine.remove(victim)
        while len(self.sessions) >= self.settings.max_sessions:
            idle = [s for s in self.sessions.values() if s.idle]
            if not idle:
                raise HttpError(503, p.INVALID_REQUEST, "Too many sessions", headers=[("retry-after", "5")])
            self._drop(min(idle, key=lambda s: s.last_seen))

    def session(self, req: Request, principal: Any) -> Session:
        """The session a request names (its last use is now).

        Args:
            req: the request (``Mcp-Session-Id``, ``MCP-Protocol-Version``).
            principal: the authenticated identity; must be the session's.

        Returns:
            The session.

        Raises:
            HttpError: 400 (no session id, unsupported version), 404 (no such session).
        """
        sid = req.get("mcp-session-id")
        if sid is None:
            raise HttpError(400, p.INVALID_REQUEST, "Bad Request: Mcp-Session-Id header required")
        session = self.sessions.get(sid.strip())
        if session is None or session.principal != principal:
            raise HttpError(404, p.INVALID_REQUEST, "Session not found")
        version = req.get("mcp-protocol-version")
        if version is not None and version.strip() not in p.LEGACY_VERSIONS:
            raise HttpError(400, p.INVALID_REQUEST, f"Bad Request: unsupported MCP-Protocol-Version {version!r}")
        session.last_seen = time.monotonic()
        return session

    def refuse_answer(self, req: Request, principal: Any, unreadable: UnreadableMessage) -> None:
        """A POST of the session ``req`` names whose body could not be read: if it answers a
        request the server sent (a sampling result with a lone surrogate, say), that request
        fails now and so does the call that asked, on its own stream (as a 2026 call fails)."""
        try:
            session = self.session(req, principal)
        except HttpError:
            return
        session.conn.refuse_answer(unreadable.raw, unreadable.error)

    async def initialize(self, req: Request, send: Send, principal: Any, message: Any) -> None:
        """Answer ``initialize``: a new session, its id in ``Mcp-Session-Id`` (JSON response).

        Args:
            req: the request.
            send: the ASGI send channel.
            principal: the authenticated identity (or None).
            message: the decoded body (its method is ``initialize``).

        Raises:
            HttpError: 400 (not a request), 503 (too many sessions).
        """
        if jsonrpc.kind(message) != "request":
            raise HttpError(400, p.INVALID_REQUEST, "Invalid Request")
        client = client_key(req, principal)
        self._prune(client)
        sid = new_session_id(self.replica)
        session = Session(sid, principal, client, self.settings.max_events_per_stream,
                          replay_ttl=self.settings.replay_ttl, max_replay_bytes=self.settings.max_replay_bytes)
        response = await self.server.handle(message, session.conn)
        if not isinstance(response, dict) or "error" in response:
            session.close()
            await send_json(send, 400 if isinstance(response, dict) else 500, response)
            return
        self.sessions[sid] = session
        await send_json(send, 200, response, [(b"mcp-session-id", sid.encode())])

    async def post(self, req: Request, receive: Receive, send: Send, principal: Any, message: Any) -> None:
        """Answer a POST within a session (module docstring).

        Args:
            req: the request.
            receive: the ASGI receive channel.
            send: the ASGI send channel.
            principal: the authenticated identity (or None).
            message: the decoded body (a message or a batch).

        Raises:
            HttpError: the errors of :meth:`session`; 400 for a request id already in use.
        """
        session = self.session(req, principal)
        # the caller's current token (refreshed, stepped up) for what this request runs
        # (and any task it starts, which copies the context): ``StreamConnection.principal``
        reset = REQUEST_PRINCIPAL.set((session.conn, principal, request_headers(req)))
        try:
            await self._post(session, req, receive, send, message)
        finally:
            REQUEST_PRINCIPAL.reset(reset)

    async def _post(self, session: Session, req: Request, receive: Receive, send: Send, message: Any) -> None:
        if isinstance(message, list) or jsonrpc.kind(message) != "request":
            response = await self.server.handle(message, session.conn)
            if response is None:
                await send_empty(send)
            elif isinstance(message, list):
                await send_json(send, status_for(response, modern=False), response)
            else:  # an invalid message
                await send_json(send, 400, response)
            return
        rid = message["id"]
        if rid in session.by_request:
            raise HttpError(400, p.INVALID_REQUEST, f"Invalid Request: request id {rid!r} is already in use", rid=rid)
        sse = req.accepts("text/event-stream") and not (self.settings.json_response and req.accepts("application/json"))
        stream = session.new_stream()
        stream.json_only = not sse
        session.by_request[rid] = stream

        async def run() -> Outgoing | None:  # in the request's task (server.http.answer), a task of the session while it runs
            me = asyncio.current_task()
            if me is not None:
                session.tasks.add(me)
            token = CURRENT_STREAM.set(stream)
            try:
                return await self.server.handle(message, session.conn)
            finally:
                CURRENT_STREAM.reset(token)
                if me is not None:
                    session.tasks.discard(me)
                if session.by_request.get(rid) is stream:
                    del session.by_request[rid]

        # the client leaving does not cancel the request (legacy); the session's end does: its
        # stream is then written to its end, as the request's own
        slot = StreamSlot(self.settings.max_events_per_stream, stream)  # the numbered stream, made up front
        await answer(run(), receive, send, slot, self.settings, legacy=True, sse_ok=sse,
                     status=lambda m: status_for(m, modern=False), cancelled_ok=lambda: session.conn.closed)
        session.last_seen = time.monotonic()

    @staticmethod
    def _refuse_sessionless(req: Request) -> None:
        """GET and DELETE exist only within a legacy session: 405 otherwise."""
        if req.get("mcp-session-id") is None or req.protocol_version in p.MODERN_VERSIONS:
            raise HttpError(405, None, "Method Not Allowed", headers=[("allow", "POST")])

    async def get(self, req: Request, receive: Receive, send: Send, principal: Any) -> None:
        """Open the session's GET stream, or resume a stream after ``Last-Event-ID``.

        Args:
            req: the request.
            receive: the ASGI receive channel.
            send: the ASGI send channel.
            principal: the authenticated identity (or None).

        Raises:
            HttpError: 405 (no session), 406 (SSE not accepted), the errors of
                :meth:`session`, 404 (unknown event id), 409 (GET stream already open).
        """
        self._refuse_sessionless(req)
        if not req.accepts("text/event-stream"):
            raise HttpError(406, p.INVALID_REQUEST, "Not Acceptable: GET needs Accept: text/event-stream")
        session = self.session(req, principal)
        last = req.get("last-event-id")
        if last is not None:
            number, _, seq = (_event_number(part) for part in last.strip().partition("-"))
            stream = session.find(number) if number is not None else None
            if stream is None or seq is None:
                raise HttpError(404, p.INVALID_REQUEST, "Unknown Last-Event-ID")
            start = seq
        elif session.standalone.attached:
            raise HttpError(409, p.INVALID_REQUEST, "Conflict: a GET stream is already open for this session")
        else:
            stream, start = session.standalone, session.standalone.cursor
        try:
            await pump(receive, send, stream, self.settings, legacy=True, sse_ok=True, resume_from=start)
        finally:
            session.last_seen = time.monotonic()  # an open stream is use: idle time starts when it ends

    async def delete(self, req: Request, send: Send, principal: Any) -> None:
        """End the session the request names.

        Args:
            req: the request.
            send: the ASGI send channel.
            principal: the authenticated identity (or None).

        Raises:
            HttpError: 405 (no session), the errors of :meth:`session`.
        """
        self._refuse_sessionless(req)
        self._drop(self.session(req, principal))
        await send_empty(send, 200)
