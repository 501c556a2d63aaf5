"""Writing HTTP responses: plain bodies, JSON, errors, and event streams as JSON or SSE.

* :func:`send_body`, :func:`send_json`, :func:`send_empty` and :func:`send_error` write a
  whole response at once.
* :func:`status_for` is the HTTP status of a JSON-RPC answer: errors -32020/-32021/-32022,
  -32600/-32700 are 400; on 2026 also -32601 (404) and a -32602 about ``_meta`` (400);
  anything else travels with 200.
* :func:`pump` writes an :class:`~server.http.streams.EventStream` until its response, a
  close (:func:`~server.http.streams.close_sse_stream`) or the client's disconnect
  (:func:`write_done` writes one already finished, the same way, with nothing to wait for):

  - as JSON when the client does not accept SSE, or (2026) when the response is the
    stream's only event; an empty 202 when the stream ends without a response;
  - else as SSE: legacy streams start with a priming event (an id and ``retry``) unless
    resumed, and number their events ``<stream>-<seq>`` for ``Last-Event-ID``; idle
    streams get a keep-alive comment every ``HttpSettings.keepalive`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from ...wire import jsonrpc
from ...wire import protocol as p
from ...wire.sse import encode_comment, encode_event
from .request import HttpError, Receive, Send
from .settings import HttpSettings
from .streams import EventStream

Headers = Sequence[tuple[bytes, bytes]]
#: The HTTP status of a JSON answer.
StatusOf = Callable[[Any], int]

_400_CODES = frozenset({p.HEADER_MISMATCH, p.MISSING_CAPABILITY, p.UNSUPPORTED_VERSION, p.PARSE_ERROR, p.INVALID_REQUEST})
_SSE_HEADERS = (
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),
)


def _json_bytes(message: Any) -> bytes:
    return jsonrpc.encode_body(message)


def _ok(message: Any) -> int:
    return 200


def status_for(message: Any, *, modern: bool, meta_problem: bool = False) -> int:
    """The HTTP status of a JSON-RPC answer (module docstring).

    Args:
        message: the response (or batch of responses).
        modern: the request was a 2026-07-28 one.
        meta_problem: its ``_meta`` lacks what 2026 requires (-32602 is then 400).

    Returns:
        400, 404 or 200.
    """
    if not isinstance(message, dict) or "error" not in message:
        return 200
    code = message["error"].get("code") if isinstance(message["error"], dict) else None
    if code in _400_CODES:
        return 400
    if code == p.METHOD_NOT_FOUND and modern:
        return 404
    if code == p.INVALID_PARAMS and meta_problem:
        return 400
    return 200


async def send_body(send: Send, status: int, body: bytes, headers: Headers = ()) -> None:
    """Write a whole response (``Content-Length`` added).

    Args:
        send: the ASGI send channel.
        status: the HTTP status.
        body: the body.
        headers: the other headers.
    """
    length = (b"content-length", str(len(body)).encode())
    await send({"type": "http.response.start", "status": status, "headers": [*headers, length]})
    await send({"type": "http.response.body", "body": body})


async def send_empty(send: Send, status: int = 202) -> None:
    """Write a response without a body (202 Accepted by default)."""
    await send_body(send, status, b"")


async def send_json(send: Send, status: int, message: Any, headers: Headers = ()) -> None:
    """Write a JSON response.

    Args:
        send: the ASGI send channel.
        status: the HTTP status.
        message: the JSON value of the body.
        headers: headers besides ``Content-Type``.
    """
    await send_body(send, status, _json_bytes(message), [(b"content-type", b"application/json"), *headers])


async def send_error(send: Send, exc: HttpError) -> None:
    """Write the response of a refused request: a JSON-RPC error, or plain text without a code."""
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in exc.headers]
    if exc.code is not None:
        body, ctype = _json_bytes(jsonrpc.error(exc.rid, exc.code, exc.message)), b"application/json"
    else:
        body, ctype = exc.message.encode(), b"text/plain; charset=utf-8"
    await send_body(send, exc.status, body, [*headers, (b"content-type", ctype)])


async def pump(
    receive: Receive,
    send: Send,
    stream: EventStream,
    settings: HttpSettings,
    *,
    legacy: bool,
    sse_ok: bool,
    status: StatusOf = _ok,
    resume_from: int | None = None,
    epoch: int | None = None,
) -> None:
    """Write ``stream`` as JSON or SSE until its final message, a close or a disconnect.

    Args:
        receive: the ASGI receive channel (watched for ``http.disconnect``).
        send: the ASGI send channel.
        stream: the messages to write.
        settings: keep-alive interval and SSE ``retry`` hint.
        legacy: a legacy-era stream (event ids, priming event; JSON only if not ``sse_ok``).
        sse_ok: the client accepts ``text/event-stream``.
        status: the HTTP status of a JSON answer.
        resume_from: legacy: write the events after this seq, without a priming event.
        epoch: the stream's close count (:func:`~server.http.streams.close_sse_stream`) the
            response belongs to (default: the current one); a new request's stream is 0, so a
            close by its handler before this writer starts ends the response too.
    """
    gone = asyncio.Event()

    async def watch() -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                gone.set()
                stream.poke()
                return

    watcher = asyncio.get_running_loop().create_task(watch())
    try:
        if (not sse_ok or not legacy) and await _answered_plainly(send, stream, gone, settings, sse_ok, status):
            return
        await _write_sse(send, stream, gone, settings, legacy=legacy, resume_from=resume_from, epoch=epoch)
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await watcher


async def write_done(send: Send, stream: EventStream, settings: HttpSettings, *, legacy: bool, sse_ok: bool,
                     status: StatusOf = _ok) -> None:
    """Write a finished ``stream`` of a new request as :func:`pump` would, without waiting or
    watching (nothing is left to wait for: the handler ended before anything was written).

    Args:
        send: the ASGI send channel.
        stream: the finished stream.
        settings: the SSE ``retry`` hint.
        legacy: a legacy-era stream.
        sse_ok: the client accepts ``text/event-stream``.
        status: the HTTP status of a JSON answer.
    """
    if (not sse_ok or not legacy) and await _plainly(send, stream, sse_ok, status):
        return
    await _write_sse(send, stream, asyncio.Event(), settings, legacy=legacy, resume_from=None, epoch=0)


async def _answered_plainly(
    send: Send, stream: EventStream, gone: asyncio.Event, settings: HttpSettings, sse_ok: bool, status: StatusOf
) -> bool:
    """JSON (or 202) unless (2026) something other than the result shows up first.

    True when the exchange is over: answered without SSE, or the client left.
    """
    while not gone.is_set() and not stream.done and not (sse_ok and stream.events):
        await stream.wait(None)  # woken by an event, the end or the client leaving: no timer needed
    if gone.is_set():
        return True
    return await _plainly(send, stream, sse_ok, status)


async def _plainly(send: Send, stream: EventStream, sse_ok: bool, status: StatusOf) -> bool:
    """JSON (or 202) when SSE is not accepted or the response is the only event (True: written)."""
    if not sse_ok or (stream.final and len(stream.events) == 1):
        final = stream.events[-1][1] if stream.final else None
        if final is None:
            await send_empty(send)
        else:
            await send_json(send, status(final), final)
        return True
    return False


async def _write_sse(
    send: Send, stream: EventStream, gone: asyncio.Event, settings: HttpSettings, *, legacy: bool, resume_from: int | None,
    epoch: int | None = None,
) -> None:
    async def chunk(body: bytes) -> None:
        await send({"type": "http.response.body", "body": body, "more_body": True})

    await send({"type": "http.response.start", "status": 200, "headers": list(_SSE_HEADERS)})
    seq = 0
    if legacy:
        if resume_from is None:
            await chunk(encode_event("", event_id=f"{stream.number}-0", retry_ms=settings.sse_retry_ms))
        else:
            seq = resume_from
    epoch = stream.closes if epoch is None else epoch
    if stream.standalone:
        stream.attached = True
    try:
        while not gone.is_set() and stream.closes == epoch:
            pending = stream.after(seq)
            if pending:
                for number, message in pending:
                    seq = number
                    data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
                    stream.written_bytes += len(data)
                    await chunk(encode_event(data, event_id=f"{stream.number}-{number}" if legacy else None))
                    if stream.standalone:
                        stream.cursor = max(stream.cursor, number)
                continue
            if stream.done:
                break
            if not await stream.wait(settings.keepalive):
                await chunk(encode_comment("keep-alive"))
    finally:
        if stream.standalone:
            stream.attached = False
    if not gone.is_set():
        await send({"type": "http.response.body", "body": b"", "more_body": False})
