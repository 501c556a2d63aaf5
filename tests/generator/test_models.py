"""The model generator step: classes and fields read back from datamodel-code-generator's
output, and the typed client arguments derived from them (expected values by hand)."""

from __future__ import annotations

import ast
from pathlib import Path

from codegen.ir.lower import lower
from codegen.ir.nodes import ProjectIR
from codegen.models.generate import build_models, widen, with_params
from codegen.spec.load import load_spec_file
from codegen.spec.validate import validate

SPEC = """\
mcp-codegen: 1
server: {name: shop, version: "1.0"}
$defs:
  Money: {type: object, properties: {amount: {type: number}, currency: {type: string}}, required: [amount]}
  Sort: {type: string, enum: [asc, desc]}
tools:
  - name: search
    description: Search.
    inputSchema:
      type: object
      properties:
        query: {type: string, description: What to look for.}
        self: {type: integer, default: 10}
        sort: {$ref: "#/$defs/Sort"}
        max_price: {$ref: "#/$defs/Money"}
        note: {type: [string, "null"]}
      required: [query]
"""


def _ir(tmp_path: Path) -> ProjectIR:
    path = tmp_path / "shop.yaml"
    path.write_text(SPEC, "utf-8")
    doc, _ = load_spec_file(path, "shop.yaml")
    assert doc is not None
    spec, resolver, diags = validate(doc)
    assert spec is not None and resolver is not None, diags
    ir, diags = lower(spec, resolver, "shop.yaml")
    assert ir is not None, diags
    return ir


def test_models_source_and_tables(tmp_path: Path) -> None:
    ir = _ir(tmp_path)
    models, diags = build_models(ir)
    assert models is not None, diags
    classes = {n.name for n in ast.parse(models.source).body if isinstance(n, ast.ClassDef)}
    assert {"SearchInput", "Money", "Sort"} <= classes
    assert models.enums["Sort"] == ("asc", "desc")
    assert "Money" in models.objects
    fields = {p.wire: p for p in models.fields["SearchInput"]}
    assert set(fields) == {"query", "self", "sort", "max_price", "note"}
    assert fields["self"].field == "self" and fields["self"].default == "10"  # a model field may be called self
    assert fields["query"].default is None  # required


def test_client_params_from_the_models(tmp_path: Path) -> None:
    ir = _ir(tmp_path)
    models, _ = build_models(ir)
    assert models is not None
    params = {p.wire: p for p in with_params(ir, models).tools[0].params}
    assert [p.wire for p in with_params(ir, models).tools[0].params][0] == "query"  # required first
    assert (params["query"].name, params["query"].annotation, params["query"].default) == ("query", "str", None)
    assert params["query"].description == "What to look for."
    assert params["self"].name == "self_" and params["self"].default == "UNSET"  # a method argument may not
    assert params["self"].annotation == "int | Unset" and params["self"].schema_default == "10"
    assert params["sort"].annotation == "Sort | Literal['asc', 'desc'] | Unset"  # an enum's values too
    assert params["max_price"].annotation == "MoneyDict | Money | Unset"  # its TypedDict too
    assert params["note"].annotation == "str | None | Unset"  # null only where the schema allows it


def test_widen() -> None:
    assert widen("Sort", {"Sort": ("a", "b")}, frozenset()) == "Sort | Literal['a', 'b']"
    assert widen("list[Money] | None", {}, frozenset({"Money"})) == "list[Money | Mapping[str, Any]] | None"
    assert widen("int", {}, frozenset()) == "int"
    assert widen("list[Money] | None", {}, frozenset({"Money"}), {"Money": "MoneyDict"}) == "list[MoneyDict | Money] | None"
