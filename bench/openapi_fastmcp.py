"""FastMCP's side of ``bench_openapi.py`` (runs in ``.venv-bench``, where FastMCP is installed).

``python openapi_fastmcp.py DOCUMENT BASE_URL FRONT_LOG OUT.json [--rounds N]``: builds
``FastMCP.from_openapi`` from the document with an HTTP client on BASE_URL (Prism behind the
recording front), lists its tools, calls each once with valid arguments made from the tool's own
input schema (``tests/support/sample_args.py``), and writes one record per call with the requests
the front saw during it (read from FRONT_LOG), then the throughput of repeated calls of the first
tool that succeeded.  A document FastMCP refuses is recorded as not served, with its error.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from openapi_e2e import log_length, logged_since
from sample_args import valid_sample


def credentials(spec: dict[str, Any]) -> dict[str, Any]:
    """What a careful user gives FastMCP's client (``from_openapi`` reads no credentials): a made-up
    value for every API-key scheme (header, query, cookie) and a bearer token, sent on every request."""
    schemes = {**((spec.get("components") or {}).get("securitySchemes") or {}), **(spec.get("securityDefinitions") or {})}
    headers: dict[str, str] = {}
    params: dict[str, str] = {}
    cookies: dict[str, str] = {}
    for scheme in schemes.values():
        if not isinstance(scheme, dict):
            continue
        if scheme.get("type") == "apiKey":
            {"header": headers, "query": params, "cookie": cookies}.get(scheme.get("in"), headers)[scheme.get("name", "")] = "test-key"
        elif scheme.get("type") in ("http", "oauth2", "openIdConnect") and "Authorization" not in headers:
            basic = scheme.get("scheme", "").lower() == "basic"
            headers["Authorization"] = "Basic dXNlcjpwYXNz" if basic else "Bearer test-token"
    return {"headers": headers, "params": params, "cookies": cookies}


async def run(document: Path, base_url: str, front_log: Path, rounds: int, list_only: bool = False) -> dict[str, Any]:
    import httpx2
    from fastmcp import Client, FastMCP

    spec = yaml.safe_load(document.read_text("utf-8"))
    started = time.perf_counter()
    try:
        mcp = FastMCP.from_openapi(spec, client=httpx2.AsyncClient(base_url=base_url, timeout=30, **credentials(spec)))
    except Exception as exc:  # refused documents are a finding, not a crash
        return {"served": False, "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    calls: list[dict[str, Any]] = []
    out: dict[str, Any] = {"served": True, "startup_s": 0.0, "calls": calls}
    async with Client(mcp) as client:
        tools = await client.list_tools()
        out["startup_s"] = time.perf_counter() - started
        out["tools"] = len(tools)
        if list_only:
            return out
        first_ok: tuple[str, dict[str, Any]] | None = None
        for tool in tools:
            schema = dict(tool.input_schema)
            args = valid_sample(schema)
            if args is None:
                calls.append({"tool": tool.name, "skipped": "no valid arguments could be made"})
                continue
            mark = log_length(front_log)
            try:
                result = await client.call_tool(tool.name, args, raise_on_error=False)
                record = {"tool": tool.name, "args": args, "isError": bool(result.is_error),
                          "text": " ".join(getattr(c, "text", "") for c in result.content)[:300]}
            except Exception as exc:
                record = {"tool": tool.name, "args": args, "isError": True, "text": f"{type(exc).__name__}: {exc}"[:300]}
            record["exchanges"] = logged_since(front_log, mark)
            calls.append(record)
            if first_ok is None and not record["isError"]:
                first_ok = (tool.name, args)
        if first_ok is not None and rounds:
            name, args = first_ok
            began = time.perf_counter()
            for _ in range(rounds):
                await client.call_tool(name, args, raise_on_error=False)
            out["throughput"] = {"tool": name, "calls": rounds, "per_s": rounds / (time.perf_counter() - began)}
    return out


def main() -> None:
    document, base_url, front_log, target = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 0
    list_only = "--list-only" in sys.argv
    target.write_text(json.dumps(asyncio.run(run(document, base_url, front_log, rounds, list_only))), "utf-8")


if __name__ == "__main__":
    main()
