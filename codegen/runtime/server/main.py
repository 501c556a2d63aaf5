"""Command line of a generated package: ``python -m <pkg> --stdio [--impl module:Class]``.

``main(BaseClass, prog=...)`` is what the generated ``__main__.py`` calls.  The handler
class comes from ``--impl module:Class`` or, by default, ``server_info.implementation``
(the spec's ``server.implementation``); it must subclass the generated base.

HTTP: ``--http`` (with ``--host``/``--port``) is parsed here and served by the ``http``
subpackage (``add_arguments(parser)`` adds its flags, ``run(server, args)`` serves, blocking);
serving needs uvicorn, and without it ``--http`` exits with a message saying so.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import json
import logging
import os
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .base import ServerBase
from .core import SUPPORTED_VERSIONS
from .hostconfig import HOSTS, host_config, merge_config
from .logs import JsonLogFormatter, configure_logging
from .security import StateKeyError
from .settings import ServerSettings
from .stdio import run_stdio

logger = logging.getLogger("mcp_codegen.server")


def _http_module() -> ModuleType:
    """The HTTP transport (``server/http/``), imported only when ``--http`` is asked for or
    its flags are listed (it needs uvicorn only when it serves)."""
    from . import http

    return http


def _is_stub(function: Any) -> bool:
    """Whether a handler only raises ``NotImplementedError`` (a scaffold stub left as is)."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return False
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return False
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.unparse(body[0])


def unimplemented(cls: type[ServerBase], base: type[ServerBase]) -> list[Any]:
    """The tool definitions whose handler ``cls`` does not override."""
    return [t for t in base.tool_defs if getattr(cls, t.method, None) in (None, getattr(base, t.method, None))]


def implementation_problems(cls: type[ServerBase], base: type[ServerBase]) -> list[str]:
    """One line per tool ``cls`` does not implement properly: not overridden, still a stub
    that only raises ``NotImplementedError``, or not callable as ``handler(args, ctx)``."""
    problems = []
    missing = {tool.name for tool in unimplemented(cls, base)}
    for tool in base.tool_defs:
        if tool.name in missing:
            problems.append(f"tool {tool.name}: no method {tool.method}() in {cls.__name__}")
            continue
        handler = getattr(cls, tool.method)
        try:
            inspect.signature(handler).bind(None, None, None)
        except TypeError as exc:
            problems.append(f"tool {tool.name}: {cls.__name__}.{tool.method}() cannot be called as (self, args, ctx): {exc}")
            continue
        if _is_stub(handler):
            problems.append(f"tool {tool.name}: {cls.__name__}.{tool.method}() only raises NotImplementedError")
    return problems


def _announce(args: argparse.Namespace, line: str) -> None:
    """The start-up line: always shown, as text or as a JSON log line."""
    if getattr(args, "log_format", "text") == "json":
        print(JsonLogFormatter().format(logging.LogRecord("mcp_codegen.server", logging.INFO, "", 0, line, None, None)),
              file=sys.stderr, flush=True)
    else:
        print(line, file=sys.stderr, flush=True)


