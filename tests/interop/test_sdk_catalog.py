"""The official ``mcp`` SDK client (PyPI ``mcp`` 2.3.0) lists and reads resources, reads a
template, gets prompts and completes against the generated ``everything`` server: over stdio
in both eras, and over Streamable HTTP."""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from common_support import free_port, run_sdk_client, stop_pid, wait_port
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_codegen_runtime.wire import protocol as p
from support_server import EXAMPLES, server_env

IMPL = ["--impl", "everything_impl:EverythingService"]


async def _exercise(client: Client, version: str) -> None:
    resources = await client.list_resources()
    assert [r.uri for r in resources.resources] == ["test://static-text", "test://watched-resource", "test://static-binary",
                                                    "skill://pdf-processing/SKILL.md", "skill://release-notes/SKILL.md"]
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["test://template/{id}/data"]
    text = await client.read_resource("test://static-text")
    assert isinstance(text.contents[0], types.TextResourceContents)
    assert text.contents[0].text == "This is the content of the static text resource."
    blob = await client.read_resource("test://static-binary")
    assert isinstance(blob.contents[0], types.BlobResourceContents)
    assert base64.b64decode(blob.contents[0].blob).startswith(b"\x89PNG")
    data = await client.read_resource("test://template/42/data")
    assert isinstance(data.contents[0], types.TextResourceContents) and "Data for ID: 42" in data.contents[0].text
    with pytest.raises(MCPError) as missing:
        await client.read_resource("test://missing")
    assert missing.value.error.code == (p.INVALID_PARAMS if version == p.V2026_07_28 else p.RESOURCE_NOT_FOUND)
    prompts = await client.list_prompts()
    assert [pr.name for pr in prompts.prompts][:2] == ["test_simple_prompt", "test_prompt_with_arguments"]
    got = await client.get_prompt("test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"})
    assert isinstance(got.messages[0].content, types.TextContent)
    assert got.messages[0].content.text == "Prompt with arguments: arg1='hello', arg2='world'"
    done = await client.complete(types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                                 {"name": "arg1", "value": "pa"})
    assert done.completion.values == ["paris", "park", "party"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_sdk_client_over_stdio(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "everything", "--stdio", *IMPL],
                                   cwd=str(EXAMPLES), env=server_env())

    async def body(client: Client) -> None:
        await _exercise(client, client.protocol_version)

    run_sdk_client(params, mode, body, read_timeout=20, timeout=60)


def test_sdk_client_over_http(tmp_path: Path) -> None:
    import subprocess

    port = free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "everything", "--http", "--port", str(port), *IMPL], cwd=EXAMPLES,
                            env={**server_env(), "PYTHONPATH": str(EXAMPLES) + os.pathsep + str(EXAMPLES)},
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_port(port, 30, proc)
        for mode in ("legacy", "2026-07-28"):
            async def body(client: Client) -> Any:
                await _exercise(client, client.protocol_version)

            run_sdk_client(f"http://127.0.0.1:{port}/mcp", mode, body, read_timeout=20, timeout=60)
    finally:
        stop_pid(proc)
        log.close()
