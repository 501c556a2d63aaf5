"""Streamable HTTP serving against its own floor and the peers, in one run.

The README's weather tool (``specs/weather.yaml``, built into a temporary folder, with the
trivial ``weather_bench_impl.py``) answers ``tools/call get_weather`` under a keep-alive,
closed-loop load (``http_load.py``, its own process: every answer checked) at each
concurrency of ``--conns``, beside:

* the floor: a bare ASGI app on the same uvicorn stack (``http_floor_app.py``: the runtime's
  socket, loop, HTTP parser and options; the same answer bytes), once with the fast extra's
  uvloop + httptools and once with the standard loop + h11 (``MCP_CODEGEN_ACCELERATOR=off``);
* the generated server in both eras (2026-07-28: stateless POSTs with the ``_meta`` envelope
  and the standard headers; 2025-11-25: one ``initialize`` handshake, then every call in that
  session), with the fast extra and without (the same switch);
* the official TypeScript SDK (``ts_sdk_server.cjs``, stateless, JSON; from
  ``scripts/npm-servers``), the official Python SDK and FastMCP (``http_peers.py``, stateless,
  JSON; FastMCP from ``scripts/bench-env``), each sent the 2025-11-25 stateless request.

Every server is one process, started once and stopped by its PID; the runs are interleaved in
``--rounds`` rounds, the order of the servers rotating from round to round, and every figure
is also given as a ratio of the floor of the same round (median, and the lowest-highest
round): requests/s, server CPU microseconds per request (``/proc/PID/stat`` of the server's
process tree), p50 and p99 latency; RSS after the load.  With 2 CPUs or more the servers run
on ``--server-cpus`` and the load generator on ``--load-cpus`` (``taskset``), so the client
does not take the servers' core.  ``--workers N`` adds the generated server (2026, fast) run
with ``--workers N``; ``--baseline DIR`` adds it on the runtime of another checkout (DIR, e.g.
``git archive`` of main), for a before / after in the same run (``--baseline-hide httptools``:
as main's ``fast`` extra installed it, uvicorn on h11).

Run (after ``scripts/bench-env`` and ``scripts/npm-servers``)::

    .venv/bin/python bench/bench_http_floor.py [--rounds 3] [--seconds 3] [--conns 1,10,50]
        [--only floor,ours,peers] [--workers N] [--baseline DIR] [--server-cpus 0] [--load-cpus 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import bench_runtime  # noqa: E402  (a script: after its sys.path line)
from _measure import table, tree_rss_mb  # noqa: E402
from bench_runtime import free_port  # noqa: E402

BENCH_PY = ROOT / ".venv-bench" / "bin" / "python"
ARGS = {"location": "Paris", "unit": "celsius"}
EXPECT = {"temperature": 18.0, "conditions": "sunny", "unit": "celsius"}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "http-load", "version": "1.0"}}


def raw_request(port: int, body: dict[str, Any], headers: dict[str, str]) -> bytes:
    data = json.dumps(body, separators=(",", ":")).encode()
    head = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream", **headers, "Content-Length": str(len(data))}
    return b"POST /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()).encode() + b"\r\n" + data


def call_body(meta: bool) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "get_weather", "arguments": ARGS}
    if meta:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def post(port: int, body: dict[str, Any], headers: dict[str, str]) -> tuple[bytes, dict[str, str]]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                                          **headers})
    with urllib.request.urlopen(req, timeout=10) as res:
        return res.read(), {k.lower(): v for k, v in res.headers.items()}


class Server(bench_runtime.Server):
    """A server process on 127.0.0.1 (pinned with taskset when asked), stopped by its PID."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], cwd: Path, port: int, cpus: str | None) -> None:
        self.name = name
        super().__init__(["taskset", "-c", cpus, *cmd] if cpus else cmd, port, env, cwd)  # taskset execs: the PID is the server's


class Target:
    """One row: a server and the request it is sent."""

    def __init__(self, name: str, server: Server, request: bytes, floor: str) -> None:
        self.name, self.server, self.request, self.floor = name, server, request, floor
        self.file = Path(tempfile.mkstemp(prefix="http-load-", suffix=".req")[1])
        self.file.write_bytes(request)
        self.runs: dict[int, list[dict[str, float]]] = {}


