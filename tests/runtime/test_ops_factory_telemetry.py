"""The ASGI factory's shared-key check (worker counts seen in the environment and on the
command line) and the optional OpenTelemetry spans and metrics (SDK with in-memory readers)."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import sys
from typing import Any

import pytest
from common_support import free_port, stop_pid, wait_port
from http_support import modern_meta
from mcp_codegen_runtime.server import telemetry
from mcp_codegen_runtime.server.http.factory import check_shared_key, worker_count
from ops_support import OpsServer, ops_env


@pytest.mark.parametrize(("env", "argv", "count"), [
    ({}, ["uvicorn", "--factory", "m:f"], 1),
    ({}, ["uvicorn", "--factory", "m:f", "--workers", "4"], 4),
    ({}, ["uvicorn", "--workers=3"], 3),
    ({"WEB_CONCURRENCY": "2"}, ["uvicorn", "--factory", "m:f"], 2),
    ({"WEB_CONCURRENCY": "2"}, ["uvicorn", "--workers", "1"], 1),
    ({"SERVER_SOFTWARE": "gunicorn/23.0.0"}, ["gunicorn", "-w", "4", "m:f()"], 4),
    ({"SERVER_SOFTWARE": "gunicorn/23.0.0"}, ["gunicorn", "-w2", "m:f()"], 2),
    ({"SERVER_SOFTWARE": "gunicorn/23.0.0", "GUNICORN_CMD_ARGS": "--workers 3"}, ["gunicorn", "m:f()"], 3),
    ({"SERVER_SOFTWARE": "gunicorn/23.0.0"}, ["gunicorn", "-c", "conf.py", "m:f()"], None),
    ({"SERVER_SOFTWARE": "gunicorn/23.0.0", "MCP_CODEGEN_WORKERS": "1"}, ["gunicorn", "m:f()"], 1),
    ({"MCP_CODEGEN_WORKERS": "8"}, ["python"], 8),
    ({}, ["python", "-w", "5"], 1),  # -w is gunicorn's only
])
def test_worker_count(env: dict[str, str], argv: list[str], count: int | None) -> None:
    assert worker_count(env, argv) == count


def test_shared_key_check() -> None:
    check_shared_key({}, ["uvicorn"])
    for env, argv in (({}, ["uvicorn", "--workers", "2"]), ({"SERVER_SOFTWARE": "gunicorn/1"}, ["gunicorn"])):
        with pytest.raises(RuntimeError, match="no shared state key.*MCP_CODEGEN_STATE_KEY"):
            check_shared_key(env, argv)
        check_shared_key({**env, "MCP_CODEGEN_STATE_KEY": "k" * 64}, argv)
        check_shared_key({**env, "MCP_CODEGEN_STATE_KEY_FILE": "/run/secrets/key"}, argv)
    with pytest.raises(RuntimeError, match="not a number"):
        check_shared_key({"MCP_CODEGEN_WORKERS": "many"}, ["x"])


def _uvicorn(port: int, *extra: str, **env: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "mcp_codegen_runtime.server.http:app_from_env",
           "--host", "127.0.0.1", "--port", str(port), "--workers", "2", *extra]
    return subprocess.Popen(cmd, env=ops_env(MCP_CODEGEN_IMPL="ops_support:OpsServer", **env),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_uvicorn_workers_refuse_to_start_without_a_shared_key() -> None:
    proc = _uvicorn(free_port())
    try:
        _, err = proc.communicate(timeout=60)  # uvicorn stops (with status 0) instead of restarting workers
    finally:
        stop_pid(proc)
    assert err.count("cannot start: 2 worker processes but no shared state key") >= 1
    assert "failed to start, stopping the parent process" in err


def test_uvicorn_workers_start_with_a_shared_key() -> None:
    port = free_port()
    proc = _uvicorn(port, MCP_CODEGEN_STATE_KEY=secrets.token_hex(32))
    try:
        wait_port(port, proc=proc)
        import httpx

        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
    finally:
        stop_pid(proc)
        if proc.stderr is not None:
            proc.stderr.close()


def _gunicorn(port: int, **env: str) -> subprocess.Popen[str]:
    """The command docs/deploy.md gives for gunicorn with the uvicorn worker class."""
    cmd = [sys.executable, "-m", "gunicorn", "-k", "uvicorn_worker.UvicornWorker", "-w", "2",
           "-b", f"127.0.0.1:{port}", "mcp_codegen_runtime.server.http:app_from_env()"]
    return subprocess.Popen(cmd, env=ops_env(MCP_CODEGEN_IMPL="ops_support:OpsServer", **env),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_gunicorn_workers_refuse_to_start_without_a_shared_key() -> None:
    proc = _gunicorn(free_port())
    try:
        _, err = proc.communicate(timeout=60)  # gunicorn stops instead of booting workers forever
    finally:
        stop_pid(proc)
    assert proc.returncode != 0
    assert "cannot start: 2 worker processes but no shared state key" in err


def test_gunicorn_workers_share_one_key_and_serve() -> None:
    port = free_port()
    proc = _gunicorn(port, MCP_CODEGEN_STATE_KEY=secrets.token_hex(32))
    try:
        wait_port(port, proc=proc)
        import httpx
        from http_support import modern_headers, modern_request

        for _ in range(3):  # a fresh connection each time
            answer = httpx.post(f"http://127.0.0.1:{port}/mcp", timeout=10, headers=modern_headers("tools/call", "pid"),
                                json=modern_request(1, "tools/call", {"name": "pid", "arguments": {}}))
            assert answer.status_code == 200 and '"isError"' not in answer.text, answer.text
        assert httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200
    finally:
        stop_pid(proc)
        if proc.stderr is not None:
            proc.stderr.close()


# ------------------------------------------------------------------ OpenTelemetry
def _request(rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": modern_meta()}}


async def _calls(server: OpsServer) -> list[Any]:
    async with server.connect_in_process() as peer:
        answers = []
        for rid, (method, params) in enumerate([
            ("tools/call", {"name": "pid", "arguments": {}}),
            ("tools/call", {"name": "sleep", "arguments": {"seconds": "x", "note": "arg-s3cret"}}),
            ("tools/call", {"name": "no-such-tool-s3cret", "arguments": {}}),
            ("tools/list", {}),
        ], start=1):
            await peer.send(_request(rid, method, params))
            while True:
                message = await peer.receive()
                if message.get("id") == rid:
                    answers.append(message)
                    break
        return answers


def test_opentelemetry_span_counter_and_histogram_per_call() -> None:
    trace_sdk = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = trace_sdk.TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)
    if trace.get_tracer_provider() is not tracer_provider:
        pytest.skip("another tracer provider was installed earlier in this process")
    try:
        answers = asyncio.run(_calls(OpsServer()))
        assert "error" in answers[2] and answers[1]["result"]["isError"] is True
        spans = {span.name: span for span in exporter.get_finished_spans()}
        assert set(spans) == {"tools/call pid", "tools/call sleep", "tools/call"}  # tools/list is not traced
        ok = spans["tools/call pid"]
        assert dict(ok.attributes or {}) == {"mcp.method": "tools/call", "mcp.tool.name": "pid"}
        assert ok.kind == trace.SpanKind.SERVER
        invalid = dict(spans["tools/call sleep"].attributes or {})
        assert invalid["mcp.tool.is_error"] is True and invalid["mcp.error.code"] == "mcp-codegen.invalid_arguments"
        unknown = spans["tools/call"]
        assert dict(unknown.attributes or {}) == {"mcp.method": "tools/call", "mcp.error.code": -32602}
        assert unknown.status.status_code == trace.StatusCode.ERROR
        everything = repr([dict(s.attributes or {}) for s in spans.values()])
        assert "s3cret" not in everything  # neither arguments nor unknown names
        data = reader.get_metrics_data()
        points: dict[str, list[Any]] = {}
        for resource in data.resource_metrics if data else []:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    points.setdefault(metric.name, []).extend(metric.data.data_points)
        assert sum(p.value for p in points["mcp.server.calls"]) == 3
        assert sum(p.count for p in points["mcp.server.call.duration"]) == 3
        assert {p.attributes.get("mcp.tool.name") for p in points["mcp.server.calls"]} == {"pid", "sleep", None}
    finally:
        tracer_provider.shutdown()
        meter_provider.shutdown()


def test_without_opentelemetry_calls_run_untraced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(telemetry, "_instruments", [])
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # import fails
    answers = asyncio.run(_calls(OpsServer()))
    assert answers[0]["result"]["content"][0]["text"].isdigit()
    assert telemetry._instruments == [None]
