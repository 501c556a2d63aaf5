"""DCG writes ``Field(title="...")`` for every property whose schema has a ``title``, and the
model document gives inline objects and enums a ``title`` only to tell DCG their class name
(the naming service's decision).  :func:`drop_field_titles` removes that keyword from DCG's
output: the class name stays, the noise goes (a field's title is not checked by validation)."""

from __future__ import annotations

import ast
import re
import unicodedata

from .statements import Fallback


def ast_lines(source: str) -> list[str]:
    """``source``'s lines with their ends, split where Python's tokenizer splits them (``\n``,
    ``\r\n``, ``\r``): ``str.splitlines`` also splits at U+2028, form feeds and the like,
    which a string literal may hold, and ast's line numbers would no longer match."""
    return [line for line in re.split(r"(?<=\n)|(?<=\r)(?!\n)", source) if line]


def _offsets(source: str) -> list[int]:
    """The UTF-8 byte offset where each line starts (ast's ``col_offset`` counts UTF-8 bytes)."""
    starts, total = [0], 0
    for line in ast_lines(source):
        total += len(line.encode("utf-8"))
        starts.append(total)
    return starts


_SIMPLE = (ast.Assign, ast.Expr, ast.Import, ast.ImportFrom, ast.Pass)  # statements holding no AnnAssign
_FIELD = re.compile(r"\bField\b")


def _annotated_fields(tree: ast.Module) -> list[ast.AnnAssign]:
    """The ``AnnAssign`` statements of ``tree``: those of the module and class bodies (all DCG
    writes), or every one ``ast.walk`` finds when a body holds another compound statement."""
    found: list[ast.AnnAssign] = []
    bodies = [tree.body]
    while bodies:
        for node in bodies.pop():
            if isinstance(node, ast.AnnAssign):
                found.append(node)
            elif isinstance(node, ast.ClassDef):
                bodies.append(node.body)
            elif not isinstance(node, _SIMPLE):
                return [n for n in ast.walk(tree) if isinstance(n, ast.AnnAssign)]
    return found


def drop_field_titles(source: str) -> str:
    """``source`` without the ``title=`` keyword of its ``Field(...)`` calls (one parse: see
    :func:`_without_unused_field_import` for when a second one is needed)."""
    if "title=" not in source:
        return source
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:  # DCG's output always parses; say so loudly if not
        raise Fallback(str(exc)) from exc
    data = source.encode("utf-8")
    starts = _offsets(source)

    def at(line: int, col: int) -> int:
        return starts[line - 1] + col

    edits: list[tuple[int, int, bytes]] = []
    field_left = False  # a ``Field(...)`` call is still in the output
    for node in _annotated_fields(tree):
        call = node.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Field"):
            continue
        if not any(kw.arg == "title" for kw in call.keywords):
            field_left = True
            continue
        kept: list[ast.expr | ast.keyword] = [*call.args, *(kw for kw in call.keywords if kw.arg != "title")]
        begin, end = at(call.lineno, call.col_offset), at(call.end_lineno or call.lineno, call.end_col_offset or 0)
        only = kept[0] if len(kept) == 1 else None
        value = only.value if isinstance(only, ast.keyword) and only.arg == "default" else only
        if isinstance(value, ast.Constant) and value.value is Ellipsis and not isinstance(only, ast.keyword):
            annotation = node.annotation
            edits.append((at(annotation.end_lineno or annotation.lineno, annotation.end_col_offset or 0), end, b""))
        elif isinstance(value, ast.keyword) or value is None or not isinstance(value, ast.Constant | ast.Name):
            # ``Field(default_factory=list)``, ``Field(alias="a")``, several arguments, a call: Field stays
            parts = [data[at(k.lineno, k.col_offset):at(k.end_lineno or k.lineno, k.end_col_offset or 0)] for k in kept]
            edits.append((begin, end, b"Field(" + b", ".join(parts) + b")"))
            field_left = True
        else:  # ``Field(default=None, title=...)`` -> ``None``
            edits.append((begin, end, data[at(value.lineno, value.col_offset):
                                           at(value.end_lineno or value.lineno, value.end_col_offset or 0)]))
    pieces, last = [], len(data)
    for begin, end, text in sorted(edits, reverse=True):
        pieces += [data[end:last], text]
        last = begin
    out = (data[:last] + b"".join(reversed(pieces))).decode("utf-8")
    if field_left:
        return out
    first_edit = min((begin for begin, _, _ in edits), default=len(data))
    return _without_unused_field_import(out, tree, starts, first_edit)


def _without_unused_field_import(source: str, tree: ast.Module, starts: list[int], first_edit: int) -> str:
    """``from pydantic import ..., Field`` loses ``Field`` when no call is left (as DCG would write it).

    ``tree`` is the parse of the text before the edits, which all begin at byte ``first_edit``
    or later: an import ending before that stands on the same lines in ``source``.  When the
    word ``Field`` occurs nowhere outside that import, no name ``Field`` is left; when it does
    (in an annotation's ``Field(...)``, a string, ...), ``source`` is parsed again to tell.
    """
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "pydantic" and any(a.name == "Field" for a in node.names):
            end = node.end_lineno or node.lineno
            if starts[end] > first_edit:
                break
            lines = ast_lines(source)
            before, after = "".join(lines[:node.lineno - 1]), "".join(lines[end:])
            if _mentions_field(before) or _mentions_field(after):
                break
            kept = [a for a in node.names if a.name != "Field"]
            text = f"from pydantic import {', '.join(a.name for a in kept)}\n" if kept else ""
            return before + text + after
    else:
        return source  # no Field import to drop
    return _reparsed_without_field_import(source)


def _mentions_field(text: str) -> bool:
    """The word ``Field`` in ``text``, identifiers read as Python reads them (NFKC: ``𝐅ield``)."""
    return bool(_FIELD.search(text if text.isascii() else unicodedata.normalize("NFKC", text)))


def _reparsed_without_field_import(source: str) -> str:
    """:func:`_without_unused_field_import` by a new parse of ``source``."""
    tree = ast.parse(source)
    if any(isinstance(n, ast.Name) and n.id == "Field" for n in ast.walk(tree)):
        return source
    lines = ast_lines(source)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "pydantic" and any(a.name == "Field" for a in node.names):
            kept = [a for a in node.names if a.name != "Field"]
            end = node.end_lineno or node.lineno
            text = f"from pydantic import {', '.join(a.name for a in kept)}\n" if kept else ""
            return "".join(lines[:node.lineno - 1]) + text + "".join(lines[end:])
    return source
