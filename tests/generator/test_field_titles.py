"""models/titles.py: Field(title=...) is dropped at the right place whatever the text holds."""

from __future__ import annotations

from codegen.models.titles import ast_lines, drop_field_titles


def test_lines_split_where_python_splits_them() -> None:
    assert ast_lines("a\nb\r\nc\rd\u2028e\x0cf\x1cg\n") == ["a\n", "b\r\n", "c\r", "d\u2028e\x0cf\x1cg\n"]


def test_titles_drop_after_strings_holding_line_separators_and_multibyte_text() -> None:
    source = (
        "from pydantic import BaseModel, Field\n\n\n"
        "class A(BaseModel):\n"
        '    doc: str = Field("x\u2028y\u0085z\x0c\u00e9\U0001f600", title="Doc")\n'
        '    n: int = Field(..., title="N")\n'
        '    m: int | None = Field(default=None, title="M")\n'
    )
    out = drop_field_titles(source)
    assert "title=" not in out
    assert '    doc: str = "x\u2028y\u0085z\x0c\u00e9\U0001f600"\n' in out
    assert "    n: int\n" in out and "    m: int | None = None\n" in out
    compile(out, "models.py", "exec")


def test_a_lone_keyword_other_than_default_keeps_its_field_call() -> None:
    source = (
        "from pydantic import BaseModel, Field\n\n\n"
        "class A(BaseModel):\n"
        '    xs: list[int] = Field(default_factory=list, title="Xs")\n'
        '    b: int = Field(alias="B", title="B")\n'
        '    c: int = Field(3, title="C")\n'
        '    d: int = Field(3, ge=1, title="D")\n'
    )
    out = drop_field_titles(source)
    assert "title=" not in out
    assert "    xs: list[int] = Field(default_factory=list)\n" in out
    assert '    b: int = Field(alias="B")\n' in out
    assert "    c: int = 3\n" in out and "    d: int = Field(3, ge=1)\n" in out
    namespace: dict[str, object] = {}
    exec(compile(out, "models.py", "exec"), namespace)
    model = namespace["A"]
    assert model(B=1).xs == []  # type: ignore[operator, attr-defined]


def _reference(source: str) -> str:
    """drop_field_titles as it was before the one-pass rewrite (two parses, ast.walk), verbatim."""
    import ast

    from codegen.models.titles import _offsets

    if "title=" not in source:
        return source
    tree = ast.parse(source)
    data = source.encode("utf-8")
    starts = _offsets(source)

    def at(line: int, col: int) -> int:
        return starts[line - 1] + col

    edits: list[tuple[int, int, bytes]] = []
    for node in ast.walk(tree):
        call = node.value if isinstance(node, ast.AnnAssign) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Field"):
            continue
        if not any(kw.arg == "title" for kw in call.keywords):
            continue
        kept: list[ast.expr | ast.keyword] = [*call.args, *(kw for kw in call.keywords if kw.arg != "title")]
        begin, end = at(call.lineno, call.col_offset), at(call.end_lineno or call.lineno, call.end_col_offset or 0)
        only = kept[0] if len(kept) == 1 else None
        value = only.value if isinstance(only, ast.keyword) and only.arg == "default" else only
        if isinstance(value, ast.Constant) and value.value is Ellipsis and not isinstance(only, ast.keyword):
            annotation = node.annotation  # type: ignore[attr-defined]
            edits.append((at(annotation.end_lineno, annotation.end_col_offset), end, b""))
        elif isinstance(value, ast.keyword) or value is None or not isinstance(value, ast.Constant | ast.Name):
            parts = [data[at(k.lineno, k.col_offset):at(k.end_lineno or k.lineno, k.end_col_offset or 0)] for k in kept]
            edits.append((begin, end, b"Field(" + b", ".join(parts) + b")"))
        else:
            edits.append((begin, end, data[at(value.lineno, value.col_offset):
                                           at(value.end_lineno or value.lineno, value.end_col_offset or 0)]))
    for begin, end, text in sorted(edits, reverse=True):
        data = data[:begin] + text + data[end:]
    source = data.decode("utf-8")
    tree = ast.parse(source)
    if any(isinstance(n, ast.Name) and n.id == "Field" for n in ast.walk(tree)):
        return source
    lines = ast_lines(source)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "pydantic" and any(a.name == "Field" for a in node.names):
            kept_names = [a for a in node.names if a.name != "Field"]
            end_line = node.end_lineno or node.lineno
            text = f"from pydantic import {', '.join(a.name for a in kept_names)}\n" if kept_names else ""
            return "".join(lines[:node.lineno - 1]) + text + "".join(lines[end_line:])
    return source


