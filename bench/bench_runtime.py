"""Generated-code throughput: generated client <-> generated server against the official SDK.

The benchmark server is generated from ``bench/specs/bench.yaml`` into a temporary folder
(``bench_impl.py`` beside it); the reference is the official ``mcp`` SDK, client and server
(``sdk_server.py``, the same tools).  Measured in one run, with the same payloads:

* sequential round trips (``add(a, b)`` with a typed output): calls/s, p50 and p99 latency,
  over stdio, in-process (messages copied through JSON, the default, and ``zero_copy=True``)
  and Streamable HTTP (uvicorn, 127.0.0.1), in both protocol eras
  (2026-07-28 "modern", and legacy 2025-11-25);
* the raw floor over stdio: a minimal newline-delimited JSON echo loop (``echo_server.py``)
  over the same kind of pipes;
* concurrency 10 and 100 over HTTP (one client, N calls spread over k tasks);
* for every HTTP row, the CPU each side spent per call: the client is this process
  (``getrusage``), the server its own process (``/proc/PID/stat``); ``--only cpu`` runs just
  HTTP sequential and concurrency 100;
* ``--repeat R`` interleaves R runs of each stack in every row (medians reported; the order
  rotates between rounds), so a busy machine slows both sides of a ratio alike;
* a validation-heavy call (``ingest``: 50 orders x 5 lines, ~20 kB of nested JSON);
* server memory over 100k in-process calls (RSS every 10k calls, after a GC; flat = no leak).

Usage::

    .venv/bin/python bench/bench_runtime.py [--quick] [--calls N] [--only stdio,inproc,http,...] [--repeat R]

Every server process is started by this script and stopped by its PID (terminate, then kill).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from _measure import table  # noqa: E402  (a script: after its sys.path line)

ERAS = {"modern": "2026-07-28", "legacy": "legacy"}  # our era name -> SDK client mode


# -- measurement ------------------------------------------------------------------------------

class Stat:
    def __init__(self, rate: float, lat: list[float], cpu: tuple[float, float, float] | None = None) -> None:
        lat = sorted(lat)
        self.rate = rate
        self.p50 = lat[len(lat) // 2] * 1000
        self.p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
        #: (client CPU s, server CPU s, wall s) over the measured calls, when the server's PID was given.
        self.cpu = cpu
        self.calls = len(lat)
        #: CPU seconds of this process per call (in process: client and server together).
        self.own: float | None = None


TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def own_cpu() -> float:
    """User + system CPU seconds of this process (the client) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Meter:
    """CPU of this process (the client) and of a server process, between start() and stop()."""

    def __init__(self, server_pid: int | None) -> None:
        self.pid = server_pid

    def start(self) -> None:
        self.begin = (own_cpu(), process_cpu(self.pid) if self.pid else 0.0, time.perf_counter())

    def stop(self) -> tuple[float, float, float] | None:
        if not self.pid:
            return None
        client, server, wall = self.begin
        return own_cpu() - client, process_cpu(self.pid) - server, time.perf_counter() - wall


async def sequential(call: Callable[[], Awaitable[Any]], n: int, warmup: int = 50, meter: Meter | None = None) -> Stat:
    meter = meter or Meter(None)
    for _ in range(warmup):
        await call()
    lat = []
    meter.start()
    start, own = time.perf_counter(), own_cpu()
    for _ in range(n):
        t = time.perf_counter()
        await call()
        lat.append(time.perf_counter() - t)
    stat = Stat(n / (time.perf_counter() - start), lat, meter.stop())
    stat.own = (own_cpu() - own) / n
    return stat


