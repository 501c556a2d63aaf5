"""The ``fast`` extra's JSON parsing (``wire.fastjson``: orjson) gives exactly the pure
decoder's answer: the same value (types, key order, duplicate keys) or the same ParseError,
on hostile texts (numbers beyond a double or 64 bits, a million digits, deep nesting, lone
surrogates, invalid UTF-8, NaN ...) and on random JSON texts; and the pure decoder's fast
overflow test routes exactly as its regex does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_codegen_runtime.wire import accelerator, fastjson, jsonrpc
from mcp_codegen_runtime.wire.errors import ParseError

HOSTILE = [
    b"1e999", b"1e999999999", b"-1.5e400", b"1.7976931348623157e308", b"1.8e308", b"[1e-400]", b"0e999999",
    b"9" * 400 + b".5", b"7" * 1_000_000, b"9223372036854775807", b"9223372036854775808", b"18446744073709551615",
    b"18446744073709551616", b"-9223372036854775808", b"-9223372036854775809", b"1" + b"0" * 250 + b"e99",
    b"[" * 100_000 + b"]" * 100_000, b"[" * 300 + b"]" * 300, b"[" * 600 + b"]" * 600, b'{"a":' * 500 + b"1" + b"}" * 500,
    b'"\\ud800"', b'"\\udc00"', b'"\\ud83d\\ude00"', b'"\\ud800\\u0041"', b'"\xff"', b'"\xed\xa0\x80"', b'"\xf0\x9f\x98\x80"',
    b'{"a":1,"b":2,"a":3}', b"NaN", b"-Infinity", b"[Infinity]", b"1.0", b"-0", b"-0.0", b"1E2", b" {\"a\" : 1 } ",
    b"\xef\xbb\xbf{}", b'"\x00"', b'"a\x1fb"', b"123abc", b"[1,]", b'"\\u0000"', b"01", b"1.", b".5", b"+1", b"",
    b" ", b"\t\r\n[]\t", b"\x0c[]", b"\xc2\xa0[]", b'{"id":1,"x":"' + "é٣".encode() * 200 + b'"}',
    b'{"x":"' + "٠".encode() * 400 + b'","y":1' + b"0" * 250 + b"e99}", b'"' + b"1" * 30 + b'"',
    b"[1.000000000000000000000001, 123456789012345678]", b"1e-324", b"5e-324", b"2.2250738585072011e-308",
    b"[" * 400 + b"]" * 400, b"[" * 401 + b"]" * 401, b'{"a":[' * 200 + b"{}" + b"]}" * 200,
    b"[" + b",".join([b"[[1]]"] * 400) + b"]", b'["' + b"[" * 900 + b'"]',
]


def _decode(data: bytes) -> tuple[str, Any]:
    try:
        return "value", jsonrpc.decode(data)
    except ParseError as exc:
        return "error", str(exc)


def _typed(value: Any) -> str:
    """``value`` with every type and key order visible: ``repr`` (1 and 1.0 differ, as do 0.0
    and -0.0; floats are written exactly)."""
    return repr(value)


def _both(data: bytes) -> Iterator[tuple[str, Any]]:
    for flag in (False, True):
        accelerator.set_enabled(flag)
        kind, got = _decode(data)
        yield kind, _typed(got) if kind == "value" else got
    accelerator.set_enabled(True)


def test_the_fast_extra_is_installed_for_the_tests() -> None:
    assert accelerator.set_enabled(True)
    assert fastjson.loads(b'{"a":[1,2.5,"x"]}') == {"a": [1, 2.5, "x"]}


@pytest.mark.parametrize("data", HOSTILE, ids=lambda d: repr(d[:24]) + f"..{len(d)}")
def test_hostile_texts_parse_as_on_the_pure_path(data: bytes) -> None:
    pure, native = _both(data)
    assert native == pure


def test_orjson_is_really_used_where_it_is_exact() -> None:
    accelerator.set_enabled(True)
    assert fastjson.loads(b'{"n":12345678901234567}') == {"n": 12345678901234567}
    wide = b"[" + b",".join([b'{"a":[1,{"b":[]}]}'] * 300) + b"]"  # 900 brackets, 5 deep: orjson's
    assert fastjson.loads(wide) is not fastjson.MISS and fastjson.loads(wide) == json.loads(wide)
    for text in (b"18446744073709551616", b"[" * 600 + b"]" * 600, b"1e999", b'"\\ud800"'):
        assert fastjson.loads(text) is fastjson.MISS
    accelerator.set_enabled(False)
    assert fastjson.loads(b"{}") is fastjson.MISS
    accelerator.set_enabled(True)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=4), kids, max_size=4),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(value=_json, ascii_only=st.booleans())
def test_random_json_parses_as_on_the_pure_path(value: Any, ascii_only: bool) -> None:
    data = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    pure, native = _both(data)
    assert native == pure


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list('0123456789eE+-.,[]{}":a\\u ٣é')), max_size=60))
def test_random_number_soup_parses_as_on_the_pure_path(text: str) -> None:
    data = text.encode()
    pure, native = _both(data)
    assert native == pure
    assert jsonrpc._huge_number(data) == (jsonrpc._HUGE_NUMBER.search(text) is not None)
    assert jsonrpc._huge_number(text) == (jsonrpc._HUGE_NUMBER.search(text) is not None)


def test_plain_patterns_stay_native_and_others_go_through_the_ecma_translation() -> None:
    from mcp_codegen_runtime.schema import accel
    from mcp_codegen_runtime.wire.tools import ToolDef

    assert accelerator.set_enabled(True)

    def tool(schema: dict[str, Any]) -> Any:
        return ToolDef(name="t", method="t", input_model=None, output_model=None,  # type: ignore[arg-type]
                       wire={"name": "t", "inputSchema": schema})

    plain = accel.input_check(tool({"type": "object", "properties": {"s": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"}}}))
    assert plain is not None and plain({"s": "ABC-1234"}) and not plain({"s": "ABC-12345"})
    ecma = accel.input_check(tool({"properties": {"s": {"pattern": r"^\d+$"}, "t": {"pattern": "^a.c$"}}}))
    assert ecma is not None
    assert ecma({"s": "123"}) and not ecma({"s": "\u0661\u0662"})  # ECMA \d is ASCII only
    assert not ecma({"t": "a\rc"}) and not ecma({"t": "a\u2028c"}) and ecma({"t": "abc"})
    assert accel.input_check(tool({"patternProperties": {r"^\w+$": {}}})) is None  # stays pure
    assert accel.input_check(tool({"$schema": "http://json-schema.org/draft-07/schema#"})) is None
    assert accel.input_check(tool({"$ref": "https://example.com/remote.json"})) is None
