"""Black one unit at a time: the same bytes as black on the whole file, for less work.

A generated module is mostly a row of top-level classes, functions or assignments (the
tool table), and a client or server class is mostly a row of methods.  Black formats each of
them the same way wherever it stands, and the blank lines it puts between them follow from
the source alone (two before a top-level class or function, one before a method, the
source's own count, at most two, between two top-level assignments).  :func:`split` cuts a
module's unformatted text where that holds, so that

    black(whole file) == units[0] + sep1 + units[1] + sep2 + ...   (each unit black-formatted)

and :func:`format_units` formats only units it has not seen in this process (a ``--watch``
rebuild after editing one tool re-formats that tool's units only).  A method is formatted
inside a one-line wrapper class (``class _:``), so its depth, and with it every
line-length decision black makes, is unchanged.  Consecutive units of one kind form a
*run*; black formats a run in one call (black costs about a millisecond per call besides
the text) and the result is cut back into units at the same statements (parsed with
``ast``; when black left the run's text exactly as it was, each unit is its own output and
nothing is parsed), so a cold build pays little more than black on the whole file, and can
spread the runs over processes.

Black decides the blank lines before a ``def``/``class``/decorator line from the line
before it (``EmptyLineTracker`` in black's ``lines.py``).  The count is fixed unless that
line is a decorator, a comment, or the opening line of the enclosing block, or unless the
source had no blank line there (black then keeps a ``def`` right after a one-line stub).
So a cut is made only before a class, function or decorator line that follows at least one
blank line, whose previous non-blank line is not a comment, and that is not the first
statement of its block.  Before any other line black keeps the source's blank lines (at
most two at module level) unless the line before is an import, a docstring or the end of a
class or function; so a top-level assignment is cut from the assignment before it under the
same blank-line and comment conditions.  Sources with ``fmt:`` directives, form feeds, ``\\r`` or a
``# type:`` comment are not cut at all.  ``tests/generator/test_fmtunits.py`` checks the
identity on every generated example and on hand-written edge cases.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

#: What methods are formatted inside (depth 1, as in the generated class).
WRAPPER = "class _:\n"
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
Black = Callable[[str], str]


@dataclass(frozen=True)
class Run:
    """Consecutive units of one kind: top-level statements, or methods of one class.

    ``units`` are the unformatted texts; ``firsts[k]`` is the index of unit k's first
    statement among the run's statements (module body, or the class body for methods);
    ``seps[k]`` is what black puts before unit k (its blank lines; empty for the first unit
    of the file).
    """

    method: bool
    units: tuple[str, ...]
    firsts: tuple[int, ...]
    seps: tuple[str, ...]

    def part(self, a: int, b: int) -> Run:
        """Units ``a`` to ``b`` (exclusive) as a run of their own."""
        base = self.firsts[a]
        return Run(self.method, self.units[a:b], tuple(f - base for f in self.firsts[a:b]), self.seps[a:b])


def _start(node: ast.stmt) -> int:
    """First line (1-based) of a statement, decorators included."""
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decorators)])


def _blank_lines_before(lines: list[str], start: int) -> int:
    """Blank lines right before line ``start`` (1-based), or 0 when the nearest non-blank
    line above is a comment (or there is none): no cut there."""
    k = start - 2
    while k >= 0 and not lines[k].strip():
        k -= 1
    if k < 0 or lines[k].lstrip().startswith("#"):
        return 0
    return start - 2 - k


_ASSIGN = (ast.Assign, ast.AnnAssign)


def _cuts(lines: list[str], body: list[ast.stmt], depth: int) -> list[tuple[int, str]]:
    """(index, separator) of the statements of ``body`` (after the first) that units may
    start at (see the module doc).

    * a class, function or decorator line after at least one blank line: black puts two
      blank lines before it at module level, one in a class;
    * at module level, an assignment right after another assignment, after k >= 1 blank
      lines: black keeps min(k, 2) of them.
    """
    out: list[tuple[int, str]] = []
    for i, node in enumerate(body[1:], 1):
        blank = _blank_lines_before(lines, _start(node))
        if not blank:
            continue
        if isinstance(node, _DEFS):
            out.append((i, "\n" if depth else "\n\n"))
        elif not depth and isinstance(node, _ASSIGN) and isinstance(body[i - 1], _ASSIGN):
            out.append((i, "\n" * min(blank, 2)))
    return out


def _text(lines: list[str], a: int, b: int) -> str:
    return "".join(lines[a - 1:b - 1])


def parse(source: str) -> ast.Module | None:
    """``source`` parsed, or None when it is not cut (see the module doc) or does not parse."""
    if any(mark in source for mark in ("fmt:", "\f", "\r", "# type:")):
        return None
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def split(source: str, tree: ast.Module | None = None) -> list[Run] | None:
    """The runs of ``source`` in order, or None when it is not cut (see the module doc);
    ``tree``: ``source`` already :func:`parse` d."""
    tree = tree or parse(source)
    if tree is None:
        return None
    body = tree.body
    lines = source.splitlines(keepends=True)
    end = len(lines) + 1
    top = [(0, ""), *_cuts(lines, body, 0)]
    starts = [_start(n) for n in body]
    runs: list[Run] = []
    units: list[str] = []
    firsts: list[int] = []
    seps: list[str] = []

    def flush() -> None:
        if units:
            runs.append(Run(False, tuple(units), tuple(f - firsts[0] for f in firsts), tuple(seps)))
            units.clear(), firsts.clear(), seps.clear()

    for k, (i, sep) in enumerate(top):
        stop = top[k + 1][0] if k + 1 < len(top) else len(body)
        a, b = (1 if i == 0 else starts[i]), (starts[stop] if stop < len(body) else end)
        node = body[i]
        inner = _cuts(lines, node.body, 1) if i and stop == i + 1 and isinstance(node, ast.ClassDef) else []
        units.append(_text(lines, a, _start(node.body[inner[0][0]]) if inner else b))
        firsts.append(i)
        seps.append(sep)
        if not inner:
            continue
        flush()  # the class line and its body up to the first cut end this run; its methods follow
        bounds = [_start(node.body[j]) for j, _ in inner] + [b]
        runs.append(Run(True, tuple(_text(lines, x, y) for x, y in zip(bounds, bounds[1:], strict=False)),
                        tuple(j - inner[0][0] for j, _ in inner), tuple(s for _, s in inner)))
    flush()
    return runs


def join(runs: list[tuple[Run, list[str]]]) -> str:
    """Formatted units back into one module, each after its separator (see :class:`Run`)."""
    return "".join(sep + text for run, texts in runs for sep, text in zip(run.seps, texts, strict=True))


#: black -> black's single pass (``format_str`` is one pass, and a second one when the
#: first changed anything), registered by :func:`single_pass`.
_ONCE: dict[Black, Black] = {}


def single_pass(black: Black, once: Black) -> None:
    """Tell :func:`format_run` that ``black(text)`` is ``once(text)`` when that returns
    ``text`` unchanged, else ``once(once(text))`` (what black's ``format_str`` does)."""
    _ONCE[black] = once


def _cut(run: Run, out: str) -> list[str]:
    """``out`` (black's output for ``run``) cut back into the run's units."""
    body = ast.parse(out).body
    if run.method:
        if not out.startswith(WRAPPER) or len(body) != 1 or not isinstance(body[0], ast.ClassDef):
            raise ValueError("black changed the method wrapper")
        body = body[0].body
    lines = out.splitlines(keepends=True)
    bounds = [_start(body[i]) for i in run.firsts]
    bounds[0] = 2 if run.method else 1
    bounds.append(len(lines) + 1)
    pieces = [_text(lines, a, b).rstrip("\n") + "\n" for a, b in zip(bounds, bounds[1:], strict=False)]
    rebuilt = pieces[0] + "".join(sep + piece for sep, piece in zip(run.seps[1:], pieces[1:], strict=True))
    if rebuilt != out[len(WRAPPER) if run.method else 0:]:
        raise ValueError("black's output does not cut into the same units")
    return pieces


def _black(run: Run, black: Black) -> list[str]:
    text = (WRAPPER if run.method else "") + "".join(run.units)
    out = black(text)
    if out == text:  # nothing to change: each unit is its own output (when they join back the same way)
        pieces = [unit.rstrip("\n") + "\n" for unit in run.units]
        if pieces[0] + "".join(sep + piece for sep, piece in zip(run.seps[1:], pieces[1:], strict=True)) == "".join(run.units):
            return pieces
    return _cut(run, out)


def format_run(run: Run, black: Black) -> list[str]:
    """The formatted units of ``run``, from one black call cut at the same statements.

    With a single pass registered (:func:`single_pass`), the second pass black makes after
    a first one that changed something is made only on the units the first pass changed:
    a unit the first pass left as it was is already black's output (generated code that
    is written in black's style costs black one pass instead of two).

    Raises:
        ValueError: the output could not be cut back (never expected; the caller then
            formats the whole file).
    """
    once = _ONCE.get(black)
    if once is None:
        return _black(run, black)
    first = _black(run, once)
    changed = [i for i, unit in enumerate(run.units) if first[i] != unit.rstrip("\n") + "\n"]
    out = list(first)
    k = 0
    while k < len(changed):  # each block of consecutive changed units: one more pass
        a = b = changed[k]
        while k < len(changed) and changed[k] == b:
            k, b = k + 1, b + 1
        part = run.part(a, b)
        units = tuple(first[i] + (run.seps[i + 1] if i + 1 < b else "") for i in range(a, b))
        out[a:b] = _black(Run(run.method, units, part.firsts, part.seps), once)
    return out


#: (formatter, is a method, unformatted unit) -> formatted unit
_MEMO: dict[tuple[Black, bool, str], str] = {}
_memo_size = 0
#: Characters the memo may hold before it is emptied (a long ``--watch`` session stays bounded).
MEMO_LIMIT = 128 * 1024 * 1024
#: A run is formatted whole when more than this share of its units is new (else unit by unit).
WHOLE_RUN_SHARE = 0.25


def _one(run: Run, i: int, black: Black) -> str:
    """Unit ``i`` of ``run`` formatted on its own (remembered)."""
    unit = run.units[i]
    text = _MEMO.get((black, run.method, unit))
    if text is None:
        part = run.part(i, i + 1)
        text = format_run(part, black)[0]
        _remember(black, part, [text])
    return text


def _remember(black: Black, run: Run, texts: list[str]) -> None:
    global _memo_size
    if _memo_size > MEMO_LIMIT:
        _MEMO.clear()
        _memo_size = 0
    for unit, text in zip(run.units, texts, strict=True):
        _MEMO[(black, run.method, unit)] = text
        _memo_size += len(unit) + len(text)


def format_units(source: str, black: Black, many: Callable[[list[Run]], list[list[str]]] | None = None,
                 trusted: Callable[[str], bool] | None = None, tree: ast.Module | None = None) -> str:
    """``black(source)``, from formatted units; units seen before in this process are reused.

    Args:
        source: an unformatted module.
        black: formats a whole module (black's ``format_str`` with the one mode).
        many: formats several runs at once (e.g. in worker processes); given the runs that
            are formatted whole, when there are several.
        trusted: says which units are written in black's style already
            (:func:`codegen.output.trust.fits`): those are kept as they are (only the blank
            lines between units are black's), and black formats the others, each in its
            context.  A source that is not cut is then formatted whole.
        tree: ``source`` already :func:`parse` d (the caller compiles it when nothing changed).
    """
    runs = split(source, tree)
    if runs is None:
        return black(source)
    done: list[tuple[Run, list[str]]] = []
    whole: list[tuple[int, Run]] = []
    for run in runs:
        if trusted is not None:
            done.append((run, [unit.rstrip("\n") + "\n" if trusted(unit) else _one(run, i, black)
                               for i, unit in enumerate(run.units)]))
            continue
        found = [_MEMO.get((black, run.method, unit)) for unit in run.units]
        new = [i for i, text in enumerate(found) if text is None]
        if len(new) > WHOLE_RUN_SHARE * len(run.units):
            whole.append((len(done), run))
            done.append((run, []))
            continue
        texts = [text or "" for text in found]
        for i in new:
            texts[i] = format_run(run.part(i, i + 1), black)[0]
            _remember(black, run.part(i, i + 1), [texts[i]])
        done.append((run, texts))
    if whole:
        results = many([r for _, r in whole]) if many is not None else [format_run(r, black) for _, r in whole]
        for (slot, run), texts in zip(whole, results, strict=True):
            _remember(black, run, texts)
            done[slot] = (run, texts)
    return join(done)
