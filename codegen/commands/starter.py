"""The starter spec and first test written by ``mcp-codegen init``, and the spec-format schema editors use."""

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


#: The first test ``init`` writes (``tests/test_<package>.py``): it holds for any spec, the starter's or
#: what the user makes of it, and for the scaffold's stubs as for a finished implementation.
_FIRST_TEST = '''\
"""A first test of the {name} server: written once by `mcp-codegen init`, yours to change.

`{package}.testing` runs your implementation in this process behind the typed client (no
subprocess, no socket): the spec's `server.implementation`, else {impl} (`build --scaffold`
writes it).  Build the package first (`mcp-codegen build`) and run pytest where Python finds it
and your implementation.  docs/testing.md of mcp-codegen shows the fixtures, the mock server and
property tests with Hypothesis.
"""

from {package} import TOOLS
from {package}.testing import connect_sync


def test_the_server_offers_every_tool_of_its_spec() -> None:
    with connect_sync() as client:
        offered = {{tool.name for tool in client.list_tools()}}
    assert offered == {{tool.name for tool in TOOLS}}
'''


def first_test(name: str, package: str, impl: str) -> str:
    """The first test of server ``name`` (package ``package``, default implementation ``impl``)."""
    return _FIRST_TEST.format(name=name, package=package, impl=impl)


def spec_format_schema() -> str:
    """The JSON Schema of the spec format (the file shipped in the package)."""
    return resources.files("codegen.spec").joinpath("spec-format.schema.json").read_text("utf-8")