def load(target: Target, conns: int, opts: argparse.Namespace) -> dict[str, float]:
    cmd = [sys.executable, str(HERE / "http_load.py"), "--port", str(target.server.port), "--request", str(target.file),
           "--expect", json.dumps(EXPECT), "--conns", str(conns), "--seconds", str(opts.seconds),
           "--warmup", str(opts.warmup), "--server-pid", str(target.server.proc.pid)]
    if target.name == target.floor:
        cmd.append("--fixed-answer")
    if opts.load_cpus:
        cmd = ["taskset", "-c", opts.load_cpus, *cmd]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.seconds + opts.warmup + 120)
    if done.returncode != 0:
        raise RuntimeError(f"{target.name} at c={conns}: {done.stderr.strip()[-2000:]}")
    result: dict[str, float] = json.loads(done.stdout)
    return result


def generate(tmp: Path) -> Path:
    gen = tmp / "gen"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "codegen", "build", str(ROOT / "specs" / "weather.yaml"), "-o", str(gen), "-q"],
                   check=True, env=env, cwd=ROOT)
    shutil.copy(HERE / "weather_bench_impl.py", gen / "weather_bench_impl.py")
    return gen


def legacy_session(port: int) -> str:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "http-load", "version": "1.0"}}}
    _, headers = post(port, init, {})
    sid = headers["mcp-session-id"]
    post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"},
         {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
    return sid


def start_all(opts: argparse.Namespace, gen: Path, tmp: Path) -> list[Target]:
    parts = set(opts.only.split(","))
    base = {k: v for k, v in os.environ.items() if not k.startswith("MCP_CODEGEN_")}
    env = {**base, "PYTHONPATH": os.pathsep.join([str(gen), str(HERE)])}
    cpus = opts.server_cpus
    targets: list[Target] = []
    modern = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_weather"}
    legacy = {"MCP-Protocol-Version": "2025-11-25"}
    answer: bytes | None = None
    for label, switch in (("fast extra", {}), ("pure Python", {"MCP_CODEGEN_ACCELERATOR": "off"})):
        floor_name = f"floor ({'uvloop + httptools' if not switch else 'asyncio + h11'})"
        port = free_port()
        ours = Server(f"generated, {label}", [sys.executable, "-m", "weather", "--http", "--port", str(port), "--json-response",
                                              "--impl", "weather_bench_impl:WeatherBench"], {**env, **switch}, gen, port, cpus)
        answer = answer or post(port, call_body(True), modern)[0]
        if "ours" in parts:
            targets.append(Target(f"generated 2026, {label}", ours, raw_request(port, call_body(True), modern), floor_name))
            sid = legacy_session(port)
            targets.append(Target(f"generated 2025 session, {label}", ours,
                                  raw_request(port, call_body(False), {**legacy, "Mcp-Session-Id": sid}), floor_name))
        else:
            ours.stop()
        if "floor" in parts:
            body_file = tmp / "floor-body.json"
            body_file.write_bytes(answer)
            port = free_port()
            floor = Server(floor_name, [sys.executable, str(HERE / "http_floor_app.py"), str(port), str(body_file)],
                           {**env, **switch}, HERE, port, cpus)
            targets.insert(0 if not switch else len(targets), Target(floor_name, floor, raw_request(port, call_body(True), modern), floor_name))
    if opts.baseline:  # the same generated package on another checkout's runtime (before / after)
        runtime = str(Path(opts.baseline).resolve() / "runtime")
        for name in filter(None, opts.baseline_hide.split(",")):  # as that checkout's extras left them: not importable
            (tmp / "hidden" / name).mkdir(parents=True, exist_ok=True)
            (tmp / "hidden" / name / "__init__.py").write_text(f"raise ImportError('{name} hidden by bench_http_floor')\n")
        if opts.baseline_hide:
            runtime = os.pathsep.join([str(tmp / "hidden"), runtime])
        for label, switch in (("fast extra", {}), ("pure Python", {"MCP_CODEGEN_ACCELERATOR": "off"})):
            if label == "pure Python" and not opts.baseline_pure:
                continue
            port = free_port()
            srv = Server(f"baseline, {label}", [sys.executable, "-m", "weather", "--http", "--port", str(port), "--json-response",
                                                "--impl", "weather_bench_impl:WeatherBench"],
                         {**env, **switch, "PYTHONPATH": os.pathsep.join([runtime, env["PYTHONPATH"]])}, gen, port, cpus)
            floor_name = f"floor ({'uvloop + httptools' if not switch else 'asyncio + h11'})"
            targets.append(Target(f"baseline 2026, {label}", srv, raw_request(port, call_body(True), modern), floor_name))
            sid = legacy_session(port)
            targets.append(Target(f"baseline 2025 session, {label}", srv,
                                  raw_request(port, call_body(False), {**legacy, "Mcp-Session-Id": sid}), floor_name))
    if opts.workers > 1:
        port = free_port()
        srv = Server(f"generated, --workers {opts.workers}", [sys.executable, "-m", "weather", "--http", "--port", str(port),
                     "--json-response", "--workers", str(opts.workers), "--impl", "weather_bench_impl:WeatherBench"], env, gen, port, cpus)
        time.sleep(2)  # every worker listening
        targets.append(Target(f"generated 2026, fast extra, --workers {opts.workers}", srv,
                              raw_request(port, call_body(True), modern), "floor (uvloop + httptools)"))
    if "peers" in parts:
        npm = ROOT / ".tools" / "npm"
        peer_req = lambda port: raw_request(port, call_body(False), legacy)  # noqa: E731
        floor = "floor (uvloop + httptools)"
        if (npm / "node_modules" / "@modelcontextprotocol" / "sdk").exists():
            port = free_port()
            srv = Server("TypeScript SDK", ["node", str(HERE / "ts_sdk_server.cjs"), str(npm), str(port)], base, HERE, port, cpus)
            targets.append(Target("official TypeScript SDK (stateless, JSON)", srv, peer_req(port), floor))
        else:
            print("(no TypeScript SDK row: run scripts/npm-servers)", file=sys.stderr)
        port = free_port()
        srv = Server("Python SDK", [sys.executable, str(HERE / "http_peers.py"), "sdk", str(port)], base, HERE, port, cpus)
        targets.append(Target("official Python SDK (stateless, JSON)", srv, peer_req(port), floor))
        if BENCH_PY.exists():
            port = free_port()
            srv = Server("FastMCP", [str(BENCH_PY), str(HERE / "http_peers.py"), "fastmcp", str(port)], base, HERE, port, cpus)
            targets.append(Target("FastMCP (stateless, JSON)", srv, peer_req(port), floor))
        else:
            print("(no FastMCP row: run scripts/bench-env)", file=sys.stderr)
    return targets


def versions() -> str:
    found = []
    for mod in ("uvicorn", "httptools", "uvloop", "mcp"):
        try:
            found.append(f"{mod} {__import__('importlib.metadata').metadata.version(mod)}")
        except Exception:
            found.append(f"{mod} -")
    return ", ".join(found)


def cell(values: list[float], fmt: str) -> str:
    return format(statistics.median(values), fmt)


def ratio(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})"


