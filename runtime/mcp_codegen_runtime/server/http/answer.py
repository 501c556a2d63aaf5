"""Answering one POSTed request: its handler run eagerly in the request's own task.

Most calls end in their handler's first step (nothing they await suspends).  :func:`answer`
runs that step at once, in the request's task; when the handler has ended, its answer is
complete and is written: the response alone as JSON when nothing came before it (a stateless
request then never had a stream), else its stream (:func:`~.responses.write_done`).  No task,
no event, no disconnect watcher, no timer, nothing left to cancel.  When it suspended, the
handler goes on in the request's task, where its first step registered it
(``Connection.inflight`` for ``notifications/cancelled``, the call's timeout), and the
stream's writer (:func:`~.responses.pump`: events as they come, keep-alives, the client's
disconnect) runs in a task beside it; ``on_gone`` is called when the writer ends before the
stream (the client left, or a legacy stream was closed).  The request task then waits for the
writer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from ..connection import Outgoing
from ..eager import resume
from .request import Receive, Send
from .responses import StatusOf, pump, send_json, write_done
from .settings import HttpSettings
from .streams import EventStream, StreamSlot

logger = logging.getLogger("mcp_codegen.http")

#: A request's handler: its response (None: none, e.g. a request the client cancelled).
Handler = Coroutine[Any, Any, Outgoing | None]


async def answer(
    handler: Handler,
    receive: Receive,
    send: Send,
    slot: StreamSlot,
    settings: HttpSettings,
    *,
    legacy: bool,
    sse_ok: bool,
    status: StatusOf,
    on_gone: Callable[[asyncio.Task[Any]], None] | None = None,
    cancelled_ok: Callable[[], bool] = lambda: False,
) -> None:
    """Run ``handler`` and write what it sent and its response (module docstring).

    Args:
        handler: the coroutine handling the request; it returns the response.
        receive: the ASGI receive channel.
        send: the ASGI send channel.
        slot: the request's stream (a new one: a close by the handler's first step ends its
            SSE response), or where one is made when the handler first sends something.
        settings: the transport settings.
        legacy: a legacy-era stream.
        sse_ok: the client accepts ``text/event-stream``.
        status: the HTTP status of a JSON answer.
        on_gone: called with the request's task when the writer ends before the stream is finished.
        cancelled_ok: whether a cancellation of the request's task while the handler runs
            is the handler's end (True: the stream is written) rather than the request's.
    """
    response: Outgoing | None = None
    try:
        yielded = handler.send(None)
    except StopIteration as done:
        response = done.value
    except Exception:  # the handler's failure, as its own task's used to be: the stream is finished without an answer
        logger.debug("HTTP request handler failed", exc_info=True)
    except BaseException:  # a cancellation raised at once: a stream made (a legacy one) ends, not left open
        if slot.stream is not None:
            slot.stream.finish()
        raise
    else:
        await _suspended(handler, yielded, receive, send, slot.route(), settings, legacy=legacy, sse_ok=sse_ok,
                         status=status, on_gone=on_gone, cancelled_ok=cancelled_ok)
        return
    if slot.stream is None and response is not None and not (legacy and sse_ok):
        # the response is all there is: written as write_done would write a stream holding only it
        await send_json(send, status(response), response)
        return
    stream = slot.route()
    if response is not None:
        stream.append(response, final=True)
    stream.finish()
    await write_done(send, stream, settings, legacy=legacy, sse_ok=sse_ok, status=status)


async def _suspended(
    handler: Handler, yielded: Any, receive: Receive, send: Send, stream: EventStream,
    settings: HttpSettings, *, legacy: bool, sse_ok: bool, status: StatusOf, on_gone: Callable[[asyncio.Task[Any]], None] | None,
    cancelled_ok: Callable[[], bool],
) -> None:
    writer = asyncio.get_running_loop().create_task(
        pump(receive, send, stream, settings, legacy=legacy, sse_ok=sse_ok, status=status, epoch=0))
    running = [True]
    me = asyncio.current_task()

    def writer_ended(_: object) -> None:
        if running[0] and not stream.done and on_gone is not None and me is not None:
            on_gone(me)

    writer.add_done_callback(writer_ended)
    try:
        try:
            response = await resume(handler, yielded)
            if response is not None:
                stream.append(response, final=True)
        finally:
            stream.finish()
    except asyncio.CancelledError:
        if not cancelled_ok():
            writer.cancel()
            raise
        if me is not None:
            me.uncancel()
    except Exception:
        logger.debug("HTTP request handler failed", exc_info=True)
    finally:
        running[0] = False
    await writer


__all__ = ["Handler", "answer"]
