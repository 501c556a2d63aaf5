"""JSON-RPC 2.0 message helpers and newline-delimited framing (stable API).

Used by the server core, the stdio transport and (freely) by the client side.  Everything
here is pure: no I/O, no event loop.

Message builders return plain ``dict`` objects ready for :func:`encode`:

* :func:`request` / :func:`notification` / :func:`result` / :func:`error` /
  :func:`error_from` build the four message kinds;
* :func:`kind` classifies a decoded message (``"request"``, ``"notification"``,
  ``"response"`` or ``"invalid"``), :func:`is_valid_id` checks an id;
* :func:`encode` gives the wire bytes of one message (compact JSON, UTF-8, no raw newline,
  terminated by ``b"\\n"``); :func:`decode` parses one line (raises :class:`ParseError`),
  :func:`decode_measured` also hands back the text it read (for ``server.sizelimits``);
* :class:`LineBuffer` splits a byte stream into lines with a maximum line size: an
  oversized line is reported once as :data:`OVERSIZE` and skipped up to its newline,
  without ever buffering more than the limit.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final, Literal

from . import fastjson
from . import protocol as p
from .errors import McpError, ParseError
from .jsontext import encoder_of

#: A JSON-RPC id (``null`` is only legal in error responses to unreadable requests).
RequestId = str | int
JsonObject = dict[str, Any]
MessageKind = Literal["request", "notification", "response", "invalid"]


class _Oversize:
    """Marker yielded by :class:`LineBuffer` in place of a line that was too long."""

    def __repr__(self) -> str:
        return "OVERSIZE"


OVERSIZE: Final = _Oversize()


def is_valid_id(value: Any) -> bool:
    """True for a usable request id: a string or an integer (not a bool)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def request(id: RequestId, method: str, params: JsonObject | None = None) -> JsonObject:
    """A request message."""
    msg: JsonObject = {"jsonrpc": p.JSONRPC, "id": id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def notification(method: str, params: JsonObject | None = None) -> JsonObject:
    """A notification message (no id, no response expected)."""
    msg: JsonObject = {"jsonrpc": p.JSONRPC, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def result(id: RequestId | None, value: Any) -> JsonObject:
    """A success response."""
    return {"jsonrpc": p.JSONRPC, "id": id, "result": value}


def error(id: RequestId | None, code: int, message: str, data: Any = None) -> JsonObject:
    """An error response (``id`` None when the request's id could not be read)."""
    err: JsonObject = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": p.JSONRPC, "id": id, "error": err}


def error_from(id: RequestId | None, exc: McpError) -> JsonObject:
    """An error response carrying ``exc.to_wire()``."""
    return {"jsonrpc": p.JSONRPC, "id": id, "error": exc.to_wire()}


def kind(message: Any) -> MessageKind:
    """Classify a decoded JSON value as a JSON-RPC message kind."""
    if not isinstance(message, dict) or message.get("jsonrpc") != p.JSONRPC:
        return "invalid"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "invalid"
        if "params" in message and not isinstance(message["params"], dict):
            return "invalid"  # MCP params are always objects
        if "id" not in message:
            return "notification"
        return "request" if is_valid_id(message["id"]) else "invalid"
    if "id" in message and ("result" in message) != ("error" in message):
        rid = message["id"]
        if is_valid_id(rid) or (rid is None and "error" in message):
            return "response"
    return "invalid"


def encode(message: Any) -> bytes:
    """Wire bytes of one message: compact UTF-8 JSON plus ``\\n``.

    Raises:
        ValueError: the value is not JSON-serializable (or holds NaN/Infinity).
        TypeError: the value holds a non-JSON type.
    """
    return utf8(_encode(message)) + b"\n"


def encode_body(message: Any) -> bytes:
    """:func:`encode` without the trailing ``\\n`` (an HTTP body), with no copy to drop it."""
    return utf8(_encode(message))


#: ``json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)``, the
#: encoder built once (``json.dumps`` with options builds one per call), called without
#: ``JSONEncoder.encode``'s set-up (:func:`wire.jsontext.encoder_of`).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_encode = encoder_of(_ENCODER)


def utf8(text: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate (from a handler's text, say) becomes U+FFFD
    instead of failing the whole message."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _has_lone_surrogate(value: Any) -> bool:
    """Whether a parsed value holds a lone UTF-16 surrogate (pairs were joined by json)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def decode(line: bytes | str) -> Any:
    """Parse one framed message (the trailing newline may be present).

    A message holding a lone UTF-16 surrogate (``"\\ud800"``: not Unicode, it could not be
    encoded again) is refused like invalid JSON, on every transport.

    Raises:
        ParseError: the line is not valid UTF-8 JSON of Unicode text (code -32700).
    """
    if isinstance(line, bytes):
        value = fastjson.loads(line)
        if value is not fastjson.MISS:
            return value
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        value = (_FINITE_DECODER if _huge_number(line) else _DECODER).decode(text)
    except _OutOfRange as exc:
        raise ParseError("Parse error: a number beyond the range of a double (it would be infinite)") from exc
    except RecursionError as exc:
        raise ParseError("Parse error: JSON nested too deeply") from exc
    except (UnicodeDecodeError, ValueError) as exc:
        if "integer string conversion" in str(exc):
            raise ParseError("Parse error: an integer too long to read (over 4300 digits)") from exc
        raise ParseError("Parse error: invalid JSON") from exc
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
        raise ParseError("Parse error: lone UTF-16 surrogate (not Unicode text)")
    return value


def decode_measured(line: bytes | str) -> tuple[Any, bytes | None]:
    """:func:`decode`, and the text the value was read from: ``line`` itself, known then to be
    one valid JSON text (``server.sizelimits.measured_within`` reads the limits on it), or
    None for a ``str`` line (the measure is made on bytes).

    Raises:
        ParseError: as :func:`decode`.
    """
    return decode(line), line if isinstance(line, bytes) else None


_ID_VALUE = r'(-?\d{1,18}(?![\d.eE])|"(?:[^"\\]|\\.){0,200}")'
_ID_AFTER_KEY = re.compile(r'\s*:\s*' + _ID_VALUE)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')  # strings (skipped whole) and brackets


def salvage_response_id(line: bytes | str) -> str | int | None:
    """The ``id`` of a response that cannot be parsed (too deep, not Unicode ...), if it shows
    one and is a response (no ``method``), so the one call can fail cleanly.

    The top-level members are found by skipping strings and counting brackets, so an ``id``
    written after a deep or broken ``result`` is found, and an ``id`` inside the result is not
    taken for the response's."""
    found, is_request = _top_level(line.decode("utf-8", "replace") if isinstance(line, bytes) else line)
    if found is None or is_request:
        return None
    try:
        rid = json.loads(found)
    except ValueError:
        return None
    return rid if isinstance(rid, (str, int)) else None


def unreadable_is_request(line: bytes | str) -> bool:
    """Whether an unparseable message shows a top-level ``method`` (a request or notification,
    not the response a caller waits for)."""
    return _top_level(line.decode("utf-8", "replace") if isinstance(line, bytes) else line)[1]


def _top_level(text: str) -> tuple[str | None, bool]:
    """The JSON text of an object's top-level ``"id"`` member, and whether it has a ``method``."""
    depth, rid, method = 0, None, False
    for token in _TOKEN.finditer(text):
        value = token.group()
        if value in "{[":
            depth += 1
        elif value in "}]":
            depth -= 1
        elif depth == 1 and value in ('"id"', '"method"'):
            after = _ID_AFTER_KEY.match(text, token.end())
            if value == '"method"':
                method = method or re.match(r'\s*:', text[token.end():token.end() + 64]) is not None
            elif after is not None:
                rid = after.group(1)
    return rid, method


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


class _OutOfRange(ValueError):
    pass


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _OutOfRange(text[:40])
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)  # one instance: json.loads with options builds one per call
# A number that may overflow a double (an exponent of 3+ digits, or 300+ digits before it) takes
# the slower decoder that checks each float: JSON allows 1e999999999, Python reads it as inf.
_HUGE_NUMBER = re.compile(r"[eE][+-]?\d{3}|\d{300}")
#: ``_HUGE_NUMBER`` for ASCII text at C speed: digits -> ``0``, ``e``/``E`` -> ``e``, ``+``/``-``
#: -> ``+``, the rest -> space; then three plain substring searches (a regex search over a
#: 20 kB message took most of its parse).
_NUMBER_SHAPE = bytes(0x30 if 0x30 <= b <= 0x39 else 0x65 if b in b"eE" else 0x2B if b in b"+-" else 0x20
                      for b in range(256))
_LONG_DIGITS = b"0" * 300


def _huge_number(line: bytes | str) -> bool:
    """Whether ``line`` may hold a number beyond a double's range (``_HUGE_NUMBER`` matches)."""
    if not line.isascii():  # \d also matches other scripts' digits: the regex decides
        return _HUGE_NUMBER.search(line if isinstance(line, str) else line.decode("utf-8")) is not None
    if isinstance(line, str):
        line = line.encode("ascii")
    shape = line.translate(_NUMBER_SHAPE)
    return b"e000" in shape or b"e+000" in shape or _LONG_DIGITS in shape


_FINITE_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


class LineBuffer:
    """Incremental ``\\n`` splitter with a hard per-line byte limit.

    ``feed(chunk)`` returns the complete lines found so far (without the newline,
    blank lines dropped); a line longer than ``max_line_bytes`` comes out as
    :data:`OVERSIZE` (once) and its bytes are discarded as they arrive.
    """

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()
        self._discarding = False

    def feed(self, chunk: bytes) -> list[bytes | _Oversize]:
        buf = self._buf
        if not buf and not self._discarding and type(chunk) is bytes:
            end = len(chunk) - 1
            if end >= 0 and chunk.find(b"\n") == end:  # one whole line (a request of a sequential client)
                if end > self.max_line_bytes:
                    return [OVERSIZE]
                line = chunk.strip()  # the newline is whitespace: chunk[:end].strip()
                return [line] if line else []
        out: list[bytes | _Oversize] = []
        start = 0
        limit = self.max_line_bytes
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                if not self._discarding:
                    if len(buf) + len(chunk) - start > limit:
                        buf.clear()
                        self._discarding = True
                        out.append(OVERSIZE)
                    else:
                        buf += chunk[start:]
                return out
            if not self._discarding:
                if len(buf) + nl - start > limit:
                    out.append(OVERSIZE)
                else:
                    if buf:
                        buf += chunk[start:nl]
                        line = bytes(buf).strip()
                    else:
                        line = chunk[start:nl].strip()
                    if line:
                        out.append(bytes(line))
            buf.clear()
            self._discarding = False
            start = nl + 1

    def flush(self) -> list[bytes | _Oversize]:
        """Lines left at end of stream (a final line without newline)."""
        line = bytes(self._buf).strip()
        self._buf.clear()
        discarding, self._discarding = self._discarding, False
        return [line] if line and not discarding else []
