"""What a call to an OpenAPI-generated tool costs the server, against its parts (issue 45, point 4).

One command converts :data:`upstream_items.DOCUMENT` (one ``GET /items/{itemId}`` operation, an API
key header, a JSON answer checked against its schema) with ``mcp-codegen openapi``, builds it, serves
the bare ASGI app of ``upstream_items.py`` under uvicorn on 127.0.0.1 as the upstream, and measures
the CPU per call of three processes, each started once and warmed up:

* **OpenAPI tool**: ``python -m items`` (every call goes to the upstream);
* **(a) trivial tool**: the same generated package with ``--impl`` a subclass whose handler returns
  a constant of the same shape (the upstream's answer), so the MCP side is the same;
* **(b) direct request**: a process sending the same request (``GET``, the same URL, headers and
  ``Accept``) with the same HTTP client configured as the runtime's (``httpx.AsyncClient``, pooled,
  the timeout, no redirects, streamed and read to the end) on the same event loop, measuring the
  same way.

CPU is read from ``/proc/PID/task/*/schedstat`` (every thread, nanoseconds) before and after each
batch of ``--calls`` sequential calls, over stdio and over Streamable HTTP (``--json-response``),
in the 2026-07-28 era (each call carries its ``_meta``, no handshake).  Rounds are interleaved and
the order rotates every round; each ratio is taken within its round, and the table shows the
median with the lowest and highest round.  Target: OpenAPI tool <= 1.1 x (a + b).

(a) and (b) measured apart are each a tight loop of one kind of work, whose code and data stay in
the CPU's caches; the OpenAPI tool alternates both in every call.  So each round also measures
**(a)+(b) alternating**: one trivial tool call, then one direct request, and again (the two
processes' CPU, less what telling the direct process to go costs: the same round's batch of
requests-of-nothing), the same work in the same rhythm as the OpenAPI tool, without the nesting.
``--in-process`` adds the same four figures in this one process (``connect_in_process``, no pipes,
client and server together), where no process boundary is in the way.

Run:

    .venv/bin/python bench/bench_upstream_cost.py [--calls 1000] [--rounds 5] [--transports stdio,http] [--in-process]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _measure import StdioProcess, cpu_ns, finish, stop  # noqa: E402
from upstream_items import API_KEY, DOCUMENT, item  # noqa: E402

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}
ARGS = {"itemId": 42, "currency": "USD"}
TRIVIAL = f'''"""The trivial tool: the generated base with a handler returning a constant of the answer's shape."""
from items.server import ItemsServerBase

ANSWER = {item(42, "USD")!r}


class TrivialItems(ItemsServerBase):
    async def get_item(self, args, ctx):
        return ANSWER
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(proc: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args} exited ({proc.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{proc.args} did not listen on {port}")


def check(reply: dict[str, Any]) -> None:
    result = reply["result"]
    assert not result.get("isError"), result
    assert result["structuredContent"] == item(42, "USD"), result


class StdioPeer(StdioProcess):
    """A server over its stdin/stdout pipes (one pre-encoded request line, one reply line)."""

    def __init__(self, cmd: list[str], env: dict[str, str], cwd: Path) -> None:
        super().__init__(cmd, env, cwd)
        self.head = (b'{"jsonrpc":"2.0","method":"tools/call","params":'
                     + json.dumps({"name": "getItem", "arguments": ARGS, "_meta": META}).encode() + b',"id":')
        self.n = 0

    def call(self) -> dict[str, Any]:
        self.n += 1
        reply: dict[str, Any] = json.loads(self.exchange(self.head + str(self.n).encode() + b"}\n"))
        return reply

    def fresh(self) -> None:
        pass

    def one(self) -> None:
        check(self.call())

    def batch(self, n: int) -> None:
        for _ in range(n):
            self.one()


class HttpPeer:
    """A server over Streamable HTTP (one keep-alive connection, JSON responses)."""

    def __init__(self, cmd: list[str], env: dict[str, str], cwd: Path) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen([*cmd, "--http", "--port", str(self.port), "--json-response"], env=env, cwd=cwd,
                                     stdout=subprocess.DEVNULL)
        self.pid = self.proc.pid
        wait_port(self.proc, self.port)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port)
        self.headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
                        "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "getItem"}
        self.body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                "params": {"name": "getItem", "arguments": ARGS, "_meta": META}}).encode()

    def fresh(self) -> None:
        self.conn.close()  # a new connection per batch: the server closes one idle for 5 s
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port)

    def one(self) -> None:
        self.conn.request("POST", "/mcp", self.body, self.headers)
        response = self.conn.getresponse()
        data = response.read()
        assert response.status == 200, (response.status, data[:300])
        check(json.loads(data))

    def batch(self, n: int) -> None:
        self.fresh()
        for _ in range(n):
            self.one()

    def stop(self) -> None:
        self.conn.close()
        stop(self.proc)


