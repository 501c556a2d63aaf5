"""Optional OpenTelemetry: one span, one count and one duration per call.

When ``opentelemetry-api`` can be imported, every ``tools/call``, ``resources/read`` and
``prompts/get`` (both eras, every transport) runs in a span of kind SERVER named
``"<method> <name>"`` (``"tools/call get_weather"``; ``resources/read`` has no name: URIs
may carry identifiers) with the attributes

* ``mcp.method``; ``mcp.tool.name`` (``tools/call``) or ``mcp.prompt.name`` (``prompts/get``),
  only for names the server knows (no attribute values chosen freely by clients);
* ``mcp.error.code``: the JSON-RPC error code of a failed request (the span status is then
  ERROR), or the tool-error code of an ``isError`` result (``mcp.tool.is_error`` true);

and the meter ``mcp_codegen`` counts calls (counter ``mcp.server.calls``) and records their
duration in seconds (histogram ``mcp.server.call.duration``) with the same attributes.
Arguments and results are never recorded.

The API alone records nothing: the application configures an SDK (a ``TracerProvider`` and
``MeterProvider`` with exporters) as usual.  Until it has installed one of them, requests
run without the span (the API's placeholders would only discard it).  Without the package nothing happens; the import
is tried once, at the first call.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..wire import protocol as p
from ..wire.errors import McpError

TRACED_METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})
_NAME_ATTRIBUTE = {"tools/call": "mcp.tool.name", "prompts/get": "mcp.prompt.name"}
_instruments: list[Any] = []  # [] not tried yet; [None] not installed; [(tracer, counter, histogram, trace, configured)]


def _load() -> Any:
    if not _instruments:
        try:
            from opentelemetry import metrics, trace  # type: ignore[import-not-found, unused-ignore]  # optional
        except ImportError:
            _instruments.append(None)
        else:
            meter = metrics.get_meter("mcp_codegen")
            _instruments.append((
                trace.get_tracer("mcp_codegen"),
                meter.create_counter("mcp.server.calls", unit="{call}", description="MCP requests served"),
                meter.create_histogram("mcp.server.call.duration", unit="s", description="Duration of MCP requests"),
                trace,
                _probe(trace, metrics),
            ))
    return _instruments[0]


def _probe(trace: Any, metrics: Any) -> Callable[[], bool]:
    """"Has the application installed a tracer or meter provider?", asked per call (it may do
    so after the first request): the API's own placeholders record nothing, and spans through
    them cost a tenth of a small call.  The cheapest exact test: the API's globals when this
    version has them (the public getters read the environment on every call), else the
    public getters."""
    internal: Any = sys.modules.get("opentelemetry.metrics._internal")
    from_env = any(k in os.environ for k in ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER"))
    if not from_env and hasattr(trace, "_TRACER_PROVIDER") and hasattr(internal, "_METER_PROVIDER"):
        return lambda: bool(trace._TRACER_PROVIDER is not None or internal._METER_PROVIDER is not None)

    def public() -> bool:
        tracing = not isinstance(trace.get_tracer_provider(), (trace.ProxyTracerProvider, trace.NoOpTracerProvider))
        meters = metrics.get_meter_provider()
        return tracing or not (isinstance(meters, metrics.NoOpMeterProvider)
                               or type(meters).__name__ == "_ProxyMeterProvider")
    return public


def active() -> bool:
    """Whether requests are observed now (the API is installed and the application has
    installed a tracer or meter provider): when not, a caller may run the request itself,
    without :func:`observe`'s frame (what :func:`observe` would do then)."""
    loaded = _load()
    return loaded is not None and bool(loaded[4]())


async def observe(method: str, name: str | None, run: Callable[[], Awaitable[Any]]) -> Any:
    """Run one request (``run()``) inside its span, counting and timing it.

    Args:
        method: the JSON-RPC method (one of :data:`TRACED_METHODS`).
        name: the tool or prompt name, when the server knows it (else None).
        run: the request.

    Returns:
        What ``run()`` returns (its exceptions propagate).
    """
    loaded = _load() if method in TRACED_METHODS else None
    if loaded is None or not loaded[4]():
        return await run()
    tracer, counter, histogram, trace, _ = loaded
    attributes: dict[str, Any] = {"mcp.method": method}
    if name is not None and method in _NAME_ATTRIBUTE:
        attributes[_NAME_ATTRIBUTE[method]] = name
    start = time.perf_counter()
    with tracer.start_as_current_span(f"{method} {name}" if name else method, kind=trace.SpanKind.SERVER,
                                      attributes=attributes, record_exception=False, set_status_on_exception=False) as span:
        try:
            result = await run()
        except McpError as exc:
            attributes["mcp.error.code"] = exc.code if isinstance(exc.code, (int, str)) else p.INTERNAL_ERROR
            span.set_status(trace.Status(trace.StatusCode.ERROR, type(exc).__name__))
            raise
        except BaseException as exc:  # a bug, or the request was cancelled
            attributes["mcp.error.code"] = p.INTERNAL_ERROR if isinstance(exc, Exception) else "cancelled"
            span.set_status(trace.Status(trace.StatusCode.ERROR, type(exc).__name__))
            raise
        else:
            if isinstance(result, dict) and result.get("isError") is True:
                attributes["mcp.tool.is_error"] = True
                info = (result.get("_meta") or {}).get(p.META_TOOL_ERROR)
                if isinstance(info, dict) and isinstance(info.get("code"), str):
                    attributes["mcp.error.code"] = info["code"]
            return result
        finally:
            span.set_attributes(attributes)
            counter.add(1, attributes)
            histogram.record(time.perf_counter() - start, attributes)


__all__ = ["TRACED_METHODS", "active", "observe"]
