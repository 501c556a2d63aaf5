"""The YAML flow-mapping comma trap: ``{type: string, description: Username, or null}``.

In a flow mapping a comma ends a plain (unquoted) scalar, so the description is cut to
``Username`` and ``or null`` becomes a key of its own with no value: an annotation nothing
checks, and the description silently shortened.  The loader (:mod:`codegen.spec.load`) asks
:func:`cut_off` about each key of a flow mapping and reports W114 (:func:`comma_trap`) with
the quoted text that fixes it.
"""

from __future__ import annotations

import json

import yaml

from ..diagnostics import Diagnostic, Level


def cut_off(previous: yaml.Node | None, key_node: yaml.Node, value_node: yaml.Node) -> bool:
    """Whether a key of a flow mapping looks like the rest of the plain text before it, cut off
    at a comma: ``{description: Username, or null}`` reads as ``description: Username`` and a key
    ``or null`` without a value.  The key is plain text, its value absent, and the value before
    it plain text."""
    plain = (None, "")  # the pure-Python parser's plain style, and libyaml's
    return (isinstance(previous, yaml.ScalarNode) and previous.style in plain and previous.tag == "tag:yaml.org,2002:str"
            and isinstance(key_node, yaml.ScalarNode) and key_node.style in plain
            and isinstance(value_node, yaml.ScalarNode) and value_node.value == "" and value_node.style in plain)


def comma_trap(display: str, pairs: list[tuple[yaml.Node, yaml.Node]], key_node: yaml.Node, pointer: str) -> Diagnostic:
    """W114 for a key :func:`cut_off` found, with the quoted text that fixes it."""
    index = next(i for i, (k, _) in enumerate(pairs) if k is key_node)
    before_key, before = pairs[index - 1]
    line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
    whole = f"{before.value}, {key_node.value}"
    return Diagnostic(display, line, col, "W114",
                      f"{key_node.value!r} became a key without a value: in a flow mapping {{...}}, a comma ends the plain "
                      f"text {before.value!r}", pointer=pointer,
                      hint=f"quote the text: {before_key.value}: {json.dumps(whole, ensure_ascii=False)}",
                      level=Level.WARNING)
