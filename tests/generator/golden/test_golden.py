"""Golden tests: each case under tests/generator/golden/cases/<case>/ is generated in memory and compared
byte for byte with its expected/ tree (runtime copies excluded; tests/generator/test_runtime_layout.py checks them).

Update after a deliberate change with:  pytest tests/generator/golden/test_golden.py --update-goldens
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from codegen import generate
from codegen.output.emit import MANIFEST

CASES = Path(__file__).parent / "cases"
ERRORS = Path(__file__).parent / "errors"
UPDATE = "pytest tests/generator/golden/test_golden.py --update-goldens"


def _generated(case: Path) -> dict[str, str]:
    result = generate([case / "spec.yaml"])
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    # runtime copies and the manifest (which hashes them) are checked by the runtime test
    return {f.path: f.content for f in result.files if not f.verbatim and not f.path.endswith(MANIFEST)}


def _expected(case: Path) -> dict[str, str]:
    root = case / "expected"
    # bytes decoded, no newline translation: a skill file is package data with its own line ends
    return {p.relative_to(root).as_posix(): p.read_bytes().decode("utf-8") for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_golden_case(case: str, update_goldens: bool) -> None:
    got = _generated(CASES / case)
    if update_goldens:
        shutil.rmtree(CASES / case / "expected", ignore_errors=True)
        for rel, text in got.items():
            target = CASES / case / "expected" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
    want = _expected(CASES / case)
    assert sorted(got) == sorted(want), f"file set differs; review and run `{UPDATE}`"
    for rel in sorted(got):
        if got[rel] != want[rel]:
            diff = "".join(difflib.unified_diff(want[rel].splitlines(True), got[rel].splitlines(True), f"expected/{rel}", f"generated/{rel}"))
            pytest.fail(f"{case}: {rel} differs (review, then `{UPDATE}`):\n{diff}")


@pytest.mark.parametrize("case", sorted(p.stem for p in ERRORS.glob("*.y*ml")) + sorted(p.stem for p in ERRORS.glob("*.json")))
def test_error_golden(case: str, update_goldens: bool) -> None:
    spec = next(p for p in ERRORS.iterdir() if p.stem == case and p.suffix in (".yaml", ".yml", ".json"))
    result = generate([spec])
    assert not result.ok and not result.files
    text = "".join(d.render() + "\n" for d in result.diagnostics)
    expected = ERRORS / f"{case}.txt"
    if update_goldens:
        expected.write_text(text, encoding="utf-8", newline="\n")
    assert text == expected.read_text("utf-8"), f"diagnostics changed; review and run `{UPDATE}`"
