"""DCG unit by unit (codegen/models/units.py) writes every class exactly as DCG on the whole document.

Checked on every example, golden and docs-golden spec and on a benchmark spec: the same
statements (class by class, text for text, after codegen/render/blackstyle.py's rewrites) and the
same imports; that the cold build's one DCG run, cut into units, gives what one DCG run per
unit gives (the text, and memo entry for memo entry), also when only some units are
missing; that where the cut cannot tell a unit's part, that unit runs alone; then that an
edit of one tool runs DCG again on that tool's unit only, and that a document outside the
supported shape goes to DCG whole.
"""

from __future__ import annotations

import ast
import copy
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.driver.pipeline import lower_one
from codegen.ir.nodes import ProjectIR
from codegen.models import units as modelunits
from codegen.models.generate import run_dcg
from codegen.render.blackstyle import AST_LINE, black_style

ROOT = Path(__file__).resolve().parents[2]
SPECS = (sorted((ROOT / "specs").glob("*.yaml")) + sorted((ROOT / "tests" / "generator" / "golden" / "cases").glob("*/spec.yaml"))
         + sorted((ROOT / "tests" / "generator" / "golden" / "docs").glob("*/specs/*.yaml")))


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
    parts = modelunits.models_source(ir.model_schema, _groups(ir), counting, cut=False)
    units = modelunits.partition(ir.model_schema["$defs"], _groups(ir))
    assert counting.calls == sum(1 for u in units if u)  # cut, not the whole-document fallback
    # the same statements, each with the rewrites that save black work (codegen/render/blackstyle.py)
    assert _statements(parts) == _statements(run_dcg(ir.model_schema), restyle=True)


def _unit_by_unit(doc: dict[str, Any], groups: list[tuple[str, ...]]) -> tuple[str, dict[str, Any], int]:
    """models.py's body, the memo and the DCG calls of one DCG run per unit."""
    modelunits._MEMO.clear()
    counting = _Counting()
    text = modelunits.models_source(doc, groups, counting, cut=False)
    return text, dict(modelunits._MEMO), counting.calls


def _cut(doc: dict[str, Any], groups: list[tuple[str, ...]], run: Any = run_dcg) -> tuple[str, dict[str, Any], int]:
    """The same with the cold build's cut (the memo as the caller left it)."""
    counting = _Counting()
    counting_run = counting if run is run_dcg else run
    text = modelunits.models_source(doc, groups, counting_run)
    return text, dict(modelunits._MEMO), counting.calls if run is run_dcg else run.calls


@pytest.mark.parametrize("spec", [*SPECS, None], ids=lambda p: f"{p.parent.name}/{p.name}" if p else "bench")
def test_the_cold_build_cut_gives_what_one_run_per_unit_gives(spec: Path | None, tmp_path: Path) -> None:
    ir = _ir(spec or _bench_spec(tmp_path))
    if not ir.model_schema.get("$defs"):
        pytest.skip("no models")
    doc, groups = ir.model_schema, _groups(ir)
    text, memo, calls = _unit_by_unit(doc, groups)
    modelunits._MEMO.clear()
    cut_text, cut_memo, cut_calls = _cut(doc, groups)
    assert cut_text == text
    assert cut_memo == memo  # what a later edit builds on: every unit's imports, statements, names
    assert cut_calls == (1 if calls > 1 else calls)  # DCG ran once, and no unit was left to its own run
    # only some units missing (a shared class edited, say): one run on their classes, the rest from the memo
    missing = list(memo)[::2]
    for key in missing:
        del modelunits._MEMO[key]
    again_text, again_memo, again_calls = _cut(doc, groups)
    assert again_text == text and again_memo == memo
    assert again_calls == (1 if missing else 0)


def _obj(title: str, **props: Any) -> dict[str, Any]:
    return {"type": "object", "title": title, "properties": props}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


