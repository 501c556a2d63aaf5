"""Validators of the official MCP distribution schemas copied into tests/schemas/ecosystem/
(provenance in its SOURCES.md): the registry's server.json (draft-07) and the server card
(2020-12, at ``#/$defs/ServerCard``), both with the format checker on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

ECOSYSTEM = Path(__file__).resolve().parents[1] / "schemas" / "ecosystem"
REGISTRY_SCHEMA = ECOSYSTEM / "registry" / "server.schema.json"
CARD_SCHEMA = ECOSYSTEM / "server-card" / "server-card.schema.json"
#: The card schema has no root: documents are validated at this definition.
CARD_DEF = "#/$defs/ServerCard"
_CARD_ID = "urn:test:server-card-schema"


def _load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def registry_validator() -> jsonschema.Draft7Validator:
    schema = _load(REGISTRY_SCHEMA)
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def card_validator() -> jsonschema.Draft202012Validator:
    schema = _load(CARD_SCHEMA)
    registry: Registry = Registry().with_resource(_CARD_ID, Resource.from_contents(schema))
    return jsonschema.Draft202012Validator({"$ref": _CARD_ID + CARD_DEF}, registry=registry,
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def errors(validator: jsonschema.protocols.Validator, document: Any) -> list[str]:
    """Every error of ``document``, as "path: message" lines (empty: valid)."""
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def examples(kind: str, verdict: str) -> list[Path]:
    """The upstream examples of ``kind`` (registry | server-card) that are ``verdict`` (valid | invalid)."""
    return sorted((ECOSYSTEM / kind / "examples" / verdict).glob("*.json"))
