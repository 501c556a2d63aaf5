"""Faults under load: two replicas behind a load balancer sharing a real redis-server.

Used by tests/runtime/test_faults_under_load.py and bench/bench_faults.py.

* :class:`Redis`: ``redis-server`` on a fixed free port (no persistence), stopped by its PID
  and restarted on the same port (its state is lost, as after a real restart);
* :class:`Replica`: ``python -m everything --http`` with ``--replica-id``, ``--redis-url``, a
  shared state key and bearer tokens (``load``, ``probe``, ``watch``), a rate limit of
  :data:`BURST` calls (no refill to speak of), its log in a file, RSS from ``/proc``;
  :meth:`Replica.restart` starts it again on its port;
* the balancer is tests/support/lb_proxy.py, sticky by the replica hint with failover (a dead
  replica's requests go to the other, as nginx's ``proxy_next_upstream error`` does);
* :func:`run_scenario`: ``clients`` generated clients (one era, ``retry="safe"``-like policy;
  every other one with a tool table that marks nothing repeatable) call through the balancer for
  ``duration`` seconds while the faults run: kill one replica (SIGKILL), restart Redis, cut every
  client connection mid-stream, restart the replica.  Every call is counted by outcome: it
  returned, raised an ``McpError`` (by class), or neither within :data:`CALL_LIMIT` seconds
  (``hung``: lost silently) or raised something else (``other``).  Afterwards it checks that a
  tool-list change on one replica reaches a listener on the other again, reads the probe's shared
  bucket in Redis after probe calls through both replicas, and measures the surviving replica's
  RSS growth.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import secrets
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from common_support import free_port, stop_pid, wait_port
from lb_proxy import LoadBalancer
from redis_support import redis_binary

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "generated_examples"
TOKENS = {who: f"{who}-{secrets.token_hex(16)}" for who in ("load", "probe", "watch")}
#: The rate limit's burst; the refill (0.001/s) is negligible over a run.
BURST = 100_000
#: A call that neither returns nor raises within this many seconds counts as lost.
CALL_LIMIT = 90.0


class Redis:
    """``redis-server`` on 127.0.0.1 (see the module docstring)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--daemonize", "no", "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port, proc=self.proc)

    def stop(self) -> None:
        if self.proc is not None:
            stop_pid(self.proc)

    def restart(self, down: float) -> None:
        """Stop, stay down ``down`` seconds, start on the same port (empty)."""
        self.stop()
        time.sleep(down)
        self.start()


class Replica:
    """``python -m everything --http`` sharing Redis (see the module docstring)."""

    def __init__(self, name: str, redis_url: str, key: str) -> None:
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.redis_url, self.key = redis_url, key
        self._log = tempfile.NamedTemporaryFile(prefix=f"mcp-faults-{name}-", suffix=".log", delete=False)
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(EXAMPLES), str(ROOT)])
        env["MCP_CODEGEN_STATE_KEY"] = self.key
        env["MCP_CODEGEN_HTTP_TOKENS"] = ",".join(f"{who}={tok}" for who, tok in TOKENS.items())
        env.pop("MCP_CODEGEN_REDIS_URL", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "everything", "--http", "--host", "127.0.0.1", "--port", str(self.port),
             "--impl", "everything_impl:EverythingService", "--replica-id", self.name, "--redis-url", self.redis_url,
             "--rate-limit", "0.001", "--rate-burst", str(BURST)],
            cwd=EXAMPLES, env=env, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log)
        wait_port(self.port, 30, self.proc, detail=lambda: self.log()[-2000:])

    def kill(self) -> None:
        """SIGKILL: no drain, no goodbye."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def restart(self) -> None:
        self.start()

    def rss_kb(self) -> int:
        assert self.proc is not None
        with open(f"/proc/{self.proc.pid}/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))

    def log(self) -> str:
        return Path(self._log.name).read_text(errors="replace")

    def stop(self) -> None:
        if self.proc is not None:
            stop_pid(self.proc, 8)

    def cleanup(self) -> None:
        self.stop()
        self._log.close()
        with contextlib.suppress(OSError):
            os.unlink(self._log.name)


@dataclass
class Outcomes:
    """Every call of the load, by outcome."""

    ok: int = 0
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    hung: int = 0
    other: list[str] = field(default_factory=list)
    unclear: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.ok + sum(self.errors.values()) + self.hung + len(self.other)


@dataclass
class Report:
    era: str
    clients: int
    duration: float
    outcomes: Outcomes
    faults: list[tuple[float, str]]
    dropped_connections: int
    change_after_s: float | None
    probe_tokens: float | None
    rss_before_kb: int
    rss_after_kb: int
    renewals: int

    def lines(self) -> list[str]:
        o = self.outcomes
        errors = ", ".join(f"{k} {v}" for k, v in sorted(o.errors.items())) or "none"
        return [
            f"era {self.era}: {self.clients} clients for {self.duration:.0f} s, {o.total} calls: {o.ok} completed, "
            f"errors: {errors}; lost silently (hung > {CALL_LIMIT:.0f} s): {o.hung}; other exceptions: {len(o.other)}",
            "faults: " + "; ".join(f"{t:.1f} s {what}" for t, what in self.faults)
            + f"; {self.dropped_connections} client connections cut",
            "list change across replicas after the Redis restart: "
            + (f"{self.change_after_s:.2f} s" if self.change_after_s is not None else "never"),
            "shared bucket of the probe after 6 calls through both replicas: "
            + (f"{self.probe_tokens:.2f}" if self.probe_tokens is not None else "not found") + f" tokens (burst {BURST})",
            f"surviving replica RSS: {self.rss_before_kb / 1024:.1f} MB -> {self.rss_after_kb / 1024:.1f} MB "
            f"(+{(self.rss_after_kb - self.rss_before_kb) / 1024:.1f} MB); legacy session renewals: {self.renewals}",
        ]


def _clients(era: str, n: int, url: str) -> list[Any]:
    from everything import EverythingClient
    from mcp_codegen_runtime.client.retry_policy import RetryPolicy

    class Unmarked(EverythingClient):  # type: ignore[misc, valid-type]
        tool_defs = tuple(replace(td, wire={**td.wire, "annotations": {}}) for td in EverythingClient.tool_defs)

    policy = RetryPolicy(deadline=30.0, max_attempts=30, initial_delay=0.1, max_delay=1.0)
    return [(Unmarked if i % 2 else EverythingClient).http(url, era=era, bearer_token=TOKENS["load"], retry=policy,
                                                          audit=None, timeout=30.0)
            for i in range(n)]


async def _load(client: Any, stop: asyncio.Event, out: Outcomes) -> None:
    from mcp_codegen_runtime.wire.errors import McpError

    i = 0
    while not stop.is_set():
        i += 1
        name = "test_tool_with_progress" if i % 3 == 0 else "test_simple_text"
        try:
            result = await asyncio.wait_for(client.call_raw(name, {}), CALL_LIMIT)
            if result.isError:
                out.errors["isError:" + str((result.meta or {}).get("mcp-codegen/error", {}).get("code"))] += 1
            else:
                out.ok += 1
        except TimeoutError:
            out.hung += 1
        except McpError as exc:
            out.errors[type(exc).__name__] += 1
            if not exc.message:
                out.unclear.append(repr(exc))
        except Exception as exc:  # anything else is not a clear error
            out.other.append(repr(exc))
        await asyncio.sleep(0.02)


async def _change_reaches(on_a: Any, on_b: Any, limit: float) -> float | None:
    """Seconds until a tool-list change triggered on B reaches a listener on A (None: not in ``limit``)."""
    started = time.monotonic()
    async with on_a.subscribe(tools=True) as changes:
        while time.monotonic() - started < limit:
            await on_b.test_trigger_tool_change()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changes.__anext__(), 1.0)
                return time.monotonic() - started
    return None


async def _probe_bucket(proxy_url: str, era: str, redis_url: str) -> float | None:
    """Six calls of the probe principal through the balancer; its shared bucket's tokens in Redis."""
    import redis.asyncio as aioredis
    from everything import EverythingClient

    for _ in range(6):  # fresh clients: round robin spreads them over both replicas
        async with EverythingClient.http(proxy_url, era=era, bearer_token=TOKENS["probe"], audit=None) as c:
            await c.call_raw("test_simple_text", {})
    r = aioredis.from_url(redis_url, decode_responses=True)
    try:
        keys = [k async for k in r.scan_iter("mcp-codegen:*:bucket:*") if "probe" in k]
        if len(keys) != 1:
            return None
        tokens = await r.hget(keys[0], "tokens")
        return float(tokens) if tokens is not None else None
    finally:
        await r.aclose()


