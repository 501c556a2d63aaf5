"""The ``fast`` extra's size-limit check (``server.sizelimits``: jsonschema-rs) answers as the
pure walk (``server.sizelimits.exceeds_limits_walk``) on random nested values, at the edges of both
limits, and on values jsonschema-rs cannot read."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_codegen_runtime.server import sizelimits as fastlimits
from mcp_codegen_runtime.server.sizelimits import exceeds_limits_walk as pure
from mcp_codegen_runtime.wire import accelerator

_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80) | st.floats() | st.text(max_size=6),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3)
    | st.tuples(kids, kids),
    max_leaves=30,
)


def test_the_native_check_is_used() -> None:
    assert accelerator.set_enabled(True)
    assert fastlimits._native(4, 3) is not None


@settings(max_examples=600, deadline=None)
@given(value=_values, max_string=st.integers(min_value=0, max_value=5), max_depth=st.integers(min_value=0, max_value=4))
def test_random_values_answer_as_the_pure_walk(value: Any, max_string: int, max_depth: int) -> None:
    accelerator.set_enabled(True)
    assert fastlimits.exceeds_limits(value, max_string, max_depth) == pure(value, max_string, max_depth)


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("value", [
    _nested(3), _nested(4), {"a": _nested(2)}, {"a": {"b": {"c": 1}}}, {"a": {"b": {"c": {}}}}, {"a": {"b": {"c": {"d": 1}}}},
    "abcd", "abcde", {"abcde": 1}, {"abcd": "abcd"}, ["abcde"], "é" * 4, "😀" * 4, "😀" * 5,
    {"x": {1, 2}}, {1: "a"}, "\ud800", ["\ud800" * 9], (["abcdefgh"],), None, 10**400, float("nan"),
])
def test_edges_answer_as_the_pure_walk(value: Any) -> None:
    accelerator.set_enabled(True)
    try:
        expected: Any = pure(value, 4, 3)
    except Exception as exc:  # the pure walk's own error (a key without a length ...)
        expected = type(exc)
        with pytest.raises(expected):
            fastlimits.exceeds_limits(value, 4, 3)
        return
    assert fastlimits.exceeds_limits(value, 4, 3) == expected


# -- the limits read on the message text (fastlimits.measured_within, jsonrpc.decode_measured) ----

def _text_depth(text: str) -> int:
    """The deepest bracket nesting of a JSON text outside strings, read character by character
    (the reference for ``fastjson.within_depth``)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


_HOSTILE_CHARS = st.sampled_from(['"', "\\", "[", "]", "{", "}", "a", "é", "😀", "\u2028", "\n", "/", "u", "0"])
_hostile_text = st.lists(_HOSTILE_CHARS, max_size=8).map("".join) | st.text(max_size=6)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | _hostile_text,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(_hostile_text, kids, max_size=3),
    max_leaves=25,
)


def _texts(value: Any) -> list[bytes]:
    """``value`` written several ways: ASCII-only (escapes for every non-ASCII character), raw
    UTF-8, and with whitespace."""
    import json
    return [json.dumps(value).encode(), json.dumps(value, ensure_ascii=False).encode(),
            json.dumps(value, indent=1, ensure_ascii=False).encode()]


@settings(max_examples=500, deadline=None)
@given(value=_json_values, max_string=st.integers(min_value=0, max_value=40), max_depth=st.integers(min_value=-1, max_value=6))
def test_a_text_proves_the_limits_only_when_the_walk_agrees(value: Any, max_string: int, max_depth: int) -> None:
    from mcp_codegen_runtime.wire import jsonrpc
    accelerator.set_enabled(True)
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": value}}
    for text in _texts(value):
        decoded, measured = jsonrpc.decode_measured(text)
        assert measured is text and decoded == value
        if fastlimits.measured_within(text, max_string, max_depth):
            assert pure(value, max_string, max_depth) is None
    for text in _texts(message):
        decoded, measured = jsonrpc.decode_measured(text)
        if fastlimits.measured_within(measured, max_string, max_depth, member=True):
            assert pure(decoded["params"], max_string, max_depth) is None
        if fastlimits.measured_within(measured, max_string, max_depth):
            assert pure(decoded, max_string, max_depth) is None


