"""The escaping filters templates use for spec text: each must give valid, inert Python (or
TOML) for any input, and the text must survive unchanged where it is data."""

from __future__ import annotations

import ast
import json

import pytest

from codegen.render.filters import comment, docline, docstring, jsonliteral, pep440, pyrepr, toml_string

HOSTILE = ['"""', "'''", '\\', '"', "a\"\"\"); import os; os.system('x') #", "\x00\x07\x1b[31m", "\u2028\u2029",
           "line1\nline2", "ends with backslash \\", 'ends with quote"', "😀 ü", "\r\n", "{{ jinja }}", "\ud800"]


@pytest.mark.parametrize("text", HOSTILE)
def test_pyrepr_round_trips(text: str) -> None:
    assert ast.literal_eval(pyrepr(text)) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_docstring_stays_one_inert_string(text: str) -> None:
    source = f'def f():\n    """{docstring(text)}"""\n'
    tree = ast.parse(source)
    body = tree.body[0].body  # type: ignore[attr-defined]
    assert len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)


def test_docstring_examples() -> None:
    assert docstring("") == "(no description)"
    assert docstring('say "hi"') == 'say "hi\\"'
    assert docstring('a """ b') == 'a \\"\\"\\" b'
    assert docstring("tab\tand\x07bell") == "tab\tand\\x07bell"


@pytest.mark.parametrize("text", HOSTILE)
def test_docline_is_one_line(text: str) -> None:
    line = docline(text)
    assert "\n" not in line and "\r" not in line
    ast.parse(f'"""{line}"""')


@pytest.mark.parametrize("text", HOSTILE)
def test_comment_cannot_end_the_comment(text: str) -> None:
    out = comment(text)
    assert "\n" not in out and "\r" not in out and out.isprintable()
    tree = ast.parse(f"# {out}\nx = 1\n")
    assert len(tree.body) == 1


def test_comment_examples() -> None:
    assert comment("a\nb\tc") == "a b c"
    assert comment("bell\x07") == "bell?"


@pytest.mark.parametrize("value", [{"a": [1, 2.5, None, True]}, {"q": '"""'}, {"e": "\x7f\x00"}, {"u": "ü😀"},
                                   {"b": "ends\\"}, ["x"], "plain", {"k": "\\\"\"\""}])
def test_jsonliteral_evaluates_to_the_value(value: object) -> None:
    expr = jsonliteral(value)
    assert eval(expr, {"json": json}) == value
    assert expr.isascii()


@pytest.mark.parametrize("text", HOSTILE)
def test_toml_string_round_trips(text: str) -> None:
    import tomllib

    if "\ud800" in text:
        return  # TOML cannot hold a lone surrogate; specs never contain one (UTF-8 input)
    assert tomllib.loads(f"v = {toml_string(text)}\n")["v"] == text


@pytest.mark.parametrize(("given", "want"), [("1.2.0", "1.2.0"), ("2.0rc1", "2.0rc1"), ("1.0.post2", "1.0.post2"),
                                             ("v1.0", "0.0.0"), ("latest", "0.0.0"), ("1.0-beta", "0.0.0"), ("", "0.0.0")])
def test_pep440(given: str, want: str) -> None:
    assert pep440(given) == want
