"""models/parallel.py: DCG on two halves of the model document at once gives the same bytes.

Checked on every example and golden spec and on a 60-tool benchmark spec: models.py's body
and every memo entry are those of one DCG run per unit (what tests/generator/test_modelunits.py
holds the single cold run to); a whole build of the benchmark spec is byte-identical with
the halves and without; a child that fails leaves its call to this process; the idle-CPU gate.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.driver.pipeline import generate_one, lower_one
from codegen.ir.nodes import ProjectIR
from codegen.models import parallel
from codegen.models import units as modelunits
from codegen.models.generate import run_dcg

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted((ROOT / "specs").glob("*.yaml")) + sorted((ROOT / "tests" / "generator" / "golden" / "cases").glob("*/spec.yaml"))


@pytest.fixture(autouse=True)
def _fresh_memo() -> None:
    modelunits._MEMO.clear()


def _bench_spec(tmp_path: Path, tools: int = 60) -> Path:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from make_specs import write_spec_set
    finally:
        sys.path.remove(str(ROOT / "bench"))
    write_spec_set(tmp_path, tools, tools)
    return next(tmp_path.glob("*.json"))


def _ir(spec: Path) -> ProjectIR:
    low = lower_one(spec, spec.name, with_models=False)
    assert low.ir is not None, [d.render() for d in low.diagnostics]
    return low.ir


def _groups(ir: ProjectIR) -> list[tuple[str, ...]]:
    groups = [(t.input_class, *([t.output_class] if t.output_class else []),
               *(i.answer_class for i in t.inputs if i.answer_class)) for t in ir.tools]
    return groups + [(t.variables_class,) for t in ir.templates] + [(p.arguments_class,) for p in ir.prompts]


@pytest.mark.parametrize("spec", [*SPECS, None], ids=lambda p: f"{p.parent.name}/{p.name}" if p else "bench")
def test_two_halves_give_what_one_run_per_unit_gives(spec: Path | None, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ir = _ir(spec or _bench_spec(tmp_path))
    doc, groups = ir.model_schema, _groups(ir)
    halves = len(modelunits.partition(doc.get("$defs") or {}, groups)) >= 3  # else nothing to halve
    expected = modelunits.models_source(doc, groups, run_dcg, cut=False)
    memo = dict(modelunits._MEMO)
    modelunits._MEMO.clear()
    halved: list[int] = []
    real_beside = parallel.beside

    def recording(here: Any, there: Any) -> Any:
        halved.append(os.getpid())
        return real_beside(here, there)

    monkeypatch.setattr(modelunits, "MIN_BESIDE_UNITS", 2)
    monkeypatch.setattr(modelunits, "spare_cpu", lambda: True)
    monkeypatch.setattr(modelunits, "beside", recording)
    calls: list[int] = []

    def counting(d: dict[str, Any]) -> str:
        calls.append(os.getpid())
        return run_dcg(d)

    assert modelunits.models_source(doc, groups, counting) == expected
    assert dict(modelunits._MEMO) == memo  # every unit's entry, the child's included
    if halves:
        assert halved == [os.getpid()]
        assert calls == [os.getpid()]  # here: one run on its half; the child's run is not counted here
    else:  # one unit beside the shared one: a single run here, no child
        assert halved == [] and calls == [os.getpid()]


def test_a_build_is_byte_identical_with_the_halves_and_without(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _bench_spec(tmp_path, 50)
    monkeypatch.setattr(modelunits, "MIN_BESIDE_UNITS", 2)
    monkeypatch.setenv(parallel.JOBS_ENV, "1")
    one = generate_one(spec, spec.name)
    modelunits._MEMO.clear()
    halved: list[bool] = []
    real_beside = parallel.beside
    monkeypatch.setattr(modelunits, "beside", lambda a, b: halved.append(True) or real_beside(a, b))
    monkeypatch.setenv(parallel.JOBS_ENV, "2")
    two = generate_one(spec, spec.name)
    assert halved == [True]
    assert one.ok and two.ok
    assert [(f.path, f.content) for f in two.files] == [(f.path, f.content) for f in one.files]


def test_a_failing_child_leaves_its_call_here() -> None:
    parent = os.getpid()

    def there() -> int:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return 2

    assert parallel.beside(lambda: 1, there) == (1, 2)
    assert parallel.beside(os.getpid, os.getpid)[1] != parent  # a child ran it, when it could


def test_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.JOBS_ENV, "1")
    assert not parallel.spare_cpu()
    monkeypatch.setenv(parallel.JOBS_ENV, "2")
    assert parallel.spare_cpu()
    monkeypatch.delenv(parallel.JOBS_ENV)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.8, 1.0, 1.0))
    assert not parallel.spare_cpu()  # a loaded machine: no child
    monkeypatch.setattr(os, "getloadavg", lambda: (1.2, 1.0, 1.0))
    assert parallel.spare_cpu()
