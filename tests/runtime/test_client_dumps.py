"""The typed client's argument dump (``client.dumps.jsonable``): a list of models of one class
dumped in one call gives the very bytes the member-by-member dump gave (the previous path,
written out below), on models with aliases, None and unset fields, nested models, lists of
models, enums, extras, root models and serializers of their own."""

from __future__ import annotations

import datetime
import enum
import json
import warnings
from collections.abc import Mapping
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_codegen_runtime.client import dumps
from mcp_codegen_runtime.client.dumps import jsonable, plain_dump
from pydantic import AliasGenerator, BaseModel, ConfigDict, Field, RootModel, computed_field, field_serializer


def _old(value: Any, odd: list[Any]) -> Any:
    """The dump before ``client.dumps``: ``model_dump`` of each model, one by one."""
    if isinstance(value, BaseModel):
        if not plain_dump(type(value)):
            odd.append(value)
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, enum.Enum):
        return _old(value.value, odd)
    if isinstance(value, Mapping):
        return {str(k): _old(v, odd) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_old(v, odd) for v in value]
    if type(value) not in {str, int, float, bool, type(None)}:
        odd.append(value)
    return value


class Color(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str | None = Field(None, max_length=200)
    city: str
    country: Literal["FR", "DE"] = "FR"


class Line(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    sku: str
    quantity: int = Field(alias="qty")
    unit_price: float | None = Field(None, alias="unitPrice")
    color: Color | None = None


class Order(BaseModel):
    id: str
    address: Address | None = None
    lines: list[Line] = Field(default_factory=list)
    tags: list[str] | None = None
    note: str | None = None


class Camel(BaseModel):
    model_config = ConfigDict(alias_generator=AliasGenerator(serialization_alias=lambda n: n.upper()))
    some_field: int
    other: str | None = None


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int = 0


class Dated(BaseModel):  # not a plain dump (a datetime): member by member, as before
    when: datetime.datetime


class Shouting(BaseModel):  # a serializer of its own: not plain
    word: str

    @field_serializer("word")
    def _up(self, word: str) -> str:
        return word.upper()


class Computed(BaseModel):
    x: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def double(self) -> int:
        return self.x * 2


class Wrapped(RootModel[list[int]]):
    pass


class SubOrder(Order):
    extra_field: int = 1


def _order(i: int) -> Order:
    lines = [Line(sku=f"ABC-{i}{j}", qty=j + 1) if j % 2 else Line(sku="X", quantity=1, unitPrice=None, color=Color.RED)
             for j in range(i % 4)]
    if i % 3 == 0:
        return Order(id=f"o{i}", lines=lines, note=None)  # None set explicitly: sent as null
    if i % 3 == 1:
        return Order(id=f"o{i}", address=Address(city="Paris", street=None), tags=["a", "b"])
    return Order.model_validate({"id": f"o{i}", "address": {"city": "Bonn", "country": "DE"}, "lines": [{"sku": "Q", "qty": 2}]})


_CASES: list[Any] = [
    [_order(i) for i in range(12)],
    [_order(0)],
    [],
    [Camel(some_field=1), Camel(some_field=2, other=None), Camel(some_field=3, other="x")],
    [Loose(a=1, b=[1, 2], c={"d": None}), Loose()],
    [Dated(when=datetime.datetime(2026, 1, 2, 3, 4, 5))],
    [Shouting(word="hi"), Shouting(word="yo")],
    [Computed(x=1), Computed(x=2)],
    [Wrapped([1, 2]), Wrapped([])],
    [_order(1), SubOrder(id="s")],  # mixed classes: one by one
    [SubOrder(id="s", extra_field=3), SubOrder(id="t")],
    [Line(sku="a", qty=1), {"sku": "b"}],  # a model then a dict
    [[_order(1), _order(2)], [_order(3)]],  # lists of lists of models
    (_order(1), _order(2)),  # a tuple
    {"k": [_order(4), _order(5)], "e": Color.BLUE},
    _order(7),
    [Color.RED, Color.BLUE],
    [1, "a", None, 2.5, True],
]


def _same(value: Any) -> None:
    odd_old: list[Any] = []
    odd_new: list[Any] = []
    old = _old(value, odd_old)
    new = jsonable(value, odd_new)
    for options in ({}, {"ensure_ascii": False, "separators": (",", ":")}):
        assert json.dumps(new, **options) == json.dumps(old, **options)  # the same bytes on the wire
    assert [id(x) for x in odd_new] == [id(x) for x in odd_old]  # the same "not plain" verdict


@pytest.mark.parametrize("value", _CASES, ids=range(len(_CASES)))
def test_the_dump_is_the_member_by_member_dump(value: Any) -> None:
    _same(value)


def test_a_list_of_one_plain_class_takes_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    orders = [_order(i) for i in range(5)]
    jsonable(orders, [])
    assert dumps._LIST_DUMPS[Order] is not None
    assert dumps._LIST_DUMPS.get(Shouting) is None

    def refuse(self: BaseModel, **kwargs: Any) -> Any:
        raise AssertionError("model_dump called per member")
    monkeypatch.setattr(Order, "model_dump", refuse)
    assert jsonable(orders, []) == [o.__class__.__base__.model_dump(o, mode="json", by_alias=True, exclude_unset=True)
                                    for o in orders]


def test_a_model_changed_after_construction_dumps_as_before() -> None:
    line = Line(sku="a", qty=1)
    line.quantity = "not a number"  # type: ignore[assignment]  (no validate_assignment)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same([line, Line(sku="b", qty=2)])
        order = _order(1)
        order.lines = [line]
        _same([order, _order(2)])


_lines = st.builds(
    lambda sku, qty, price, color, use_alias: Line(sku=sku, qty=qty, unitPrice=price, color=color) if use_alias
    else Line(sku=sku, quantity=qty),
    st.text(max_size=5), st.integers(-5, 10**20), st.none() | st.floats(allow_nan=False, allow_infinity=False),
    st.none() | st.sampled_from(Color), st.booleans())
_orders = st.builds(
    lambda id_, lines, tags, note, city, set_note: Order(id=id_, lines=lines, tags=tags, address=city and Address(city=city),
                                                         **({"note": note} if set_note else {})),
    st.text(max_size=4), st.lists(_lines, max_size=3), st.none() | st.lists(st.text(max_size=3), max_size=2),
    st.none() | st.text(max_size=3), st.none() | st.text(min_size=1, max_size=3), st.booleans())


@settings(max_examples=200, deadline=None)
@given(orders=st.lists(_orders, max_size=6))
def test_random_orders_dump_as_before(orders: list[Order]) -> None:
    _same(orders)
    _same({"orders": orders, "first": orders[:1]})
