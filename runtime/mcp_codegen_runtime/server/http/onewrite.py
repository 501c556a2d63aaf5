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
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

_LENGTH = b"\r\ncontent-length:"


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

        OneWriteProtocol.__name__ = OneWriteProtocol.__qualname__ = f"OneWrite{name}"
        _CLASSES[parser] = OneWriteProtocol
    return _CLASSES[parser]


__all__ = ["HeadWithBody", "protocol_class"]
