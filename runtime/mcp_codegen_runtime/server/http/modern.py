"""2026-07-28 over HTTP: stateless POSTs, one fresh connection per request.

A request whose ``params._meta`` names the protocol version is checked against its
headers (:func:`check_headers`): ``MCP-Protocol-Version`` must equal the ``_meta``
version, ``Mcp-Method`` the method, ``Mcp-Name`` the tool/prompt/resource name, and every
``Mcp-Param-*`` the ``x-mcp-header`` argument it mirrors (see :mod:`wire.headers`);
otherwise 400 + ``-32020``.  ``initialize`` is 404 + ``-32601`` (it is not part of 2026).

The request then runs on a fresh connection whose every outgoing message goes to that
request's stream, made when the first one comes (:class:`~.streams.StreamSlot`), first in the
request's own task (:func:`~server.http.answer.answer`: a call that ends at once is written
with no task beside it, and with no stream when it sent nothing); the answer is JSON, or SSE when
notifications (progress, log, subscription events) come before the result (see
:func:`~server.http.responses.pump`).  Closing the response stream cancels the request.
Notifications get 202; responses are refused (the server never has a request pending).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING, Any

from ...wire import jsonrpc
from ...wire import protocol as p
from ...wire.headers import HeaderParam, decode_value, header_params, name_source, value_matches
from .access import client_key
from .answer import answer
from .request import HttpError, Receive, Request, Send
from .responses import send_empty, status_for
from .settings import HttpSettings
from .streams import StreamConnection, StreamSlot, request_headers

if TYPE_CHECKING:
    from ..interface import ServedServer

logger = logging.getLogger("mcp_codegen.http")

#: Tool name -> (its ``x-mcp-header`` arguments, why its annotations are invalid or None).
HeaderTable = dict[str, tuple[tuple[HeaderParam, ...], str | None]]


def header_table(server: ServedServer) -> HeaderTable:
    """The ``x-mcp-header`` arguments of every tool (invalid annotations are logged).

    Args:
        server: the server whose ``tool_defs`` are read.

    Returns:
        Tool name -> (annotated arguments, reason the annotations are invalid or None).
    """
    table = {t.name: header_params(t.wire.get("inputSchema")) for t in server.tool_defs}
    for name, (_, reason) in table.items():
        if reason is not None:
            logger.warning("tool %s: invalid x-mcp-header annotation (%s); headers not validated", name, reason)
    return table


def meta_problem(params: Any) -> bool:
    """True when the request's ``_meta`` lacks what 2026 requires (the -32602 -> 400 case)."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        return True
    level = meta.get(p.META_LOG_LEVEL)
    return (
        not isinstance(meta.get(p.META_PROTOCOL_VERSION), str)
        or not isinstance(meta.get(p.META_CLIENT_CAPABILITIES), dict)
        or (level is not None and level not in p.LOG_LEVELS)
    )


#: A character outside visible ASCII, space and tab (one regex search instead of a loop per character).
_BAD_CHAR = re.compile(r"[^\t\x20-\x7e]")


def check_headers(req: Request, message: jsonrpc.JsonObject, table: HeaderTable) -> str | None:
    """Why the standard and custom headers disagree with the body.

    Args:
        req: the request.
        message: its JSON-RPC request (a 2026 one: ``params._meta`` names the version).
        table: the tools' ``x-mcp-header`` arguments (:func:`header_table`).

    Returns:
        The reason, or None when they agree.
    """
    method = message["method"]
    raw_params = message.get("params")
    params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
    for name, values in req.headers.items():
        if name.startswith("mcp-"):
            for v in values:  # (" \t" around a value are allowed characters: no strip needed first)
                if _BAD_CHAR.search(v) is not None:
                    return f"the {name} header carries characters outside visible ASCII"
    version = req.protocol_version
    if not version:
        return "MCP-Protocol-Version header missing"
    if version != params.get("_meta", {}).get(p.META_PROTOCOL_VERSION):
        return "MCP-Protocol-Version header does not match _meta protocolVersion"
    mcp_method = req.get("mcp-method")
    if mcp_method is None:
        return "Mcp-Method header missing"
    if mcp_method.strip(" \t") != method:
        return "Mcp-Method header does not match the method"
    expected = name_source(method, params)
    got = req.get("mcp-name")
    if expected is not None:
        if got is None:
            return "Mcp-Name header missing"
        if decode_value(got) != expected:
            return "Mcp-Name header does not match the body"
    if method == "tools/call" and isinstance(params.get("name"), str):
        specs, reason = table.get(params["name"], ((), None))
        raw_args = params.get("arguments")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        if reason is None:
            for spec in specs:
                problem = _param_problem(spec, req.headers.get(spec.header_name.lower(), []), args)
                if problem is not None:
                    return problem
    return None


