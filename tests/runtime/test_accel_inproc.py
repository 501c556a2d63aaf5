"""The fourth pass on the 20 kB validated input (issue 32 point 2): each native shortcut gives
exactly the answer of the code it stands for, with the ``fast`` extra and without it.

* ``fastjson.within_depth`` (the nesting of a text read on its brackets) against the depth
  of the parsed value, on random JSON whose strings are full of quotes, backslashes and
  brackets;
* ``server.jsoncopy.json_copy`` (the in-process copy) against ``decode(encode(message))``:
  the same value, or the same exception, on hostile and random values;
* the client's argument check before sending (``schema.validation.check_arguments``)
  against the pure check, on hostile values.
"""

from __future__ import annotations

import collections
import datetime
import decimal
import enum
import json
import math
import uuid
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_codegen_runtime.client.results import wire_arguments
from mcp_codegen_runtime.schema import jsonints, validation
from mcp_codegen_runtime.server import jsoncopy
from mcp_codegen_runtime.wire import accelerator, fastjson, jsonrpc
from mcp_codegen_runtime.wire.errors import InvalidArgumentsError
from mcp_codegen_runtime.wire.tools import ToolDef
from pydantic import BaseModel, ConfigDict, field_serializer

_TRICKY = st.text(alphabet=st.sampled_from(list('ab"\\[]{}\n/u0') + ["\u00e9", "\u2028", "\U0001f600"]), max_size=8)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | _TRICKY,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_TRICKY, kids, max_size=4),
    max_leaves=40,
)