async def concurrent(call: Callable[[], Awaitable[Any]], n: int, tasks: int, warmup: int = 50,
                     meter: Meter | None = None) -> Stat:
    meter = meter or Meter(None)
    for _ in range(warmup):
        await call()
    lat: list[float] = []

    async def worker(count: int) -> None:
        for _ in range(count):
            t = time.perf_counter()
            await call()
            lat.append(time.perf_counter() - t)

    meter.start()
    start = time.perf_counter()
    await asyncio.gather(*(worker(n // tasks) for _ in range(tasks)))
    return Stat(len(lat) / (time.perf_counter() - start), lat, meter.stop())


# -- processes --------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A server process on 127.0.0.1:port, stopped by PID."""

    def __init__(self, cmd: list[str], port: int, env: dict[str, str], cwd: Path) -> None:
        self.port = port
        self.proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{cmd} exited: {self.proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{cmd} did not listen on {port}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def rss_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


# -- the two stacks -------------------------------------------------------------------------------

class Bench:
    def __init__(self, gen: Path, calls: int, quick: bool) -> None:
        self.gen = gen
        self.calls = calls
        self.quick = quick
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(gen), str(HERE)])}
        self.payload = {"orders": [
            {"id": f"o{i}", "customer": {"name": f"Customer {i}", "email": f"c{i}@example.com",
                                         "address": {"street": f"{i} Main St", "city": "Paris", "country": "FR"}},
             "lines": [{"sku": f"ABC-{1000 + j}", "quantity": j + 1, "unit_price": 9.5 + j} for j in range(5)],
             "priority": "high" if i % 3 == 0 else "normal", "tags": ["bench", f"t{i % 7}"]}
            for i in range(50)]}

    # ours
    def ours_client(self, transport: str, era: str, url: str | None = None) -> Any:
        from benchsrv.client import BenchsrvClient

        if transport in ("inproc", "inproc-zc"):
            from bench_impl import BenchService

            return BenchsrvClient.in_process(BenchService(), era=era, zero_copy=transport == "inproc-zc")
        if transport == "stdio":
            return BenchsrvClient.stdio(sys.executable, ["-m", "benchsrv", "--stdio"], cwd=str(self.gen),
                                        env={"PYTHONPATH": self.env["PYTHONPATH"]}, era=era)
        return BenchsrvClient.http(url or "", era=era)

    def ours_http_server(self) -> Server:
        port = free_port()
        return Server([sys.executable, "-m", "benchsrv", "--http", "--host", "127.0.0.1", "--port", str(port)],
                      port, self.env, self.gen)

    # the SDK
    def sdk_client(self, transport: str, era: str, url: str | None = None) -> Any:
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters

        mode = ERAS[era]
        if transport == "inproc":
            import sdk_server

            return Client(sdk_server.build(), mode=mode)
        if transport == "stdio":
            params = StdioServerParameters(command=sys.executable, args=[str(HERE / "sdk_server.py"), "--stdio"],
                                           env={"PYTHONPATH": self.env["PYTHONPATH"]})
            return Client(params, mode=mode)
        return Client(url or "", mode=mode)

    def sdk_http_server(self) -> Server:
        port = free_port()
        return Server([sys.executable, str(HERE / "sdk_server.py"), "--http", "--port", str(port)], port, self.env, HERE)

    async def run(self, stack: str, transport: str, era: str, tool: str = "add", tasks: int = 1,
                  url: str | None = None, n: int | None = None, server_pid: int | None = None) -> Stat:
        n = n or self.calls
        client = (self.ours_client if stack == "ours" else self.sdk_client)(transport, era, url)
        async with client as c:
            if stack == "ours":
                if tool == "add":
                    async def call() -> Any:
                        out = await c.add(a=1.5, b=2.5)
                        assert out.sum == 4.0
                else:
                    from benchsrv.models import IngestInput

                    orders = IngestInput.model_validate(self.payload).orders  # typed data, built once

                    async def call() -> Any:
                        out = await c.ingest(orders=orders)
                        assert out.orders == 50
            else:
                args = {"a": 1.5, "b": 2.5} if tool == "add" else self.payload

                async def call() -> Any:
                    res = await c.call_tool(tool, args)
                    assert not res.is_error, res

            if tasks == 1:
                return await sequential(call, n, meter=Meter(server_pid))
            return await concurrent(call, n, tasks, meter=Meter(server_pid))

    # raw floor
    async def raw_echo(self) -> Stat:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(HERE / "echo_server.py"), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdin and proc.stdout
        import json

        counter = [0]

        async def call() -> Any:
            counter[0] += 1
            msg = {"jsonrpc": "2.0", "id": counter[0], "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": 1.5, "b": 2.5}}}
            proc.stdin.write(json.dumps(msg).encode() + b"\n")  # type: ignore[union-attr]
            await proc.stdin.drain()  # type: ignore[union-attr]
            reply = json.loads(await proc.stdout.readline())  # type: ignore[union-attr]
            assert reply["result"]["structuredContent"]["sum"] == 4.0

        try:
            return await sequential(call, self.calls)
        finally:
            proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except TimeoutError:
                proc.kill()
                await proc.wait()

    async def memory(self, total: int, step: int) -> list[tuple[int, float]]:
        """RSS of this process (client and server in process) every ``step`` calls."""
        from bench_impl import BenchService
        from benchsrv.client import BenchsrvClient

        samples = []
        async with BenchsrvClient.in_process(BenchService(), era="modern") as c:
            for _ in range(200):
                await c.add(a=1.0, b=2.0)
            gc.collect()
            samples.append((0, rss_mb()))
            for done in range(step, total + 1, step):
                for _ in range(step):
                    await c.add(a=1.0, b=2.0)
                gc.collect()
                samples.append((done, rss_mb()))
        return samples


