"""The official ``mcp`` SDK client (2.3.0, which has no tasks extension) against the generated
``everything`` server's task tools over HTTP, both eras: it is a client without the extension, so
it never gets a task: ``optional`` tools answer it synchronously, ``required`` ones with -32021."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from common_support import free_port, run_sdk_client
from http_support import ServerProcess
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_codegen_runtime.wire import protocol as p

TASKS = "io.modelcontextprotocol/tasks"


@pytest.fixture(scope="module")
def everything() -> Iterator[ServerProcess]:
    port = free_port()
    server = ServerProcess(["-m", "everything", "--http", "--port", str(port), "--impl",
                            "everything_impl:EverythingService"], port=port, env={"MCP_CODEGEN_REDIS_URL": None}, start_timeout=120)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_sdk_client_without_the_extension_gets_no_task(everything: ServerProcess, mode: str) -> None:
    async def body(client: Client) -> None:
        res = await client.call_tool("slow_compute", {"seconds": 0.2, "label": "sdk"})
        assert not res.is_error
        assert res.structured_content == {"label": "sdk", "seconds": 0.2}
        greet = await client.call_tool("greet", {"name": "SDK"})
        assert greet.content[0].model_dump()["text"] == "Hello, SDK!"
        with pytest.raises(MCPError) as info:
            await client.call_tool("failing_job", {})
        assert info.value.error.code == p.MISSING_CAPABILITY
        assert info.value.error.data == {"requiredCapabilities": {"extensions": {TASKS: {}}}}

    run_sdk_client(everything.url, mode, body, read_timeout=15, timeout=60)
