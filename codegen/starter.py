"""The starter spec written by ``mcp-codegen init``."""

from __future__ import annotations

import re

_TEMPLATE = """\
# yaml-language-server: $schema=https://mcp-codegen.invalid/spec-format/1
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
    return _TEMPLATE.format(name=name, title=name.replace("_", " ").replace("-", " ").title()), None