def generate(tmp: Path) -> Path:
    gen = tmp / "gen"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-m", "codegen", "build", str(HERE / "specs" / "bench.yaml"), "-o", str(gen), "-q"],
                   check=True, env=env)
    shutil.copy(HERE / "bench_impl.py", gen / "bench_impl.py")
    return gen


def combine(stats: list[Stat]) -> Stat:
    """Repeated runs of one row: median rate, p50 and p99; CPU and wall summed."""
    out = stats[0]
    if len(stats) > 1:
        out.rate, out.p50, out.p99 = (statistics.median(getattr(s, k) for s in stats) for k in ("rate", "p50", "p99"))
        cpus = [s.cpu for s in stats if s.cpu is not None]
        out.cpu = tuple(sum(c[i] for c in cpus) for i in range(3)) if cpus else None  # type: ignore[assignment]
        out.calls = sum(s.calls for s in stats)
        owns = [s.own for s in stats if s.own is not None]
        out.own = statistics.median(owns) if owns else None
    return out


def cpu_cells(stat: Stat) -> list[str]:
    if stat.cpu is None:
        return ["", "", "", ""]
    client, server, wall = stat.cpu
    return [f"{1e6 * client / stat.calls:,.0f}", f"{1e6 * server / stat.calls:,.0f}",
            f"{100 * client / wall:.0f}%", f"{100 * server / wall:.0f}%"]


