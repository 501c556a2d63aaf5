"""Request-side ``TypedDict`` s: the dict form of each object a tool's arguments reach.

Written at the end of ``models.py``, after the models: ``class PlaceOrderItemDict(TypedDict)``
beside ``class PlaceOrderItem(BaseModel)``, keys as on the wire, the ``required`` ones plain
and the others ``NotRequired[...]``; a string enum reads ``Unit | Literal["a", "b"]``, a nested
object ``ChildDict | Child``.  The client methods take ``ChildDict | Child`` for such an
argument, so ``mypy --strict`` rejects a dict literal with a wrong nested type, a missing
required key or an unknown key.  They are typing only: at run time the arguments are checked
against the schema as before.

A schema a ``TypedDict`` cannot state exactly keeps ``Mapping[str, Any]`` for that node: extra
keys allowed explicitly (``additionalProperties: true`` or a schema), ``patternProperties``,
``anyOf``/``oneOf``/``allOf`` beside the properties, or a key that is not a Python identifier.
(``additionalProperties`` left out is taken as closed here: an unknown key is almost always a
typo, and the model still accepts it.)
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Callable
from typing import Any

from mcp_codegen_runtime.schema.nulls import allows_null

from ..ir.nodes import ParamIR, ProjectIR
from ..ir.typeddicts import class_schemas
from ..schemas.exactness import OPEN
from .titles import ast_lines

_NOT_EXACT = ("patternProperties", "anyOf", "oneOf", "allOf", "if", "dependentSchemas", "unevaluatedProperties")


def exact(schema: dict[str, Any], fields: tuple[ParamIR, ...]) -> bool:
    """Whether a ``TypedDict`` of ``fields`` says exactly what ``schema`` accepts as an object."""
    if schema.get(OPEN) or schema.get("additionalProperties", True) not in (True, False):  # extra keys allowed explicitly
        return False
    if any(k in schema for k in _NOT_EXACT):
        return False
    props = schema.get("properties")
    if not isinstance(props, dict) or not fields:
        return False
    return all(isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k) for k in props) and \
        {p.wire for p in fields} == set(props)


def typed_dicts(ir: ProjectIR, fields: dict[str, tuple[ParamIR, ...]]) -> dict[str, str]:
    """Object model class -> its ``TypedDict`` class, for the classes whose schema it states exactly."""
    schemas = class_schemas(ir.model_schema)
    return {cls: name for cls, name in ir.typed_dicts
            if cls in schemas and cls in fields and exact(schemas[cls], fields[cls])}


def typed_dict_source(ir: ProjectIR, fields: dict[str, tuple[ParamIR, ...]], chosen: dict[str, str],
                      widen: Callable[[str], str]) -> str:
    """The ``TypedDict`` classes of ``chosen`` (``widen`` rewrites a field's annotation for callers)."""
    schemas = class_schemas(ir.model_schema)
    out: list[str] = []
    for cls, name in chosen.items():
        schema = schemas[cls]
        props = schema["properties"]
        lines = [f"class {name}(TypedDict):", f'    """The dict form of :class:`{cls}` (typing only)."""', ""]
        for p in fields[cls]:
            sub = props.get(p.wire, {})
            annotation = p.annotation
            if p.default is not None and not allows_null(sub, ir.model_schema):
                annotation = _without_none(annotation)
            annotation = widen(annotation)
            lines.append(f"    {p.wire}: {annotation if p.default is None else f'NotRequired[{annotation}]'}")
        out.append("\n".join(lines))
    return "\n\n\n".join(_black_style(text) for text in out)


def _black_style(cls: str) -> str:
    """One ``TypedDict`` class as black writes it: its literals quoted as black quotes them
    (``ast.unparse`` writes ``'a'``), and black itself only when a line does not fit (long
    unions wrapped as black wraps them).  Black formats each top-level class the same way
    whatever stands around it, so class by class is black on all of them; the full-module
    check of ``tests/generator/test_trusted_format.py`` holds it to that."""
    from ..render.blackstyle import double_quotes

    text = double_quotes(cls) if "'" in cls else cls
    if _plainly_fits(text):
        return text
    import black  # the mode of codegen/output/format.py (a later stage)

    mode = black.Mode(target_versions={black.TargetVersion.PY311}, line_length=100, magic_trailing_comma=True)
    return black.format_str(cls, mode=mode).rstrip("\n")


def _plainly_fits(text: str) -> bool:
    """True when no line of ``text`` can need black: ASCII (a column per character), at most
    100 columns, no trailing whitespace.  Stricter than ``codegen.output.trust.fits`` (a later
    stage), so anything else just goes through black, which gives the same bytes."""
    return text.isascii() and all(len(line) <= 100 and not line[-1:].isspace() for line in text.split("\n"))


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


def _without_none(annotation: str) -> str:
    members = [m for m in _union_members(ast.parse(annotation, mode="eval").body)
               if not (isinstance(m, ast.Constant) and m.value is None)]
    return " | ".join(ast.unparse(m) for m in members) if members else "None"


def with_typed_dicts(source: str, body: str, tree: ast.Module | None = None) -> str:
    """``source`` (models.py's body) with ``body`` after it and the typing imports it needs
    (``tree``: ``source`` parsed, when the caller has it)."""
    if not body:
        return source
    tree = tree or ast.parse(source)
    last = 0
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            last = node.end_lineno or node.lineno
        else:
            break
    lines = ast_lines(source)  # as ast numbers them (a string may hold U+2028)
    wanted = {n for n in ("Any", "Literal") if re.search(rf"\b{n}\b", body)}
    have = {a.name for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "typing" for a in n.names}
    imports = f"from typing import {', '.join(sorted(wanted - have))}\n" if wanted - have else ""
    # typing_extensions' TypedDict (a pydantic dependency): pydantic validates only that one on Python < 3.12
    extensions = sorted({n for n in ("NotRequired",) if re.search(rf"\b{n}\b", body)} | {"TypedDict"})
    imports += f"from typing_extensions import {', '.join(extensions)}\n"
    if "Mapping[" in body and "Mapping" not in {a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}:
        imports = "from collections.abc import Mapping\n" + imports
    return "".join(lines[:last]) + imports + "".join(lines[last:]).rstrip("\n") + "\n\n\n" + body + "\n"
