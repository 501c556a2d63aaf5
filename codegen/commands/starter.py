"""The starter spec written by ``mcp-codegen init``, and the spec-format schema editors use."""

from __future__ import annotations

import re
from importlib import resources

#: Where ``init`` puts the spec-format JSON Schema, relative to the spec folder (a hidden
#: folder: spec discovery does not look into sub-folders).
SCHEMA_COPY = ".mcp-codegen/spec-format.schema.json"

_TEMPLATE = """\
# yaml-language-server: $schema={schema}
mcp-codegen: 1
server:
  name: {name}
  version: "0.1.0"
  title: {title}
  instructions: Describe what this server is for.
tools:
  - name: echo
    title: Echo
    description: Return the message it was given.
    annotations: {{readOnlyHint: true}}
    inputSchema:
      type: object
      properties:
        message: {{type: string, description: The text to echo.}}
      required: [message]
    outputSchema:
      type: object
      properties:
        message: {{type: string}}
      required: [message]
"""


def starter_spec(name: str) -> tuple[str, str | None]:
    """Starter YAML for server ``name``, or an error message for an unusable name."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]{0,62}", name):
        return "", f"server name {name!r} must be lower-case letters, digits, '_' or '-', starting with a letter"
    title = name.replace("_", " ").replace("-", " ").title()
    return _TEMPLATE.format(name=name, title=title, schema=SCHEMA_COPY), None


def spec_format_schema() -> str:
    """The JSON Schema of the spec format (the file shipped in the package)."""
    return resources.files("codegen.spec").joinpath("spec-format.schema.json").read_text("utf-8")
