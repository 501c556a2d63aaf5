"""Schema plumbing between the spec and the outputs: the self-contained wire schema of a tool
(refs to other files and to the spec's ``$defs`` bundled in), and the one model document
handed to the model generator (``$defs`` keyed by class names)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegen.ir.lower import lower
from codegen.schemas.document import bundle_wire, canonical
from codegen.spec.load import load_spec_file
from codegen.spec.validate import validate

SHARED = """\
$defs:
  Address:
    type: object
    properties: {street: {type: string}, country: {$ref: "#/$defs/Country"}}
  Country: {type: string, minLength: 2, maxLength: 2}
"""

SPEC = """\
mcp-codegen: 1
server: {name: post, version: "1.0"}
$defs:
  Weight: {type: number, exclusiveMinimum: 0}
tools:
  - name: send
    description: Send a parcel.
    inputSchema:
      type: object
      properties:
        to: {$ref: "shared.yaml#/$defs/Address"}
        weight: {$ref: "#/$defs/Weight"}
        kind: {$ref: "#/$defs/Kind"}
      required: [to, weight]
      $defs:
        Kind: {enum: [letter, parcel]}
"""


def _load(tmp_path: Path) -> tuple[Any, Any, Any]:
    (tmp_path / "shared.yaml").write_text(SHARED, "utf-8")
    (tmp_path / "post.yaml").write_text(SPEC, "utf-8")
    doc, _ = load_spec_file(tmp_path / "post.yaml", "post.yaml")
    assert doc is not None
    spec, resolver, diags = validate(doc)
    assert spec is not None and resolver is not None, diags
    return doc, spec, resolver


def test_bundle_wire_is_self_contained(tmp_path: Path) -> None:
    doc, _, resolver = _load(tmp_path)
    wire = bundle_wire(resolver, doc, "/tools/0/inputSchema")
    assert wire["properties"] == {"to": {"$ref": "#/$defs/Address"}, "weight": {"$ref": "#/$defs/Weight"},
                                  "kind": {"$ref": "#/$defs/Kind"}}
    assert wire["$defs"] == {
        "Kind": {"enum": ["letter", "parcel"]},  # the schema's own $defs stay as written
        "Address": {"type": "object", "properties": {"street": {"type": "string"}, "country": {"$ref": "#/$defs/Country"}}},
        "Country": {"type": "string", "minLength": 2, "maxLength": 2},
        "Weight": {"type": "number", "exclusiveMinimum": 0},
    }
    assert list(wire["$defs"]) == ["Kind", "Address", "Country", "Weight"]  # own first, bundled sorted


def test_bundle_wire_renames_a_clash_with_the_schemas_own_defs(tmp_path: Path) -> None:
    """A ``#`` ref inside a tool schema means what it means in the schema alone (its own
    ``$defs`` first); a bundled definition whose name is taken there gets a number."""
    (tmp_path / "shared.yaml").write_text(SHARED, "utf-8")
    text = SPEC.replace("        Kind: {enum: [letter, parcel]}", "        Kind: {enum: [letter, parcel]}\n        Address: {type: string}")
    (tmp_path / "post.yaml").write_text(text, "utf-8")
    doc, _ = load_spec_file(tmp_path / "post.yaml", "post.yaml")
    assert doc is not None
    _, resolver, _ = validate(doc)
    assert resolver is not None
    wire = bundle_wire(resolver, doc, "/tools/0/inputSchema")
    assert wire["properties"]["to"] == {"$ref": "#/$defs/Address2"}  # shared.yaml's Address, renamed
    assert wire["$defs"]["Address"] == {"type": "string"} and wire["$defs"]["Address2"]["type"] == "object"


def test_model_document_names_every_class_once(tmp_path: Path) -> None:
    _, spec, resolver = _load(tmp_path)
    ir, diags = lower(spec, resolver, "post.yaml")
    assert ir is not None, diags
    defs = ir.model_schema["$defs"]
    assert {"SendInput", "Address"} <= set(defs)
    assert defs["SendInput"]["properties"]["to"] == {"$ref": "#/$defs/Address"}
    assert ir.tools[0].wire["inputSchema"]["properties"]["to"] == {"$ref": "#/$defs/Address"}


def test_canonical_ignores_key_order() -> None:
    assert canonical({"b": 1, "a": [2, {"d": 3, "c": 4}]}) == canonical({"a": [2, {"c": 4, "d": 3}], "b": 1})
    assert canonical({"a": 1}) != canonical({"a": 1.5})