def _depth(value: Any) -> int:
    """Nesting of a parsed value, the top array or object at 1 (written out, not the code under test)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


@settings(max_examples=500, deadline=None)
@given(value=_json, ascii_only=st.booleans(), native=st.booleans())
def test_within_depth_reads_the_nesting_of_the_parsed_value(value: Any, ascii_only: bool, native: bool) -> None:
    data = orjson.dumps(value) if native else json.dumps(value, ensure_ascii=ascii_only).encode()
    depth = _depth(value)
    for limit in {0, 1, max(depth - 1, 0), depth, depth + 1}:
        assert fastjson.within_depth(data, limit) == (depth <= limit), (data, limit)


def test_within_depth_on_hand_written_texts() -> None:
    cases = {
        b'["\\\\"]': 1, b'["\\"]"]': 1, b'["\\\\\\"[[["]': 1, b'[["a\\\\\\\\"],[]]': 2, b'"[[["': 0,
        b'{"a":{"b":[{"c":"]]]}"}]}}': 4, b"[" * 500 + b"]" * 500: 500, b' [ [ ] , { } ] ': 2, b"1": 0,
        b'["[","","]",["","[["]]': 2, b'{"\\\\":[], "\\"":{"x":["\\\\\\\\\\"]"]}}': 3,
    }
    for text, depth in cases.items():
        assert _depth(json.loads(text)) == depth  # the expected depths themselves
        assert fastjson.within_depth(text, depth)
        assert depth == 0 or not fastjson.within_depth(text, depth - 1)


def test_wide_messages_are_taken_from_orjson_and_deep_ones_are_not() -> None:
    assert accelerator.set_enabled(True)
    wide = b'{"a":[' + b",".join([b'{"b":[1,{"c":"]]]]"}]}'] * 500) + b"]}"
    assert fastjson.loads(wide) == json.loads(wide)
    deep = b'{"s":"' + b"]" * 900 + b'","d":' + b"[" * 401 + b"]" * 401 + b"}"
    assert fastjson.loads(deep) is fastjson.MISS
    shallow = b'{"s":"' + b"[" * 900 + b'","d":' + b"[" * 399 + b"]" * 399 + b"}"
    assert fastjson.loads(shallow) == json.loads(shallow)


# -- the in-process copy ----------------------------------------------------------------------

class _Color(enum.Enum):
    RED = "red"

    def __eq__(self, other: object) -> bool:  # equal to its value: a copy must still refuse it
        return other == self.value or other is self

    __hash__ = enum.Enum.__hash__


class _Label(str, enum.Enum):
    """A str enum whose text is not its value."""

    def __new__(cls, value: int, text: str) -> _Label:
        member = str.__new__(cls, text)
        member._value_ = value
        return member

    ONE = (1, "one")


class _Str(str):
    pass


class _Float(float):
    pass


_HOSTILE_MESSAGES: list[Any] = [
    {"a": math.nan}, {"a": [math.inf]}, {"a": (1, 2)}, {"a": {1, 2}}, {"a": _Color.RED}, {"a": _Label.ONE},
    {"a": enum.IntEnum("N", {"x": 3}).x}, {"a": uuid.UUID(int=5)}, {"a": datetime.date(2026, 1, 2)},
    {"a": _Str("s")}, {_Str("k"): 1}, {"a": _Float(1.5)}, {1: "int key"}, {1.5: "float key"}, {True: 1},
    {None: 1}, {(1,): 1}, {"a": "\ud800"}, {"\udc00": 1}, {"a": 2**64}, {"a": -(2**63) - 1}, {"a": 2**63},
    {"a": b"bytes"}, {"a": decimal.Decimal("1.5")}, {"a": collections.OrderedDict(b=1)}, {"a": [[[]]] * 3},
    {"a": -0.0, "b": 1e16, "c": 5e-324, "d": 1.7976931348623157e308, "e": "\u2028\x00\x1f\"\\é😀"},
    {"z": 1, "a": 2}, [{"a": 1}], "text", 1, None,
]


def _deep(n: int) -> Any:
    value: Any = []
    for _ in range(n):
        value = [value]
    return value


def _copy_outcome(message: Any, native: bool) -> tuple[str, str]:
    accelerator.set_enabled(native)
    try:
        try:
            return "value", repr(jsoncopy.json_copy(message))
        except Exception as exc:
            return "error", f"{type(exc).__name__}: {exc}"
    finally:
        accelerator.set_enabled(True)


def _pure_copy(message: Any) -> tuple[str, str]:
    try:
        return "value", repr(jsonrpc.decode(jsonrpc.encode(message)))
    except Exception as exc:
        return "error", f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("message", _HOSTILE_MESSAGES + [_deep(254), _deep(255), _deep(256), _deep(400)])
def test_the_copy_of_hostile_messages_is_the_pure_one(message: Any) -> None:
    accelerator.set_enabled(False)
    expected = _pure_copy(message)  # decode(encode()) with the pure decoder
    accelerator.set_enabled(True)
    assert _copy_outcome(message, True) == expected
    assert _copy_outcome(message, False) == expected


@settings(max_examples=400, deadline=None)
@given(value=_json)
def test_the_copy_of_random_messages_is_the_pure_one(value: Any) -> None:
    accelerator.set_enabled(False)
    expected = _pure_copy({"jsonrpc": "2.0", "id": 1, "params": value})
    accelerator.set_enabled(True)
    assert _copy_outcome({"jsonrpc": "2.0", "id": 1, "params": value}, True) == expected


def test_the_copy_is_native_for_plain_data_and_not_aliased() -> None:
    assert accelerator.set_enabled(True)
    message = {"params": {"arguments": {"orders": [{"id": "o1", "lines": [{"q": 1, "p": 9.5}]}]}}}
    assert jsoncopy.plain_json(message)
    copied = jsoncopy.json_copy(message)
    assert copied == message and copied is not message
    assert copied["params"]["arguments"]["orders"][0] is not message["params"]["arguments"]["orders"][0]
    assert not jsoncopy.plain_json({"a": (1,)}) and not jsoncopy.plain_json({"a": _Str("x")})
    assert not jsoncopy.plain_json({"a": math.nan}) and not jsoncopy.plain_json({_Str("k"): 1})


# -- the client's check before sending --------------------------------------------------------

def _integers_outcome(value: Any, plain: bool) -> tuple[str, str]:
    try:
        data, has_null = (jsonints.plain_json_integers if plain else jsonints.json_integers)(value)
    except Exception as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    return "value", repr((data, has_null))


_PLAIN_VALUES: list[Any] = [
    {"a": 1.0}, {"a": -0.0}, {"a": 1e16}, {"a": 1.5e300}, {"a": 5e-324}, {"a": 0.5}, {"a": None}, {"a": math.nan},
    {"a": [math.inf]}, {"a": -math.inf}, {"a": "null"}, {"a": ".0,"}, {"a": "1e+5"}, {"a": 2**64}, {"a": 2**63},
    {"a": -(2**63)}, {"a": "\ud800"}, {"\ud800": 1}, {"a": [[1.25, "x", True, False, 7]]}, _deep(300), _deep(254),
    {"a": [{"b": 9007199254740993}]}, {"a": 123456789012345.0}, {"a": 1.7976931348623157e308}, {},
]


@pytest.mark.parametrize("value", _PLAIN_VALUES)
def test_plain_json_integers_is_the_walk(value: Any) -> None:
    for native in (True, False):
        accelerator.set_enabled(native)
        assert _integers_outcome(value, True) == _integers_outcome(value, False)
    accelerator.set_enabled(True)


@settings(max_examples=400, deadline=None)
@given(value=_json)
def test_plain_json_integers_is_the_walk_on_random_data(value: Any) -> None:
    assert accelerator.set_enabled(True)
    assert _integers_outcome({"v": value}, True) == _integers_outcome({"v": value}, False)


def test_plain_json_integers_keeps_clean_data_as_it_is() -> None:
    assert accelerator.set_enabled(True)
    value = {"orders": [{"sku": "ABC-1000", "quantity": 3, "unit_price": 9.5, "tags": ["a"]}]}
    data, has_null = jsonints.plain_json_integers(value)
    assert data is value and has_null is False


class _Line(BaseModel):
    model_config = ConfigDict(extra="allow")
    sku: str
    quantity: int
    unit_price: float | None = None


class _Args(BaseModel):
    model_config = ConfigDict(extra="allow")
    lines: list[_Line]
    note: str | None = None


class _Serialized(BaseModel):
    sku: str

    @field_serializer("sku")
    def _as_tuple(self, value: str) -> Any:
        return ("not", "json")


_SCHEMA = {"type": "object", "required": ["lines"], "properties": {
    "note": {"type": "string"},
    "lines": {"type": "array", "items": {"type": "object", "required": ["sku", "quantity"], "properties": {
        "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"}, "quantity": {"type": "integer", "minimum": 1},
        "unit_price": {"type": "number"}}}}}}
_TOOL = ToolDef(name="ingest", method="ingest", input_model=_Args, output_model=None,
                wire={"name": "ingest", "inputSchema": _SCHEMA})


def _wire_outcome(values: dict[str, Any], native: bool) -> tuple[str, Any]:
    accelerator.set_enabled(native)
    try:
        return "sent", repr(wire_arguments(_TOOL, values))
    except InvalidArgumentsError as exc:
        return "refused", (str(exc), exc.data)
    finally:
        accelerator.set_enabled(True)


_ARGUMENTS: list[dict[str, Any]] = [
    {"lines": [_Line(sku="ABC-1234", quantity=2, unit_price=9.5)]},
    {"lines": [_Line(sku="ABC-1234", quantity=2, unit_price=1.0)]},  # an integral float
    {"lines": [{"sku": "ABC-1234", "quantity": 2.0}]},  # read as 2 by both
    {"lines": [{"sku": "ABC-1234", "quantity": 2.5}]},
    {"lines": [{"sku": "ABC-123", "quantity": 2}]},  # the pattern
    {"lines": [{"sku": "ABC-1234", "quantity": 0}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "unit_price": None}]},  # null where the schema says number
    {"lines": [_Line(sku="ABC-1234", quantity=2, unit_price=math.nan)]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "unit_price": math.inf}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": (1, 2)}]},  # a tuple: sent as a list
    {"lines": [_Line(sku="ABC-1234", quantity=2, extra=(1, 2))]},
    {"lines": [_Line(sku="ABC-1234", quantity=2, extra=uuid.UUID(int=3))]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": uuid.UUID(int=3)}]},  # not JSON data
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": _Color.RED}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": _Label.ONE}]},
    {"lines": [{"sku": _Str("ABC-1234"), "quantity": 2}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": {1, 2}}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": datetime.date(2026, 1, 1)}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": _Serialized(sku="x")}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": 2**70}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": "\ud800"}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": _deep(300)}]},
    {"lines": [{"sku": "ABC-1234", "quantity": 2}], "note": "null .0, e+"},
    {"lines": []},
]


@pytest.mark.parametrize("values", _ARGUMENTS)
def test_the_check_before_sending_is_the_pure_one(values: dict[str, Any]) -> None:
    assert _wire_outcome(values, True) == _wire_outcome(values, False)


def test_plain_arguments_take_the_text_and_others_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    assert accelerator.set_enabled(True)
    walked: list[Any] = []
    real = jsonints.json_integers
    monkeypatch.setattr(validation, "json_integers", lambda v: walked.append(v) or real(v))
    wire_arguments(_TOOL, {"lines": [_Line(sku="ABC-1234", quantity=2, unit_price=9.5)], "note": _Color.RED})
    assert walked == []
    wire_arguments(_TOOL, {"lines": [{"sku": _Str("ABC-1234"), "quantity": 2}]})
    assert walked  # the walk answers (and, the native check refusing a str subclass, the pure path)


@settings(max_examples=2000, deadline=None)
@given(number=st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(2**53), 2**53).map(float))
def test_every_integral_float_orjson_writes_is_seen_in_its_text(number: float) -> None:
    text = orjson.dumps({"x": [number, "y"]})
    if number.is_integer():
        assert not jsonints._clean_text(text), text
    for special in (math.nan, math.inf, -math.inf, None):
        assert not jsonints._clean_text(orjson.dumps({"x": [number, special]}))


# -- the server's view of decoded arguments ---------------------------------------------------

def _server_outcome(values: Any, native: bool, plain: bool) -> tuple[str, Any]:
    accelerator.set_enabled(native)
    try:
        model = validation.validate_arguments(_TOOL, values, plain=plain)
        return "model", (repr(model.model_dump(mode="python", by_alias=True, exclude_unset=True)), repr(model))
    except validation.ArgumentsInvalid as exc:
        return "invalid", exc.errors
    except (TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    finally:
        accelerator.set_enabled(True)


_DECODED: list[Any] = [json.loads(text) for text in (
    '{"lines":[{"sku":"ABC-1234","quantity":2,"unit_price":9.5}]}',
    '{"lines":[{"sku":"ABC-1234","quantity":2.0,"unit_price":1.0}],"x":[1.0,-0.0,1e16]}',
    '{"lines":[{"sku":"ABC-1234","quantity":2.5}]}', '{"lines":[{"sku":"ABC-123","quantity":2}]}',
    '{"lines":[{"sku":"ABC-1234","quantity":2,"unit_price":null}]}', '{"lines":[],"note":null}',
    '{"lines":[{"sku":"ABC-1234","quantity":2,"unit_price":NaN}]}', '{"lines":[{"sku":"ABC-1234","quantity":2}],"x":Infinity}',
    '{"lines":[{"sku":"ABC-1234","quantity":2}],"x":123456789012345678901234567890}',
    '{"lines":[{"sku":"ABC-1234","quantity":2}],"note":"null .0, e+", "y":"\\ud800"}',
    '{"lines":[{"sku":"ABC-1234","quantity":1e+300}]}', '{"lines":[]}', '{}',
)]


@pytest.mark.parametrize("values", _DECODED)
def test_decoded_arguments_give_the_pure_model_or_answer(values: Any) -> None:
    expected = _server_outcome(values, False, False)
    assert _server_outcome(values, True, True) == expected
    assert _server_outcome(values, True, False) == expected


@settings(max_examples=300, deadline=None)
@given(extra=_json, quantity=st.integers(1, 5) | st.floats(allow_nan=False, allow_infinity=False))
def test_random_decoded_arguments_give_the_pure_model_or_answer(extra: Any, quantity: Any) -> None:
    values = json.loads(json.dumps({"lines": [{"sku": "ABC-1234", "quantity": quantity}], "extra": extra}))
    assert _server_outcome(values, True, True) == _server_outcome(values, False, False)


def test_only_the_copying_in_process_peer_promises_decoded_messages() -> None:
    from mcp_codegen_runtime.server.connection import Connection
    from mcp_codegen_runtime.server.session import InProcessPeer

    assert Connection().decoded is True  # stdio, HTTP: a JSON decoder read every message
    server: Any = object()
    assert InProcessPeer(server, copy=True).connection.decoded is True
    assert InProcessPeer(server, copy=False).connection.decoded is False
    tuple_extra = {"lines": [{"sku": "ABC-1234", "quantity": 2, "extra": (1, 2)}]}
    assert _server_outcome(tuple_extra, True, False)[0] == "TypeError"  # handed over as objects: still refused