_HEAD = "from __future__ import annotations\n\nfrom pydantic import BaseModel, ConfigDict, Field\n\n\n"
_CASES = {
    "all dropped": 'class A(BaseModel):\n    n: int = Field(..., title="N")\n    m: int | None = Field(None, title="M")\n',
    "one kept": 'class A(BaseModel):\n    n: int = Field(..., title="N")\n    m: int = Field(1, ge=0, title="M")\n',
    "untouched Field": 'class A(BaseModel):\n    n: int = Field(..., title="N")\n    m: int = Field(1, ge=0)\n',
    "Field in an annotation": 'class A(BaseModel):\n    n: list[Annotated[str, Field(min_length=1)]] = Field(..., title="N")\n',
    "Field in a string": 'class A(BaseModel):\n    """A Field of study."""\n    n: int = Field(..., title="N", description="Field")\n',
    "a field named Field": 'class A(BaseModel):\n    Field_: int = Field(..., alias="Field", title="F")\n',
    "attribute Field": 'class A(BaseModel):\n    n: int = Field(..., title="N")\n    k: int = pydantic.Field\n',
    "NFKC Field": 'class A(BaseModel):\n    n: int = Field(..., title="N")\n    \U0001d405ield: int = 3\n',
    "nested class": 'class A(BaseModel):\n    class B(BaseModel):\n        n: int = Field(..., title="N")\n    b: B = Field(..., title="B")\n',
    "module AnnAssign": 'X: int = Field(3, title="X")\n',
    "class body with if": 'class A(BaseModel):\n    if True:\n        n: int = Field(..., title="N")\n    m: int = Field(..., title="M")\n',
    "only title": 'class A(BaseModel):\n    n: int = Field(title="N")\n',
    "multi-line call": 'class A(BaseModel):\n    n: int = Field(\n        ...,\n        title="N",\n        description="d\u00e9",\n    )\n',
    "no title kw but title= text": 'class A(BaseModel):\n    """title=x"""\n    n: int\n',
    "no title kw, unused import": 'class A(BaseModel):\n    n: int = 3  # title=\n',
}


def test_one_pass_gives_what_the_two_pass_version_gave() -> None:
    heads = [_HEAD, "from pydantic import Field\n\n\n", "from pydantic import BaseModel\n\n\n",
             "from pydantic import BaseModel, Field\nfrom pydantic import Field\n\n\n"]
    for name, body in _CASES.items():
        for head in heads:
            source = head + body
            assert drop_field_titles(source) == _reference(source), (name, head)
        late = "from pydantic import BaseModel\n\n\n" + body + "\nfrom pydantic import Field\n"
        assert drop_field_titles(late) == _reference(late), name


def test_one_pass_on_dcg_output_of_the_example_specs() -> None:
    """On DCG's own output (titles kept) for every example spec's model document."""
    from pathlib import Path

    from codegen.driver.pipeline import lower_one
    from codegen.models import generate

    raw: list[str] = []
    original = generate.drop_field_titles
    generate.drop_field_titles = lambda s: raw.append(s) or s  # type: ignore[assignment, func-returns-value]
    try:
        for spec in sorted(Path("specs").glob("*.yaml")):
            generate.run_dcg(lower_one(spec, spec.name, with_models=False).ir.model_schema)  # type: ignore[union-attr]
    finally:
        generate.drop_field_titles = original
    assert raw and any("title=" in s for s in raw)
    for source in raw:
        assert original(source) == _reference(source)
