"""Generated code written in black's style (codegen/render/blackstyle.py, codegen/render/pylayout.py), and
black's second pass made only on the units the first pass changed (codegen/output/fmtunits.py).

The rewrites must not change what black makes of a text, and on the benchmark spec they
must leave black nothing to change in models.py, tools.py and client.py (the cold-build
cost that this saves: black's second pass).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from codegen.driver.pipeline import lower_one
from codegen.models.generate import run_dcg
from codegen.output import fmtunits
from codegen.output.format import format_python, format_python_once
from codegen.render.blackstyle import AST_LINE, black_style, double_quotes, long_fields
from codegen.render.package import environment, render_package

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted((ROOT / "specs").glob("*.yaml")) + sorted((ROOT / "tests" / "generator" / "golden" / "cases").glob("*/spec.yaml"))


def test_double_quotes_only_where_the_text_stays_the_same() -> None:
    src = ("a = 'x'\nb = 'it\\'s'\nc = '\"q\"'\nd = r'\\d'\ne = b'raw'\nf = 'back\\\\slash'\n"
           "g = '''tri'''\nh = \"already\"\ndef f():\n    '''doc 'quoted' text'''\n    # 'comment'\n    return 'y'\n")
    out = double_quotes(src)
    # plain literals as black quotes them (fewer escapes wins: "it's", "back\\slash"); prefixed and
    # triple-quoted ones are left for black itself
    assert out == ("a = \"x\"\nb = \"it's\"\nc = '\"q\"'\nd = r'\\d'\ne = b'raw'\nf = \"back\\\\slash\"\n"
                   "g = '''tri'''\nh = \"already\"\ndef f():\n    '''doc 'quoted' text'''\n    # 'comment'\n    return \"y\"\n")
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(src))
    assert double_quotes("x = (") == "x = ("  # does not tokenize: unchanged


def test_long_field_lines_split_as_black_splits_them() -> None:
    pad = "    "
    head = f"{pad}region: SomeVeryLongEnumerationClassNameForTheRegion | None = "
    fits = head + 'Field(default=None, title="SomeVeryLongEnumerationClassNameForTheRegion")\n'
    wide = head + 'Field(default=None, description="' + "word, " * 9 + 'end", title="' + "T" * 30 + '")\n'
    for line in (fits, wide):
        src = "class A(BaseModel):\n" + line
        assert len(line) > 101
        restyled = long_fields(src)
        assert restyled != src
        assert format_python(restyled) == format_python(src) == restyled


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_restyled_model_statements_format_as_before(spec: Path) -> None:
    low = lower_one(spec, spec.name, with_models=False)
    assert low.ir is not None
    if not low.ir.model_schema.get("$defs"):
        pytest.skip("no models")
    source = run_dcg(low.ir.model_schema)
    lines = AST_LINE.findall(source)
    for node in ast.parse(source).body:
        text = "".join(lines[node.lineno - 1:node.end_lineno])
        assert format_python(black_style(text)) == format_python(text)


def _bench_modules(tmp_path: Path) -> dict[str, str]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from make_specs import write_spec_set
    finally:
        sys.path.remove(str(ROOT / "bench"))
    spec = write_spec_set(tmp_path, 12, 12)[0]
    low = lower_one(spec, spec.name)
    assert low.ir is not None and low.models is not None
    return {f.path.rsplit("/", 1)[-1]: f.content for f in render_package(low.ir, low.models, environment())
            if f.path.endswith(".py") and not f.verbatim}


def test_bench_modules_leave_black_nothing_to_change(tmp_path: Path) -> None:
    modules = _bench_modules(tmp_path)
    for name in ("models.py", "tools.py", "client.py"):
        # the whole module too (blank lines included): black's output needs no cutting (codegen/output/fmtunits.py)
        assert format_python_once(modules[name]) == modules[name], name
        runs = fmtunits.split(modules[name])
        assert runs is not None
        for run in runs:
            for unit in run.units:
                text = (fmtunits.WRAPPER if run.method else "") + unit.rstrip("\n") + "\n"
                assert format_python_once(text) == text, (name, unit[:200])


def test_second_pass_only_on_changed_units(monkeypatch: pytest.MonkeyPatch) -> None:
    stable = "def f(x: int) -> int:\n    return x\n"
    unstable = "def g(a,b):\n    return {'k': a, 'l': b,}\n"
    source = "import os\n\n\n" + "\n\n".join([stable, unstable, stable.replace("f(", "h("), unstable.replace("g(", "k(")])
    calls: list[str] = []

    def once(text: str) -> str:
        calls.append(text)
        return format_python_once(text)

    monkeypatch.setitem(fmtunits._ONCE, format_python, once)
    fmtunits._MEMO.clear()
    assert fmtunits.format_units(source, format_python) == format_python(source)
    assert len(calls) == 3  # the run, then the two changed units (two blocks)
    assert "def f(" not in calls[1] + calls[2] and "def g(" in calls[1] and "def k(" in calls[2]
