"""wire.jsonrpc.LineBuffer (its one-line fast path and its splitting) against a reference
written independently: the whole stream split on newlines, any way it is cut into chunks."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_codegen_runtime.wire.jsonrpc import OVERSIZE, LineBuffer


def reference(stream: bytes, limit: int) -> list[Any]:
    *lines, last = stream.split(b"\n")
    out: list[Any] = []
    for line in lines:
        if len(line) > limit:
            out.append(OVERSIZE)
        elif line.strip():
            out.append(line.strip())
    if len(last) > limit:
        out.append(OVERSIZE)
    elif last.strip():
        out.append(last.strip())
    return out


pieces = st.lists(st.one_of(st.sampled_from([b"\n", b" ", b"\r\n", b"{}", b"\t\n\n", b"x" * 9]),
                            st.binary(max_size=12)), max_size=30)


@settings(max_examples=600, deadline=None)
@given(pieces, st.integers(min_value=0, max_value=12), st.lists(st.integers(min_value=0, max_value=40), max_size=12),
       st.booleans())
def test_any_chunking_gives_the_reference_lines(parts: list[bytes], limit: int, cuts: list[int],
                                                bytearrays: bool) -> None:
    stream = b"".join(parts)
    points = sorted({min(c, len(stream)) for c in cuts} | {0, len(stream)})
    buf = LineBuffer(limit)
    got: list[Any] = []
    for a, b in zip(points, points[1:], strict=False):
        chunk = stream[a:b]
        got.extend(buf.feed(bytearray(chunk) if bytearrays else chunk))
    got.extend(buf.flush())
    assert got == reference(stream, limit)
    assert all(type(line) is bytes for line in got if line is not OVERSIZE)


def test_one_line_chunks() -> None:
    buf = LineBuffer(5)
    assert buf.feed(b" abc \n") == [b"abc"]
    assert buf.feed(b"abcdef\n") == [OVERSIZE]
    assert buf.feed(b"abcde\n") == [b"abcde"]
    assert buf.feed(b"  \n") == []
    assert buf.feed(b"\n") == []
    assert buf.feed(b"ab") == []
    assert buf.feed(b"c\n") == [b"abc"]  # the buffered start is kept: not the fast path
    assert buf.feed(b"abcdefgh") == [OVERSIZE]
    assert buf.feed(b"zz\n") == []  # the rest of the oversized line is skipped
    assert buf.feed(b"ok\n") == [b"ok"]
    assert buf.flush() == []
