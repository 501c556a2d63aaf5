"""Generated statements laid out as black lays them out, so black has nothing to re-shape.

Black formats a text in one pass and makes a second pass when the first changed anything;
:mod:`codegen.output.fmtunits` makes that second pass only on the units the first one changed.
The client's methods are most of the generated lines, and their signatures and calls are
long, so the templates write them through this module in the one layout black keeps
unchanged:

* the whole statement on one line when it fits in black's line length;
* otherwise one item per line with a trailing comma (black's "magic trailing comma" keeps
  such a bracket exploded), each item laid out by the same rule one level deeper.

Black still formats the result (and has the last word: an item line that is too long on
its own is re-shaped by black, only at the cost of that unit's second pass).  String
literals in annotations get double quotes (:func:`codegen.render.blackstyle.double_quotes`).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any, Union

from .blackstyle import LINE, double_quotes

#: an expression: text, a call ``("call", callee, args)``, a tuple ``("tuple", "", items)`` or a
#: dict ``("dict", "", [(key, value)])``
Expr = Union[str, tuple[str, str, Sequence[Any]]]


def _flat(expr: Expr) -> str:
    if isinstance(expr, str):
        return expr
    kind, head, items = expr
    if kind == "dict":
        return "{" + ", ".join(f"{k}: {_flat(v)}" for k, v in items) + "}"
    if kind == "tuple":
        return "(" + ", ".join(_flat(a) for a in items) + ("," if len(items) == 1 else "") + ")"
    return f"{head}(" + ", ".join(_flat(a) for a in items) + ")"


def lay(expr: Expr, indent: int, prefix: str = "", suffix: str = "") -> str:
    """``prefix + expr + suffix`` at ``indent`` spaces, on one line if it fits, else exploded."""
    pad = " " * indent
    one = pad + prefix + _flat(expr) + suffix
    if len(one) <= LINE or isinstance(expr, str) or not expr[2]:
        return one
    kind, head, items = expr
    if kind == "dict":
        inner = [lay(v, indent + 4, f"{k}: ", ",") for k, v in items]
        opening, closing = "{", "}"
    else:
        inner = [lay(a, indent + 4, "", ",") for a in items]
        opening, closing = ("(" if kind == "tuple" else f"{head}("), ")"
    return f"{pad}{prefix}{opening}\n" + "\n".join(inner) + f"\n{pad}{closing}{suffix}"


def _parameter(param: str | tuple[str, str, str | None], indent: int) -> str:
    """One parameter line (with its comma) of an exploded ``def``; a too-long annotation
    that is a union goes into parentheses, split at its ``|`` when it does not fit either
    (as black does)."""
    pad = " " * indent
    if isinstance(param, str):
        return f"{pad}{param},"
    name, annotation, default = param
    tail = f" = {default}," if default is not None else ","
    line = f"{pad}{name}: {annotation}{tail}"
    if len(line) <= LINE:
        return line
    members = _union_members(annotation)
    if len(members) < 2:
        return line  # black's business
    inner = " " * (indent + 4)
    body = f"{inner}{annotation}" if len(inner) + len(annotation) <= LINE else f"{inner}" + f"\n{inner}| ".join(members)
    return f"{pad}{name}: (\n{body}\n{pad}){tail}"


def _union_members(annotation: str) -> list[str]:
    """The operands of a top-level ``A | B | C`` annotation, as written (one item if not a union)."""
    try:
        node = ast.parse(annotation, mode="eval").body
    except SyntaxError:
        return [annotation]
    members: list[ast.expr] = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members.insert(0, node.right)
        node = node.left
    members.insert(0, node)
    texts = [ast.get_source_segment(annotation, m) for m in members]
    return [t for t in texts if t is not None] if all(texts) and len(texts) > 1 else [annotation]


def define(indent: int, name: str, params: Sequence[str | tuple[str, str, str | None]], returns: str,
           is_async: bool = False) -> str:
    """A ``def`` line (without body), one line if it fits, else one parameter per line;
    a parameter is text or (name, annotation, default or None)."""
    pad = " " * indent
    head = f"{pad}{'async ' if is_async else ''}def {name}("
    tail = f") -> {returns}:"
    flat = [p if isinstance(p, str) else f"{p[0]}: {p[1]}" + (f" = {p[2]}" if p[2] is not None else "") for p in params]
    one = head + ", ".join(flat) + tail
    if len(one) <= LINE:
        return one
    return head + "\n" + "".join(_parameter(p, indent + 4) + "\n" for p in params) + pad + tail


def import_from(module: str, names: Sequence[str]) -> str:
    """``from module import names``: one line if it fits, else one name per line."""
    one = f"from {module} import {', '.join(names)}"
    if len(one) <= LINE:
        return one
    return f"from {module} import (\n" + "".join(f"    {n},\n" for n in names) + ")"


def tool_params(tool: Any) -> list[str | tuple[str, str, str | None]]:
    """``self``, ``*`` and the keyword parameters of a typed client method."""
    out: list[str | tuple[str, str, str | None]] = ["self", *(["*"] if tool.params else [])]
    out += [(p.name, double_quotes(p.annotation), p.default) for p in tool.params]
    return out


def client_method(tool: Any, returns: str, is_async: bool) -> str:
    """The ``def`` line of a typed client method of ``tool``."""
    return define(4, tool.method, tool_params(tool), returns, is_async)


def client_call(tool: Any, wire_key: Any) -> str:
    """The body's ``return`` of the async client method (``wire_key`` spells a wire name)."""
    arguments: Expr = ("call", "wire_arguments", [tool.const, ("dict", "", [(wire_key(p.wire), p.name) for p in tool.params])])
    if tool.output_class:
        return lay(("call", "self._call_structured", [tool.const, arguments, tool.output_class]), 8, "return await ")
    return lay(("call", "self._call_content", [tool.const, arguments]), 8, "return await ")


def start_method(tool: Any, returns: str, is_async: bool) -> str:
    """The ``def`` line of a task tool's ``start_<tool>`` (``tool.start_method``)."""
    handle = "TaskHandle" if is_async else "SyncTaskHandle"
    return define(4, tool.start_method, tool_params(tool), f"{handle}[{returns}]", is_async)


def start_call(tool: Any, wire_key: Any) -> str:
    """The body's ``return`` of the async ``start_<tool>``."""
    arguments: Expr = ("call", "wire_arguments", [tool.const, ("dict", "", [(wire_key(p.wire), p.name) for p in tool.params])])
    if tool.output_class:
        return lay(("call", "self._start_structured", [tool.const, arguments, tool.output_class]), 8, "return await ")
    return lay(("call", "self._start_content", [tool.const, arguments]), 8, "return await ")


def sync_start_call(tool: Any) -> str:
    """The body's ``return`` of the blocking ``start_<tool>``."""
    inner: Expr = ("call", f"self.client.{tool.start_method}", [f"{p.name}={p.name}" for p in tool.params])
    return lay(("call", "SyncTaskHandle", ["self._run", ("call", "self._run", [inner])]), 8, "return ")


def sync_call(tool: Any) -> str:
    """The body's ``return`` of the blocking client method."""
    inner: Expr = ("call", f"self.client.{tool.method}", [f"{p.name}={p.name}" for p in tool.params])
    return lay(("call", "self._run", [inner]), 8, "return ")
