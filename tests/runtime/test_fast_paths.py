"""The runtime's fast paths keep every check: patterns beside the models (no jsonschema
needed), and in-process connections with or without JSON copies."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from mcp_codegen_runtime.client.inprocess import InProcessTransport
from mcp_codegen_runtime.wire.errors import TransportClosedError
from notes import NotesClient, NotesSyncClient
from notes.errors import InvalidArgumentsError
from notes.tools import GET_NOTE_TOOL
from notes_impl import NotesService
from weather import WeatherClient
from weather_impl import WeatherService

ERAS = ["modern", "legacy"]


@pytest.fixture
def no_jsonschema(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``import jsonschema`` fails, as where it is not installed."""
    for name in [m for m in sys.modules if m == "jsonschema" or m.startswith("jsonschema.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    yield


@pytest.mark.parametrize("era", ERAS)
def test_pattern_checked_beside_the_model_without_jsonschema(era: str, no_jsonschema: None) -> None:
    # NoteId is {type: string, pattern: "^n[0-9]+$"}: a pattern on a plain property
    assert GET_NOTE_TOOL.schema_checked is False
    with NotesSyncClient.in_process(NotesService(), era=era, audit=None) as client:
        client.create_note(title="one")
        assert client.get_note(id="n1").title == "one"
        with pytest.raises(InvalidArgumentsError) as local:  # the typed client checks before sending
            client.get_note(id="note-1")
        assert local.value.data["errors"] == [{"path": "id", "message": "'note-1' does not match '^n[0-9]+$'"}]
        with pytest.raises(InvalidArgumentsError) as remote:  # the server checks what arrives
            client.call_tool("get_note", {"id": "n1\n"})  # ECMA-262: $ is the very end
        assert "does not match" in str(remote.value)


@pytest.mark.parametrize("era", ERAS)
def test_pattern_and_model_errors_are_reported_together(era: str) -> None:
    async def main() -> Any:
        async with NotesClient.in_process(NotesService(), era=era, audit=None) as client:
            return await client.call_raw("update_note", {"id": "x", "pinned": "yes"})

    result = asyncio.run(main())
    assert result.isError
    errors = result.meta["mcp-codegen/error"]["data"]["errors"] if result.meta else []
    assert {e["path"] for e in errors} == {"id", "pinned"}


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("zero_copy", [False, True])
def test_in_process_calls_with_and_without_copies(era: str, zero_copy: bool) -> None:
    async def main() -> Any:
        async with WeatherClient.in_process(WeatherService(), era=era, zero_copy=zero_copy, audit=None) as client:
            return await client.get_weather(location="Paris", unit="fahrenheit")

    out = asyncio.run(main())
    assert (out.temperature, out.conditions) == (64.4, "sunny")


def test_server_peer_copies_unless_asked_not_to() -> None:
    non_json = {"jsonrpc": "2.0", "method": "notifications/x", "params": {"v": {1, 2}}}

    async def main() -> None:
        copying = WeatherService().connect_in_process()
        with pytest.raises(TypeError):  # copied through JSON: a set cannot go
            await copying.send(non_json)
        shared = WeatherService().connect_in_process(copy=False)
        await shared.send(non_json)  # handed over as it is (and ignored: an unknown notification)
        request = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
        for peer in (copying, shared):
            await peer.send(request)
            assert await peer.receive() == {"jsonrpc": "2.0", "id": 1, "result": {}}
            await peer.aclose()
            with pytest.raises(TransportClosedError):
                await peer.receive()

    asyncio.run(main())


class _RecordingServer:
    """A runtime-like server that records how the transport connected and what it sent."""

    def __init__(self) -> None:
        self.copy_requested: list[bool] = []
        self.sent: list[Any] = []

    def connect_in_process(self, *, principal: Any = None, copy: bool = True) -> Any:
        self.copy_requested.append(copy)
        outer = self

        class Peer:
            def __init__(self) -> None:
                self.closed = asyncio.Event()

            async def send(self, message: Any) -> None:
                outer.sent.append(message)

            async def receive(self) -> Any:
                await self.closed.wait()
                raise TransportClosedError("closed")

            async def aclose(self) -> None:
                self.closed.set()

        return Peer()


class _Sink:
    async def deliver(self, message: Any) -> None: ...

    def closed(self, error: TransportClosedError) -> None: ...


@pytest.mark.parametrize("zero_copy", [False, True])
def test_transport_copies_once_at_most(zero_copy: bool) -> None:
    server = _RecordingServer()
    message = {"jsonrpc": "2.0", "id": 1, "method": "ping"}

    async def main() -> None:
        transport = InProcessTransport(server, zero_copy=zero_copy)
        await transport.start(_Sink())
        await transport.send(message)
        await transport.aclose()

    asyncio.run(main())
    assert server.copy_requested == [not zero_copy]  # the server's peer copies, when it should
    assert server.sent[0] is message  # and the transport never copies on top of it