def report(targets: list[Target], levels: list[int], rss: dict[str, float]) -> None:
    by_name = {t.name: t for t in targets}
    rows, ratios = [], []
    for t in targets:
        med = {c: {k: [r[k] for r in t.runs[c]] for k in ("rps", "cpu_us", "p50", "p99")} for c in levels}
        rows.append([t.name, " / ".join(cell(med[c]["rps"], ",.0f") for c in levels),
                     " / ".join(cell(med[c]["cpu_us"], ",.0f") for c in levels),
                     " / ".join(cell(med[c]["p50"], ".2f") for c in levels),
                     " / ".join(cell(med[c]["p99"], ".2f") for c in levels), f"{rss[t.name]:.0f}"])
        floor = by_name.get(t.floor)
        if floor is None or floor is t:
            continue
        per = {c: {k: [a[k] / b[k] for a, b in zip(t.runs[c], floor.runs[c], strict=True)] for k in ("rps", "cpu_us", "p99")}
               for c in levels}
        ratios.append([t.name, t.floor, *[f"{ratio(per[c]['rps'])} / {ratio(per[c]['cpu_us'])} / {ratio(per[c]['p99'])}"
                                          for c in levels]])
    conns = "/".join(str(c) for c in levels)
    print(f"\n## figures (medians over the rounds; c = {conns})")
    print(table(["server", "rps", "server CPU us/req", "p50 ms", "p99 ms", "RSS MiB"], rows))
    print("\n## as a ratio of the floor of the same round: rps / CPU per request / p99 (median, lowest-highest round)")
    print(table(["server", "floor", *[f"c={c}" for c in levels]], ratios))
    peers = [t for t in targets if "SDK" in t.name or "FastMCP" in t.name]
    ours = [t for t in targets if t.name.startswith(("generated", "baseline"))]
    if peers and ours:
        print(f"\n## the generated server against each peer, same round: rps ratio (median, lowest-highest), c = {conns}")
        out = []
        for o in ours:
            out.append([o.name, *[" / ".join(ratio([a["rps"] / b["rps"] for a, b in zip(o.runs[c], p.runs[c], strict=True)])
                                              for c in levels) for p in peers]])
        print(table(["server", *[p.name for p in peers]], out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0, help="measured seconds per run")
    ap.add_argument("--warmup", type=float, default=0.5, help="seconds of load before each measured window")
    ap.add_argument("--conns", default="1,10,50", help="concurrency levels (connections)")
    ap.add_argument("--only", default="floor,ours,peers")
    ap.add_argument("--workers", type=int, default=1, help="also run the generated server with --workers N")
    ap.add_argument("--baseline", default=None, help="also run the generated server on this checkout's runtime (before / after)")
    ap.add_argument("--baseline-pure", action="store_true", help="with --baseline: its pure-Python rows too")
    ap.add_argument("--baseline-hide", default="", help="with --baseline: modules it must not import (e.g. httptools, "
                    "which main's fast extra did not bring; uvicorn then parses with h11)")
    two = (os.cpu_count() or 1) >= 2
    ap.add_argument("--server-cpus", default="0" if two else None, help="taskset CPU list of the servers ('' : none)")
    ap.add_argument("--load-cpus", default="1" if two else None, help="taskset CPU list of the load generator ('' : none)")
    opts = ap.parse_args()
    opts.server_cpus = opts.server_cpus or None
    opts.load_cpus = opts.load_cpus or None
    levels = [int(c) for c in opts.conns.split(",")]
    print(f"# HTTP floor benchmark: {os.cpu_count()} CPUs, servers on CPUs {opts.server_cpus or 'any'}, load generator on "
          f"{opts.load_cpus or 'any'}; {opts.rounds} rounds of {opts.seconds:g} s per server and concurrency; {versions()}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="mcp-bench-http-") as tmp_name:
        tmp = Path(tmp_name)
        gen = generate(tmp)
        targets = start_all(opts, gen, tmp)
        servers = list({id(t.server): t.server for t in targets}.values())
        try:
            for r in range(opts.rounds):
                for c in levels:
                    order = targets[r % len(targets):] + targets[:r % len(targets)]
                    for t in order:
                        res = load(t, c, opts)
                        t.runs.setdefault(c, []).append(res)
                        print(f"round {r + 1} c={c} {t.name}: {res['rps']:,.0f} rps, {res['cpu_us']:,.0f} us/req, "
                              f"p99 {res['p99']:.2f} ms", flush=True)
            rss = {t.name: tree_rss_mb(t.server.proc.pid) for t in targets}
        finally:
            for s in servers:
                s.stop()
            for t in targets:
                t.file.unlink(missing_ok=True)
        report(targets, levels, rss)


if __name__ == "__main__":
    main()
