"""Request-side TypedDicts (issue 28 point 1): an object argument takes its TypedDict or its
model, so ``mypy --strict`` rejects a dict literal with a wrong nested type, a missing
required key or an unknown key, and accepts a correct one; the runtime still checks the
arguments against the schema exactly (the TypedDict is typing only)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codegen import build

SPEC = """\
mcp-codegen: 1
server: {name: shop, version: "1.0.0"}
tools:
  - name: place_order
    description: Place an order.
    inputSchema:
      type: object
      required: [items, customer]
      properties:
        items:
          type: array
          items:
            type: object
            required: [sku, qty]
            properties:
              sku: {type: string, minLength: 1}
              qty: {type: integer, minimum: 1}
        customer:
          type: object
          required: [name]
          properties:
            name: {type: string}
            tier: {enum: [basic, gold]}
            gift: {type: boolean, default: false}
        extras:
          type: object
          additionalProperties: {type: string}
        note:
          type: object
          properties: {text: {type: string}}
          additionalProperties: true
"""

GOOD = """\
from shop import ShopSyncClient


def use(c: ShopSyncClient) -> None:
    c.place_order(items=[{"sku": "a", "qty": 1}], customer={"name": "Ann", "tier": "gold", "gift": True},
                  extras={"k": "v"}, note={"text": "hi", "anything": 1})
"""


#: mypy names the union it expected (the TypedDict or the model) when a dict literal fits neither.
CUSTOMER_REFUSED = ('error: Argument "customer" to "place_order" of "ShopSyncClient" has incompatible type '
                    '"dict[str, object]"; expected "PlaceOrderInputCustomerDict | PlaceOrderInputCustomer"  [arg-type]')


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("typeddicts")
    (root / "shop.yaml").write_text(SPEC, "utf-8")
    out = root / "out"
    result, report = build([root / "shop.yaml"], out)
    assert report is not None, [d.render() for d in result.diagnostics]
    return out


def _mypy(package: Path, source: str) -> list[str]:
    (package / "use.py").write_text(source, "utf-8")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                           "--hide-error-context", "use.py"], cwd=package, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MYPYPATH": str(package)})
    return [re.sub(r"^use\.py:\d+: ", "", line) for line in proc.stdout.splitlines() if line.startswith("use.py:")]


def test_typed_dicts_are_written_beside_the_models(package: Path) -> None:
    models = (package / "shop" / "models.py").read_text("utf-8")
    assert "class PlaceOrderInputItemsItemDict(TypedDict):" in models
    assert "    qty: int\n" in models
    assert "    tier: NotRequired[PlaceOrderInputCustomerTier | Literal[\"basic\", \"gold\"]]\n" in models
    client = (package / "shop" / "client.py").read_text("utf-8")
    assert "items: list[PlaceOrderInputItemsItemDict | PlaceOrderInputItemsItem]," in client
    assert "customer: PlaceOrderInputCustomerDict | PlaceOrderInputCustomer," in client
    assert "note: PlaceOrderInputNote | Mapping[str, Any] | Unset = UNSET," in client  # extra keys allowed: a mapping


def test_a_correct_literal_passes(package: Path) -> None:
    assert _mypy(package, GOOD) == []


def test_a_wrong_nested_type_fails(package: Path) -> None:
    errors = _mypy(package, GOOD.replace('"qty": 1', '"qty": "1"'))
    assert errors == ['error: List item 0 has incompatible type "dict[str, str]"; expected '
                      '"PlaceOrderInputItemsItemDict | PlaceOrderInputItemsItem"  [list-item]'], errors


def test_a_missing_required_key_fails(package: Path) -> None:
    errors = _mypy(package, GOOD.replace('{"sku": "a", "qty": 1}', '{"sku": "a"}'))
    assert errors == ['error: List item 0 has incompatible type "dict[str, str]"; expected '
                      '"PlaceOrderInputItemsItemDict | PlaceOrderInputItemsItem"  [list-item]'], errors


def test_an_unknown_key_fails(package: Path) -> None:
    errors = _mypy(package, GOOD.replace('"gift": True', '"gift": True, "vip": True'))
    assert errors == [CUSTOMER_REFUSED], errors


def test_a_wrong_enum_value_fails(package: Path) -> None:
    errors = _mypy(package, GOOD.replace('"tier": "gold"', '"tier": "silver"'))
    assert errors == [CUSTOMER_REFUSED], errors


def test_the_runtime_still_checks_exactly(package: Path) -> None:
    """A dict that type-checks but breaks a constraint (``minLength``) is refused before sending."""
    sys.path.insert(0, str(package))
    try:
        from mcp_codegen_runtime.client.gencode import wire_arguments  # type: ignore[import-not-found]
        from shop.tools import PLACE_ORDER_TOOL  # type: ignore[import-not-found]
        with pytest.raises(Exception, match="sku"):
            wire_arguments(PLACE_ORDER_TOOL, {"items": [{"sku": "", "qty": 1}], "customer": {"name": "A"}})
        wire_arguments(PLACE_ORDER_TOOL, {"items": [{"sku": "a", "qty": 1}], "customer": {"name": "A"}})
    finally:
        sys.path.remove(str(package))
        for name in [m for m in sys.modules if m == "shop" or m.startswith("shop.")]:
            del sys.modules[name]


def test_pydantic_validates_a_nested_typed_dict_on_this_python(package: Path) -> None:
    """The TypedDicts come from typing_extensions: pydantic refuses typing's on Python < 3.12
    ("Please use typing_extensions.TypedDict"), and a user checking an argument with a
    TypeAdapter must not hit that."""
    proc = subprocess.run([sys.executable, "-c", (
        "import sys\n"
        "from pydantic import TypeAdapter, ValidationError\n"
        "from shop.models import PlaceOrderInputCustomerDict, PlaceOrderInputItemsItemDict\n"
        "items = TypeAdapter(list[PlaceOrderInputItemsItemDict])\n"
        "assert items.validate_python([{'sku': 'a', 'qty': 1}]) == [{'sku': 'a', 'qty': 1}]\n"
        "try:\n"
        "    items.validate_python([{'sku': 'a'}])\n"
        "    sys.exit('a missing key passed')\n"
        "except ValidationError:\n"
        "    pass\n"
        "TypeAdapter(PlaceOrderInputCustomerDict).validate_python({'name': 'Ann', 'tier': 'gold'})\n"
        "print(sys.version_info[:2])\n")], cwd=package, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
