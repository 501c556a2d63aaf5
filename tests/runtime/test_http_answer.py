"""``server.http.answer.answer``: a request whose stream is made only when needed writes the
same bytes as the reference, a stream made up front, filled by the handler, holding its
response and written by ``write_done`` (or followed by ``pump`` once the handler waits).

Each case runs both ways over the same handler behaviour and compares every ASGI message
(status, headers, body): a result or an error (their statuses), nothing sent before the
response, notifications before it, a handler that fails, one that gives no response, one that
waits first, with and without ``text/event-stream`` accepted, in both eras."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp_codegen_runtime.server.http.answer import answer
from mcp_codegen_runtime.server.http.responses import pump, status_for, write_done
from mcp_codegen_runtime.server.http.settings import HttpSettings
from mcp_codegen_runtime.server.http.streams import EventStream, StreamSlot
from mcp_codegen_runtime.wire import jsonrpc

RESULT = jsonrpc.result(7, {"content": [{"type": "text", "text": "é\u2028"}], "resultType": "complete"})
ERRORS = [jsonrpc.error(7, code, "no") for code in (-32602, -32601, -32603, -32020, -32600)]
NOTE = jsonrpc.notification("notifications/message", {"level": "info", "data": "first"})

#: A handler's behaviour: given where it sends (a stream's ``append``), its response.
Behaviour = Callable[[Callable[[Any], None]], Awaitable[Any]]


def _returns(response: Any, *, notes: int = 0, waits: bool = False, fails: bool = False) -> Behaviour:
    async def run(emit: Callable[[Any], None]) -> Any:
        if waits:
            await asyncio.sleep(0)
        for _ in range(notes):
            emit(NOTE)
        if fails:
            raise RuntimeError("the handler failed")
        return response

    return run


BEHAVIOURS: dict[str, Behaviour] = {
    "result": _returns(RESULT),
    **{f"error {e['error']['code']}": _returns(e) for e in ERRORS},
    "notes then result": _returns(RESULT, notes=2),
    "notes then error": _returns(ERRORS[0], notes=1),
    "fails": _returns(RESULT, fails=True),
    "notes then fails": _returns(RESULT, notes=1, fails=True),
    "no response": _returns(None),
    "notes, no response": _returns(None, notes=1),
    "waits then result": _returns(RESULT, waits=True),
    "waits, notes, result": _returns(RESULT, notes=1, waits=True),
}


async def _written(run: Callable[[Callable[..., Awaitable[None]], Callable[[], Awaitable[Any]]], Awaitable[None]]) -> list[Any]:
    sent: list[Any] = []
    gone = asyncio.Event()

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        await gone.wait()
        return {"type": "http.disconnect"}

    await run(send, receive)
    gone.set()
    return sent


async def _reference(behaviour: Behaviour, *, legacy: bool, sse_ok: bool, modern: bool) -> list[Any]:
    """The stream made first, the handler's response appended, then written (the old path)."""
    settings = HttpSettings()

    async def run(send: Any, receive: Any) -> None:
        stream = EventStream(1, 100)

        async def handler() -> None:
            try:
                response = await behaviour(stream.append)
                if response is not None:
                    stream.append(response, final=True)
            finally:
                stream.finish()

        status = lambda m: status_for(m, modern=modern)  # noqa: E731
        task = asyncio.ensure_future(handler())
        await asyncio.sleep(0)
        if task.done():
            task.exception() if not task.cancelled() else None
            await write_done(send, stream, settings, legacy=legacy, sse_ok=sse_ok, status=status)
        else:
            await pump(receive, send, stream, settings, legacy=legacy, sse_ok=sse_ok, status=status, epoch=0)
            await asyncio.gather(task, return_exceptions=True)

    return await _written(run)


async def _answered(behaviour: Behaviour, *, legacy: bool, sse_ok: bool, modern: bool, premade: bool) -> list[Any]:
    settings = HttpSettings()

    async def run(send: Any, receive: Any) -> None:
        slot = StreamSlot(100, EventStream(1, 100) if premade else None)
        await answer(behaviour(lambda m: slot.route().append(m)), receive, send, slot, settings, legacy=legacy,
                     sse_ok=sse_ok, status=lambda m: status_for(m, modern=modern))

    return await _written(run)


def _comparable(messages: list[Any]) -> list[Any]:
    """The messages with SSE event ids dropped (the reference numbers its stream 1, a made one is 0)."""
    out = []
    for m in messages:
        body = m.get("body")
        if isinstance(body, bytes) and body.startswith(b"id: "):
            body = b"\n".join(line for line in body.split(b"\n") if not line.startswith(b"id: "))
        out.append({**m, "body": body} if body is not None else m)
    return out


@pytest.mark.parametrize("name", list(BEHAVIOURS))
@pytest.mark.parametrize("sse_ok", [True, False])
@pytest.mark.parametrize("era", ["2026", "legacy"])
def test_an_answer_is_written_as_the_stream_holding_it_would_be(name: str, sse_ok: bool, era: str) -> None:
    legacy = era == "legacy"
    behaviour = BEHAVIOURS[name]
    expected = asyncio.run(_reference(behaviour, legacy=legacy, sse_ok=sse_ok, modern=not legacy))
    for premade in (False, True):
        got = asyncio.run(_answered(behaviour, legacy=legacy, sse_ok=sse_ok, modern=not legacy, premade=premade))
        assert _comparable(got) == _comparable(expected), (name, premade)
    assert expected and expected[0]["type"] == "http.response.start"


def test_a_response_alone_is_one_json_body_and_no_stream_is_made() -> None:
    slot = StreamSlot(100)

    async def run(send: Any, receive: Any) -> None:
        await answer(_returns(ERRORS[3])(lambda m: None), receive, send, slot, HttpSettings(), legacy=False,
                     sse_ok=True, status=lambda m: status_for(m, modern=True))

    sent = asyncio.run(_written(run))
    assert slot.stream is None
    assert sent[0]["status"] == 400 and (b"content-type", b"application/json") in sent[0]["headers"]
    assert [m["body"] for m in sent[1:]] == [b'{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"no"}}']


def test_a_cancellation_raised_at_once_ends_the_given_stream() -> None:
    """A legacy request's stream (resumable, kept by its session) is finished, not left open."""
    stream = EventStream(1, 100)

    async def handler() -> Any:
        raise asyncio.CancelledError

    async def run(send: Any, receive: Any) -> None:
        with pytest.raises(asyncio.CancelledError):
            await answer(handler(), receive, send, StreamSlot(100, stream), HttpSettings(), legacy=True, sse_ok=True,
                         status=lambda m: status_for(m, modern=False))

    assert asyncio.run(_written(run)) == []
    assert stream.done


def test_a_stream_keeping_no_event_is_refused() -> None:
    """With 0 events kept, a stream would lose every answer (a JSON client got a 500 before)."""
    with pytest.raises(ValueError, match="max_events_per_stream"):
        HttpSettings(max_events_per_stream=0)
