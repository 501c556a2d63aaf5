"""The structural check of a spec: the published ``spec-format.schema.json`` against the document.

jsonschema's errors become located diagnostics that say what to do: an unknown key with the key
it nearly is (E011, W105 in a Tool object, which may carry vendor keys), a missing key, a value of
the wrong type with how to quote it in YAML, an enum with the close value, a pattern in words.
A ``oneOf``/``anyOf`` whose one branch is of the value's type reports that branch's own errors
(:func:`_precise`), not jsonschema's "not valid under any of the given schemas".
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

from ..diagnostics import Diagnostic, Level, clipped
from .keywords import near_miss
from .load import SourceDoc
from .model import FORMAT_VERSION
from .patternwords import pattern_words
from .pointer import join_pointer

_WIRE_DEFS = ("Tool", "Annotations")


@cache
def spec_format_schema() -> dict[str, Any]:
    """The JSON Schema of the spec format (also published for editors)."""
    text = resources.files("codegen.spec").joinpath("spec-format.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _pointer(path: Any) -> str:
    return join_pointer("", *path)


_JSON_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def _branch_type_matches(branch: Any, instance: Any) -> bool:
    """Whether a ``oneOf``/``anyOf`` branch of the spec format says ``type`` and ``instance`` is of it."""
    named = branch.get("type") if isinstance(branch, dict) else None
    kind = _JSON_TYPES.get(named) if isinstance(named, str) else None
    return kind is not None and isinstance(instance, kind)


def _precise(errors: Iterable[jsonschema.ValidationError]) -> Iterator[jsonschema.ValidationError]:
    """The errors, a ``oneOf``/``anyOf`` one replaced by its branch's own errors when exactly one
    branch is of the value's type (``env`` as a mapping with a bad name: the name's error, not
    "not valid under any of the given schemas")."""
    for err in errors:
        if err.validator in ("oneOf", "anyOf") and isinstance(err.validator_value, list) and err.context:
            typed = [i for i, branch in enumerate(err.validator_value) if _branch_type_matches(branch, err.instance)]
            inner = [e for e in err.context if typed == [e.schema_path[0]]] if len(typed) == 1 else []
            if inner:
                yield from _precise(inner)
                continue
        yield err


_FORM_WORDS = {"object": "a mapping", "array": "a list", "string": "a string", "boolean": "true or false",
               "integer": "an integer", "number": "a number"}


def _forms(kinds: Any) -> str:
    """The JSON types ``kinds`` in words ("a string or a mapping"); "" unless each is a known type name."""
    words = [_FORM_WORDS.get(k) if isinstance(k, str) else None for k in kinds] if isinstance(kinds, list) else []
    return " or ".join(dict.fromkeys(w for w in words if w)) if words and None not in words else ""


def _branch_forms(branches: Any) -> str:
    """:func:`_forms` of the ``type`` of every ``oneOf``/``anyOf`` branch ("" when one says none)."""
    return _forms([b.get("type") if isinstance(b, dict) else None for b in branches]) if isinstance(branches, list) else ""


def _shown(value: Any) -> str:
    """A short view of a YAML value for a message."""
    return clipped(repr(value))


_WRITE_AS = {"array": "write each entry as a list item starting with '- '",
             "object": "write `key: value` lines (no '- ' in front)"}


def _container_mismatch(doc: SourceDoc, err: jsonschema.ValidationError, ptr: str) -> Diagnostic:
    """A list where a mapping goes, a mapping where a list goes, or nothing where either goes,
    said in YAML's words (not a dump of the whole value)."""
    path = list(err.absolute_path)
    name = f"`{path[-1]}`" if path and isinstance(path[-1], str) else "this value" if path else "the spec"
    kind = "empty (null)" if err.instance is None else "a mapping" if isinstance(err.instance, dict) else "a list"
    hint = _WRITE_AS[err.validator_value] + (" (or [] for none)" if err.instance is None and err.validator_value == "array"
                                             else "")
    return doc.diag("E010", f"{name} is {kind}, not {_FORM_WORDS[err.validator_value]}", ptr, hint=hint)


#: What to write for a missing key, where "add the missing key" says too little: (the two path
#: elements above the entry, jsonschema's message) -> hint.
_REQUIRED_HINTS = {
    (("http", "args"), "'name' is a required property"):
        "name: the argument's name in its place (the path template's {variable}, the query parameter, the header "
        "or the cookie); only in: body may leave it out",
}


