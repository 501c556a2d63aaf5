"""datamodel-code-generator one unit at a time, so an edit re-runs it on that unit only.

The model document (``ProjectIR.model_schema``) is one ``$defs`` table whose every class name
was decided by the lowering step, so DCG never invents or deduplicates a name.  Each class is
written from its own schema and the schemas it references.  This module cuts the table into
*units*:

* one unit per tool (its input, output and answer classes), template (variables class) and
  prompt (arguments class), holding every class reached from that group's classes and from
  no other group;
* one *shared* unit with everything else: classes reached from two or more groups, or from a
  class no group reaches (and what those reach).

A unit's classes reference only the unit itself and the shared unit (a class reached from a
shared class is reached from everything that reaches the shared one).  DCG runs on each
unit's classes plus the shared classes they reach; of its output only the unit's own
statements are kept, each written closer to black's style (:mod:`codegen.blackstyle`, so
black has less to do).  ``models.py`` is then the merged imports, the shared unit, the group
units in spec order, and every ``X.model_rebuild()`` line at the end.

The DCG output of each unit document, cut into statements, is memoised in the process
(keyed by its exact JSON text, key order included), so a ``--watch`` rebuild after a one-tool edit runs DCG on that
tool's unit only.  The bytes do not depend on the memo: the same document always gives the
same unit texts.  ``tests/unit/test_modelunits.py`` checks, on every example, golden and
benchmark spec, that each class's text is the one DCG writes for the whole document.

When anything falls outside this picture (a ``$ref`` that is not ``#/$defs/<name>``, or a
top-level statement other than imports, classes, assignments and ``model_rebuild()``
calls), DCG runs once on the whole document, as before.
"""

from __future__ import annotations

import ast
import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .blackstyle import AST_LINE, black_style

_PREFIX = "#/$defs/"
_MEMO: OrderedDict[str, Any] = OrderedDict()  # unit document and names -> its _split()
_MEMO_MAX = 8192  # unit documents remembered per process (a 1000-tool spec has ~1000)


class _Fallback(Exception):
    """The document or DCG's output is not in the shape this module cuts."""


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            elif key not in ("const", "enum", "default", "examples"):
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _edges(defs: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for name, body in defs.items():
        targets = []
        for ref in _refs(body):
            target = ref[len(_PREFIX):] if ref.startswith(_PREFIX) else None
            if target is None or "/" in target or "~" in target or target not in defs:
                raise _Fallback(ref)
            targets.append(target)
        out[name] = tuple(dict.fromkeys(targets))
    return out


def _reach(starts: Iterable[str], edges: dict[str, tuple[str, ...]]) -> set[str]:
    seen: set[str] = set()
    stack = [s for s in starts if s in edges]
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(edges[name])
    return seen


def partition(defs: dict[str, Any], groups: Iterable[Iterable[str]]) -> list[list[str]]:
    """The units of ``defs``: the shared unit first (possibly empty), then one per group
    with classes of its own, each in ``defs`` order.  Raises :class:`_Fallback` on a
    ``$ref`` outside the table."""
    edges = _edges(defs)
    owners: dict[str, set[int]] = {name: set() for name in defs}
    group_list = [list(dict.fromkeys(g)) for g in groups]
    for k, group in enumerate(group_list):
        for name in _reach(group, edges):
            owners[name].add(k)
    for name in _reach([n for n in defs if not owners[n]], edges):
        owners[name].add(-1)
    units: list[list[str]] = [[] for _ in range(len(group_list) + 1)]
    for name in defs:
        only = owners[name]
        units[next(iter(only)) + 1 if len(only) == 1 and -1 not in only else 0].append(name)
    return [units[0], *(u for u in units[1:] if u)]


def _statement_names(node: ast.stmt) -> tuple[str, ...] | None:
    """Names a top-level statement defines (None: not a statement this module places)."""
    if isinstance(node, ast.ClassDef):
        return (node.name,)
    if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        return tuple(t.id for t in node.targets if isinstance(t, ast.Name))
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return (node.target.id,)
    return None


def _is_rebuild(node: ast.stmt) -> str | None:
    if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and not node.value.args
            and not node.value.keywords and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr == "model_rebuild" and isinstance(node.value.func.value, ast.Name)):
        return node.value.func.value.id
    return None


