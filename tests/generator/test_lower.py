"""Lowering a validated spec to the IR: every Python name, flag and table the templates print
is decided here (expected values written by hand from the spec below)."""

from __future__ import annotations

from pathlib import Path

from codegen.ir.lower import lower
from codegen.ir.nodes import ProjectIR
from codegen.options import Options
from codegen.spec.load import load_spec_file
from codegen.spec.validate import validate

SPEC = """\
mcp-codegen: 1
server: {name: Acme Inventory, version: "2.1.0", title: Acme, target: client}
$defs:
  Sku: {type: string, pattern: "^[A-Z]{3}-[0-9]+$"}
tools:
  - name: get-item
    title: Get an item
    description: Look one item up.
    annotations: {readOnlyHint: true}
    inputSchema:
      type: object
      properties:
        sku: {$ref: "#/$defs/Sku"}
      required: [sku]
    outputSchema:
      type: object
      properties: {name: {type: string}}
      required: [name]
    errors:
      not_found: {description: No such item.}
  - name: class
    description: A tool whose name is a keyword.
    inputSchema: {type: object, properties: {n: {type: integer}}}
    inputs:
      confirm:
        method: elicitation/create
        message: Sure?
        requestedSchema: {type: object, properties: {ok: {type: boolean}}, required: [ok]}
"""


def _lower(tmp_path: Path, text: str = SPEC) -> ProjectIR:
    path = tmp_path / "acme.yaml"
    path.write_text(text, "utf-8")
    doc, diags = load_spec_file(path, "specs/acme.yaml")
    assert doc is not None, diags
    spec, resolver, diags = validate(doc)
    assert spec is not None and resolver is not None, diags
    ir, diags = lower(spec, resolver, "specs/acme.yaml")
    assert ir is not None, [d.render() for d in diags]
    return ir


def test_server_names(tmp_path: Path) -> None:
    s = _lower(tmp_path).server
    assert (s.name, s.version, s.title) == ("Acme Inventory", "2.1.0", "Acme")
    assert (s.package, s.base_class, s.client_class, s.sync_client_class) == (
        "acme_inventory", "AcmeInventoryServerBase", "AcmeInventoryClient", "AcmeInventorySyncClient")
    assert (s.impl_module, s.impl_class, s.script) == ("acme_inventory_impl", "AcmeInventoryService", "acme-inventory-server")
    assert s.spec_display == "specs/acme.yaml" and s.target == "client" and s.runtime == "library"


def test_tool_names_and_flags(tmp_path: Path) -> None:
    get, cls = _lower(tmp_path).tools
    assert (get.name, get.method, get.const) == ("get-item", "get_item", "GET_ITEM_TOOL")
    assert (get.input_class, get.output_class, get.inputs_class) == ("GetItemInput", "GetItemOutput", None)
    assert get.read_only and get.title == "Get an item" and get.description == "Look one item up."
    assert not get.schema_checked  # its only pattern applies unconditionally: checked beside the model
    assert [(e.code, e.class_name) for e in get.errors] == [("not_found", "NotFoundError")]
    assert cls.method == "class_" and cls.const == "CLASS_TOOL" and cls.input_class == "ClassInput"
    assert not cls.schema_checked and not cls.read_only and cls.output_class is None
    assert [(i.key, i.accessor, i.method, i.answer_class) for i in cls.inputs] == [
        ("confirm", "confirm", "elicitation/create", "ClassConfirmAnswer")]
    assert cls.inputs_class == "ClassInputs"


def test_wire_schema_is_self_contained_and_verbatim(tmp_path: Path) -> None:
    get = _lower(tmp_path).tools[0]
    schema = get.wire["inputSchema"]
    assert schema["properties"]["sku"] == {"$ref": "#/$defs/Sku"}
    assert schema["$defs"]["Sku"] == {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"}
    assert get.wire["annotations"] == {"readOnlyHint": True} and get.wire["title"] == "Get an item"


def test_lowering_leaves_params_to_the_models_and_options_apply(tmp_path: Path) -> None:
    ir = _lower(tmp_path)
    assert all(t.params == () for t in ir.tools)  # filled by models.with_params before rendering
    both = Options(target="both", runtime="private").apply(ir)
    assert both.server.target == "both" and both.server.runtime == "private" and both.tools == ir.tools
    assert Options().apply(both).server.runtime == "private"  # no flag keeps the spec's choice
    assert Options().apply(ir).server.target == "client"  # no flag: the spec decides


def test_two_tools_with_one_method_name_are_an_error(tmp_path: Path) -> None:
    text = SPEC.replace("  - name: class\n", "  - name: get_item\n")
    path = tmp_path / "acme.yaml"
    path.write_text(text, "utf-8")
    doc, _ = load_spec_file(path, "acme.yaml")
    assert doc is not None
    spec, resolver, _ = validate(doc)
    assert spec is not None and resolver is not None  # valid as a spec; the names clash only in Python
    ir, diags = lower(spec, resolver, "acme.yaml")
    errors = sorted((d.code, d.line, d.pointer) for d in diags if d.is_error)
    assert ir is None and errors == [("E030", 21, "/tools/1"), ("E030", 23, "/tools/1/inputSchema")], errors


def test_the_runtime_package_name_is_reserved(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text('mcp-codegen: 1\nserver: {name: x, version: "1", package: mcp_codegen_runtime}\ntools: []\n', "utf-8")
    doc, _ = load_spec_file(path, "x.yaml")
    assert doc is not None
    spec, resolver, _ = validate(doc)
    assert spec is not None and resolver is not None
    ir, diags = lower(spec, resolver, "x.yaml")
    assert ir is None and [(d.code, d.pointer) for d in diags if d.is_error] == [("E033", "/server/package")]


def test_request_typed_dicts_are_named_and_claimed(tmp_path: Path) -> None:
    """Each object a tool's input reaches gets ``<Class>Dict`` (not the input class itself,
    not an output-only object); a schema already called so is a collision (E030)."""
    text = SPEC.replace("        sku: {$ref: \"#/$defs/Sku\"}\n",
                        "        sku: {$ref: \"#/$defs/Sku\"}\n        box: {$ref: \"#/$defs/Box\"}\n")
    text = text.replace("$defs:\n", "$defs:\n  Box: {type: object, properties: {size: {type: integer}}}\n")
    path = tmp_path / "acme.yaml"
    path.write_text(text, "utf-8")
    doc, _ = load_spec_file(path, "acme.yaml")
    assert doc is not None
    spec, resolver, _ = validate(doc)
    assert spec is not None and resolver is not None
    ir, diags = lower(spec, resolver, "acme.yaml")
    assert ir is not None and ir.typed_dicts == (("Box", "BoxDict"),), ir.typed_dicts
    path.write_text(text.replace("$defs:\n", "$defs:\n  BoxDict: {type: object, properties: {a: {type: string}}}\n")
                    .replace("{size: {type: integer}}}\n", "{size: {type: integer}, o: {$ref: \"#/$defs/BoxDict\"}}}\n"),
                    "utf-8")
    doc, _ = load_spec_file(path, "acme.yaml")
    assert doc is not None
    spec, resolver, _ = validate(doc)
    assert spec is not None and resolver is not None
    ir, diags = lower(spec, resolver, "acme.yaml")
    errors = [(d.code, d.message) for d in diags if d.is_error]
    assert ir is None and [c for c, _ in errors] == ["E030"] and "BoxDict" in errors[0][1], errors
