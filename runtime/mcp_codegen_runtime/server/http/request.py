"""One HTTP request as the Streamable HTTP transport sees it: headers, negotiation, body.

* :class:`Request` wraps an ASGI ``scope``.  Header names are lower-cased; a repeated
  header counts as its values joined by commas (RFC 9110 5.3), so copies that disagree
  match nothing and no check passes on one copy while an intermediary acts on another.
* :func:`read_message` checks a POST's ``Content-Type`` (415) and ``Accept`` (406), reads
  its body within a size limit (413, from ``Content-Length`` before reading or as soon as
  the streamed body passes it) and a time limit (408), and decodes the JSON-RPC message.
* :class:`HttpError` is how every part of the transport refuses a request; the
  application turns it into a response (:func:`~server.http.responses.send_error`).

Also the ASGI type aliases (``Scope``, ``Message``, ``Receive``, ``Send``).  Stdlib only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from ...wire import jsonrpc
from ...wire import protocol as p
from ...wire.errors import ParseError
from ..eager import within

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class HttpError(Exception):
    """A refused request: HTTP ``status``, and a JSON-RPC error ``code`` (None: plain text).

    Args:
        status: the HTTP status of the response.
        code: JSON-RPC error code of a JSON body; ``None`` sends ``message`` as text.
        message: the error message (also the exception text).
        headers: extra response headers, as ``(name, value)`` pairs.
        rid: the id of the request refused (the ``id`` of the JSON-RPC error).
    """

    def __init__(
        self, status: int, code: int | None, message: str, *, headers: Sequence[tuple[str, str]] = (), rid: Any = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = tuple(headers)
        self.rid = rid


class Request:
    """Method, path, headers and client address of one ASGI HTTP request.

    Args:
        scope: the ASGI ``http`` connection scope.
    """

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.method: str = scope.get("method", "GET")
        self.path: str = scope.get("path", "/")
        headers: dict[str, list[str]] = {}
        for raw_name, raw_value in scope.get("headers", []):
            name = raw_name.decode("latin-1").lower()
            values = headers.get(name)  # no empty list made per header (setdefault's default)
            if values is None:
                headers[name] = [raw_value.decode("latin-1")]
            else:
                values.append(raw_value.decode("latin-1"))
        self.headers = headers
        client = scope.get("client")
        self.client_host = str(client[0]) if client else "unknown"
        self._accept: frozenset[str] | None = None  # the media types of Accept, parsed on first use
        self._accept_read = False

    def get(self, name: str) -> str | None:
        """The value of header ``name`` (lower case); repeated copies that differ are joined.

        Args:
            name: the header name, lower case.

        Returns:
            The value, or None when the header is absent.
        """
        values = self.headers.get(name)
        if not values:
            return None
        # A repeated header is its values joined (RFC 9110 5.3): copies that disagree then match
        # nothing, so no check passes on one copy while an intermediary acts on another.
        return values[0] if len(values) == 1 or all(v == values[0] for v in values) else ", ".join(values)

    @property
    def protocol_version(self) -> str:
        """The ``MCP-Protocol-Version`` header, stripped (``""`` when absent)."""
        return (self.get("mcp-protocol-version") or "").strip()

    def accepts(self, mime: str) -> bool:
        """Whether ``Accept`` allows ``mime`` (directly or by wildcard; no header allows all).

        Args:
            mime: a media type such as ``"text/event-stream"``.

        Returns:
            True when a response of that type is acceptable.
        """
        if not self._accept_read:
            accept = self.get("accept")
            self._accept = None if accept is None else _media_types(accept)
            self._accept_read = True
        kinds = self._accept
        if kinds is None:
            return True
        return mime in kinds or "*/*" in kinds or f"{mime.split('/')[0]}/*" in kinds


_MEDIA_TYPES: dict[str, frozenset[str]] = {}


def _media_types(accept: str) -> frozenset[str]:
    """The media types an ``Accept`` value lists (parameters dropped, lower case); clients send
    the same few values again and again, so each is parsed once (at most 256 kept)."""
    kinds = _MEDIA_TYPES.get(accept)
    if kinds is None:
        kinds = frozenset(part.split(";")[0].strip().lower() for part in accept.split(","))
        if len(_MEDIA_TYPES) >= 256:
            _MEDIA_TYPES.clear()
        _MEDIA_TYPES[accept] = kinds
    return kinds


async def read_body(req: Request, receive: Receive, *, max_bytes: int, timeout: float) -> bytes:
    """The whole request body, within a size and a time limit.

    Args:
        req: the request (its ``Content-Length`` is checked before reading).
        receive: the ASGI receive channel.
        max_bytes: the largest body accepted.
        timeout: seconds the client may take to send the whole body.

    Returns:
        The body bytes.

    Raises:
        HttpError: 400 (bad ``Content-Length``, client gone), 413 (too large), 408 (too slow).
    """
    length = req.get("content-length")
    if length is not None:
        try:
            declared = int(length)
        except ValueError:
            raise HttpError(400, p.INVALID_REQUEST, "Bad Request: invalid Content-Length") from None
        if declared > max_bytes:
            raise HttpError(413, p.INVALID_REQUEST, f"Request body larger than {max_bytes} bytes")
    try:
        # the timer is armed only if a receive waits: a body already read by the server (one
        # packet, the usual case) costs none
        body: bytes = await within(timeout, _receive_body(receive, max_bytes))
    except TimeoutError:
        raise HttpError(408, p.INVALID_REQUEST, "Request body not received in time") from None
    return body


async def _receive_body(receive: Receive, max_bytes: int) -> bytes:
    """The body's ASGI messages joined, refused past ``max_bytes`` (read_body's loop)."""
    first: bytes | None = None  # a body in one message (the usual case) is not copied
    joined = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise HttpError(400, None, "client disconnected")
        chunk = message.get("body", b"")
        if first is None:
            first = chunk
        else:
            if not joined:
                joined += first
            joined += chunk
        if len(joined or first) > max_bytes:
            raise HttpError(413, p.INVALID_REQUEST, f"Request body larger than {max_bytes} bytes")
        if not message.get("more_body", False):
            return bytes(joined) if joined else first


async def read_message(req: Request, receive: Receive, *, max_bytes: int, timeout: float) -> Any:
    """The JSON-RPC message (or batch) posted, after the media-type checks.

    Args:
        req: the POST request.
        receive: the ASGI receive channel.
        max_bytes: the largest body accepted.
        timeout: seconds the client may take to send the whole body.

    Returns:
        The decoded JSON value (not yet checked to be valid JSON-RPC).

    Raises:
        HttpError: 415, 406, the errors of :func:`read_body`, or 400 + ``-32700`` (parse error).
    """
    ctype = (req.get("content-type") or "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise HttpError(415, p.INVALID_REQUEST, "Unsupported Media Type: Content-Type must be application/json")
    if not req.accepts("application/json") and not req.accepts("text/event-stream"):
        raise HttpError(406, p.INVALID_REQUEST, "Not Acceptable: accept application/json or text/event-stream")
    raw = await read_body(req, receive, max_bytes=max_bytes, timeout=timeout)
    try:
        return jsonrpc.decode(raw)
    except ParseError as exc:
        raise UnreadableMessage(raw, exc) from None
    except Exception:
        raise HttpError(400, p.PARSE_ERROR, "Parse error") from None


class UnreadableMessage(HttpError):
    """A body that is not a readable JSON-RPC message (400, -32700); ``raw`` and ``error`` say
    what was sent and why it was refused (an answer the server waits for fails its call:
    ``Connection.refuse_answer``)."""

    def __init__(self, raw: bytes, error: ParseError) -> None:
        super().__init__(400, p.PARSE_ERROR, "Parse error")
        self.raw = raw
        self.error = error
