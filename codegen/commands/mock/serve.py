"""``mcp-codegen mock SPEC``: the spec's package served as a mock, over stdio or Streamable HTTP.

The server is :func:`mcp_codegen_runtime.server.mock.mock_server` of the package's base class
(:mod:`.package`), served by the runtime's own transports, so both protocol eras work as they
do for a generated server: stdio (``run_stdio``) or HTTP on 127.0.0.1 (the ``--http`` path of
``python -m <package>``, uvicorn).  A scenario or cassette with mistakes is a located
diagnostic (E161 / E162) and nothing is served.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...diagnostics import Diagnostic, Level
from .package import build_mock_package


@dataclass(frozen=True)
class MockOptions:
    """What ``mcp-codegen mock`` was asked for."""

    spec: Path
    http: bool = False
    port: int = 8000
    seed: int = 0
    scenario: Path | None = None
    replay: Path | None = None


def prepare(options: MockOptions) -> tuple[Any, list[Diagnostic]]:
    """The mock server of ``options`` (None when it cannot be made) and every diagnostic."""
    from mcp_codegen_runtime.server.mock import CassetteError, ScenarioError, mock_server

    built = build_mock_package(options.spec)
    if built.base is None:
        return None, built.diagnostics
    try:
        server = mock_server(built.base, seed=options.seed, scenario=options.scenario, replay=options.replay)
    except ScenarioError as exc:
        return None, [*built.diagnostics, *(Diagnostic(p.file, p.line, 1 if p.line else 0, "E161", p.message,
                                                       pointer=p.pointer, hint="see docs/testing.md (scenarios)")
                                            for p in exc.problems)]
    except CassetteError as exc:
        file, _, rest = str(exc).partition(": ")
        where, _, line = file.rpartition(":")
        located = line.isdigit() and where
        return None, [*built.diagnostics, Diagnostic(where if located else file, int(line) if located else 0,
                                                     1 if located else 0, "E162", rest or str(exc))]
    return server, [d for d in built.diagnostics if d.level is not Level.ERROR]


def serve(server: Any, options: MockOptions) -> None:
    """Serve ``server`` until the client leaves (stdio) or SIGINT/SIGTERM (HTTP); blocking."""
    info = server.server_info
    mode = f"replaying {options.replay}" if options.replay else f"seed {options.seed}" + (
        f", scenario {options.scenario}" if options.scenario else "")
    if options.http:
        from mcp_codegen_runtime.server import http
        from mcp_codegen_runtime.server.main import build_parser

        args = build_parser(type(server), "mcp-codegen mock").parse_args(["--http", "--port", str(options.port)])
        print(f"mock {info.name} {info.version} ({mode}): MCP over Streamable HTTP at "
              f"http://127.0.0.1:{options.port}/mcp", file=sys.stderr, flush=True)
        http.run(server, args)
        return
    from mcp_codegen_runtime.server.stdio.transport import run_stdio

    print(f"mock {info.name} {info.version} ({mode}): MCP over stdio", file=sys.stderr, flush=True)
    run_stdio(server)
