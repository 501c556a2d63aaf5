"""``schema/strictpy.py``: validating JSON data held as Python objects must answer exactly as
pydantic's strict JSON mode (the reference: ``model_validate_json(to_json(data), strict=True)``),
string enums included, while skipping the JSON round trip where it can."""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Any

import pytest
from mcp_codegen_runtime.schema import strictpy
from mcp_codegen_runtime.schema.strictpy import check_strict, validate_strict, validator_for
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import to_json


class Priority(StrEnum):  # as datamodel-code-generator writes string enums
    low = "low"
    normal = "normal"
    high = "high"
    one = "1"


class Country(StrEnum):
    FR = "FR"
    DE = "DE"


class Address(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    street: str | None = Field(default=None, max_length=20)
    city: str = Field(..., min_length=1)
    country: Country


class Line(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    sku: str
    quantity: int = Field(..., ge=1, le=1000)
    unit_price: float = Field(..., ge=0)
    gift: bool | None = None


class Order(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    id: str
    address: Address
    lines: list[Line] = Field(..., min_length=1)
    priority: Priority | None = Priority.normal
    tags: list[str] | None = None
    meta: dict[str, int] | None = None
    kind: Priority | int | None = None


class Batch(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    orders: list[Order]


class Node(BaseModel):  # recursive: definitions and definition-ref nodes
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    name: str
    level: Priority
    children: list[Node] | None = None


class Closed(BaseModel):  # additionalProperties: false, an alias, a nested closed object
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    kind: Priority = Field(..., alias="type")
    inner: Address | None = None
    count: int | None = Field(default=0, ge=0)


class Plain(BaseModel):  # no enum: pydantic's own strict Python validation
    a: int
    b: list[float]


def _valid(rng: random.Random) -> dict[str, Any]:
    return {"orders": [
        {"id": f"o{i}", "address": {"city": "Paris", "country": rng.choice(["FR", "DE"]), "street": "1 rue"},
         "lines": [{"sku": f"S{j}", "quantity": j + 1, "unit_price": 2.5} for j in range(rng.randint(1, 3))],
         "priority": rng.choice(["low", "normal", "high", "1"]), "tags": ["a"], "meta": {"x": 1}, "kind": 3}
        for i in range(rng.randint(1, 4))]}


#: Values that strict JSON and lax Python tell apart: numbers as text, floats for ints, ints
#: for bools and strings, containers of the wrong kind, enum values in another case or type.
ODD = ["1", "high", "HIGH", "FR", "fr", "", "true", 1, 0, 1.0, 1.5, -3, True, False, None, [], {}, ["high"],
       {"city": "x"}, 10**20, "x" * 30]


def _mutate(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(list(value))
        out = dict(value)
        if rng.random() < 0.15:
            del out[key]
        else:
            out[key] = _mutate(value[key], rng)
        return out
    if isinstance(value, list) and value and rng.random() < 0.8:
        out = list(value)
        k = rng.randrange(len(out))
        out[k] = _mutate(out[k], rng)
        return out
    return rng.choice(ODD)


def _reference(model: type[BaseModel], data: Any) -> tuple[str, Any]:
    try:
        return "ok", model.model_validate_json(to_json(data), strict=True).model_dump(mode="json")
    except ValidationError as exc:
        return "error", [(e["type"], e["loc"]) for e in exc.errors()]


def _ours(model: type[BaseModel], data: Any) -> tuple[str, Any]:
    try:
        got = validate_strict(model, data)
    except ValidationError as exc:
        return "error", [(e["type"], e["loc"]) for e in exc.errors()]
    assert type(got) is model
    return "ok", got.model_dump(mode="json")


@pytest.mark.parametrize("seed", range(4))
def test_same_answers_as_strict_json_on_mutated_data(seed: int) -> None:
    rng = random.Random(seed)
    seen = {"ok": 0, "error": 0}
    for _ in range(400):
        data = _valid(rng)
        for _ in range(rng.randint(0, 3)):
            data = _mutate(data, rng)
        want = _reference(Batch, data)
        assert _ours(Batch, data) == want, data
        seen[want[0]] += 1
    assert seen["ok"] > 20 and seen["error"] > 100  # both outcomes exercised


def test_recursive_models_and_enum_members() -> None:
    good = {"name": "a", "level": "high", "children": [{"name": "b", "level": "1", "children": []}]}
    assert _ours(Node, good) == _reference(Node, good)
    assert validate_strict(Node, good).children[0].level is Priority.one  # type: ignore[index]
    for bad in ({"name": "a", "level": 1}, {"name": "a", "level": "HIGH"}, {"name": 1, "level": "low"},
                {"name": "a", "level": "low", "children": [{"name": "b", "level": "Low"}]}):
        assert _ours(Node, bad)[0] == "error", bad
        assert _ours(Node, bad) == _reference(Node, bad)


def test_enum_models_skip_the_json_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the module: no serialization for models with string enums."""
    strictpy._CACHE.clear()

    def no_json(*_: Any, **__: Any) -> Any:
        raise AssertionError("validated through JSON text")

    monkeypatch.setattr(strictpy, "to_json", no_json)
    for model, data in ((Batch, _valid(random.Random(1))), (Node, {"name": "a", "level": "low"}),
                        (Plain, {"a": 1, "b": [1.5]})):
        assert type(validator_for(model)(data)) is model
    with pytest.raises(ValidationError):
        validate_strict(Plain, {"a": "1", "b": []})


def test_the_model_classes_stay_complete() -> None:
    strictpy._CACHE.clear()
    validator_for(Batch)
    assert all(cls.__pydantic_complete__ for cls in (Batch, Order, Line, Address))
    assert Batch.model_validate({"orders": []}).orders == []  # the class's own validator is untouched
    assert Line.model_validate({"sku": "s", "quantity": "2", "unit_price": 1}).quantity == 2  # still lax


def _checked(model: type[BaseModel], data: Any) -> tuple[str, Any]:
    try:
        check_strict(model, data)
    except ValidationError as exc:
        return "error", [(e["type"], e["loc"]) for e in exc.errors()]
    return "ok", None


@pytest.mark.parametrize("seed", range(3))
def test_the_check_only_path_answers_as_validation(seed: int) -> None:
    """The typed client's check (no model instances) says yes exactly when validation does,
    and reports the model's own errors when it says no."""
    rng = random.Random(100 + seed)
    def closed(r: random.Random) -> dict[str, Any]:
        data: dict[str, Any] = {r.choice(["type", "kind"]): "low", "inner": {"city": "c", "country": "DE"}}
        if r.random() < 0.3:
            data[r.choice(["extra", "count", "inner"])] = r.choice(ODD)
        return data

    for model, make in ((Batch, _valid), (Node, lambda r: {"name": "a", "level": r.choice(["low", "1"]),
                                                           "children": [{"name": "b", "level": "high"}]}),
                        (Closed, closed)):
        for _ in range(300):
            data = make(rng)
            for _ in range(rng.randint(0, 3)):
                data = _mutate(data, rng)
            want = _ours(model, data)
            got = _checked(model, data)
            assert got[0] == want[0], data
            if want[0] == "error":
                assert got == want


def test_the_check_only_path_builds_dicts_not_models() -> None:
    strictpy._CHECKS.clear()
    check_strict(Batch, _valid(random.Random(3)))
    checker = strictpy._CHECKS[Batch]
    out = checker(_valid(random.Random(3)))
    assert type(out) is dict and type(out["orders"][0]["address"]) is dict, out
    assert out["orders"][0]["priority"] in set(Priority)
