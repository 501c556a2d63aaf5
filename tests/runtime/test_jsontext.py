"""wire.jsontext.encoder_of gives JSONEncoder.encode's text and exceptions, on hostile values
(hypothesis) and on the cases its C-encoder reuse could get wrong (errors, cycles, threads)."""

from __future__ import annotations

import enum
import json
import math
import threading
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_codegen_runtime.wire import jsonrpc
from mcp_codegen_runtime.wire.jsontext import encoder_of

ENCODERS = [
    json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False),
    json.JSONEncoder(),
    json.JSONEncoder(sort_keys=True, allow_nan=True, check_circular=False),
    json.JSONEncoder(skipkeys=True, ensure_ascii=True, separators=(", ", ": ")),
    json.JSONEncoder(indent=2),
]

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-(2**80), max_value=2**80),
                    st.floats(), st.text(), st.text(alphabet=st.characters(codec=None)))
keys = st.one_of(st.text(), st.integers(), st.floats(), st.booleans(), st.none())
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.dictionaries(keys, inner, max_size=4)), max_leaves=25)


def outcome(encode: Any, value: Any) -> tuple[str, str]:
    try:
        return "ok", encode(value)
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=400, deadline=None)
@given(values)
def test_same_text_and_errors_as_encode(value: Any) -> None:
    for encoder in ENCODERS:
        fast = encoder_of(encoder)
        assert outcome(fast, value) == outcome(encoder.encode, value)
        assert outcome(fast, value) == outcome(encoder.encode, value)  # again: reuse after any outcome


class Color(enum.Enum):
    RED = 1


class Sub(dict):  # type: ignore[type-arg]
    pass


@pytest.mark.parametrize("value", [
    {"a": float("nan")}, [math.inf], {"u": uuid.uuid4()}, [Color.RED], {1: 2, None: 3, 1.5: 4}, {(1, 2): 3},
    "plain", "with \"quotes\" and \n", "\ud800", Sub(a=1), {"x": b"bytes"}, [2**64, -(2**70)], [set()],
])
def test_odd_values(value: Any) -> None:
    for encoder in ENCODERS:
        assert outcome(encoder_of(encoder), value) == outcome(encoder.encode, value)


def test_a_failed_call_leaves_no_false_cycle() -> None:
    """The C encoder leaves its markers after an error: such an encoder is not reused."""
    encode = encoder_of(ENCODERS[0])
    shared = {"k": [1, 2]}
    with pytest.raises(ValueError):
        encode([shared, float("nan")])  # fails inside a list holding ``shared``
    with pytest.raises(TypeError):
        encode({"a": shared, "b": object()})
    assert encode([shared, shared]) == '[{"k":[1,2]},{"k":[1,2]}]'
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference"):
        encode(cycle)
    assert encode(shared) == '{"k":[1,2]}'


def test_threads_share_values_without_false_cycles() -> None:
    encode = encoder_of(ENCODERS[0])
    shared = {"deep": [{"x": list(range(50))} for _ in range(50)]}
    expected = ENCODERS[0].encode(shared)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(200):
                assert encode(shared) == expected
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_jsonrpc_encode_is_the_documented_dumps() -> None:
    message = {"jsonrpc": "2.0", "id": 7, "result": {"text": "é\u2028\x00", "n": [1.5, 1e16, -0.0, 10**20]}}
    expected = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode() + b"\n"
    assert jsonrpc.encode(message) == expected
