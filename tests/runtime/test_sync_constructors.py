"""The blocking client's constructors spell out the keyword arguments of their async twins
(issue 28 point 4: IDEs and mypy see them instead of ``**options: Any``)."""

from __future__ import annotations

import inspect

import pytest
from mcp_codegen_runtime.client.async_client import ClientBase
from mcp_codegen_runtime.client.sync_client import SyncClientBase


@pytest.mark.parametrize("name", ["stdio", "http", "in_process"])
def test_sync_constructor_parameters_are_the_async_ones(name: str) -> None:
    def params(cls: type) -> list[tuple[str, object, object]]:
        sig = inspect.signature(getattr(cls, name))
        return [(p.name, p.kind, p.default) for p in sig.parameters.values()]

    sync = params(SyncClientBase)
    assert sync == params(ClientBase)
    assert len(sync) > 2  # explicit keywords, not only ``**options``


def test_sync_stdio_passes_the_transport_keywords() -> None:
    client = SyncClientBase.stdio("true", ["x"], env={"A": "1"}, cwd="/", stderr="discard", inherit_env=False,
                                  shutdown_timeout=0.5)
    transport = client.client.transport
    assert (transport.command, transport.args, transport.cwd, transport.shutdown_timeout, transport.stderr_mode) == (
        "true", ("x",), "/", 0.5, "discard")
