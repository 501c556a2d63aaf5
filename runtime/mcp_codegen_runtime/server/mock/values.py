"""What a mock handler answers when no scenario rule says otherwise: values from the spec alone.

* a tool with ``outputSchema``: structured content from :func:`~schema.examples.example` (the
  schema's ``examples`` first), drawn with a seed made of the mock's seed, the tool's name and
  the call's arguments (:func:`call_seed`), and checked as the generated server checks a
  handler's output (:func:`~schema.validation.dump_output`, the models and, where they judge,
  the original schema); a tool without one: one text block naming the call;
* a resource: a text naming the URI, or bytes for a binary MIME type;
* a prompt: one user message naming the prompt and its arguments;
* a completion: the enum values of the argument or variable that start with the prefix.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from ...schema.examples import ATTEMPTS, ExampleError, Examples
from ...schema.validation import OutputInvalid
from ...wire.tools import ToolDef
from ..results import checked_result


class MockValueError(ValueError):
    """No value the generated server would accept was found for a tool's output schema."""


def canonical(value: Any) -> str:
    """The canonical JSON text of ``value`` (sorted keys, no spaces): what calls are compared by."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def call_seed(seed: int, name: str, arguments: Any) -> int:
    """The seed of one call: the same mock seed, tool and arguments give the same value."""
    digest = hashlib.sha256(f"{seed}\x00{name}\x00{canonical(arguments)}".encode()).hexdigest()
    return int(digest[:12], 16)


def wire_arguments(args: BaseModel) -> dict[str, Any]:
    """The arguments of a call as they came (wire names, only the ones sent, extras kept)."""
    data: dict[str, Any] = args.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return data


def tool_output(tool: ToolDef, arguments: dict[str, Any], seed: int, examples: Examples | None = None) -> Any:
    """The structured content (``outputSchema``) or the text (without one) of a mocked call; the
    structured content comes as the result the server sends as it is (checked here, once, and
    kept by the mock for the same arguments: :func:`~server.results.checked_result`).

    ``examples``: the output schema's :class:`~schema.examples.Examples` kept for the tool (made
    here when None).

    Raises:
        MockValueError: no value valid for the generated server was found.
    """
    if tool.output_model is None or "outputSchema" not in tool.wire:
        return f"{tool.name}: mocked result for {canonical(arguments)}"
    schema = tool.wire["outputSchema"]
    if examples is None or examples.schema is not schema:
        examples = Examples(schema)
    base = call_seed(seed, tool.name, arguments)
    problem = ""
    for attempt in range(ATTEMPTS):
        try:
            value = examples.draw(base + attempt)
            return checked_result(tool, value, kept=True)
        except ExampleError as exc:
            problem = str(exc)
            break
        except OutputInvalid as exc:  # the models are narrower than the schema here: another draw
            problem = "; ".join(f"{e['path']}: {e['message']}" for e in exc.errors) or str(exc)
    raise MockValueError(f"the mock found no output of tool {tool.name} that its output schema accepts ({problem})")


#: MIME types served as text although they are not ``text/*``.
_TEXT_TYPES = ("json", "xml", "yaml", "javascript", "x-www-form-urlencoded", "csv", "toml", "markdown", "html")


def is_binary(mime_type: Any) -> bool:
    """Whether a resource of this MIME type is read as a blob."""
    if not isinstance(mime_type, str) or not mime_type:
        return False
    main = mime_type.split(";", 1)[0].strip().lower()
    return not main.startswith("text/") and not any(word in main for word in _TEXT_TYPES)


def resource_value(uri: str, mime_type: Any, variables: dict[str, Any] | None = None) -> str | bytes:
    """The contents of a mocked resource: bytes for a binary MIME type, else a text."""
    if is_binary(mime_type):
        return b"mock:" + uri.encode("utf-8")
    if isinstance(mime_type, str) and "json" in mime_type:
        return canonical({"uri": uri, **({"variables": variables} if variables else {})})
    return f"Mocked contents of {uri}"


def prompt_text(name: str, arguments: dict[str, Any]) -> str:
    """The one user message of a mocked prompt, naming it and its arguments."""
    if not arguments:
        return f"Prompt {name}."
    listed = ", ".join(f"{key}={value}" for key, value in sorted(arguments.items()))
    return f"Prompt {name} with {listed}."


def enum_values(model: type[BaseModel], name: str) -> list[str]:
    """The enum (or const) values of the field whose wire name is ``name``, as strings."""
    schema = model.model_json_schema(by_alias=True)
    prop = (schema.get("properties") or {}).get(name) or {}
    defs = schema.get("$defs") or {}
    found: list[Any] = []
    stack = [prop]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            stack.append(defs.get(ref.rsplit("/", 1)[1]))
        if isinstance(node.get("enum"), list):
            found += node["enum"]
        if "const" in node:
            found.append(node["const"])
        for key in ("anyOf", "oneOf", "allOf"):
            if isinstance(node.get(key), list):
                stack += node[key]
    return [str(v) for v in dict.fromkeys(v for v in found if v is not None)]


def completion_values(model: type[BaseModel], name: str, prefix: str) -> list[str]:
    """The values a mocked completion offers: the argument's enum values starting with ``prefix``."""
    return [v for v in enum_values(model, name) if v.startswith(prefix)]


__all__ = ["MockValueError", "call_seed", "canonical", "completion_values", "enum_values", "is_binary",
           "prompt_text", "resource_value", "tool_output", "wire_arguments"]
