"""The official ``mcp`` SDK client (PyPI ``mcp`` 2.3.0) against the generated ``everything``
server's skills (SEP-2640).  The SDK has no Skills API: it sees the extension in the server's
capabilities (``mode="auto"``, i.e. ``server/discover``), sends ``skills/list`` as a plain
request, and reads every listed file with its own ``read_resource``; the test checks each
file's bytes against the entry's size and digest (hashlib) and the files under specs/."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
from common_support import run_sdk_client
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from pydantic import TypeAdapter
from support_server import EXAMPLES, server_env

SOURCES = Path(__file__).resolve().parents[2] / "specs" / "everything-skills"
PARAMS = StdioServerParameters(command=sys.executable, args=["-m", "everything", "--stdio", "--impl",
                                                             "everything_impl:EverythingService"],
                               cwd=str(EXAMPLES), env=server_env())


def test_sdk_client_lists_and_reads_skills() -> None:
    async def body(client: Client) -> None:
        assert client.protocol_version == "2026-07-28"
        assert client.server_capabilities.extensions["io.modelcontextprotocol/skills"] == {"directoryRead": True}  # beside tasks
        listed = await client.session.send_request(types.Request(method="skills/list", params={}),
                                                   TypeAdapter(dict[str, Any]))
        assert [s["uri"] for s in listed["skills"]] == ["skill://pdf-processing/SKILL.md", "skill://release-notes/SKILL.md"]
        checked = 0
        for skill in listed["skills"]:
            for entry in skill["resources"]:
                read = await client.read_resource(entry["uri"])
                content = read.contents[0]
                assert isinstance(content, types.TextResourceContents)
                data = content.text.encode("utf-8")
                assert len(data) == entry["size"]
                assert "sha256:" + hashlib.sha256(data).hexdigest() == entry["digest"]
                path = entry["uri"].removeprefix("skill://")
                assert data == (SOURCES / path).read_bytes()
                checked += 1
        assert checked == 3

    run_sdk_client(PARAMS, "auto", body, read_timeout=20, timeout=60)


def test_sdk_legacy_client_sees_plain_resources() -> None:
    async def body(client: Client) -> None:
        assert client.server_capabilities.extensions is None  # no extensions before 2026-07-28
        read = await client.read_resource("skill://release-notes/SKILL.md")
        assert isinstance(read.contents[0], types.TextResourceContents)
        assert read.contents[0].text == (SOURCES / "release-notes" / "SKILL.md").read_text("utf-8")

    run_sdk_client(PARAMS, "legacy", body, read_timeout=20, timeout=60)
