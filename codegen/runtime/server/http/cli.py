"""Serving over HTTP from the command line: flags, uvicorn, and the multi-worker factory.

``python -m <package> --http`` parses :func:`add_arguments`' flags and calls :func:`run`
(both through :mod:`server.http`, the hooks ``server/main.py`` looks for).  uvicorn is an
optional extra, imported by :func:`run` alone.

Several workers (``--workers N``): 2026 requests need no shared state except the signing
key of cursors and ``requestState`` (``MCP_CODEGEN_STATE_KEY`` or a key file; drawn once for
all workers when neither is set).  Each worker builds its own application with :func:`app_from_env`, from the
server class and settings :func:`run` leaves in the environment.  Legacy sessions live in
one process (use sticky routing).  uvicorn believes ``X-Forwarded-For`` (the rate-limit
key without auth) only from the proxies listed in ``FORWARDED_ALLOW_IPS``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
from typing import TYPE_CHECKING, Any

from .access import LOOPBACK
from .app import HttpApp
from .settings import HttpSettings

if TYPE_CHECKING:
    from ..core import ServerBase

IMPL_ENV = "MCP_CODEGEN_IMPL"
SETTINGS_ENV = "MCP_CODEGEN_HTTP_SETTINGS"
_UVICORN_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the HTTP flags of ``python -m <package>`` (the main.py hook).

    Args:
        parser: the command-line parser (``--host``/``--port`` are already there).
    """
    group = parser.add_argument_group("HTTP")
    group.add_argument("--path", default=HttpSettings.path, help="MCP endpoint path (default /mcp)")
    group.add_argument("--allow-host", action="append", default=None, metavar="HOST[:PORT]",
                       help="allowed Host header (repeatable; '*' allows any; default: localhost names)")
    group.add_argument("--allow-origin", action="append", default=None, metavar="ORIGIN",
                       help="allowed Origin (repeatable; default: http(s)://<allowed host>)")
    group.add_argument("--json-response", action="store_true", help="legacy: answer with JSON instead of SSE")
    group.add_argument("--sse-retry-ms", type=int, default=HttpSettings.sse_retry_ms, help="SSE retry hint (ms)")
    group.add_argument("--body-timeout", type=float, default=HttpSettings.body_timeout,
                       help="seconds a client may take to send its request body")
    group.add_argument("--session-timeout", type=float, default=HttpSettings.session_idle_timeout,
                       help="idle lifetime of legacy sessions (seconds)")
    group.add_argument("--replica-id", default=None, help="legacy: prefix of session ids for sticky routing "
                       "(default: $MCP_CODEGEN_REPLICA_ID; see docs/legacy-load-balancing.md)")
    group.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (2026 clients; legacy needs sticky routing)")


def settings_from_args(args: argparse.Namespace) -> HttpSettings:
    """The transport settings the command line asks for.

    Args:
        args: the parsed command line (:func:`add_arguments`' flags, ``--host``, ``--port``).

    Returns:
        The settings; binding a non-loopback host also allows that host name.
    """
    hosts = tuple(args.allow_host) if args.allow_host else None
    if hosts is None and args.host not in ("127.0.0.1", "localhost", "::1"):
        hosts = (*LOOPBACK, args.host if ":" not in args.host else f"[{args.host}]")
    return HttpSettings(
        path=args.path,
        allowed_hosts=hosts,
        allowed_origins=tuple(args.allow_origin) if args.allow_origin else None,
        port=args.port or None,
        json_response=args.json_response,
        sse_retry_ms=args.sse_retry_ms,
        body_timeout=args.body_timeout,
        session_idle_timeout=args.session_timeout,
        replica_id=getattr(args, "replica_id", None),
    )


def run(server: ServerBase, args: argparse.Namespace) -> None:
    """Serve ``server`` with uvicorn until interrupted (the main.py hook; blocking).

    Args:
        server: the server to serve.
        args: the parsed command line.

    Raises:
        SystemExit: uvicorn is not installed.
    """
    try:
        import uvicorn  # type: ignore[import-not-found, unused-ignore]  # optional: the http extra
    except ImportError:
        raise SystemExit("serving HTTP needs uvicorn: pip install uvicorn") from None
    settings = settings_from_args(args)
    level = str(getattr(args, "log_level", "WARNING")).lower()
    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "log_level": level if level in _UVICORN_LEVELS else "warning",
        "lifespan": "on",
        "ws": "none",
        "server_header": False,
        "timeout_graceful_shutdown": 3,
        # X-Forwarded-* only from the proxies named in FORWARDED_ALLOW_IPS: uvicorn trusts
        # 127.0.0.1 by default, letting any local client choose the address it is rate-limited by
        "proxy_headers": bool(os.environ.get("FORWARDED_ALLOW_IPS")),
    }
    workers = int(getattr(args, "workers", 1) or 1)
    if workers > 1:
        from ..security import STATE_KEY_ENV, keys_configured

        if not keys_configured(server.settings.state_key_file):
            os.environ[STATE_KEY_ENV] = secrets.token_hex(32)  # one key for every worker
        cls = type(server)
        os.environ[IMPL_ENV] = f"{cls.__module__}:{cls.__qualname__}"
        os.environ[SETTINGS_ENV] = json.dumps(
            {
                "http": {k: v for k, v in vars(settings).items() if k not in ("tokens", "verify_token")},
                "server": {k: v for k, v in vars(server.settings).items()},
            }
        )
        uvicorn.run(f"{__package__}:app_from_env", factory=True, workers=workers, **options)
        return
    uvicorn.run(HttpApp(server, settings), **options)


def app_from_env() -> HttpApp:
    """ASGI factory for multi-worker serving: the class named by ``MCP_CODEGEN_IMPL``.

    Returns:
        The application of a new instance of that class, with the settings in
        ``MCP_CODEGEN_HTTP_SETTINGS``.

    Raises:
        RuntimeError: ``MCP_CODEGEN_IMPL`` is not ``module:Class``.
    """
    import importlib

    from ..settings import ServerSettings

    spec = os.environ.get(IMPL_ENV, "")
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise RuntimeError(f"set {IMPL_ENV}=module:Class")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    config = json.loads(os.environ.get(SETTINGS_ENV, "{}"))
    http = config.get("http", {})
    for key in ("allowed_hosts", "allowed_origins"):
        if http.get(key) is not None:
            http[key] = tuple(http[key])
    server = obj(settings=ServerSettings(**config.get("server", {})))
    app: HttpApp = server.asgi_app(HttpSettings(**http)) if hasattr(server, "asgi_app") else HttpApp(server, HttpSettings(**http))
    return app