def structural_errors(doc: SourceDoc, data: Any = None) -> list[Diagnostic]:
    """The spec-format schema's verdict on ``doc`` (or on ``data``, another view of it), as
    located diagnostics: E010 (shape), E011 (unknown key, with the near miss), E012 (version),
    W105 (a vendor key in a Tool object)."""
    data = doc.data if data is None else data  # another view of the document (setaside.without_set_aside)
    if not isinstance(data, dict):
        return [doc.diag("E010", "a spec file must be a mapping with mcp-codegen, server and tools",
                         hint="start from `mcp-codegen init NAME`")]
    if "mcp-codegen" in data and data["mcp-codegen"] != FORMAT_VERSION:
        return [doc.diag("E012", f"unsupported spec format version {data['mcp-codegen']!r}", "/mcp-codegen",
                         hint=f"this mcp-codegen reads format version {FORMAT_VERSION}")]
    validator = jsonschema.Draft202012Validator(spec_format_schema())
    out: list[Diagnostic] = []
    errors = list(_precise(validator.iter_errors(data)))
    # a value whose type a list allows at the same place (`type: [string, object]` beside its
    # `else` branch's `type: object`): the list's error alone
    typed = {_pointer(e.absolute_path) for e in errors if e.validator == "type" and isinstance(e.validator_value, list)}
    for err in errors:
        ptr = _pointer(err.absolute_path)
        if err.validator == "type" and isinstance(err.validator_value, str) and ptr in typed:
            continue
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            allowed = sorted((err.schema.get("properties") or {}).keys())
            # a Tool object or its annotations may carry vendor keys (tools/list dumps do); a near
            # miss of a known key is a mistake (E011), except in a pulled spec (what the server sent)
            wire = any(err.schema is spec_format_schema()["$defs"][k] for k in _WIRE_DEFS)
            for key in sorted(set(err.instance) - set(allowed)):
                meant = near_miss(key, allowed)
                close = [meant] if meant else [] if wire else difflib.get_close_matches(key, allowed, n=1)
                if wire and (meant is None or doc.pulled):
                    hint = (f"did you mean {close[0]!r}? " if close else "") + "it is kept and sent as written in tools/list"
                    out.append(doc.diag("W105", f"unknown key {key!r} in a Tool object", join_pointer(ptr, key),
                                        hint=hint, level=Level.WARNING))
                    continue
                hint = f"did you mean {close[0]!r}?" if close else f"allowed keys: {', '.join(allowed)}"
                out.append(doc.diag("E011", f"unknown key {key!r}", join_pointer(ptr, key), hint=hint))
        elif err.validator == "required":
            out.append(doc.diag("E010", err.message, ptr, hint=_REQUIRED_HINTS.get(
                (tuple(str(k) for k in err.absolute_path)[-3:-1], err.message), "add the missing key")))
        elif err.validator in ("allOf", "if", "then"):
            out.append(doc.diag("E010", err.message, ptr))
        elif err.validator in ("oneOf", "anyOf") and _branch_forms(err.validator_value):
            # of none of the branches' types (a branch of its type was descended into by _precise)
            out.append(doc.diag("E010", f"{_shown(err.instance)} is not {_branch_forms(err.validator_value)}", ptr))
        elif err.validator == "pattern" and isinstance(err.validator_value, str):
            path = list(err.absolute_path)
            key = str(path[-1]) if path and isinstance(path[-1], str) else \
                f"an item of {path[-2]}" if len(path) > 1 and isinstance(path[-2], str) else "value"
            if list(err.schema_path)[-2:-1] == ["propertyNames"]:  # a key of the mapping, not a value
                key, ptr = f"a key of {key}:", join_pointer(ptr, str(err.instance))
            out.append(doc.diag("E010", f"{key} {err.instance!r} {pattern_words(err.validator_value)}", ptr))
        elif err.validator == "type" and err.validator_value in ("array", "object") \
                and (err.instance is None or isinstance(err.instance, (dict, list))):
            out.append(_container_mismatch(doc, err, ptr))
        elif err.validator == "type" and _forms(err.validator_value):  # a list of types
            out.append(doc.diag("E010", f"{_shown(err.instance)} is not {_forms(err.validator_value)}", ptr))
        else:
            hint = ""
            if err.validator == "type" and err.validator_value == "string" and isinstance(err.instance, bool):
                hint = "quote the value in YAML (\"no\", \"on\"): unquoted, yes/no/on/off/true/false are read as a boolean"
            elif err.validator == "type" and err.validator_value == "string" and isinstance(err.instance, (int, float)):
                hint = f"quote the value in YAML, as you typed it: YAML read it as the number {err.instance!r} (and 1.10 as 1.1)"
            elif err.validator == "enum" and isinstance(err.instance, str):
                close = difflib.get_close_matches(err.instance, [str(v) for v in err.validator_value], n=1)
                hint = (f"did you mean {close[0]!r}? " if close else "") + \
                    f"allowed: {', '.join(str(v) for v in err.validator_value)}"
            elif err.validator == "const" and ptr == "/mcp-codegen":
                hint = "set `mcp-codegen: 1`"
            message = err.message
            if (err.instance is None or isinstance(err.instance, bool)) and message.startswith(repr(err.instance) + " "):
                message = json.dumps(err.instance) + message[len(repr(err.instance)):]  # YAML's word, not Python's
            out.append(doc.diag("E010", message, ptr, hint=hint))
    return out


__all__ = ["spec_format_schema", "structural_errors"]