def fmt(stat: Stat) -> list[str]:
    return [f"{stat.rate:,.0f}", f"{stat.p50:.3f}", f"{stat.p99:.3f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description="generated client/server vs the official MCP SDK")
    parser.add_argument("--quick", action="store_true", help="fewer calls (a rough figure in ~1 minute)")
    parser.add_argument("--calls", type=int, default=None, help="sequential calls per measurement")
    parser.add_argument("--only", default="inproc,stdio,http,concurrency,heavy,memory",
                        help="comma-separated parts to run (also: cpu = HTTP sequential and concurrency 100 only, "
                             "with the CPU table)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per stack and row, interleaved with the SDK's (medians are reported)")
    args = parser.parse_args()
    calls = args.calls or (300 if args.quick else 2000)
    parts = set(args.only.split(","))
    import mcp  # noqa: F401  (fail early when the SDK is missing)

    print(f"# runtime benchmark: Python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"{calls} sequential calls per row", flush=True)
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-rt-") as tmp:
        gen = generate(Path(tmp))
        sys.path[:0] = [str(gen)]
        bench = Bench(gen, calls, args.quick)
        rows: list[list[object]] = []

        def add_rows(transport: str, era: str, ours: Stat, sdk: Stat, floor: Stat | None = None) -> None:
            cpu = ""  # in process: this process's CPU per call (client and server), the figure load disturbs least
            if transport.startswith("inproc") and ours.own and sdk.own:
                cpu = f"; CPU {1e6 * ours.own:,.0f} against {1e6 * sdk.own:,.0f} us/call ({sdk.own / ours.own:.2f}x)"
            rows.append([transport, era, "generated", *fmt(ours), f"{ours.rate / sdk.rate:.2f}x SDK"
                         + (f", {floor.rate / ours.rate:.2f}x slower than raw" if floor else "") + cpu])
            rows.append([transport, era, "mcp SDK (reference)", *fmt(sdk), ""])
            print(table(["transport", "era", "stack", "calls/s", "p50 ms", "p99 ms", "ratio"], rows[-2:]), flush=True)

        def interleaved(variants: dict[str, Callable[[], Stat]]) -> dict[str, Stat]:
            """Each variant run ``--repeat`` times, in rotating order; the median of each."""
            runs: dict[str, list[Stat]] = {k: [] for k in variants}
            names = list(variants)
            for r in range(args.repeat):
                for name in names[r % len(names):] + names[:r % len(names)]:
                    runs[name].append(variants[name]())
            return {k: combine(v) for k, v in runs.items()}

        def one(stack: str, transport: str, era: str, **kw: Any) -> Callable[[], Stat]:
            return lambda: asyncio.run(bench.run(stack, transport, era, **kw))

        floor = None
        if "stdio" in parts:
            floor = interleaved({"raw": lambda: asyncio.run(bench.raw_echo())})["raw"]
            rows.append(["stdio", "-", "raw newline-JSON echo (floor)", *fmt(floor), ""])
        for transport in ("inproc", "stdio"):
            if transport in parts:
                for era in ERAS:
                    variants = {stack: one(stack, transport, era) for stack in ("ours", "sdk")}
                    if transport == "inproc":  # the SDK has one in-process path: the same reference
                        variants["zero"] = one("ours", "inproc-zc", era)
                    got = interleaved(variants)
                    add_rows(transport, era, got["ours"], got["sdk"], floor if transport == "stdio" else None)
                    if "zero" in got:
                        add_rows("inproc, zero-copy", era, got["zero"], got["sdk"])
        http_parts = parts & {"http", "concurrency", "cpu"}
        cpu_rows: list[list[object]] = []
        if http_parts:
            ours_srv, sdk_srv = bench.ours_http_server(), bench.sdk_http_server()

            def measure(era: str, tasks: int, n: int) -> tuple[Stat, Stat]:
                """Ours and the SDK's, interleaved ``--repeat`` times (the order alternates)."""
                runs: dict[str, list[Stat]] = {"ours": [], "sdk": []}
                for r in range(args.repeat):
                    for stack in (("ours", "sdk") if r % 2 == 0 else ("sdk", "ours")):
                        srv = ours_srv if stack == "ours" else sdk_srv
                        runs[stack].append(asyncio.run(bench.run(stack, "http", era, tasks=tasks, url=srv.url, n=n,
                                                                 server_pid=srv.proc.pid)))
                return combine(runs["ours"]), combine(runs["sdk"])

            try:
                for era in ERAS:
                    levels = ([1] if parts & {"http", "cpu"} else []) + ([10] if "concurrency" in parts else []) \
                        + ([100] if parts & {"concurrency", "cpu"} else [])
                    for tasks in levels:
                        ours, sdk = measure(era, tasks, calls if tasks == 1 else max(calls, tasks * 10))
                        label = "http" if tasks == 1 else f"http, concurrency {tasks}"
                        add_rows(label, era, ours, sdk)
                        cpu_rows += [[label, era, "generated", *cpu_cells(ours)], [label, era, "mcp SDK (reference)", *cpu_cells(sdk)]]
            finally:
                ours_srv.stop()
                sdk_srv.stop()
        if "heavy" in parts:
            n = max(50, calls // 4)
            for transport in ("inproc", "stdio"):
                variants = {stack: one(stack, transport, "modern", tool="ingest", n=n) for stack in ("ours", "sdk")}
                if transport == "inproc":
                    variants["zero"] = one("ours", "inproc-zc", "modern", tool="ingest", n=n)
                got = interleaved(variants)
                add_rows(f"{transport}, ingest 20 kB", "modern", got["ours"], got["sdk"])
                if "zero" in got:
                    add_rows("inproc zero-copy, ingest 20 kB", "modern", got["zero"], got["sdk"])
        print("\n## round trips")
        print(table(["transport", "era", "stack", "calls/s", "p50 ms", "p99 ms", "ratio"], rows))
        if cpu_rows:
            print("\n## HTTP: CPU per call (client: this process, getrusage; server: /proc/PID/stat), "
                  "and each side's CPU use over the measured wall time (100% = one core busy)")
            print(table(["transport", "era", "stack", "client us/call", "server us/call", "client CPU", "server CPU"], cpu_rows))
        if "memory" in parts:
            total = 20_000 if args.quick else 100_000
            samples = asyncio.run(bench.memory(total, total // 10))
            print(f"\n## memory: RSS of one process running client and server in process, {total:,} calls")
            print(table(["calls", "RSS MB"], [[f"{n:,}", f"{mb:.1f}"] for n, mb in samples]))
            growth = samples[-1][1] - samples[1][1]
            print(f"growth after the first {samples[1][0]:,} calls: {growth:+.1f} MB "
                  f"(median step {statistics.median(b[1] - a[1] for a, b in zip(samples[1:], samples[2:], strict=False)):+.2f} MB)")


if __name__ == "__main__":
    main()
