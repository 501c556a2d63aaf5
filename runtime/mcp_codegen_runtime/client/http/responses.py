"""Reading the HTTP transport's responses into messages: :class:`ResponseReader`.

Part of the Streamable HTTP client transport (``client/http/transport.py``): a JSON body or an SSE
stream becomes delivered JSON-RPC messages, and an HTTP error becomes the response of the
request it answers (with ``data = {"httpStatus": ...}``; see the transport's docstring for
the rules).  The legacy session (``client/http/legacy.py``) uses the same calls to read its
GET streams and resumptions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from ...wire import jsonrpc
from ...wire import protocol as p
from ...wire.errors import ParseError
from ...wire.sse import SseError, SseParser
from ..transports import ClientTransport, JsonMessage, parse_incoming
from .legacy import LB_HINT, LegacySession

if TYPE_CHECKING:
    import httpx  # type: ignore[import-not-found, unused-ignore]  # optional: the http extra

logger = logging.getLogger("mcp_codegen.client.http")

#: Seconds an SSE response stream is read on after its response, for the server to end it (it
#: SHOULD; then the connection is reused).  Generous: a busy client may read the end late.
SSE_DRAIN_SECONDS = 1.0


class ResponseReader(ClientTransport):
    """The response half of :class:`~client.http.transport.HttpTransport` (its base class)."""

    max_message_bytes: int
    legacy: LegacySession

    def _filter(self, message: JsonMessage) -> JsonMessage:
        return message  # the transport drops tools with invalid header annotations

    async def fail(self, rid: Any, code: int, text: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": text}
        if data is not None:
            error["data"] = data
        await self.deliver({"jsonrpc": p.JSONRPC, "id": rid, "error": error})

    async def read_body(self, resp: httpx.Response) -> bytes:
        body = bytearray()
        async for chunk in resp.aiter_bytes():
            body += chunk
            if len(body) > self.max_message_bytes:
                raise SseError(f"response larger than {self.max_message_bytes} bytes")
        return bytes(body)

    async def deliver_answer(self, resp: httpx.Response, message: dict[str, Any]) -> None:
        rid = message["id"]
        ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
        if resp.status_code >= 400:
            await self.deliver_http_error(resp, rid)
            return
        if ctype == "text/event-stream":
            got, last_id, retry = await self.consume_sse(resp, rid)
            if not got:
                await self.legacy.resume(rid, last_id, retry)
            return
        body = await self.read_body(resp)
        if resp.status_code in (202, 204) or not body:
            await self.fail(rid, p.INTERNAL_ERROR, f"HTTP {resp.status_code} without a response", {"requestSent": True})
            return
        try:
            answer = jsonrpc.decode(body)
        except ParseError as exc:
            await self.fail(rid, p.PARSE_ERROR, f"the server answered with unreadable JSON ({exc.message})")
            return
        if isinstance(answer, (dict, list)):
            await self.deliver(self._filter(answer))

    async def deliver_http_error(self, resp: httpx.Response, rid: Any, body: bytes | None = None, *, again: bool = False,
                                 sent: bool = False) -> None:
        """Deliver an HTTP error as the response to ``rid`` (``again``: a 404 after a renewal; ``sent``: the
        request was processed before, so its error says ``requestSent``; a 503 says ``httpStatus`` and
        ``retryAfter``, for the retry policy)."""
        if body is None:
            body = await self.read_body(resp)
        if again:
            text = f"the server lost the session again after a new one was started (HTTP 404): {LB_HINT}"
            await self.fail(rid, p.INVALID_REQUEST, text, {"httpStatus": 404, "sessionLost": True})
            return
        answer: Any = None
        with contextlib.suppress(ParseError):
            answer = jsonrpc.decode(body) if body else None
        error = answer.get("error") if isinstance(answer, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), int):
            if resp.status_code in (401, 403) and error.get("data") is None:
                auth: dict[str, Any] = {"httpStatus": resp.status_code}
                if resp.headers.get("www-authenticate"):
                    auth["wwwAuthenticate"] = resp.headers["www-authenticate"]
                error = {**error, "data": auth}
            elif resp.status_code == 404 and error.get("code") == p.METHOD_NOT_FOUND and error.get("data") is None:
                error = {**error, "data": {"httpStatus": 404}}  # a 2026 server's answer (era probe, §2.3)
            elif (resp.status_code == 503 or sent) and error.get("data") is None:
                error = {**error, "data": _status_data(resp, sent)}
            await self.deliver({**answer, "id": rid, "error": error})
            return
        data = _status_data(resp, sent)
        challenge = resp.headers.get("www-authenticate")
        if challenge:
            data["wwwAuthenticate"] = challenge
        text = body[:200].decode("utf-8", errors="replace").strip()
        await self.fail(rid, p.INVALID_REQUEST, f"HTTP {resp.status_code} {resp.reason_phrase}: {text}".strip(": "), data)

    async def consume_sse(self, resp: httpx.Response, rid: Any) -> tuple[bool, str | None, int | None]:
        """Deliver an SSE stream; (got the response?, last event id, retry ms)."""
        import httpx

        parser = SseParser(self.max_message_bytes)
        got = False
        try:
            async with asyncio.timeout(None) as limit:
                async for chunk in resp.aiter_bytes():
                    for event in parser.feed(chunk):
                        if not event.data.strip():
                            continue  # priming event
                        message = parse_incoming(event.data)  # an unreadable response fails its call
                        if message is None:
                            if not got and not jsonrpc.unreadable_is_request(event.data):
                                # most likely the response itself: fail the call now, not at its timeout
                                await self.fail(rid, p.PARSE_ERROR, "unreadable response on the response stream")
                                return True, parser.last_event_id, parser.retry_ms
                            continue
                        if not got and isinstance(message, dict) and message.get("id") == rid and "method" not in message:
                            got = True  # read on briefly: a stream read to its end leaves its connection reusable
                            limit.reschedule(asyncio.get_running_loop().time() + SSE_DRAIN_SECONDS)
                        await self.deliver(self._filter(message))
        except TimeoutError:
            pass  # the server kept the stream open after the response: its connection is closed
        except (httpx.HTTPError, OSError) as exc:
            logger.debug("SSE stream broke: %r", exc)
        return got, parser.last_event_id, parser.retry_ms


def _status_data(resp: httpx.Response, sent: bool) -> dict[str, Any]:
    data: dict[str, Any] = {"httpStatus": resp.status_code}
    if resp.status_code == 503 and resp.headers.get("retry-after"):
        data["retryAfter"] = resp.headers["retry-after"]
    if sent:
        data["requestSent"] = True
    return data


__all__ = ["SSE_DRAIN_SECONDS", "ResponseReader"]