def run_scenario(era: str, *, clients: int = 6, duration: float = 20.0) -> Report:
    """The whole scenario (see the module docstring); everything is stopped by its PID at the end."""
    from everything import EverythingClient

    redis = Redis()
    key = secrets.token_hex(32)
    a = b = None
    try:
        a = Replica("r1", redis.url, key)
        b = Replica("r2", redis.url, key)
        with LoadBalancer([("127.0.0.1", a.port), ("127.0.0.1", b.port)], mode="sticky",
                          replicas={"r1": 0, "r2": 1}, max_clients=256, failover=True) as proxy:
            async def main() -> Report:
                assert a is not None and b is not None
                out = Outcomes()
                faults: list[tuple[float, str]] = []
                loaded = _clients(era, clients, proxy.url)
                stop = asyncio.Event()
                for c in loaded:
                    await c.connect()
                rss_before = a.rss_kb()
                started = time.monotonic()
                workers = [asyncio.create_task(_load(c, stop, out)) for c in loaded]

                async def at(fraction: float, what: str, action: Any) -> None:
                    await asyncio.sleep(max(0.0, started + duration * fraction - time.monotonic()))
                    faults.append((time.monotonic() - started, what))
                    await asyncio.to_thread(action)

                await at(0.15, "replica r2 killed", b.kill)
                await at(0.35, "Redis stopped for 1 s and restarted", lambda: redis.restart(1.0))
                await at(0.55, "client connections cut", proxy.drop_connections)
                await at(0.7, "replica r2 restarted", b.restart)
                await asyncio.sleep(max(0.0, started + duration - time.monotonic()))
                stop.set()
                await asyncio.gather(*workers)
                renewals = sum(getattr(getattr(c.transport, "legacy", None), "renewals", 0) for c in loaded)
                for c in loaded:
                    await c.aclose()
                async with EverythingClient.http(a.url, era=era, bearer_token=TOKENS["watch"], audit=None) as on_a, \
                        EverythingClient.http(b.url, era=era, bearer_token=TOKENS["watch"], audit=None) as on_b:
                    change = await _change_reaches(on_a, on_b, 30.0)
                probe = await _probe_bucket(proxy.url, era, redis.url)
                return Report(era, clients, duration, out, faults, proxy.dropped, change, probe, rss_before,
                              a.rss_kb(), renewals)

            return asyncio.run(main())
    finally:
        for replica in (a, b):
            if replica is not None:
                replica.cleanup()
        redis.stop()
