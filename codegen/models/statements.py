"""DCG's output read back as top-level statements: imports, class and assignment
definitions, ``X.model_rebuild()`` lines; which names each statement defines and reads, and
which imported modules it uses in the order DCG lists them (what :mod:`.units` relies on to
cut one DCG run into the parts of several units).  Each kept statement is rewritten closer
to black's style (:mod:`codegen.render.blackstyle`)."""

from __future__ import annotations

import ast

from ..render.blackstyle import AST_LINE, black_style


class Fallback(Exception):
    """The document or DCG's output is not in the shape :mod:`.units` cuts."""


Split = tuple[list[tuple[str, str, str | None]], list[str], list[str], set[str]]


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


class _Statement:
    """One top-level statement of DCG's output: ``kind`` is ``"import"``, ``"rebuild"`` (an
    ``X.model_rebuild()`` line, ``names`` is ``(X,)``) or ``"define"``."""

    __slots__ = ("kind", "names", "node", "text", "imports")

    def __init__(self, kind: str, names: tuple[str, ...], node: ast.stmt, text: str,
                 imports: list[tuple[str, str, str | None]]) -> None:
        self.kind, self.names, self.node, self.text, self.imports = kind, names, node, text, imports


def statements(source: str) -> list[_Statement]:
    """DCG output -> its top-level statements; raises :class:`Fallback` on one this module
    does not place (and ``SyntaxError``)."""
    tree = ast.parse(source)
    lines = AST_LINE.findall(source)
    out: list[_Statement] = []
    for node in tree.body:
        text = "".join(lines[node.lineno - 1 - len(getattr(node, "decorator_list", ())):node.end_lineno]).rstrip("\n")
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append(_Statement("import", (), node, text, [(node.module, a.name, a.asname) for a in node.names]))
            continue
        if isinstance(node, ast.Import) and all(a.asname is None and "." not in a.name for a in node.names):
            out.append(_Statement("import", (), node, text, [("", a.name, None) for a in node.names]))
            continue
        rebuilt = _is_rebuild(node)
        if rebuilt is not None:
            out.append(_Statement("rebuild", (rebuilt,), node, text, []))
            continue
        names = _statement_names(node)
        if names is None or getattr(node, "decorator_list", None):
            raise Fallback(type(node).__name__)
        out.append(_Statement("define", names, node, text, []))
    return out


def split(source: str, others: set[str]) -> Split:
    """DCG output -> imports as (module, name, asname), the statements defining names not
    in ``others`` (the unit's own classes, nested ones included), their
    ``model_rebuild()`` lines, and the names those statements define."""
    imports: list[tuple[str, str, str | None]] = []
    body: list[str] = []
    rebuilds: list[str] = []
    own: set[str] = set()
    for st in statements(source):
        if st.kind == "import":
            imports += st.imports
        elif st.kind == "rebuild":
            if st.names[0] not in others:
                rebuilds.append(st.text)
        elif not set(st.names) & others:
            body.append(black_style(st.text))
            own.update(st.names)
        elif not set(st.names) <= others:
            raise Fallback(st.names)
    return imports, body, rebuilds, own


def import_lines(imports: list[tuple[str, str, str | None]]) -> list[str]:
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


def _loads(node: ast.AST) -> list[ast.Name]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def used_modules(node: ast.stmt, binding: dict[str, tuple[str, str, str | None]]) -> tuple[set[str], set[str], list[list[str]]]:
    """The names ``node`` reads; the imported ones; and their modules as DCG first lists them:
    one list per field of a class, in field order, then one for the class itself (bases,
    ``model_config``, members), each in text order (one list for any other statement)."""
    names = _loads(node)
    read = {n.id for n in names}
    used = read & binding.keys()
    if not used:
        return read, used, []
    if isinstance(node, ast.ClassDef):
        fields = [stmt for stmt in node.body if isinstance(stmt, ast.AnnAssign)]
        parts = [_loads(f) for f in fields]
        inside = {id(n) for part in parts for n in part}
        parts.append([n for n in names if id(n) not in inside])
    else:
        parts = [names]
    segments = []
    for part in parts:
        part.sort(key=lambda n: (n.lineno, n.col_offset))
        segments.append(list(dict.fromkeys(binding[n.id][0] for n in part if n.id in used)))
    return read, used, segments
