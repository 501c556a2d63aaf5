"""Scalar branches of a union as plain values: ``author: str | Person``, not ``Author | Person``.

datamodel-code-generator writes a constrained scalar branch of a ``oneOf``/``anyOf``
(``{type: string, minLength: 1}``) as a ``RootModel[str]`` class, so the handler got an
``Author`` whose text is ``.root`` beside a ``Person``, and ``isinstance(args.author, str)`` was
false.  :func:`inline_scalar_roots` rewrites each such union member into
``Annotated[str, Field(min_length=1)]`` (pydantic checks the same constraints; the value is a
plain ``str``) and drops the class when nothing else uses it.  A scalar root model outside a
union (constrained list items: ``list[TagItem]``) is left as it is.
"""

from __future__ import annotations

import ast
import re

from .titles import ast_lines

_SCALARS = frozenset({"str", "int", "float", "bool"})


def _scalar_roots(tree: ast.Module) -> dict[str, tuple[ast.ClassDef, str]]:
    """Class name -> (its statement, the annotation that replaces it) of every ``RootModel``
    of a plain scalar whose body is its ``root`` field (and perhaps a docstring)."""
    out: dict[str, tuple[ast.ClassDef, str]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.ClassDef) and len(node.bases) == 1 and isinstance(node.bases[0], ast.Subscript)):
            continue
        base = node.bases[0]
        if getattr(base.value, "id", "") != "RootModel" or not (isinstance(base.slice, ast.Name) and base.slice.id in _SCALARS):
            continue
        body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.AnnAssign) or getattr(body[0].target, "id", "") != "root":
            continue
        kind, value = base.slice.id, body[0].value
        if value is None:
            out[node.name] = (node, kind)
        elif isinstance(value, ast.Call) and getattr(value.func, "id", "") == "Field" and all(
                isinstance(a, ast.Constant) and a.value is Ellipsis for a in value.args):
            keywords = ", ".join(ast.unparse(k) for k in value.keywords)
            out[node.name] = (node, f"Annotated[{kind}, Field({keywords})]" if keywords else kind)
    return out


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


def _in_unions(annotation: ast.expr, names: set[str]) -> list[ast.Name]:
    """The ``Name`` nodes of ``names`` that are members of a union anywhere in ``annotation``."""
    found: list[ast.Name] = []
    for node in ast.walk(annotation):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            found += [m for m in _union_members(node) if isinstance(m, ast.Name) and m.id in names and m not in found]
    return found


def _with_import(source: str, module: str, name: str) -> str:
    """``source`` importing ``name`` from ``module`` (added to that module's import line)."""
    line = re.search(rf"^from {re.escape(module)} import (.+)$", source, re.MULTILINE)
    if line is None:
        first = re.search(r"^from (?!__future__)\S+ import ", source, re.MULTILINE)
        at = first.start() if first else 0
        return source[:at] + f"from {module} import {name}\n" + source[at:]
    names = [n.strip() for n in line.group(1).split(",")]
    if name in names:
        return source
    return source[:line.start(1)] + ", ".join(sorted([*names, name])) + source[line.end(1):]


def inline_scalar_roots(source: str) -> str:
    """``source`` (models.py's body) with every scalar ``RootModel`` used as a union member
    written as its annotated scalar there, and the classes nothing uses any more dropped."""
    tree = ast.parse(source)
    roots = _scalar_roots(tree)
    if not roots:
        return source
    edits: list[tuple[int, int, int, str]] = []  # (line, start byte, end byte, text)
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef) or cls.name in roots:
            continue
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign):
                for name in _in_unions(stmt.annotation, set(roots)):
                    assert name.end_lineno == name.lineno and name.end_col_offset is not None
                    edits.append((name.lineno, name.col_offset, name.end_col_offset, roots[name.id][1]))
    if not edits:
        return source
    lines = ast_lines(source)
    for lineno, start, end, text in sorted(edits, reverse=True):
        raw = lines[lineno - 1].encode("utf-8")
        lines[lineno - 1] = (raw[:start] + text.encode("utf-8") + raw[end:]).decode("utf-8")
    source = "".join(lines)
    tree = ast.parse(source)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    lines = ast_lines(source)
    for node in sorted((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name in roots and n.name not in used),
                       key=lambda n: n.lineno, reverse=True):
        start = node.lineno - 1 - len(node.decorator_list)
        end = node.end_lineno or node.lineno
        while end < len(lines) and not lines[end].strip():
            end += 1  # the blank lines after it
        del lines[start:end]
    source = "".join(lines)
    if "Annotated[" in source:
        source = _with_import(source, "typing", "Annotated")
    if not re.search(r"\bRootModel\[", source):
        source = re.sub(r"^(from pydantic import .*?)(, RootModel\b|\bRootModel, )", r"\1", source, count=1, flags=re.MULTILINE)
    return source