def _param_problem(spec: HeaderParam, values: list[str], args: dict[str, Any]) -> str | None:
    """Why the ``Mcp-Param-*`` header copies ``values`` disagree with the argument (or None)."""
    body = spec.value_in(args)
    if len(values) > 1:
        return f"{spec.header_name} header appears more than once"
    if body is None:
        return f"{spec.header_name} header present but the argument is absent" if values else None
    if not values:
        return f"{spec.header_name} header missing"
    decoded = decode_value(values[0])
    if decoded is None:
        return f"{spec.header_name} header has a malformed Base64 value"
    if not value_matches(spec.type, body, decoded):
        return f"{spec.header_name} header does not match the argument"
    return None


class StatelessHandler:
    """Answers the 2026 POSTs of one application (module docstring).

    Args:
        server: the server handling the messages.
        settings: the transport settings.
    """

    def __init__(self, server: ServedServer, settings: HttpSettings) -> None:
        self.server = server
        self.settings = settings
        self.table = header_table(server)

    async def handle(self, req: Request, receive: Receive, send: Send, principal: Any, message: Any) -> None:
        """Answer one stateless POST.

        Args:
            req: the request.
            receive: the ASGI receive channel.
            send: the ASGI send channel.
            principal: the authenticated identity (or None).
            message: the decoded body.

        Raises:
            HttpError: a response posted, a header mismatch, ``initialize``.
        """
        kind = jsonrpc.kind(message)
        if kind in ("notification", "response"):
            if kind == "response":
                raise HttpError(400, p.INVALID_REQUEST, "Bad Request: no server request is pending")
            await send_empty(send)
            return
        rid = message.get("id") if kind == "request" else None
        params = message.get("params") if kind == "request" else None
        modern = isinstance(params, dict) and isinstance(params.get("_meta"), dict) and p.META_PROTOCOL_VERSION in params["_meta"]
        if kind == "request" and modern:
            problem = check_headers(req, message, self.table)
            if problem is not None:
                raise HttpError(400, p.HEADER_MISMATCH, f"Header mismatch: {problem}", rid=rid)
            if message["method"] == "initialize":
                raise HttpError(
                    404,
                    p.METHOD_NOT_FOUND,
                    "Method not found: initialize is not part of 2026-07-28; "
                    f"supported versions: {', '.join(reversed(p.ALL_VERSIONS))}",
                    rid=rid,
                )
        bad_meta = meta_problem(params)
        slot = StreamSlot(self.settings.max_events_per_stream)
        conn = StreamConnection(slot.route, principal, client_key(req, principal), request_headers(req))
        cancelled = [False]

        def gone(me: asyncio.Task[Any]) -> None:  # the client closed the stream: that cancels the request (2026)
            if rid is None or not conn.cancel_request(rid):
                cancelled[0] = True
                me.cancel()

        try:
            await answer(
                self.server.handle(message, conn), receive, send, slot, self.settings, legacy=False,
                sse_ok=req.accepts("text/event-stream"), status=lambda m: status_for(m, modern=True, meta_problem=bad_meta),
                on_gone=gone, cancelled_ok=lambda: cancelled[0],
            )
        finally:
            conn.close()
