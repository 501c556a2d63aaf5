"""One write per response: uvicorn's HTTP protocols with the head sent together with the body.

An ASGI response is two messages, ``http.response.start`` (status and headers) and
``http.response.body``; uvicorn's protocols (httptools and h11 alike) write each to the
transport as it comes, and both event loops send a write at once when nothing is queued: two
``write`` system calls and two TCP segments per answer, the first of which the client can
do nothing with.  :func:`protocol_class` gives uvicorn its own protocol class for the chosen
parser with one change: the transport it writes to (:class:`HeadWithBody`) holds a response
head that declares a ``Content-Length`` (a whole body follows) and sends it with the next
write, in one call.  The held head also goes out when the response completes without a body
write (``HEAD``, 204, 304), when the connection closes, and on any other write; a head
without ``Content-Length`` (a streamed response: SSE, chunked) is never held.  The bytes on
the wire are the same.

httptools keeps request heads of any size where h11 refuses one past 16 KiB
(``h11_max_incomplete_event_size``); the httptools class refuses the same (431, then the
connection closes), counting the bytes read while a head is incomplete.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

_LENGTH = b"\r\ncontent-length:"
#: h11's default limit of a request head (``h11_max_incomplete_event_size``), applied to httptools too.
_HEAD_LIMIT = 16 * 1024
_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
              b"content-length: 31\r\nconnection: close\r\n\r\nRequest Header Fields Too Large")


class HeadWithBody:
    """A transport wrapper holding a response head until the body's first write (module docstring).

    Args:
        transport: the connection's transport.
    """

    __slots__ = ("_transport", "_head")

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._head: bytes | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        head = self._head
        if head is not None:
            self._head = None
            self._transport.write(head + bytes(data))
        elif data[:5] == b"HTTP/" and data[-4:] == b"\r\n\r\n" and _LENGTH in bytes(data).lower():
            self._head = bytes(data)
        else:
            self._transport.write(data)

    def flush(self) -> None:
        """Send a held head now."""
        head = self._head
        if head is not None:
            self._head = None
            self._transport.write(head)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def __getattr__(self, name: str) -> Any:  # the rest of the transport's interface, unchanged
        return getattr(self._transport, name)


_CLASSES: dict[str, type[asyncio.Protocol]] = {}


def protocol_class(parser: str) -> type[asyncio.Protocol]:
    """uvicorn's protocol class for ``parser`` (``"httptools"`` or ``"h11"``), writing each
    response in one call (module docstring); uvicorn must be installed."""
    if parser not in _CLASSES:
        module, name = ("httptools_impl", "HttpToolsProtocol") if parser == "httptools" else ("h11_impl", "H11Protocol")
        base: Any = getattr(importlib.import_module(f"uvicorn.protocols.http.{module}"), name)  # optional: the http extra

        class OneWriteProtocol(base):  # type: ignore[misc]  # a class of uvicorn's, typed Any here
            def connection_made(self, transport: Any) -> None:
                super().connection_made(HeadWithBody(transport))

            def on_response_complete(self) -> None:
                self.transport.flush()  # a head without a body write (HEAD, 204, 304)
                super().on_response_complete()

        cls: Any = OneWriteProtocol
        if parser == "httptools":
            class HeadLimitProtocol(OneWriteProtocol):
                """httptools keeps a request head of any size; h11 refuses one past its limit
                (``h11_max_incomplete_event_size``, 16 KiB by default): the same limit here."""

                _head_bytes = 0  # bytes read while the current head is incomplete
                _in_head = True
                _messages = 0

                def data_received(self, data: bytes) -> None:
                    messages = self._messages
                    super().data_received(data)
                    if self._in_head and not self.transport.is_closing():
                        # a read that ended a message began this head: its bytes are not counted
                        # (at most one read more than the limit gets through)
                        self._head_bytes = self._head_bytes + len(data) if messages == self._messages else 0
                        if self._head_bytes > (self.config.h11_max_incomplete_event_size or _HEAD_LIMIT):
                            self.transport.write(_TOO_LARGE)
                            self.transport.close()

                def on_headers_complete(self) -> None:
                    self._in_head = False
                    super().on_headers_complete()

                def on_message_complete(self) -> None:
                    self._in_head, self._head_bytes, self._messages = True, 0, self._messages + 1
                    super().on_message_complete()

            cls = HeadLimitProtocol
        cls.__name__ = cls.__qualname__ = f"OneWrite{name}"
        _CLASSES[parser] = cls
    return _CLASSES[parser]


__all__ = ["HeadWithBody", "protocol_class"]