@settings(max_examples=500, deadline=None)
@given(value=_json_values)
def test_the_text_depth_is_the_bracket_nesting_outside_strings(value: Any) -> None:
    from mcp_codegen_runtime.wire import fastjson
    for text in _texts(value):
        deepest = _text_depth(text.decode())
        for limit in range(0, deepest + 2):
            assert fastjson.within_depth(text, limit) == (deepest <= limit), (text, limit)


def _deep(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


@pytest.mark.parametrize("depth", [0, 1, 7, 8, 9, 10, 16, 63, 64, 65, 66, 200])
def test_deep_texts_near_the_limit(depth: int) -> None:
    from mcp_codegen_runtime.wire import fastjson
    for text in (_deep(depth), _deep(depth, "[]"), '{"a":' + _deep(depth) + ',"b":"[[[[[[[[[[[[[[[[[[[[[[[[[["}',
                 '[' * depth + ']' * depth + '[' * 3 + ']' * 3):
        deepest = _text_depth(text)
        for limit in (max(0, deepest - 2), max(0, deepest - 1), deepest, deepest + 1, 64, 65):
            assert fastjson.within_depth(text.encode(), limit) == (deepest <= limit), (text, limit)
    value: Any = 1
    for _ in range(depth):
        value = [value]
    text = _deep(depth).encode()
    for max_depth in (depth - 1, depth, depth + 1, 64):
        proven = fastlimits.measured_within(text, 1 << 20, max_depth)
        assert proven == (depth <= max_depth)  # the text proves exactly the depths it shows
        assert (pure(value, 1 << 20, max_depth) is None) == (depth <= max_depth)


#: Texts whose brackets and quotes inside strings, escapes and unicode escapes would mislead a
#: careless reading: (text, max_string, max_depth).
_HOSTILE = [
    (r'{"a":"\\","b":[[[[[[]]]]]]}', 100, 3),  # an escaped backslash, then a real quote: deep after it
    (r'{"a":"\\\"[[[[[[","b":1}', 100, 2),  # backslash, escaped quote: the brackets stay in the string
    (r'{"a":"\"","b":[[[[[1]]]]]}', 100, 4),
    (r'{"a":"\\\\","b":[[[[[1]]]]]}', 100, 4),
    (r'{"a":"\u005b\u005b\u005b","b":[[[1]]]}', 100, 2),  # unicode-escaped brackets
    (r'{"a":"\u0022[[[[[[","b":[[[1]]]}', 100, 3),  # a unicode-escaped quote inside a string
    (r'{"\\":[[[[1]]]],"[[[[[[":"]]]]]]"}', 100, 4),  # keys with a backslash and brackets
    (r'["]]]]]]]]", [[[[1]]]]]', 100, 4),  # closing brackets in a string before real ones
    (r'["\\\\\\", [[[[1]]]]]', 100, 4),
    ('["' + "\\u00e9" * 30 + '"]', 30, 2),  # a 30-character string written in 182 bytes
    ('["' + "\\u00e9" * 31 + '"]', 30, 2),  # 31 characters: too long
    ('["' + "\\ud83d\\ude00" * 8 + '"]', 8, 2),  # surrogate pairs: 8 characters in 98 bytes
    ('["' + "a" * 40 + '"]', 40, 2),
    ('["' + "a" * 41 + '"]', 40, 2),
    ('{"' + "k" * 41 + '":1}', 40, 2),
    ('["' + "😀" * 10 + '"]', 10, 2),  # 10 characters in 40 UTF-8 bytes
    ('["' + "😀" * 11 + '"]', 10, 2),
    (_deep(64), 1 << 20, 64), (_deep(65), 1 << 20, 64), (_deep(64, "[]"), 1 << 20, 64),
    (_deep(64, "{}"), 1 << 20, 64), (_deep(64, "[1]"), 1 << 20, 64),
    ('{"x":' + _deep(63) + '}', 1 << 20, 64), ('{"x":' + _deep(64) + '}', 1 << 20, 64),
    ('{"x":' + _deep(65) + '}', 1 << 20, 64),
]


@pytest.mark.parametrize(("text", "max_string", "max_depth"), _HOSTILE)
@pytest.mark.parametrize("max_string_shift", [-1, 0, 1, 1 << 20])
@pytest.mark.parametrize("depth_shift", [-1, 0, 1])
def test_hostile_texts_are_proven_only_within_the_limits(text: str, max_string: int, max_depth: int,
                                                          max_string_shift: int, depth_shift: int) -> None:
    from mcp_codegen_runtime.wire import jsonrpc
    ms, md = max(0, max_string + max_string_shift), max_depth + depth_shift
    for data in (text.encode(), ('{"jsonrpc":"2.0","id":1,"method":"m","params":{"p":' + text + '}}').encode()):
        value, measured = jsonrpc.decode_measured(data)
        assert measured is data
        for member in (False, True):
            checked = value.get("params") if member and isinstance(value, dict) else value
            if member and not (isinstance(value, dict) and "params" in value):
                continue
            if fastlimits.measured_within(measured, ms, md, member=member):
                assert pure(checked, ms, md) is None, (text, ms, md, member)


def test_what_a_text_cannot_prove_is_left_to_the_walk() -> None:
    # a short string written long (escapes), a text longer than the string limit: not proven
    text = ('["' + "\\u00e9" * 10 + '"]').encode()
    assert not fastlimits.measured_within(text, 10, 5)
    assert fastlimits.measured_within(text, len(text), 5)
    assert not fastlimits.measured_within(None, 1 << 20, 64)
    assert not fastlimits.measured_within(b"[]", 1 << 20, -1)
    assert not fastlimits.measured_within(b"[[1]]", 1 << 20, 1)  # a value at depth 2
    assert fastlimits.measured_within(b"[[]]", 1 << 20, 2)
    from mcp_codegen_runtime.wire import jsonrpc
    assert jsonrpc.decode_measured('{"a":1}') == ({"a": 1}, None)  # a str line: no measure


def test_the_bench_message_is_proven() -> None:
    """The 20 kB ``ingest`` request of the benchmarks is settled on its text (the point of it)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    try:
        from bench_stdio import payload
    finally:
        sys.path.pop(0)
    from mcp_codegen_runtime.wire import jsonrpc
    line = jsonrpc.encode(jsonrpc.request(1, "tools/call", {"name": "ingest", "arguments": payload()}))
    assert fastlimits.measured_within(jsonrpc.decode_measured(line)[1], 1 << 20, 64, member=True)


@settings(max_examples=300, deadline=None)
@given(value=_json_values, max_string=st.integers(min_value=0, max_value=40), max_depth=st.integers(min_value=0, max_value=6),
       native=st.booleans())
def test_the_in_process_copy_hands_back_the_text_it_read(value: Any, max_string: int, max_depth: int, native: bool) -> None:
    """``jsoncopy.json_copy_measured``: the copy of ``json_copy``, and a text that proves the
    limits only where the walk of the copy agrees (both with orjson and without)."""
    from mcp_codegen_runtime.server import jsoncopy
    accelerator.set_enabled(native)
    try:
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": value}}
        copy, text = jsoncopy.json_copy_measured(message)
        assert copy == jsoncopy.json_copy(message) == message
        if fastlimits.measured_within(text, max_string, max_depth, member=True):
            assert pure(copy["params"], max_string, max_depth) is None
        if fastlimits.measured_within(text, max_string, max_depth):
            assert pure(copy, max_string, max_depth) is None
    finally:
        accelerator.set_enabled(True)
