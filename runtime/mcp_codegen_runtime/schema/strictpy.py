"""Strict validation of JSON data held as Python objects, with the answers of strict JSON.

Arguments arrive as parsed JSON (dicts, lists, str, int, float, bool, None).  Validating
them in pydantic's strict *Python* mode avoids a second serialization and parse, and gives
the same answers as strict *JSON* mode for the node types in :data:`JSON_NATIVE` -- but not
for an enum: strict JSON accepts a member's value (``"high"``), strict Python only the member
(``Priority.high``).  Generated models use string enums a lot, so for a model whose nodes
are JSON-native or string enums, :func:`validator_for` builds a validator from the model's
core schema with ``strict`` set everywhere except on the string-enum nodes (lax enum
validation of a ``str`` accepts exactly the members' values, as strict JSON does).

pydantic-core reuses a complete model class's own validator for every ``model`` node of a
schema (its "prebuilt" validator), which would bring the class's strict-less configuration
back; the classes are therefore marked incomplete while the validator is built, and the
result is used only when its description shows no prebuilt part.  Anything else (dates,
UUIDs, tuples, function validators, other enums) is validated from JSON text, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import SchemaValidator, to_json

#: Core-schema node types whose strict validation of JSON data given as Python objects
#: answers exactly as strict JSON validation.  Not in it: enums (see the module doc),
#: dates, UUIDs, tuples, sets, bytes (strict Python wants instances of them), and any
#: function validator.
JSON_NATIVE = frozenset({"model", "model-fields", "model-field", "typed-dict", "typed-dict-field", "str", "int",
                         "float", "bool", "list", "dict", "nullable", "default", "union", "tagged-union",
                         "literal", "none", "any", "definitions", "definition-ref"})
_SUBSCHEMAS = ("schema", "items_schema", "keys_schema", "values_schema", "extras_schema")

Validate = Callable[[Any], BaseModel]
_CACHE: dict[type[BaseModel], Validate] = {}
#: The models :func:`validator_for` validates from Python objects (the others go through JSON).
_FROM_PYTHON: set[type[BaseModel]] = set()


def _string_enum(node: dict[str, Any]) -> bool:
    return node.get("type") == "enum" and node.get("sub_type") == "str" and "missing" not in node


def _children(node: dict[str, Any]) -> list[Any]:
    subs = [node[key] for key in _SUBSCHEMAS if key in node]
    kind = node["type"]
    if kind in ("model-fields", "typed-dict"):
        subs.extend(node.get("fields", {}).values())
    elif kind == "union":
        subs.extend(c[0] if isinstance(c, tuple) else c for c in node.get("choices", ()))
    elif kind == "tagged-union":
        subs.extend(node.get("choices", {}).values())
    elif kind == "definitions":
        subs.extend(node.get("definitions", ()))
    return subs


def _kinds(node: Any, enums: list[bool]) -> bool:
    """True when every node is JSON-native or a string enum; ``enums`` hears of the latter."""
    if isinstance(node, dict) and _string_enum(node):
        enums.append(True)
        return True
    if not isinstance(node, dict) or node.get("type") not in JSON_NATIVE:
        return False
    if node["type"] == "model" and (node.get("custom_init") or node.get("post_init") or node.get("root_model")):
        return False
    if node["type"] == "literal" and not all(isinstance(v, str) for v in node.get("expected", ())):
        return False
    return all(_kinds(sub, enums) for sub in _children(node))


def json_native(schema: dict[str, Any]) -> bool:
    """Whether every node of a core schema is JSON-native (:data:`JSON_NATIVE`) or a string enum."""
    return _kinds(schema, [])


def _strict_copy(node: Any, classes: list[type], typed_dicts: bool = False) -> Any:
    """``node`` with ``strict`` on in every configuration and node that sets it, off on
    string enums; the model classes met go to ``classes``.  With ``typed_dicts``, every
    ``model`` node becomes the typed dict of its fields (:func:`_typed_dict`)."""
    if isinstance(node, list | tuple):
        return type(node)(_strict_copy(v, classes, typed_dicts) for v in node)
    if not isinstance(node, dict):
        return node
    out = {k: v if k in ("cls", "metadata", "serialization") else _strict_copy(v, classes, typed_dicts)
           for k, v in node.items()}
    if _string_enum(node):
        out["strict"] = False
    elif "strict" in node:
        out["strict"] = True
    if isinstance(node.get("config"), dict):
        out["config"] = {**node["config"], "strict": True}
    if node.get("type") == "model":
        if isinstance(node.get("cls"), type):
            classes.append(node["cls"])
        if typed_dicts:
            return _typed_dict(out)
    return out


def _typed_dict(model: dict[str, Any]) -> dict[str, Any]:
    """A (copied) ``model`` node as the typed dict of its fields: the same field validators,
    the same extra-keys rule, but a dict comes out instead of a model instance (and its
    ``__dict__`` and fields set)."""
    inner, config = model["schema"], dict(model.get("config") or {})
    if not isinstance(inner, dict) or inner.get("type") != "model-fields" or inner.get("computed_fields"):
        raise ValueError("not a plain model")
    fields = {}
    for name, field in inner["fields"].items():
        typed = {"type": "typed-dict-field", "schema": field["schema"],
                 "required": field["schema"].get("type") != "default"}
        for key in ("validation_alias", "serialization_alias"):
            if key in field:
                typed[key] = field[key]
        fields[name] = typed
    checked: dict[str, Any] = {"type": "typed-dict", "fields": fields, "config": config, "strict": True,
                               "extra_behavior": inner.get("extra_behavior", config.get("extra_fields_behavior", "ignore"))}
    for key in ("extras_schema", "ref"):
        if key in inner or key in model:
            checked[key] = inner.get(key, model.get(key))
    return checked


def _own_validator(model: type[BaseModel], schema: dict[str, Any]) -> SchemaValidator | None:
    classes: list[type] = []
    copy = _strict_copy(schema, classes)
    marked = [c for c in dict.fromkeys(classes) if c.__dict__.get("__pydantic_complete__") is True]
    try:
        for cls in marked:
            type.__setattr__(cls, "__pydantic_complete__", False)
        validator = SchemaValidator(copy, {"strict": True})
    except Exception:  # an unexpected schema shape: the JSON path stays exact
        return None
    finally:
        for cls in marked:
            type.__setattr__(cls, "__pydantic_complete__", True)
    return None if "Prebuilt" in repr(validator) else validator


def _through_json(model: type[BaseModel]) -> Validate:
    return lambda data: model.model_validate_json(to_json(data), strict=True)


def validator_for(model: type[BaseModel]) -> Validate:
    """How to validate JSON data (as Python objects) into ``model`` with strict JSON's answers."""
    found = _CACHE.get(model)
    if found is not None:
        return found
    schema = getattr(model, "__pydantic_core_schema__", None)
    enums: list[bool] = []
    chosen = _through_json(model)
    if isinstance(schema, dict) and _kinds(schema, enums):
        _FROM_PYTHON.add(model)
        if not enums:
            chosen = lambda data: model.model_validate(data, strict=True)  # noqa: E731
        elif (own := _own_validator(model, schema)) is not None:
            chosen = own.validate_python
    _CACHE[model] = chosen
    return chosen


def validate_strict(model: type[BaseModel], data: Any) -> BaseModel:
    """``model`` validated strictly from JSON data held as Python objects."""
    return validator_for(model)(data)


_CHECKS: dict[type[BaseModel], Callable[[Any], object]] = {}


def check_strict(model: type[BaseModel], data: Any) -> None:
    """Raise what :func:`validate_strict` raises when ``data`` is not valid for ``model``;
    build no model instance when it is (the typed client's check before sending).

    For models validated from Python objects, a copy of the validator with typed dicts in
    place of the model nodes says yes or no; on no, :func:`validate_strict` runs, so the
    errors are the model's own (and its answer wins).
    """
    check = _CHECKS.get(model)
    if check is None:
        check = _CHECKS[model] = _checker(model)
    try:
        check(data)
    except ValidationError:
        validate_strict(model, data)


def _checker(model: type[BaseModel]) -> Callable[[Any], object]:
    own = validator_for(model)
    if model not in _FROM_PYTHON:
        return own
    try:
        schema = model.__pydantic_core_schema__
        return SchemaValidator(_strict_copy(schema, [], typed_dicts=True), {"strict": True}).validate_python
    except Exception:  # an unexpected schema shape: the model itself checks
        return own
