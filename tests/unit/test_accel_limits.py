"""The ``fast`` extra's size-limit check (``server.fastlimits``: jsonschema-rs) answers as the
pure walk (``server.security.exceeds_limits``) on random nested values, at the edges of both
limits, and on values jsonschema-rs cannot read."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.runtime.server import fastlimits
from codegen.runtime.server.security import exceeds_limits as pure
from codegen.runtime.wire import accelerator

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