def load_implementation(spec: str, base: type[ServerBase]) -> type[ServerBase]:
    """Import ``module:Class`` and check it subclasses ``base``.

    Raises:
        ValueError: malformed spec, missing attribute, or not a subclass.
        ImportError: the module cannot be imported.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"--impl must look like module:Class, got {spec!r}")
    module = importlib.import_module(module_name)
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise ValueError(f"{module_name} has no attribute {attr}")
    if not isinstance(obj, type) or not issubclass(obj, base):
        raise ValueError(f"{spec} is not a subclass of {base.__name__}")
    return obj


_ENV_HELP = (
    "Environment: MCP_CODEGEN_STATE_KEY signs cursors and MRTR requestState: hex of at least 32 random "
    "bytes (python -c \"import secrets; print(secrets.token_hex(32))\"); several keys separated by commas "
    "rotate: the first signs, all verify (rolling deploy: add the new key second everywhere, then move it first, "
    "then drop the old one once its tokens expired). MCP_CODEGEN_STATE_KEY_FILE "
    "names a file of such keys instead (one per line, # comments), like --state-key-file; with neither, each "
    "process draws a random key (one process only). MCP_CODEGEN_STATE_AUDIENCE is the default of "
    "--state-audience. MCP_CODEGEN_HTTP_TOKENS "
    "(principal=token,...) makes HTTP require one of these bearer tokens. MCP_CODEGEN_OAUTH_CLIENT_ID and "
    "MCP_CODEGEN_OAUTH_CLIENT_SECRET are the credentials for --auth-introspection-url. MCP_CODEGEN_RATE_LIMIT, "
    "MCP_CODEGEN_RATE_BURST, MCP_CODEGEN_MAX_CONCURRENCY and MCP_CODEGEN_CALL_TIMEOUT are the "
    "defaults of the flags of the same names."
)


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise SystemExit(f"{name}={raw!r} is not a number") from None


def build_parser(base: type[ServerBase], prog: str | None) -> argparse.ArgumentParser:
    info = base.server_info
    parser = argparse.ArgumentParser(prog=prog, description=f"Serve the {info.name} MCP server.", epilog=_ENV_HELP)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="serve over stdin/stdout (default)")
    mode.add_argument("--http", action="store_true", help="serve Streamable HTTP")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    parser.add_argument(
        "--impl",
        default=info.implementation,
        help=f"handler class as module:Class (default {info.implementation})",
    )
    defaults = ServerSettings()
    parser.add_argument("--page-size", type=int, default=defaults.page_size, help="tools per tools/list page")
    parser.add_argument("--call-timeout", type=float, default=_env_number("MCP_CODEGEN_CALL_TIMEOUT", defaults.call_timeout),
                        help=f"seconds per tool call (default {defaults.call_timeout:g})")
    parser.add_argument("--rate-limit", type=float,
                        default=_env_number("MCP_CODEGEN_RATE_LIMIT", defaults.rate_limit_per_second),
                        help=f"tool calls per second per client, sustained; 0 = unlimited (default {defaults.rate_limit_per_second:g})")
    parser.add_argument("--rate-burst", type=int,
                        default=int(_env_number("MCP_CODEGEN_RATE_BURST", defaults.rate_limit_burst)),
                        help=f"tool calls per client at once before the rate applies (default {defaults.rate_limit_burst})")
    parser.add_argument("--max-concurrency", type=int,
                        default=int(_env_number("MCP_CODEGEN_MAX_CONCURRENCY", defaults.max_concurrent_calls)),
                        help=f"tool calls running at once, server-wide (default {defaults.max_concurrent_calls})")
    parser.add_argument("--max-listen-streams", type=int,
                        default=int(_env_number("MCP_CODEGEN_MAX_LISTEN_STREAMS", defaults.max_listen_streams)),
                        help=f"2026 subscriptions/listen streams open at once, server-wide (default {defaults.max_listen_streams})")
    parser.add_argument("--print-config", choices=HOSTS, metavar="HOST",
                        help=f"print the server entry for a host's MCP configuration and exit ({', '.join(HOSTS)}): "
                             "absolute interpreter path, arguments and PYTHONPATH, so it starts from any folder")
    parser.add_argument("--write-config", metavar="FILE", type=Path,
                        help="with --print-config: merge the entry into the host's configuration FILE instead (other "
                             "servers and settings kept, an entry of the same name replaced, written atomically)")
    parser.add_argument("--check", action="store_true",
                        help="check the implementation (every tool implemented, handlers take (args, ctx)) and exit: 0 when complete")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    parser.add_argument("--log-format", choices=("text", "json"), default=os.environ.get("MCP_CODEGEN_LOG_FORMAT", "text"),
                        help="stderr log lines as text or as one JSON object each (default text; MCP_CODEGEN_LOG_FORMAT)")
    # state keys (docs/keys.md); None: the environment's (server.security)
    parser.add_argument("--state-key-file", metavar="PATH",
                        help="file of the keys signing cursors and requestState: one hex key (32+ bytes) per line, "
                             "the first signs, all verify; # comments (default: MCP_CODEGEN_STATE_KEY_FILE, else "
                             "MCP_CODEGEN_STATE_KEY, else a random key per process)")
    parser.add_argument("--state-audience", metavar="NAME",
                        help="audience bound into cursors and requestState: servers sharing a key refuse each "
                             f"other's tokens unless it is equal (default: MCP_CODEGEN_STATE_AUDIENCE, else {info.name!r})")
    parser.add_argument("--redis-url", metavar="URL",
                        help="Redis shared by the replicas (redis://host:6379/0): list changes and resource updates "
                             "reach every replica's listeners, the rate limit holds across them "
                             "(default: MCP_CODEGEN_REDIS_URL; needs pip install redis)")
    _http_module().add_arguments(parser)
    return parser


def main(base: type[ServerBase], *, prog: str | None = None, argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve (blocks until the transport ends)."""
    parser = build_parser(base, prog)
    args = parser.parse_args(argv)
    configure_logging(args.log_level, args.log_format)
    if not args.impl:
        parser.error("no implementation: pass --impl module:Class")
    try:
        cls = load_implementation(args.impl, base)
    except (ImportError, ValueError) as exc:
        parser.error(str(exc))
    if args.check:
        problems = implementation_problems(cls, base)
        for line in problems:
            print(line, file=sys.stderr)
        print(f"{args.impl}: {len(base.tool_defs) - len(problems)} of {len(base.tool_defs)} tools implemented",
              file=sys.stderr)
        raise SystemExit(1 if problems else 0)
    if args.write_config and not args.print_config:
        parser.error("--write-config needs --print-config HOST (which host's format to write)")
    if args.print_config:
        config = host_config(args.print_config, base, args.impl)
        if args.write_config is None:
            print(json.dumps(config, indent=2))
            return
        try:
            action = merge_config(args.write_config, config)
        except (OSError, ValueError) as exc:
            parser.error(f"cannot update {args.write_config}: {exc}")
        print(f"{action} server {base.server_info.name!r} in {args.write_config}", file=sys.stderr)
        return
    try:
        unlimited = args.rate_limit <= 0
        settings = ServerSettings(
            page_size=args.page_size, call_timeout=args.call_timeout, max_concurrent_calls=args.max_concurrency,
            max_listen_streams=args.max_listen_streams,
            rate_limit_per_second=1e12 if unlimited else args.rate_limit,
            rate_limit_burst=10**12 if unlimited else max(1, args.rate_burst),
            state_key_file=args.state_key_file, state_audience=args.state_audience, redis_url=args.redis_url,
        )
    except ValueError as exc:
        parser.error(str(exc))
    try:
        server = cls(settings=settings)
    except StateKeyError as exc:
        raise SystemExit(f"{parser.prog}: error: {exc}") from None
    except TypeError as exc:
        parser.error(f"{args.impl}(settings=...) failed: {exc}. A handler class's __init__ must accept and pass "
                     "on the base class's arguments: def __init__(self, *args, **kwargs): super().__init__(*args, **kwargs)")
    for tool in unimplemented(cls, base):
        logger.warning("%s does not implement tool %s (method %s); calling it is an error",
                       cls.__name__, tool.name, tool.method)
    eras = f"protocol {', '.join(reversed(SUPPORTED_VERSIONS))}"
    if args.http:
        http = _http_module()
        path = getattr(args, "path", "/mcp")
        host = f"[{args.host}]" if ":" in args.host else args.host
        _announce(args, f"{cls.server_info.name} {cls.server_info.version}: MCP over Streamable HTTP at "
                        f"http://{host}:{args.port}{path} ({eras})")
        http.run(server, args)
        return
    _announce(args, f"{cls.server_info.name} {cls.server_info.version}: MCP over stdio ({eras})")
    run_stdio(server)
