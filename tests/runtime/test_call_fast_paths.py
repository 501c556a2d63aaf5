"""What the fast paths of tool calls (issue 45) keep as it was: a generated upstream handler (a plain ``def``
marked ``nonblocking``) runs on the event loop while a subclass's plain ``def`` still runs in a
worker thread; a mock's kept answer never changes when a receiver edits what it got; httpcore
sets up its locks without an import attempt each time (``sniffio`` in the ``http`` extra)."""

from __future__ import annotations

import asyncio
import copy
import sys
import threading
from typing import Any

from common_support import run_async
from mcp_codegen_runtime.server.admission import Limits
from mcp_codegen_runtime.server.gencode import nonblocking
from mcp_codegen_runtime.server.mock import mock_server
from mcp_codegen_runtime.server.settings import ServerSettings
from support_server import modern, req
from weather.server import WeatherServerBase

ANSWER = {"temperature": 1.0, "conditions": "x", "unit": "celsius"}


async def _calls(server: Any, count: int, *, copy_messages: bool = True, edit: bool = False) -> list[dict[str, Any]]:
    out = []
    async with server.connect_in_process(copy=copy_messages) as peer:
        for rid in range(1, count + 1):
            await peer.send(req(rid, "tools/call", modern({"name": "get_weather", "arguments": {"location": "Paris"}})))
            while True:
                message = await peer.receive()
                if message.get("id") == rid:
                    break
            out.append(copy.deepcopy(message["result"]))
            if edit:  # the receiver changes what it got (no copy between the peers)
                message["result"]["structuredContent"]["edited"] = True
                message["result"]["content"][0]["text"] = "edited"
    return out


class OnTheLoop(WeatherServerBase):
    threads: list[int] = []

    @nonblocking
    def get_weather(self, args: Any, ctx: Any) -> Any:
        self.threads.append(threading.get_ident())

        async def answer() -> Any:
            await asyncio.sleep(0)
            return ANSWER

        return answer()


class InAThread(OnTheLoop):
    def get_weather(self, args: Any, ctx: Any) -> Any:  # overrides without the mark: may block
        self.threads.append(threading.get_ident())
        return ANSWER


def test_a_nonblocking_handler_runs_on_the_loop_and_an_override_in_a_thread() -> None:
    for cls, on_loop in ((OnTheLoop, True), (InAThread, False)):
        cls.threads = []
        results = run_async(_calls(cls(), 2))
        assert [r["structuredContent"] for r in results] == [ANSWER, ANSWER]
        assert cls.threads and all((t == threading.main_thread().ident) is on_loop for t in cls.threads), cls


def test_a_nonblocking_handler_returning_its_value_gives_it_to_every_client() -> None:
    """``nonblocking``: the function returns an awaitable *or its value*.  An HTTP client's call
    (a network client key, with its own slots) used to await the value and fail ("internal
    error") where a stdio or in-process call got it; the slots are all free again afterwards."""

    @nonblocking
    def doubled(x: int) -> int:
        return x * 2

    limits = Limits(ServerSettings())

    async def calls() -> list[Any]:
        got = [await limits.run(doubled, 21, client_key=key) for key in (None, "stdio", "ip:127.0.0.1", "principal:a")]
        assert limits._per_client == {}
        return got

    assert run_async(calls()) == [42, 42, 42, 42]


def test_a_kept_mock_answer_does_not_change_when_its_receiver_edits_it() -> None:
    results = run_async(_calls(mock_server(WeatherServerBase), 3, copy_messages=False, edit=True))
    assert results[0] == results[1] == results[2]
    assert "edited" not in results[2]["structuredContent"], results


def test_httpcore_locks_set_up_without_an_import_attempt() -> None:
    from httpcore._synchronization import current_async_library

    class Counting:
        asked: list[str] = []

        def find_spec(self, name: str, *args: Any) -> None:
            self.asked.append(name)

    async def three() -> list[str]:
        current_async_library()  # a first import may look the module up
        finder = Counting()
        sys.meta_path.insert(0, finder)
        try:
            for _ in range(3):
                assert current_async_library() == "asyncio"
        finally:
            sys.meta_path.remove(finder)
        return finder.asked

    assert asyncio.run(three()) == []
