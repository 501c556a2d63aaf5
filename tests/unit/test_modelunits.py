"""DCG unit by unit (codegen/modelunits.py) writes every class exactly as DCG on the whole document.

Checked on every example, golden and docs-golden spec and on a benchmark spec: the same
statements (class by class, text for text, after codegen/blackstyle.py's rewrites) and the
same imports; then that an edit of one
tool runs DCG again on that tool's unit only, and that a document outside the supported
shape goes to DCG whole.
"""

from __future__ import annotations

import ast
import copy
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen import modelunits
from codegen.blackstyle import AST_LINE, black_style
from codegen.ir import ProjectIR
from codegen.models import run_dcg
from codegen.pipeline import lower_one

ROOT = Path(__file__).resolve().parents[2]
SPECS = (sorted((ROOT / "specs").glob("*.yaml")) + sorted((ROOT / "tests" / "golden" / "cases").glob("*/spec.yaml"))
         + sorted((ROOT / "tests" / "golden" / "docs").glob("*/specs/*.yaml")))


@pytest.fixture(autouse=True)
def _fresh_memo() -> None:
    modelunits._MEMO.clear()


def _ir(spec: Path) -> ProjectIR:
    low = lower_one(spec, spec.name, with_models=False)
    assert low.ir is not None, [d.render() for d in low.diagnostics]
    return low.ir


def _groups(ir: ProjectIR) -> list[tuple[str, ...]]:
    groups = [(t.input_class, *([t.output_class] if t.output_class else []),
               *(i.answer_class for i in t.inputs if i.answer_class)) for t in ir.tools]
    return groups + [(t.variables_class,) for t in ir.templates] + [(p.arguments_class,) for p in ir.prompts]


def _statements(source: str, restyle: bool = False) -> tuple[dict[str, str], set[tuple[str | None, str, str | None]]]:
    tree = ast.parse(source)
    lines = AST_LINE.findall(source)
    out: dict[str, str] = {}
    imports: set[tuple[str | None, str, str | None]] = set()
    for node in tree.body:
        text = "".join(lines[node.lineno - 1:node.end_lineno]).rstrip()
        text = black_style(text + "\n").rstrip() if restyle else text
        if isinstance(node, ast.ImportFrom):
            imports |= {(node.module, a.name, a.asname) for a in node.names}
        else:
            out[node.name if isinstance(node, ast.ClassDef) else text] = text
    return out, imports


class _Counting:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, doc: dict[str, Any]) -> str:
        self.calls += 1
        return run_dcg(doc)


def _bench_spec(tmp_path: Path) -> Path:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from make_specs import write_spec_set
    finally:
        sys.path.remove(str(ROOT / "bench"))
    write_spec_set(tmp_path, 6, 6)
    return next(tmp_path.glob("*.json"))


@pytest.mark.parametrize("spec", [*SPECS, None], ids=lambda p: f"{p.parent.name}/{p.name}" if p else "bench")
def test_units_write_what_dcg_writes_for_the_whole_document(spec: Path | None, tmp_path: Path) -> None:
    ir = _ir(spec or _bench_spec(tmp_path))
    if not ir.model_schema.get("$defs"):
        pytest.skip("no models")
    counting = _Counting()
    parts = modelunits.models_source(ir.model_schema, _groups(ir), counting)
    units = modelunits.partition(ir.model_schema["$defs"], _groups(ir))
    assert counting.calls == sum(1 for u in units if u)  # cut, not the whole-document fallback
    # the same statements, each with the rewrites that save black work (codegen/blackstyle.py)
    assert _statements(parts) == _statements(run_dcg(ir.model_schema), restyle=True)


def test_an_edit_runs_dcg_on_the_edited_unit_only(tmp_path: Path) -> None:
    ir = _ir(_bench_spec(tmp_path))
    groups = _groups(ir)
    counting = _Counting()
    before = modelunits.models_source(ir.model_schema, groups, counting)
    assert counting.calls == len(groups) + 1  # every tool, and the shared $defs
    doc = copy.deepcopy(ir.model_schema)
    edited = doc["$defs"][groups[2][0]]
    edited["properties"]["edited"] = {"type": "boolean", "description": "Added."}
    counting.calls = 0
    after = modelunits.models_source(doc, groups, counting)
    assert counting.calls == 1
    assert after != before and "edited: bool | None = None" in after
    modelunits._MEMO.clear()
    assert modelunits.models_source(doc, groups, run_dcg) == after  # the memo does not change the bytes


def test_shared_classes_come_first_and_units_reach_only_themselves_and_shared() -> None:
    defs = {
        "A": {"type": "object", "properties": {"m": {"$ref": "#/$defs/M"}, "x": {"$ref": "#/$defs/X"}}},
        "B": {"type": "object", "properties": {"m": {"$ref": "#/$defs/M"}}},
        "M": {"type": "object", "properties": {"c": {"$ref": "#/$defs/C"}}},
        "C": {"type": "string", "enum": ["a"]},
        "X": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "Lone": {"type": "object", "properties": {"x": {"$ref": "#/$defs/X2"}}},
        "X2": {"type": "string"},
    }
    assert modelunits.partition(defs, [("A",), ("B",)]) == [["M", "C", "Lone", "X2"], ["A", "X"], ["B"]]


def test_a_ref_outside_the_table_goes_to_dcg_whole() -> None:
    doc = {"$defs": {"A": {"type": "object", "title": "A", "properties": {"b": {"$ref": "#/$defs/B/properties/c"}}},
                     "B": {"type": "object", "title": "B", "properties": {"c": {"type": "string"}}}}}
    counting = _Counting()
    assert modelunits.models_source(doc, [("A",), ("B",)], counting) == run_dcg(doc)
    assert counting.calls == 1


def test_line_breaks_python_does_not_count_stay_inside_their_statement() -> None:
    # str.splitlines() breaks at \x0b, \x0c, \x1c, \u2028 ...; ast does not
    odd = "one\u2028two\x0bthree\x1cfour\x0cfive \u2029 six"
    doc = {"$defs": {
        "A": {"type": "object", "title": "A", "description": odd,
              "properties": {"x": {"type": "string", "description": odd, "default": odd}}},
        "B": {"type": "object", "title": "B", "description": odd, "properties": {"a": {"$ref": "#/$defs/A"}}},
    }}
    counting = _Counting()
    parts = modelunits.models_source(doc, [("A",), ("B",)], counting)
    assert counting.calls == 2
    assert _statements(parts) == _statements(run_dcg(doc), restyle=True)
