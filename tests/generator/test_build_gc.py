"""driver/collect.py: fewer collections during generate_all, the collector as it was afterwards."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from codegen.driver import batch
from codegen.driver.collect import BUILD_THRESHOLDS, fewer_collections
from codegen.driver.pipeline import Result


def test_generate_all_raises_the_thresholds_and_restores_them(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[tuple[int, ...], int]] = []

    def fake(spec: tuple[Path, str], options: object = None) -> Result:
        seen.append((gc.get_threshold(), gc.get_freeze_count()))
        return Result(specs=[spec[1]])

    monkeypatch.setattr(batch, "_generate_and_store", fake)
    monkeypatch.setattr(batch, "_cached_one", lambda *a: None)
    monkeypatch.setattr(batch, "_jobs", lambda work: 1)
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        results = batch.generate_all([(Path("a.yaml"), "a.yaml")], None)
        assert [r.specs for r in results] == [["a.yaml"]]
        assert seen[0][0] == BUILD_THRESHOLDS and seen[0][1] > 0
        assert gc.get_threshold() == (700, 10, 10) and gc.get_freeze_count() == 0
    finally:
        gc.set_threshold(*before)


def test_a_frozen_heap_stays_frozen_and_errors_restore_too() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        before = gc.get_threshold()
        with pytest.raises(RuntimeError), fewer_collections():
            assert gc.get_threshold() == BUILD_THRESHOLDS
            raise RuntimeError
        assert gc.get_threshold() == before and gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
