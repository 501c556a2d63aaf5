"""The generated server's ASGI application alone, against the least any Python server can do.

``bench_http_floor.py`` measures whole servers under load: the floor there (26-29 us of CPU
per request) is uvicorn, httptools and the kernel, and the generated server's CPU on top of it
is everything the MCP runtime does.  This script takes the server stack away and calls three
ASGI applications in process, with the same complete request (the README's weather tool,
``tools/call get_weather`` in the 2026-07-28 stateless form, its ``_meta`` and standard headers),
each giving the same answer bytes:

* ``bare``: reads the body and sends fixed bytes (``http_floor_app.floor_app``, the floor's app);
* ``steps``: only the steps no MCP server can skip, written inline: decode the body (orjson),
  build the generated input model, call the same handler (``weather_bench_impl.py``), dump its
  output model, write the JSON text block and encode the response (orjson) -- no header,
  ``_meta``, size, rate or concurrency check, no schema check beyond the model, no cancellation,
  no error path;
* ``generated``: the generated package's application (``asgi_app`` of the same handler class),
  everything the runtime does per request.

Every answer body of ``steps`` and ``generated`` is checked against the first one (same JSON
value).  The rounds interleave the three and rotate their order; the figure is process CPU per
call (``time.process_time``), median and lowest-highest round, and the ratios within a round.

Run::

    .venv/bin/python bench/bench_http_app.py [--calls 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_http_floor import ARGS, call_body, generate  # noqa: E402  (a script: after its sys.path line)
from http_floor_app import floor_app  # noqa: E402

App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def request(body: bytes) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
               (b"accept", b"application/json, text/event-stream"), (b"mcp-protocol-version", b"2026-07-28"),
               (b"mcp-method", b"tools/call"), (b"mcp-name", b"get_weather"),
               (b"content-length", str(len(body)).encode())]
    return {"type": "http", "http_version": "1.1", "method": "POST", "path": "/mcp", "raw_path": b"/mcp",
            "query_string": b"", "headers": headers, "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
            "scheme": "http", "root_path": "", "asgi": {"version": "3.0"}}


def steps_app(impl: Any, input_model: Any, server_meta: dict[str, Any]) -> App:
    """The unavoidable steps of the call (module docstring), nothing else."""
    import orjson

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        message = await receive()
        req = orjson.loads(message["body"])
        args = input_model.model_validate(req["params"]["arguments"])
        data = (await impl.get_weather(args, None)).model_dump(mode="json", by_alias=True, exclude_unset=True)
        result = {"content": [{"type": "text", "text": json.dumps(data)}], "structuredContent": data,
                  "resultType": "complete", "_meta": server_meta}
        body = orjson.dumps({"jsonrpc": "2.0", "id": req["id"], "result": result})
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return app


async def answer(app: App, scope: dict[str, Any], body: bytes) -> tuple[int, bytes]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(dict(scope), receive, send)
    return int(sent[0]["status"]), b"".join(m.get("body", b"") for m in sent[1:])


async def cpu_per_call(app: App, scope: dict[str, Any], body: bytes, calls: int) -> float:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        pass

    start = time.process_time()
    for _ in range(calls):
        await app(dict(scope), receive, send)
    return (time.process_time() - start) / calls * 1e6


async def run(opts: argparse.Namespace, gen: Path) -> None:
    sys.path.insert(0, str(gen))
    from mcp_codegen_runtime.server.http.app import asgi_app
    from weather.models import GetWeatherInput
    from weather_bench_impl import WeatherBench

    body = json.dumps(call_body(meta=True), separators=(",", ":")).encode()
    scope = request(body)
    generated = asgi_app(WeatherBench())
    status, expected = await answer(generated, scope, body)
    assert status == 200, expected
    value = json.loads(expected)
    assert value["result"]["structuredContent"]["unit"] == ARGS["unit"], value
    apps: dict[str, App] = {"bare": floor_app(expected),
                            "steps": steps_app(WeatherBench(), GetWeatherInput, value["result"]["_meta"]),
                            "generated": generated}
    for name, app in apps.items():
        status, got = await answer(app, scope, body)
        assert status == 200 and json.loads(got) == value, (name, got)
        await cpu_per_call(app, scope, body, opts.calls // 10)  # warm-up
    figures: dict[str, list[float]] = {name: [] for name in apps}
    order = list(apps)
    for r in range(opts.rounds):
        for name in order[r % len(order):] + order[:r % len(order)]:
            figures[name].append(await cpu_per_call(apps[name], scope, body, opts.calls))
    print(f"In-process CPU per call, us ({opts.rounds} rounds of {opts.calls}; median, lowest-highest round):")
    for name in apps:
        values = figures[name]
        print(f"  {name:<10} {statistics.median(values):7.1f}  ({min(values):.1f}-{max(values):.1f})")
    for a, b in (("generated", "steps"), ("steps", "bare"), ("generated", "bare")):
        ratios = [x / y for x, y in zip(figures[a], figures[b], strict=True)]
        print(f"  {a} / {b}: {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})")
    extra = [g - s for g, s in zip(figures["generated"], figures["steps"], strict=True)]
    print(f"  generated - steps: {statistics.median(extra):.1f} us per call (the runtime's checks and layers)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gen = generate(Path(tmp))
        try:
            import uvloop
            uvloop.run(run(opts, gen))
        except ImportError:
            asyncio.run(run(opts, gen))


if __name__ == "__main__":
    main()