class DirectPeer:
    """This script's ``--direct`` mode in a process of its own, told over stdin how many requests to send."""

    def __init__(self, url: str, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--direct", url], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env, bufsize=0)
        self.pid = self.proc.pid

    def fresh(self) -> None:
        pass

    def batch(self, n: int) -> None:
        """``n`` requests (0: none, only the order and its answer)."""
        os.write(self.proc.stdin.fileno(), f"{n}\n".encode())  # type: ignore[union-attr]
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        assert line.strip() == b"ok", line

    def one(self) -> None:
        self.batch(1)

    def stop(self) -> None:
        finish(self.proc)


def direct(url: str) -> None:
    """The ``--direct`` mode: the runtime's upstream request, made with the client configured as
    ``server/upstream/client.py`` configures it, on the event loop the servers use."""
    import httpx
    from mcp_codegen_runtime.wire.accelerator import loop_factory

    headers = {"Accept": "application/json", "X-API-Key": API_KEY}
    client = httpx.AsyncClient(timeout=httpx.Timeout(30.0), follow_redirects=False)

    async def one() -> None:
        request = client.build_request("GET", url, headers=headers, content=None, files=None)
        response = await client.send(request, stream=True)
        try:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
        finally:
            await response.aclose()
        assert response.status_code == 200 and json.loads(body)["id"] == 42, body

    async def batch(n: int) -> None:
        for _ in range(n):
            await one()

    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        for line in sys.stdin:
            runner.run(batch(int(line)))
            sys.stdout.write("ok\n")
            sys.stdout.flush()
        runner.run(client.aclose())


def build(work: Path) -> Path:
    """``mcp-codegen openapi`` + ``build`` of the document; the output folder (with the trivial module)."""
    (work / "items.json").write_text(json.dumps(DOCUMENT), "utf-8")
    cli = [sys.executable, "-m", "codegen"]
    subprocess.run([*cli, "openapi", "items.json", "-o", "specs/items.yaml", "--name", "items"], cwd=work, check=True,
                   capture_output=True)
    subprocess.run([*cli, "build", "specs", "-o", "out", "-q"], cwd=work, check=True, capture_output=True)
    (work / "out" / "bench_trivial_items.py").write_text(TRIVIAL, "utf-8")
    return work / "out"


class Alternating:
    """(a)+(b) alternating: one call of ``trivial``, then one request of ``direct``, ``n`` times."""

    def __init__(self, trivial: Any, direct: DirectPeer) -> None:
        self.trivial, self.direct = trivial, direct

    def batch(self, n: int) -> None:
        self.trivial.fresh()
        for _ in range(n):
            self.trivial.one()
            self.direct.one()

    def cpu(self) -> int:
        return cpu_ns(self.trivial.pid) + cpu_ns(self.direct.pid)


class Orders:
    """Orders of nothing to the direct process, one at a time: what :class:`Alternating` adds to (b)."""

    def __init__(self, direct: DirectPeer) -> None:
        self.direct = direct

    def batch(self, n: int) -> None:
        for _ in range(n):
            self.direct.batch(0)

    def cpu(self) -> int:
        return cpu_ns(self.direct.pid)


def measure(peers: dict[str, Any], calls: int, rounds: int) -> dict[str, list[float]]:
    """CPU microseconds per call of each measurement, per round (interleaved, the order rotated each round)."""
    for peer in peers.values():
        peer.batch(max(calls // 4, 100))  # warm-up
    names = list(peers)
    out: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            peer = peers[name]
            cpu = peer.cpu if hasattr(peer, "cpu") else (lambda peer=peer: cpu_ns(peer.pid))
            before = cpu()
            peer.batch(calls)
            out[name].append((cpu() - before) / calls / 1000)
    return out


def in_process(api: str, out: Path, calls: int, rounds: int) -> dict[str, list[float]]:
    """The same measurements in this process (``connect_in_process``; CPU of this process)."""
    import httpx
    from mcp_codegen_runtime.server.settings import ServerSettings
    from mcp_codegen_runtime.wire.accelerator import loop_factory

    sys.path.insert(0, str(out))
    from bench_trivial_items import TrivialItems  # type: ignore[import-not-found]
    from items.server import ItemsServerBase  # type: ignore[import-not-found]

    os.environ["ITEMS_APIKEY"] = API_KEY
    ItemsServerBase.configure_upstream(api)
    unlimited = ServerSettings(rate_limit_per_second=1e12, rate_limit_burst=10**12)  # as --rate-limit 0
    client = httpx.AsyncClient(timeout=httpx.Timeout(30.0), follow_redirects=False)
    headers = {"Accept": "application/json", "X-API-Key": API_KEY}
    message = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "getItem", "arguments": ARGS, "_meta": META}}

    async def request() -> None:
        response = await client.send(client.build_request("GET", f"{api}/items/42?currency=USD", headers=headers),
                                     stream=True)
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
        await response.aclose()
        assert json.loads(body)["id"] == 42, body

    async def session(server: Any, n: int, with_request: bool = False) -> None:
        async with server.connect_in_process() as peer:
            for rid in range(n):
                await peer.send({**message, "id": rid})
                check(await peer.receive())
                if with_request:
                    await request()

    async def requests(n: int) -> None:
        for _ in range(n):
            await request()

    async def run() -> dict[str, list[float]]:
        ours, trivial = ItemsServerBase(settings=unlimited), TrivialItems(settings=unlimited)
        jobs: dict[str, Callable[[int], Any]] = {
            "openapi in-process": lambda n: session(ours, n), "trivial in-process": lambda n: session(trivial, n),
            "direct in-process": requests, "alternating in-process": lambda n: session(trivial, n, True)}
        for job in jobs.values():
            await job(max(calls // 4, 100))
        names = list(jobs)
        got: dict[str, list[float]] = {name: [] for name in names}
        for r in range(rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                began = time.process_time()
                await jobs[name](calls)
                got[name].append((time.process_time() - began) / calls * 1e6)
        await client.aclose()
        return got

    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(run())


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def row(label: str, ours: list[float], triv: list[float], dire: list[float], alt: list[float]) -> str:
    ratios = [o / (t + d) for o, t, d in zip(ours, triv, dire, strict=True)]
    vs_alt = [o / a for o, a in zip(ours, alt, strict=True)]
    med = statistics.median
    return (f"| {label} | {med(ours):.0f} | {med(triv):.0f} | {med(dire):.0f} | {spread(ratios)} | {med(alt):.0f} | "
            f"{spread(vs_alt)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per measurement per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--transports", default="stdio,http")
    parser.add_argument("--in-process", action="store_true", help="the same figures in this process too")
    parser.add_argument("--direct", metavar="URL", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.direct:
        direct(opts.direct)
        return
    transports = [t for t in opts.transports.split(",") if t]
    with tempfile.TemporaryDirectory(prefix="mcp-bench-upstream-") as tmp:
        out = build(Path(tmp))
        base = {k: v for k, v in os.environ.items() if not k.startswith(("MCP_CODEGEN_", "ITEMS_"))}
        env = {**base, "PYTHONPATH": os.pathsep.join([str(out), str(HERE)]), "ITEMS_APIKEY": API_KEY}
        port = free_port()
        upstream = subprocess.Popen([sys.executable, "-m", "uvicorn", "upstream_items:app", "--host", "127.0.0.1",
                                     "--port", str(port), "--lifespan", "off", "--no-access-log", "--log-level",
                                     "warning"], env=env, cwd=HERE)
        peers: dict[str, Any] = {}
        cpu: dict[str, list[float]] = {}
        try:
            wait_port(upstream, port)
            api = f"http://127.0.0.1:{port}/api"
            server = [sys.executable, "-m", "items", "--upstream", api, "--rate-limit", "0"]
            trivial = [*server, "--impl", "bench_trivial_items:TrivialItems"]
            direct_peer = peers["direct"] = DirectPeer(f"{api}/items/42?currency=USD", env)
            for transport in transports:
                kind: Callable[..., Any] = StdioPeer if transport == "stdio" else HttpPeer
                extra = ["--stdio"] if transport == "stdio" else []
                peers[f"openapi {transport}"] = kind([*server, *extra], env, out)
                peers[f"trivial {transport}"] = kind([*trivial, *extra], env, out)
                peers[f"alternating {transport}"] = Alternating(peers[f"trivial {transport}"], direct_peer)
            if transports:
                peers["orders"] = Orders(direct_peer)
                cpu = measure(peers, opts.calls, opts.rounds)
            if opts.in_process:
                cpu.update(in_process(api, out, opts.calls, opts.rounds))
        finally:
            for peer in peers.values():
                if hasattr(peer, "stop"):
                    peer.stop()
            stop(upstream)
    print(f"CPU per call, microseconds (median of {opts.rounds} interleaved rounds of {opts.calls} calls, "
          "lowest-highest round in brackets); era 2026-07-28")
    print("| transport | OpenAPI tool | (a) trivial tool | (b) direct request | OpenAPI / (a + b), target <= 1.10 | "
          "(a)+(b) alternating | OpenAPI / alternating |")
    print("|---|---|---|---|---|---|---|")
    for transport in transports:
        alt = [a - o for a, o in zip(cpu[f"alternating {transport}"], cpu["orders"], strict=True)]
        print(row(transport, cpu[f"openapi {transport}"], cpu[f"trivial {transport}"], cpu["direct"], alt))
    if opts.in_process:
        print(row("in process (client and server)", cpu["openapi in-process"], cpu["trivial in-process"],
                  cpu["direct in-process"], cpu["alternating in-process"]))


if __name__ == "__main__":
    main()
