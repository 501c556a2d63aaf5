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
statements are kept, each written closer to black's style (:mod:`codegen.render.blackstyle`, so
black has less to do).  ``models.py`` is then the merged imports, the shared unit, the group
units in spec order, and every ``X.model_rebuild()`` line at the end.

The DCG output of each unit document, cut into statements, is memoised in the process
(keyed by its exact JSON text, key order included), so a ``--watch`` rebuild after a one-tool
edit runs DCG on that tool's unit only.  The bytes do not depend on the memo: the same
document always gives the same unit texts.

A cold build does not run DCG once per unit: when two or more units are not in the memo,
DCG runs once on all their classes (the whole document on a cold build), and that output is
cut into each unit's part exactly as DCG writes it for the unit's own document (what the
memo then holds; :func:`_cut`).  That costs one DCG run instead of one per unit, which parses
the shared classes again for every unit that reaches them.  The cut relies on how DCG
writes a class of a larger document: the same text in the same relative order, imports of
exactly the names the statements use, modules in the order the statements first use them
(fields in order, then the class itself).  It checks what it can on the output (every
import used and in that order, every class name one of the document's titles, every
statement reached from exactly one unit) and leaves a unit to its own DCG run where the
output cannot tell its part: the import order of a unit whose statement first uses two
modules at once, or that reaches a class DCG inlined (``collapse_root_models``; it counts in
the import order where the output does not show it, which only a builtin's ``RootModel`` in
a unit importing from pydantic first leaves unchanged); the shared unit when one of its
root classes is inlined where other units use it but its own document keeps it (then the
unit runs alone first, as the other units' memo keys hold its names).  ``tests/generator/test_modelunits.py``
checks, on every example, golden and benchmark spec, that the cut gives what the unit runs
give, memo entry for memo entry, and that each class's text is the one DCG writes for the
whole document.

When anything falls outside this picture (a ``$ref`` that is not ``#/$defs/<name>``, or a
top-level statement other than imports, classes, assignments and ``model_rebuild()``
calls), DCG runs once on the whole document, as before.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from ..render.blackstyle import black_style
from .parallel import beside, spare_cpu
from .statements import Fallback, Split, import_lines, split, statements, used_modules

_PREFIX = "#/$defs/"
_MEMO: OrderedDict[str, Any] = OrderedDict()  # unit document -> (names of others, its split())
_MEMO_MAX = 8192  # unit documents remembered per process (a 1000-tool spec has ~1000)


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


def _titles(node: Any, out: set[str]) -> set[str]:
    """Every ``title`` in the schemas of ``node`` (data keywords skipped)."""
    if isinstance(node, dict):
        title = node.get("title")
        if isinstance(title, str):
            out.add(title)
        for key, value in node.items():
            if key not in ("const", "enum", "default", "examples"):
                _titles(value, out)
    elif isinstance(node, list):
        for value in node:
            _titles(value, out)
    return out


def _edges(defs: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for name, body in defs.items():
        targets = []
        for ref in _refs(body):
            target = ref[len(_PREFIX):] if ref.startswith(_PREFIX) else None
            if target is None or "/" in target or "~" in target or target not in defs:
                raise Fallback(ref)
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
    with classes of its own, each in ``defs`` order.  Raises :class:`Fallback` on a
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


def _remember(text: str, others: set[str], result: Split) -> None:
    _MEMO[text] = (",".join(sorted(others)), result)
    _MEMO.move_to_end(text)
    if len(_MEMO) > _MEMO_MAX:
        _MEMO.popitem(last=False)


def _memo_unit(unit: _Unit, others: set[str], run: Callable[[dict[str, Any]], str]) -> Split:
    """:func:`split` of DCG's output for the unit's document, memoised."""
    hit = _MEMO.get(unit.text)
    if hit is not None and hit[0] == ",".join(sorted(others)):
        _MEMO.move_to_end(unit.text)
        return hit[1]  # type: ignore[no-any-return]
    result = split(run(unit.doc), others)
    _remember(unit.text, others, result)
    return result


class _Unit(NamedTuple):
    names: list[str]  # the unit's classes
    needed: set[str]  # those and the shared classes they reach
    doc: dict[str, Any]  # {"$defs": the needed classes, in the document's order}
    text: str  # doc as JSON (key order included): the memo's key
    shared: bool  # the shared unit (always first)


_PLAIN_ROOT = frozenset({"type", "title", "description", "pattern", "minLength", "maxLength", "minimum", "maximum",
                         "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "default", "examples"})


def _plain_root(schema: Any) -> bool:
    """A schema DCG writes as ``RootModel`` of a builtin (imports from pydantic only)."""
    return (isinstance(schema, dict) and schema.keys() <= _PLAIN_ROOT
            and schema.get("type") in ("string", "integer", "number", "boolean"))


def _cut(source: str, plan: list[_Unit], cold: list[_Unit], defs: dict[str, Any], edges: dict[str, tuple[str, ...]],
         known: set[str], run: Callable[[dict[str, Any]], str]) -> list[tuple[_Unit, set[str], Split]]:
    """DCG's output for a document holding every class of the ``cold`` units (``source``) ->
    the :func:`split` result of each, with its ``others``, as DCG run on the unit's own
    document gives it (see the module docstring for what that relies on and checks).

    Raises :class:`Fallback` when the output does not look as expected; a unit whose part
    it cannot tell is left out (its own DCG run makes it), the shared unit then runs here,
    as the other units' memo keys hold its names.
    """
    stmts = statements(source)
    binding: dict[str, tuple[str, str, str | None]] = {}
    future: list[tuple[str, str, str | None]] = []
    order: list[str] = []  # modules as DCG lists them
    index: dict[str, int] = {}  # defined name -> its statement
    for i, st in enumerate(stmts):
        if st.kind == "import":
            for imp in st.imports:
                if imp[0] == "__future__":
                    if order:
                        raise Fallback("__future__ import after others")
                    future.append(imp)
                    continue
                bound = imp[2] or imp[1]
                if bound in binding or bound in index:
                    raise Fallback(bound)
                binding[bound] = imp
                if imp[0] not in order:
                    order.append(imp[0])
                elif order[-1] != imp[0]:
                    raise Fallback(imp[0])  # a module's names on two separate lines
        elif st.kind == "define":
            for name in st.names:
                if name in index or name in binding or name not in known:
                    raise Fallback(name)  # DCG made up or deduplicated a class name
                index[name] = i
    loads: dict[int, set[str]] = {}  # statement -> imported names it uses
    uses: dict[int, list[list[str]]] = {}  # statement -> their modules, see used_modules
    refs: dict[int, set[int]] = {}  # statement -> statements it names
    firsts: list[str] = []
    for i, st in enumerate(stmts):
        if st.kind != "import":
            names, loads[i], uses[i] = used_modules(st.node, binding)
            refs[i] = {index[n] for n in names if n in index and index[n] != i}
            for segment in uses[i]:
                firsts += [m for m in segment if m not in firsts]
    # a class DCG inlined (collapse_root_models) still counts in its import order, where the
    # output does not show: a plain one (a builtin's RootModel) can only move pydantic earlier
    inlined = {name for unit in cold for name in unit.needed if name not in index}
    plain = {name for name in inlined if _plain_root(defs[name])}
    if inlined and all(_plain_root(defs[name]) for name in inlined):
        firsts, order = [m for m in firsts if m != "pydantic"], [m for m in order if m != "pydantic"]
    if set().union(*loads.values()) != binding.keys() or (firsts != order and not inlined - plain):
        raise Fallback("imports")
    by_module: dict[str, list[tuple[str, str, str | None]]] = {}
    for imp in binding.values():
        by_module.setdefault(imp[0], []).append(imp)
    rebuilds = [(st.names[0], st.text) for st in stmts if st.kind == "rebuild"]
    shared: set[str] = set()
    if plan[0].shared and plan[0] not in cold:
        hit = _MEMO.get(plan[0].text)
        if hit is None:
            raise Fallback("shared unit")
        shared = hit[1][3]
    reached: set[int] = set()
    owner: dict[int, int] = {}
    out: list[tuple[_Unit, set[str], Split]] = []
    for k, unit in enumerate(cold):
        found = {index[n] for n in unit.needed if n in index}
        stack = list(found)
        while stack:
            for j in refs[stack.pop()] - found:
                found.add(j)
                stack.append(j)
        reached |= found
        others = shared | (unit.needed - set(unit.names))
        modules: list[str] = []
        body: list[str] = []
        own: set[str] = set()
        defined: set[str] = set()
        used: set[str] = set()
        clear = True
        for i in sorted(found):
            st = stmts[i]
            for segment in uses[i]:
                new = [m for m in segment if m not in modules]
                clear = clear and len(new) <= 1
                modules += new
            used |= loads[i]
            defined.update(st.names)
            if not set(st.names) & others:
                body.append(black_style(st.text))
                own.update(st.names)
                if owner.setdefault(i, k) != k:
                    raise Fallback(st.names)
            elif not set(st.names) <= others:
                raise Fallback(st.names)
        if unit.needed & inlined and (unit.needed & inlined - plain or modules[:1] not in ([], ["pydantic"])):
            clear = False
        if any(name not in index and not any(name in edges[m] for m in unit.needed if m != name) for name in unit.names):
            # a root class inlined where others use it, which its own document keeps
            if unit.shared:  # the other units' memo keys need the shared unit's own names
                shared = _memo_unit(unit, set(), run)[3]
            continue
        imports = list(future)
        for module in modules:
            imports += [imp for imp in by_module[module] if (imp[2] or imp[1]) in used]
        again = [text for name, text in rebuilds if name in defined and name not in others]
        if unit.shared:
            shared = own
        if clear:
            out.append((unit, others, (imports, body, again, own)))
    if reached != {i for i, st in enumerate(stmts) if st.kind == "define"}:
        raise Fallback("a statement no unit reaches")
    return out


_Entry = tuple[str, set[str], Split]  # a unit document's text, its others, its split()


def _seed(defs: dict[str, Any], edges: dict[str, tuple[str, ...]], plan: list[_Unit], cold: list[_Unit],
          run: Callable[[dict[str, Any]], str]) -> tuple[str, list[_Entry]]:
    """Run DCG once on the classes of the ``cold`` units; returns its output and each unit's
    part of it (:func:`_cut`), as if DCG had run on each, for the memo."""
    wanted = set().union(*(u.needed for u in cold))
    doc = {"$defs": {name: defs[name] for name in defs if name in wanted}}
    source = run(doc)
    try:
        entries = [(unit.text, others, result)
                   for unit, others, result in _cut(source, plan, cold, defs, edges, _titles(doc, set(wanted)), run)]
    except Exception:  # Fallback, or anything unforeseen: the units' own runs decide
        entries = []
    return source, entries


#: Cold units from which DCG runs on two halves at once (:mod:`.parallel`), when a CPU is idle.
MIN_BESIDE_UNITS = 40


def _halves(cold: list[_Unit]) -> tuple[list[_Unit], list[_Unit]]:
    """The cold units in two parts of about the same size (document text), each with the
    shared unit when it is cold (each part's cut needs it)."""
    shared = [u for u in cold if u.shared]
    groups = [u for u in cold if not u.shared]
    total, size, cut_at = sum(len(u.text) for u in groups), 0, len(groups)
    for k, unit in enumerate(groups):
        size += len(unit.text)
        if 2 * size >= total:
            cut_at = k + 1
            break
    return shared + groups[:cut_at], shared + groups[cut_at:]


def _seed_cold(defs: dict[str, Any], edges: dict[str, tuple[str, ...]], plan: list[_Unit], cold: list[_Unit],
               run: Callable[[dict[str, Any]], str]) -> str | None:
    """Fill the memo for the ``cold`` units: one DCG run on them all, or, for many units with
    a CPU idle, one on each half at once (:func:`.parallel.beside`).  Returns the single run's
    output (None after two halves)."""
    if len(cold) >= MIN_BESIDE_UNITS and spare_cpu():
        first, second = _halves(cold)
        if first and any(not u.shared for u in second):
            (_, mine), (_, theirs) = beside(lambda: _seed(defs, edges, plan, first, run),
                                            lambda: _seed(defs, edges, plan, second, run))
            for text, others, result in [*mine, *theirs]:
                _remember(text, others, result)
            return None
    source, entries = _seed(defs, edges, plan, cold, run)
    for text, others, result in entries:
        _remember(text, others, result)
    return source


def models_source(doc: dict[str, Any], groups: Iterable[Iterable[str]], run: Callable[[dict[str, Any]], str],
                  cut: bool = True) -> str:
    """``models.py``'s unformatted body for the model document ``doc`` (``{"$defs": ...}``);
    ``groups`` are the class names of each tool, template and prompt, in spec order.

    DCG (``run``) runs once on the classes of every unit the memo does not hold when there
    are two or more of them (a cold build: the whole document), else once per such unit;
    ``cut=False`` always runs it once per unit (the same bytes; the tests compare the two).
    """
    defs: dict[str, Any] = doc["$defs"]
    whole: str | None = None
    try:
        plan: list[_Unit] = []
        edges = _edges(defs)
        for k, names in enumerate(partition(defs, groups)):
            if names:
                needed = _reach(names, edges)
                sub = {"$defs": {name: defs[name] for name in defs if name in needed}}
                plan.append(_Unit(names, needed, sub, json.dumps(sub, ensure_ascii=False), k == 0))
        cold = [unit for unit in plan if unit.text not in _MEMO]
        if cut and len(cold) > 1:
            source = _seed_cold(defs, edges, plan, cold, run)
            if source is not None and set(doc) == {"$defs"} and len(set().union(*(u.needed for u in cold))) == len(defs):
                whole = source
        imports: list[tuple[str, str, str | None]] = []
        body: list[str] = []
        rebuilds: list[str] = []
        shared: set[str] = set()  # names the shared unit's statements define (nested classes too)
        defined: set[str] = set()
        for unit in plan:
            more, stmts, again, own = _memo_unit(unit, shared | (unit.needed - set(unit.names)), run)
            if unit.shared:
                shared = own
            if own & defined:  # a class DCG named itself in two units: its own run on the whole
                raise Fallback(sorted(own & defined))  # document keeps the names apart
            defined |= own
            imports += more
            body += stmts
            rebuilds += again
    except (Fallback, SyntaxError):
        return whole if whole is not None else run(doc)
    text = "\n".join(import_lines(imports)) + "\n\n\n" + "\n\n\n".join(body) + "\n"
    if rebuilds:
        text += "\n\n" + "\n".join(rebuilds) + "\n"
    return text
