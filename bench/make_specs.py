"""Write a synthetic, deterministic spec set of N tools for the generator benchmark.

The tools are spread over spec files of ``--per-spec`` tools each (default 10: a typical MCP
server has a handful to a few dozen tools), one server per file.  Every spec uses what real
specs use: shared ``$defs`` reused through ``$ref`` (an address, money, an enum, a paginated
list), nested objects, string enums, arrays of objects, optional fields with defaults,
descriptions, numeric and string constraints, and an output schema per tool.  The same seed
always produces the same bytes, so two runs measure the same input.

Usage::

    python bench/make_specs.py OUT_DIR --tools 1000 [--per-spec 10] [--seed 7]

Also importable: :func:`write_spec_set` (the benchmark uses it) and :func:`spec_document`.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

VERBS = ["get", "list", "create", "update", "delete", "search", "archive", "restore", "sync", "export"]
NOUNS = ["order", "invoice", "customer", "shipment", "product", "ticket", "report", "account", "project", "asset",
         "contract", "payment", "review", "warehouse", "supplier", "campaign", "lead", "subscription", "device", "event"]
WORDS = ("the a of for with and when which each every current primary optional value item record entry field "
         "state amount limit owner region code label note reason source target window period").split()


def _sentence(rng: random.Random, words: int = 8) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def shared_defs() -> dict[str, Any]:
    """The ``$defs`` every synthetic spec shares (reused by many tools)."""
    return {
        "Currency": {"type": "string", "enum": ["EUR", "USD", "GBP", "JPY", "CHF"], "description": "ISO 4217 code."},
        "Money": {
            "type": "object",
            "description": "An amount in a currency.",
            "properties": {
                "amount": {"type": "number", "minimum": 0, "description": "Amount in major units."},
                "currency": {"$ref": "#/$defs/Currency"},
            },
            "required": ["amount", "currency"],
        },
        "Address": {
            "type": "object",
            "properties": {
                "street": {"type": "string", "maxLength": 200},
                "city": {"type": "string", "minLength": 1},
                "postal_code": {"type": "string", "pattern": "^[A-Z0-9 -]{3,10}$"},
                "country": {"type": "string", "minLength": 2, "maxLength": 2, "description": "ISO country code."},
            },
            "required": ["city", "country"],
        },
        "Status": {"type": "string", "enum": ["active", "pending", "suspended", "closed"]},
        "Page": {
            "type": "object",
            "description": "Pagination of a list result.",
            "properties": {
                "cursor": {"type": ["string", "null"], "description": "Opaque cursor of the next page."},
                "total": {"type": "integer", "minimum": 0},
            },
            "required": ["cursor"],
        },
    }


def _scalar(rng: random.Random, n: int) -> dict[str, Any]:
    kind = n % 6
    if kind == 0:
        return {"type": "string", "minLength": 1, "maxLength": rng.choice([64, 200, 1000]), "description": _sentence(rng, 6)}
    if kind == 1:
        return {"type": "integer", "minimum": 0, "maximum": rng.choice([100, 1000, 100000])}
    if kind == 2:
        return {"type": "number", "description": _sentence(rng, 5)}
    if kind == 3:
        return {"type": "boolean", "default": False}
    if kind == 4:
        return {"type": "string", "enum": [f"mode_{i}" for i in range(rng.randint(2, 5))], "default": "mode_0"}
    return {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 20}


def tool_schema(rng: random.Random, index: int, name: str) -> dict[str, Any]:
    """One tool: nested input object, enum, array of objects, $refs, optional fields, output."""
    item_props: dict[str, Any] = {
        "sku": {"type": "string", "description": "Stock keeping unit."},
        "quantity": {"type": "integer", "minimum": 1, "default": 1},
        "price": {"$ref": "#/$defs/Money"},
    }
    for i in range(rng.randint(0, 3)):
        item_props[f"attr_{i}"] = _scalar(rng, index + i)
    props: dict[str, Any] = {
        "id": {"type": "string", "pattern": "^[a-z]{2}_[0-9]{1,12}$", "description": f"Identifier of the {name.split('_')[-1]}."},
        "status": {"$ref": "#/$defs/Status"},
        "filters": {
            "type": "object",
            "description": "Optional filters.",
            "properties": {
                "since": {"type": "string", "format": "date-time"},
                "region": {"type": "string", "enum": ["emea", "amer", "apac"]},
                "owner": {"type": "object", "properties": {"id": {"type": "string"}, "email": {"type": "string"}},
                          "required": ["id"]},
            },
        },
        "items": {"type": "array", "items": {"type": "object", "properties": item_props, "required": ["sku", "price"]},
                  "maxItems": 100},
        "ship_to": {"$ref": "#/$defs/Address"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
        "note": {"type": ["string", "null"], "default": None, "description": _sentence(rng)},
    }
    for i in range(rng.randint(1, 4)):
        props[f"option_{i}"] = _scalar(rng, index * 7 + i)
    required = ["id"] + (["items"] if index % 3 == 0 else [])
    output = {
        "type": "object",
        "properties": {
            "results": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "status": {"$ref": "#/$defs/Status"},
                    "total": {"$ref": "#/$defs/Money"},
                    "updated": {"type": "string", "format": "date-time"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["id", "status"],
            }},
            "page": {"$ref": "#/$defs/Page"},
        },
        "required": ["results", "page"],
    }
    return {
        "name": name,
        "title": name.replace("_", " ").capitalize(),
        "description": _sentence(rng, 14),
        "annotations": {"readOnlyHint": name.startswith(("get", "list", "search", "export"))},
        "inputSchema": {"type": "object", "properties": props, "required": required},
        "outputSchema": output,
    }


def spec_document(server: str, first_tool: int, count: int, seed: int) -> dict[str, Any]:
    """A whole spec file (one server) with ``count`` tools numbered from ``first_tool``."""
    tools = []
    for i in range(first_tool, first_tool + count):
        rng = random.Random(seed * 1_000_003 + i)
        name = f"{VERBS[i % len(VERBS)]}_{NOUNS[(i // len(VERBS)) % len(NOUNS)]}_{i:04d}"
        tools.append(tool_schema(rng, i, name))
    return {
        "mcp-codegen": 1,
        "server": {"name": server, "version": "1.0.0", "title": server.replace("_", " ").title(),
                   "description": f"Synthetic benchmark server {server}."},
        "$defs": shared_defs(),
        "tools": tools,
    }


def write_spec_set(out: Path, tools: int, per_spec: int = 10, seed: int = 7) -> list[Path]:
    """Write ``tools`` tools as spec files of ``per_spec`` tools into ``out``; returns the files.

    Files are JSON (a subset of YAML the generator reads as fast as possible); the layout and
    bytes depend only on the arguments.
    """
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for n, first in enumerate(range(0, tools, per_spec)):
        doc = spec_document(f"bench_{n:03d}", first, min(per_spec, tools - first), seed)
        path = out / f"bench_{n:03d}.json"
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for the spec files (created)")
    parser.add_argument("--tools", type=int, default=100, help="number of tools in total")
    parser.add_argument("--per-spec", type=int, default=10, help="tools per spec file (one server each)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    paths = write_spec_set(args.out, args.tools, args.per_spec, args.seed)
    print(f"wrote {len(paths)} spec file(s) with {args.tools} tools to {args.out}")


if __name__ == "__main__":
    main()