def _split(source: str, others: set[str]) -> tuple[list[tuple[str, str, str | None]], list[str], list[str], set[str]]:
    """DCG output -> imports as (module, name, asname), the statements defining names not
    in ``others`` (the unit's own classes, nested ones included), their
    ``model_rebuild()`` lines, and the names those statements define."""
    tree = ast.parse(source)
    lines = AST_LINE.findall(source)
    imports: list[tuple[str, str, str | None]] = []
    body: list[str] = []
    rebuilds: list[str] = []
    own: set[str] = set()
    for node in tree.body:
        text = "".join(lines[node.lineno - 1 - len(getattr(node, "decorator_list", ())):node.end_lineno]).rstrip("\n")
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imports.extend((node.module, a.name, a.asname) for a in node.names)
            continue
        if isinstance(node, ast.Import) and all(a.asname is None and "." not in a.name for a in node.names):
            imports.extend(("", a.name, None) for a in node.names)
            continue
        rebuilt = _is_rebuild(node)
        if rebuilt is not None:
            if rebuilt not in others:
                rebuilds.append(text)
            continue
        names = _statement_names(node)
        if names is None or getattr(node, "decorator_list", None):
            raise _Fallback(type(node).__name__)
        if not set(names) & others:
            body.append(black_style(text))
            own.update(names)
        elif not set(names) <= others:
            raise _Fallback(names)
    return imports, body, rebuilds, own


def _import_lines(imports: list[tuple[str, str, str | None]]) -> list[str]:
    modules: dict[str, set[str]] = {"__future__": set()}
    for module, name, asname in imports:
        modules.setdefault(module, set()).add(name if asname is None else f"{name} as {asname}")
    out = []
    for module, names in modules.items():
        if not names:
            continue
        if module:
            out.append(f"from {module} import {', '.join(sorted(names))}")
        else:
            out.extend(f"import {n}" for n in sorted(names))
    return out


_Split = tuple[list[tuple[str, str, str | None]], list[str], list[str], set[str]]


def _memo_unit(doc: dict[str, Any], others: set[str], run: Callable[[dict[str, Any]], str]) -> _Split:
    """:func:`_split` of DCG's output for the unit document ``doc``, memoised."""
    key = json.dumps(doc, ensure_ascii=False) + "\0" + ",".join(sorted(others))
    hit = _MEMO.get(key)
    if hit is not None:
        _MEMO.move_to_end(key)
        return hit
    result = _split(run(doc), others)
    _MEMO[key] = result
    if len(_MEMO) > _MEMO_MAX:
        _MEMO.popitem(last=False)
    return result


def models_source(doc: dict[str, Any], groups: Iterable[Iterable[str]], run: Callable[[dict[str, Any]], str]) -> str:
    """``models.py``'s unformatted body for the model document ``doc`` (``{"$defs": ...}``),
    DCG (``run``) called once per unit; ``groups`` are the class names of each tool,
    template and prompt, in spec order."""
    defs: dict[str, Any] = doc["$defs"]
    try:
        units = partition(defs, groups)
        edges = _edges(defs)
        imports: list[tuple[str, str, str | None]] = []
        body: list[str] = []
        rebuilds: list[str] = []
        shared: set[str] = set()  # names the shared unit's statements define (nested classes too)
        for k, unit in enumerate(units):
            if not unit:
                continue
            needed = _reach(unit, edges)
            sub = {"$defs": {name: defs[name] for name in defs if name in needed}}
            others = shared | (needed - set(unit))
            more, stmts, again, own = _memo_unit(sub, others, run)
            if k == 0:
                shared = own
            imports += more
            body += stmts
            rebuilds += again
    except (_Fallback, SyntaxError):
        return run(doc)
    text = "\n".join(_import_lines(imports)) + "\n\n\n" + "\n\n\n".join(body) + "\n"
    if rebuilds:
        text += "\n\n" + "\n".join(rebuilds) + "\n"
    return text
