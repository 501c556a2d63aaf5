"""Server-Sent Events framing (WHATWG ``text/event-stream``), both directions.

Used by the Streamable HTTP server (:func:`encode_event`, :func:`encode_comment`) and
client (:class:`SseParser`).  Pure code: no I/O, stdlib only.

* :func:`encode_event` writes one event: optional ``id:``, ``event:``, ``retry:`` fields
  and the data split on line breaks into ``data:`` lines, ended by a blank line.  A
  priming event (an id and empty data) is ``encode_event("", event_id=..., retry_ms=...)``.
* :class:`SseParser` is incremental: ``feed(chunk)`` returns the events completed by that
  chunk.  Line ends may be CRLF, LF or CR (also split across chunks).  It remembers the
  last event id and the last ``retry`` value, as a reconnecting client needs them.  An
  event whose data grows beyond ``max_event_bytes`` raises :class:`SseError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .jsonrpc import utf8


class SseError(ValueError):
    """Malformed or oversized event stream."""


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event (``data`` without its final line break)."""

    data: str
    event: str = "message"
    id: str | None = None
    retry_ms: int | None = None


def _clean(value: str, what: str) -> str:
    if "\n" in value or "\r" in value or "\0" in value:
        raise ValueError(f"SSE {what} must not contain line breaks or NUL")
    return value


def encode_event(
    data: str, *, event_id: str | None = None, event: str | None = None, retry_ms: int | None = None
) -> bytes:
    """The bytes of one event (see the module docstring)."""
    parts: list[str] = []
    if event_id is not None:
        parts.append(f"id: {_clean(event_id, 'id')}\n")
    if event is not None:
        parts.append(f"event: {_clean(event, 'event type')}\n")
    if retry_ms is not None:
        parts.append(f"retry: {int(retry_ms)}\n")
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    parts.extend(f"data: {line}\n" for line in lines)
    parts.append("\n")
    return utf8("".join(parts))


def encode_comment(text: str = "") -> bytes:
    """A comment line (ignored by parsers; used as a keep-alive)."""
    return f": {_clean(text, 'comment')}\n\n".encode()


class SseParser:
    """Incremental event-stream parser (see the module docstring)."""

    def __init__(self, max_event_bytes: int = 16 * 1024 * 1024) -> None:
        self.max_event_bytes = max_event_bytes
        #: The last event id seen (sticky across events, as in the WHATWG algorithm).
        self.last_event_id: str | None = None
        #: The last ``retry`` value seen, in milliseconds.
        self.retry_ms: int | None = None
        self._buf = bytearray()
        self._data: list[str] = []
        self._data_size = 0
        self._has_data = False
        self._event = ""
        self._first = True

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Parse ``chunk``; return the events it completed."""
        self._buf += chunk
        out: list[SseEvent] = []
        start = 0
        buf = self._buf
        while True:
            lf = buf.find(b"\n", start)
            cr = buf.find(b"\r", start)
            if cr >= 0 and (lf < 0 or cr < lf):
                if cr == len(buf) - 1:
                    break  # maybe the first half of CRLF: wait for more
                end, nxt = cr, cr + (2 if buf[cr + 1 : cr + 2] == b"\n" else 1)
            elif lf >= 0:
                end, nxt = lf, lf + 1
            else:
                break
            line = bytes(buf[start:end])
            start = nxt
            event = self._line(line)
            if event is not None:
                out.append(event)
        del self._buf[:start]
        if len(self._buf) > self.max_event_bytes:
            raise SseError(f"event stream line longer than {self.max_event_bytes} bytes")
        return out

    def _line(self, raw: bytes) -> SseEvent | None:
        text = raw.decode("utf-8", errors="replace")
        if self._first:
            self._first = False
            text = text.removeprefix("\ufeff")
        if not text:
            return self._dispatch()
        if text.startswith(":"):
            return None
        name, sep, value = text.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
            self._data_size += len(value) + 1
            if self._data_size > self.max_event_bytes:
                raise SseError(f"event larger than {self.max_event_bytes} bytes")
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self.retry_ms = int(value)
        return None

    def _dispatch(self) -> SseEvent | None:
        if not self._has_data:
            self._event = ""
            return None
        event = SseEvent(
            data="\n".join(self._data),
            event=self._event or "message",
            id=self.last_event_id,
            retry_ms=self.retry_ms,
        )
        self._data, self._data_size, self._has_data, self._event = [], 0, False, ""
        return event


__all__ = ["SseError", "SseEvent", "SseParser", "encode_comment", "encode_event"]