CANNOT_TELL = {
    # a root class two tools use: inlined in the whole document, kept when the shared unit runs alone
    "shared-root-kept-alone": ({"Id": {"type": "string", "pattern": "^x", "title": "Id"},
                                "AIn": _obj("AIn", id=_ref("Id")), "BIn": _obj("BIn", id=_ref("Id"))}, 2),
    # one field first using two modules (uuid, typing): their order in AIn's own document is not shown
    "two-modules-in-one-field": ({"AIn": _obj("AIn", v={"anyOf": [{"type": "array", "items": {"type": "string", "format": "uuid"}},
                                                                  {"const": "x"}]}),
                                  "BIn": _obj("BIn", n={"type": "integer"})}, 2),
    # an inlined root class counts in the import order (pydantic first here) where the output does not show
    "inlined-root-before-an-enum": ({"Tag": {"type": "string", "minLength": 1, "title": "Tag"},
                                     "AIn": _obj("AIn", e={"type": "string", "enum": ["a", "b"], "title": "AInE"},
                                                 t=_ref("Tag")),
                                     "BIn": _obj("BIn", n={"type": "integer"})}, 2),
    "inlined-uuid-root-first": ({"Uid": {"type": "string", "format": "uuid", "title": "Uid"},
                                 "AIn": _obj("AIn", k={"const": "x"}, u=_ref("Uid")),
                                 "BIn": _obj("BIn", n={"type": "integer"})}, 2),
    # an inlined root class of a uuid: it counts in the import order where the output does not show
    "inlined-uuid-root": ({"Uid": {"type": "string", "format": "uuid", "title": "Uid"}, "S": _obj("S", u=_ref("Uid")),
                           "AIn": _obj("AIn", s=_ref("S"), u=_ref("Uid")), "BIn": _obj("BIn", s=_ref("S")),
                           "CIn": _obj("CIn", x={"type": "string"})}, 4),
}


@pytest.mark.parametrize("case", sorted(CANNOT_TELL))
def test_a_unit_the_cut_cannot_tell_runs_alone(case: str) -> None:
    defs, expected_calls = CANNOT_TELL[case]
    doc = {"$defs": defs}
    groups = [(name,) for name in defs if name.endswith("In")]
    text, memo, calls = _unit_by_unit(doc, groups)
    modelunits._MEMO.clear()
    cut_text, cut_memo, cut_calls = _cut(doc, groups)
    assert (cut_text, cut_memo) == (text, memo)
    assert cut_calls == expected_calls  # the whole document, then each unit it could not tell


class _Reordered(_Counting):
    """DCG, with the import lines of the whole document's output in reverse order."""

    def __init__(self, whole: dict[str, Any]) -> None:
        super().__init__()
        self.whole = whole

    def __call__(self, doc: dict[str, Any]) -> str:
        out = super().__call__(doc)
        if doc != self.whole:
            return out
        lines = out.split("\n")
        imports = [n for n, line in enumerate(lines) if line.startswith("from ") and "__future__" not in line]
        assert len(imports) > 1
        for n, line in zip(imports, reversed([lines[n] for n in imports]), strict=True):
            lines[n] = line
        return "\n".join(lines)


def test_output_the_cut_does_not_expect_falls_back_to_one_run_per_unit(tmp_path: Path) -> None:
    ir = _ir(_bench_spec(tmp_path))
    doc, groups = ir.model_schema, _groups(ir)
    text, memo, calls = _unit_by_unit(doc, groups)
    modelunits._MEMO.clear()
    reordered = _Reordered(doc)
    cut_text, cut_memo, cut_calls = _cut(doc, groups, reordered)
    assert (cut_text, cut_memo) == (text, memo)
    assert cut_calls == 1 + calls  # imports out of the expected order: nothing cut, every unit ran


def test_a_made_up_class_name_falls_back_to_one_run_per_unit() -> None:
    # untitled inline enums: alone each is "F0"; together DCG calls the second "F01" (never a title);
    # two units defining "F0" would define it twice in models.py: DCG's run on the whole document decides
    doc = {"$defs": {"AIn": _obj("AIn", f0={"type": "string", "enum": ["a", "b"]}),
                     "BIn": _obj("BIn", f0={"type": "string", "enum": ["c", "d"]})}}
    groups = [("AIn",), ("BIn",)]
    text, memo, calls = _unit_by_unit(doc, groups)
    assert "F01" in run_dcg(doc) and "class F01(" in text and text.count("class F0(") == 1
    modelunits._MEMO.clear()
    assert _cut(doc, groups)[:2] == (text, memo)


def test_an_edit_runs_dcg_on_the_edited_unit_only(tmp_path: Path) -> None:
    ir = _ir(_bench_spec(tmp_path))
    groups = _groups(ir)
    counting = _Counting()
    before = modelunits.models_source(ir.model_schema, groups, counting)
    assert counting.calls == 1  # cold: the whole document once, cut into every tool's and the shared unit
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
    for cut in (False, True):
        modelunits._MEMO.clear()
        counting = _Counting()
        parts = modelunits.models_source(doc, [("A",), ("B",)], counting, cut=cut)
        assert counting.calls == (1 if cut else 2)
        assert _statements(parts) == _statements(run_dcg(doc), restyle=True)
