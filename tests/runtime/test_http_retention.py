"""Legacy HTTP sessions keep bounded replay state: finished request streams are kept for
``Last-Event-ID`` only within a byte budget and a lifetime, and JSON-answered ones not at all."""

from __future__ import annotations

import asyncio
import time

from mcp_codegen_runtime.server.http.legacy import Session


def _finished(session: Session, size: int, *, json_only: bool = False, age: float = 0.0) -> int:
    stream = session.new_stream()
    stream.json_only = json_only
    stream.append({"jsonrpc": "2.0", "id": stream.number, "result": {"text": "x" * size}}, final=True)
    if age:
        assert stream.finished_at is not None
        stream.finished_at -= age
    return stream.number


def test_replay_state_is_bounded_by_bytes_age_and_kind() -> None:
    async def main() -> None:
        session = Session("sid", None, "key", 1000, replay_ttl=60.0, max_replay_bytes=4 * 1024 * 1024)
        numbers = [_finished(session, 1024 * 1024) for _ in range(40)]  # 40 MiB of responses
        session.trim()
        kept = [n for n in numbers if session.find(n) is not None]
        assert 1 <= len(kept) <= 4 and kept == numbers[-len(kept):]  # the newest, within 4 MiB
        assert sum(session.find(n).weight() for n in kept) <= 4 * 1024 * 1024  # type: ignore[union-attr]
        old = _finished(session, 10, age=120.0)  # finished two minutes ago: past its lifetime
        plain = _finished(session, 10, json_only=True)  # answered with JSON: nothing to resume
        fresh = _finished(session, 10)
        session.trim()
        assert session.find(old) is None and session.find(plain) is None and session.find(fresh) is not None
        running = session.new_stream()  # in flight: never dropped
        for _ in range(5):
            _finished(session, 1024 * 1024)
        session.trim()
        assert session.find(running.number) is running

    started = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - started < 30
