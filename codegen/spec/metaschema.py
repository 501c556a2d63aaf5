"""Meta-validation of a spec's schemas: every way a schema breaks its dialect's meta-schema,
as E023 diagnostics worded by jsonschema, with a native shortcut for the common answer.

jsonschema takes milliseconds a tool schema (the 2020-12 meta-schema applies its seven
vocabularies to every subschema), and most schemas are valid.  jsonschema-rs says "valid" in
microseconds: when the ``fast`` accelerator is on (jsonschema-rs and orjson installed, and
``MCP_CODEGEN_ACCELERATOR`` not ``off``: :mod:`mcp_codegen_runtime.wire.accelerator`),
:func:`meta_valid_natively` answers first.  Only a native "valid" is trusted; anything else,
and every dialect the two libraries might read differently, is decided by jsonschema.  That a
native "valid" means jsonschema finds no error is checked by
``tests/generator/test_pull_meta_native.py`` on a corpus, on the official JSON-Schema-Test-Suite and
on generated schemas, for every dialect in :data:`NATIVE_DIALECTS`.  ``pull``'s schema repairs
(:mod:`codegen.commands.pull.schemas`) take the same shortcut.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

import jsonschema
from jsonschema.validators import validator_for
from mcp_codegen_runtime.wire import accelerator

from ..diagnostics import Diagnostic
from .load import SourceDoc
from .pointer import join_pointer

#: ``$schema`` values (None: absent, 2020-12 then) read as the same dialect by jsonschema's
#: ``validator_for`` and by jsonschema-rs, with the same number rules (draft-06 and later).
#: The value is whether the dialect is 2019-09 or later (``items: [...]`` means ``prefixItems``).
NATIVE_DIALECTS: dict[str | None, bool] = {
    None: True,
    **{f"https://json-schema.org/draft/{d}/schema{h}": True for d in ("2020-12", "2019-09") for h in ("", "#")},
    **{f"http://json-schema.org/draft-0{d}/schema{h}": False for d in (6, 7) for h in ("", "#")},
}


def meta_valid_natively(schema: Any) -> bool:
    """True only when jsonschema-rs (the accelerator, when on) finds ``schema``, an object,
    valid against the meta-schema of a dialect in :data:`NATIVE_DIALECTS`; then jsonschema
    finds no error either.  False means: ask jsonschema."""
    if not isinstance(schema, dict):
        return False
    known = schema.get("$schema")
    if not (known is None or isinstance(known, str) and known in NATIVE_DIALECTS):
        return False
    native = accelerator.module("jsonschema_rs")
    if native is None:
        return False
    try:
        return bool(native.meta.is_valid(schema))
    except Exception:  # anything it cannot take (a huge integer, a non-JSON value): jsonschema decides
        return False


#: Meta-validation findings by schema text: a ``--watch`` rebuild re-checks only the schemas
#: that changed.  Keyed by the exact JSON text (key order included, as messages show values).
_META_MEMO: dict[str, list[tuple[tuple[str | int, ...], str, str]]] = {}
_META_MEMO_LIMIT = 20_000


def meta_diagnostics(doc: SourceDoc, schema: Any, ptr: str) -> list[Diagnostic]:
    """E023 for every way ``schema`` (at ``ptr`` in ``doc``) breaks its dialect's meta-schema."""
    try:
        key = json.dumps(schema, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        key = None
    found = _META_MEMO.get(key) if key is not None else None
    if found is None:
        found = _meta_findings(schema)
        if key is not None:
            if len(_META_MEMO) >= _META_MEMO_LIMIT:
                _META_MEMO.clear()
            _META_MEMO[key] = found
    return [doc.diag("E023", message, join_pointer(ptr, *path), hint=hint) for path, message, hint in found]


def _meta_findings(schema: Any) -> list[tuple[tuple[str | int, ...], str, str]]:
    """(path in the schema, message, hint) of every way ``schema`` breaks its meta-schema
    (none, without asking jsonschema, when the native check finds it valid: :func:`meta_valid_natively`)."""
    if meta_valid_natively(schema):
        return []
    cls = validator_for(schema, default=jsonschema.Draft202012Validator) if isinstance(schema, dict) else jsonschema.Draft202012Validator
    meta = cls(cls.META_SCHEMA)
    out = []
    for err in sorted(meta.iter_errors(schema), key=lambda e: list(map(str, e.absolute_path))):
        hint = "see https://json-schema.org/draft/2020-12 for the keyword's allowed values"
        path = list(err.absolute_path)
        if path and path[-1] == "type" or len(path) > 1 and path[-2] == "type":
            names = err.instance if isinstance(err.instance, list) else [err.instance]
            wrong = next((n for n in names if isinstance(n, str) and n not in _JSON_TYPES), None)
            right = (_TYPE_NAMES.get(wrong.lower()) or next(iter(difflib.get_close_matches(wrong.lower(), _JSON_TYPES, 1)), None)
                     if wrong else None)
            if wrong and right:
                hint = f"did you mean {right!r} for {wrong!r}? JSON Schema types: {', '.join(_JSON_TYPES)}"
            else:
                hint = f"JSON Schema types: {', '.join(_JSON_TYPES)}"
        out.append((tuple(err.absolute_path), f"invalid JSON Schema: {err.message}", hint))
    return out


_JSON_TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")
#: Type names from programming languages, and the JSON Schema type they mean.
_TYPE_NAMES = {"int": "integer", "integer": "integer", "long": "integer", "float": "number", "double": "number",
               "decimal": "number", "str": "string", "text": "string", "bool": "boolean", "dict": "object",
               "map": "object", "list": "array", "tuple": "array", "none": "null", "nil": "null"}


__all__ = ["NATIVE_DIALECTS", "meta_diagnostics", "meta_valid_natively"]
