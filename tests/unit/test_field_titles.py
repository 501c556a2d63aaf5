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
