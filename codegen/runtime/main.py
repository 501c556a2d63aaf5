"""Command line of a generated package: ``python -m <pkg> --stdio [--impl module:Class]``.

``main(BaseClass, prog=...)`` is what the generated ``__main__.py`` calls.  The handler
class comes from ``--impl module:Class`` or, by default, ``server_info.implementation``
(the spec's ``server.implementation``); it must subclass the generated base.

HTTP hook: ``--http`` (with ``--host``/``--port``) is parsed here, and served by the
optional module ``http_server`` of this runtime package, which must provide
``add_arguments(parser: argparse.ArgumentParser) -> None`` (extra flags; may be a no-op)
and ``run(server: ServerBase, args: argparse.Namespace) -> None`` (blocking).  Until that
module exists ``--http`` exits with an error.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from .server import ServerBase
from .settings import ServerSettings
from .stdio import run_stdio


def _http_module() -> ModuleType | None:
    try:
        return importlib.import_module(f"{__package__}.http_server")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.endswith("http_server"):
            return None
        raise


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


def build_parser(base: type[ServerBase], prog: str | None) -> argparse.ArgumentParser:
    info = base.server_info
    parser = argparse.ArgumentParser(
        prog=prog,
        description=f"Serve the {info.name} MCP server.",
        epilog="Environment: MCP_CODEGEN_STATE_KEY signs cursors and MRTR requestState "
        "(comma-separated keys rotate: the first signs, all verify); random per process if unset.",
    )
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
    parser.add_argument("--call-timeout", type=float, default=defaults.call_timeout, help="seconds per tool call")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    http = _http_module()
    if http is not None:
        http.add_arguments(parser)
    return parser


def main(base: type[ServerBase], *, prog: str | None = None, argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve (blocks until the transport ends)."""
    parser = build_parser(base, prog)
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=str(args.log_level).upper())
    if not args.impl:
        parser.error("no implementation: pass --impl module:Class")
    try:
        cls = load_implementation(args.impl, base)
        settings = ServerSettings(page_size=args.page_size, call_timeout=args.call_timeout)
    except (ImportError, ValueError) as exc:
        parser.error(str(exc))
    server = cls(settings=settings)
    if args.http:
        http = _http_module()
        if http is None:
            parser.error("the HTTP transport is not available in this package")
        http.run(server, args)
        return
    run_stdio(server)
