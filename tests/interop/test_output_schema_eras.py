"""Wire fidelity in every era (issue 28 point 5): an object output schema behind a root ``$ref``
(``notes``: ``outputSchema: {$ref: "#/$defs/Note"}``) reaches 2025-era clients with
``type: "object"`` beside the ``$ref`` (the 2025 schemas require an object type at the root; the
``$ref`` still applies, so validation is the same), instead of being dropped.  Checked with the
official ``mcp`` SDK client over stdio (it validates ``structuredContent`` against the listed
schema) and on the version-shaping function itself.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from common_support import run_sdk_client
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_codegen_runtime.wire import protocol as p
from mcp_codegen_runtime.wire.versions import legacy_output_schema, tool_for_version
from support_server import EXAMPLES, server_env

NOTE = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}


def test_root_ref_to_an_object_gets_type_object_before_2026() -> None:
    schema = {"$ref": "#/$defs/Note", "$defs": {"Note": NOTE}}
    wire = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}
    for version in (p.V2025_06_18, p.V2025_11_25):
        assert tool_for_version(wire, version)["outputSchema"] == {"type": "object", **schema}
    assert tool_for_version(wire, p.V2026_07_28)["outputSchema"] == schema  # as written
    assert "outputSchema" not in tool_for_version(wire, p.V2025_03_26)  # that version has none
    chain = {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/B"}, "B": NOTE}}
    assert legacy_output_schema(chain) == {"type": "object", **chain}
    # what a 2025 client could not be given without changing validation is still left out
    for schema in ({"$ref": "#/$defs/L", "$defs": {"L": {"type": "array"}}}, {"type": "array"},
                   {"$ref": "#/$defs/missing"}, {"anyOf": [NOTE]}, {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}}):
        assert legacy_output_schema(schema) is None, schema
    assert legacy_output_schema(NOTE) is NOTE


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_sdk_client_gets_and_validates_the_root_ref_output_schema(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "notes", "--stdio"], cwd=str(EXAMPLES),
                                   env=server_env())
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        for name in ("get_note", "create_note", "update_note"):
            schema = tools[name].output_schema
            assert schema is not None and schema["$ref"] == "#/$defs/Note", (name, schema)
            seen[name] = schema.get("type")
        created = await client.call_tool("create_note", {"title": "groceries"})  # validated by the SDK
        assert not created.is_error and created.structured_content is not None
        assert created.structured_content["title"] == "groceries"

    run_sdk_client(params, mode, body, read_timeout=20, timeout=60)
    want = "object" if mode == "legacy" else None
    assert seen == {"get_note": want, "create_note": want, "update_note": want}


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_check_compat_of_our_own_server_in_every_era(era: str) -> None:
    """The tools as a 2025 server shapes them (root ``$ref`` plus ``type``) are not "changed"."""
    from notes import NotesSyncClient

    with NotesSyncClient.stdio(sys.executable, ["-m", "notes", "--stdio"], cwd=str(EXAMPLES), era=era,
                               stderr="capture") as c:
        report = c.check_compat()
    assert report.compatible and not report.changed, str(report)
