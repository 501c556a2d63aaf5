"""Black unit by unit (codegen/output/fmtunits.py) gives exactly black's bytes for the whole file.

The identity is checked on the unformatted text of every generated example module and of a
golden case, on sources written to hit black's blank-line special cases, and after a small
edit (units from the memo mixed with newly formatted ones).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.driver.pipeline import lower_one
from codegen.output import fmtunits
from codegen.output.format import format_python, format_python_once
from codegen.render.package import environment, render_package

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted((ROOT / "specs").glob("*.yaml")) + sorted((ROOT / "tests" / "generator" / "golden" / "cases").glob("*/spec.yaml"))


def _raw_modules(spec: Path) -> dict[str, str]:
    low = lower_one(spec, spec.name)
    assert low.ir is not None and low.models is not None, [d.render() for d in low.diagnostics]
    return {f.path: f.content for f in render_package(low.ir, low.models, environment())
            if f.path.endswith(".py") and not f.verbatim}


@pytest.fixture(autouse=True)
def _fresh_memo() -> None:
    fmtunits._MEMO.clear()


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_generated_modules_format_identically(spec: Path) -> None:
    for path, raw in _raw_modules(spec).items():
        whole = format_python(raw)
        assert fmtunits.format_units(raw, format_python) == whole, path
        fmtunits._MEMO.clear()
        old = fmtunits.WHOLE_RUN_SHARE
        fmtunits.WHOLE_RUN_SHARE = 1.0  # every unit through its own black call
        try:
            assert fmtunits.format_units(raw, format_python) == whole, path
        finally:
            fmtunits.WHOLE_RUN_SHARE = old


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_run_black_leaves_unchanged_is_its_own_units(spec: Path) -> None:
    # fmtunits._black skips parsing black's output when it equals the input: the same pieces as the cut
    unchanged = 0
    for path, raw in _raw_modules(spec).items():
        for run in fmtunits.split(raw) or []:
            text = (fmtunits.WRAPPER if run.method else "") + "".join(run.units)
            out = format_python_once(text)
            assert fmtunits._black(run, format_python_once) == fmtunits._cut(run, out), path
            unchanged += out == text
    assert unchanged  # the shortcut was taken at least once


def test_client_is_cut_into_methods() -> None:
    raw = _raw_modules(ROOT / "specs" / "weather.yaml")
    client = next(text for path, text in raw.items() if path.endswith("/client.py"))
    runs = fmtunits.split(client)
    assert runs is not None
    assert any(r.method and len(r.units) > 1 for r in runs)


TRICKY = [
    # a comment right before a def, decorators, a stub def, a class docstring, nested classes
    'import os\nx=1\n# about f\ndef f(): ...\ndef g(): pass\n\n\n\n\n@staticmethod\n\ndef h(a,b,): return a\n'
    'class A:\n    """Doc."""\n    def m(self): ...\n    def n(self): ...\n\n    # c\n    def o(self): pass\n'
    '\n    @property\n    def p(self): return   1\n    class Inner:\n\n        def q(self): pass\n    y = 2\n'
    'if True:\n    def cond(): pass\nelse:\n    pass\n\n\nclass B: pass\n\n\nclass C(B):\n\n    z: int\n\n'
    '    def first(self): pass\n\n\n\n    async def second(self, *, a: int = 1, b: str = "x" * 200) -> None:\n'
    '        """Long docstring line that runs on and on and on and on and on and on and on and on and on."""\n'
    '        return None\nZ = 3\n',
    # a module docstring, overload-like stubs without blank lines, trailing comments
    '"""Module."""\nfrom typing import overload\n@overload\ndef f(x: int) -> int: ...\n@overload\n'
    'def f(x: str) -> str: ...\ndef f(x): return x  # trailing\n\n\ndef g(): pass\n# end\n',
    # strings that look like code, and a function after a class body that ends deeper
    'class D:\n    def m(self):\n        s = """\ndef fake():\n    pass\n"""\n        if s:\n            return s\n'
    '\n    def n(self):\n        return {\n"a": 1, "b": [1,2,3,\n]}\n\n\ndef after(): pass\n',
    # a class alone in its unit, so cut into methods: docstring first, decorators, a comment,
    # a stub without a blank line, attributes after methods, a nested class
    'X = 1\n\nclass E:\n    """Doc."""\n\n    def a(self): ...\n    def b(self): ...\n\n    @property\n'
    '    def c(self): return {"k": [1, 2, 3], "long": "' + "y" * 90 + '"}\n\n    # about d\n    def d(self): pass\n'
    '\n    async def e(self, x: int, y: int, z: int, w: int, v: int, u: int, t: int, s: int, r: int) -> int:\n'
    '        return 1\n\n    attr = 5\n\n    class Nested:\n        pass\n\n\n\n    def f(self): pass\n',
    # top-level assignments: 1, 2 and 3 blank lines, after an import, a docstring, a def, a
    # comment, a class; annotated ones; one too long for a line
    '"""Doc."""\nimport json\nA = 1\n\nB: int = 2\n\n\nC = [1,\n2]\n\n\n\nD = json.loads(r"""{\n  \"a\": 1\n}""")\n'
    '\nE = dict(' + ", ".join(f"k{i}={i}" for i in range(30)) + ')\n\ndef f(): pass\nF = 1\n\nG = 2\n# note\n\nH = 3\n'
    '\n\nclass K: pass\n\nL = 4\n   \nM = 5\nN = 6\n\nO: tuple[int, ...] = (\n    1,\n)\n',
]


@pytest.mark.parametrize("source", TRICKY)
def test_black_blank_line_special_cases(source: str) -> None:
    whole = format_python(source)
    assert fmtunits.format_units(source, format_python) == whole
    fmtunits._MEMO.clear()
    fmtunits.WHOLE_RUN_SHARE, old = 1.0, fmtunits.WHOLE_RUN_SHARE
    try:
        assert fmtunits.format_units(source, format_python) == whole
    finally:
        fmtunits.WHOLE_RUN_SHARE = old


def test_special_cases_are_cut() -> None:
    runs = fmtunits.split(TRICKY[-2])
    assert runs is not None and any(r.method and len(r.units) >= 4 for r in runs)


def test_assignments_are_cut() -> None:
    runs = fmtunits.split(TRICKY[-1])
    assert runs is not None and sum(len(r.units) for r in runs) >= 8
    assert {sep for r in runs for sep in r.seps} >= {"\n", "\n\n"}


def test_not_cut_with_fmt_directives() -> None:
    assert fmtunits.split("x = 1\n\n\n# fmt: off\ndef f( ): pass\n") is None


def test_an_edit_reformats_only_new_units() -> None:
    raw = next(t for p, t in _raw_modules(ROOT / "specs" / "weather.yaml").items() if p.endswith("/client.py"))
    calls: list[str] = []

    def counting(text: str) -> str:
        calls.append(text)
        return format_python(text)

    fmtunits.format_units(raw, counting)
    edited = raw.replace("(self, *,", "(self, *, edited_arg: int = 0,", 1)
    assert edited != raw
    calls.clear()
    assert fmtunits.format_units(edited, counting) == format_python(edited)
    assert len(calls) == 1 and "edited_arg" in calls[0]  # one method, formatted alone
