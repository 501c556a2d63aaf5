"""Serving over HTTP from the command line: flags and :func:`run`.

``python -m <package> --http`` parses :func:`add_arguments`' flags and calls :func:`run`
(both through :mod:`server.http`, the hooks ``server/main.py`` looks for).  uvicorn is an
optional extra, imported only to serve.

``--workers N`` (N > 1) runs N processes on one port (``SO_REUSEPORT``, see :mod:`.serve`),
each building its own application with :func:`~server.http.factory.app_from_env` from the
server class and settings :func:`run` leaves in the environment; 2026 requests need no
shared state except the signing key of cursors and ``requestState``
(``MCP_CODEGEN_STATE_KEY`` or a key file, see ``server.signing``; drawn once for all
workers when neither is set).  Legacy sessions live in one process (use sticky
routing).  ``--grace`` and ``--shutdown-delay`` tune the drain on SIGTERM (:mod:`.serve`).
uvicorn believes ``X-Forwarded-For`` (the rate-limit key without auth) only from the proxies
listed in ``FORWARDED_ALLOW_IPS``.
"""

from __future__ import annotations

import argparse
import os
import secrets
from typing import TYPE_CHECKING, Any

from .access import LOOPBACK
from .app import HttpApp
from .factory import IMPL_ENV, SETTINGS_ENV, app_from_env, export_app_env
from .oauth import add_oauth_arguments, oauth_from_args
from .settings import HttpSettings

if TYPE_CHECKING:
    from ..interface import ServedServer

_UVICORN_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
#: Default of ``--grace``: seconds requests in flight may still run after SIGTERM.
DEFAULT_GRACE = 30.0


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
                       help="idle lifetime of legacy sessions (seconds; an open GET stream is not idle)")
    group.add_argument("--max-sessions", type=int, default=HttpSettings.max_sessions,
                       help=f"legacy sessions kept at once; the longest idle one makes room, 503 when none is idle "
                            f"(default {HttpSettings.max_sessions})")
    group.add_argument("--max-sessions-per-client", type=int, default=None,
                       help="legacy sessions one client (principal, else address) may hold (default: a tenth of --max-sessions, at least 10)")
    group.add_argument("--replica-id", default=None, help="legacy: prefix of session ids for sticky routing "
                       "(default: $MCP_CODEGEN_REPLICA_ID; see docs/legacy-load-balancing.md)")
    group.add_argument("--workers", type=int, default=1,
                       help="worker processes on one port (SO_REUSEPORT; one shared state key; legacy sessions need sticky routing)")
    group.add_argument("--grace", type=float, default=DEFAULT_GRACE,
                       help=f"on SIGTERM: seconds requests in flight may still run before they are cut (default {DEFAULT_GRACE:g})")
    group.add_argument("--shutdown-delay", type=float, default=0.0,
                       help="on SIGTERM: seconds to go on serving with /readyz at 503 before the port closes (default 0)")
    group.add_argument("--health-path", default=HttpSettings.health_path, help="liveness probe path ('' turns it off; default /healthz)")
    group.add_argument("--ready-path", default=HttpSettings.ready_path, help="readiness probe path ('' turns it off; default /readyz)")
    add_oauth_arguments(parser)  # --auth-*: OAuth resource server (server.http.oauth)


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
        max_sessions=args.max_sessions,
        max_sessions_per_client=getattr(args, "max_sessions_per_client", None),
        replica_id=getattr(args, "replica_id", None),
        health_path=args.health_path or None,
        ready_path=args.ready_path or None,
        oauth=oauth_from_args(args, args.path) if hasattr(args, "auth_issuer") else None,
    )


def uvicorn_options(level: str = "WARNING") -> dict[str, Any]:
    """The ``uvicorn.Config`` options of ``python -m <package> --http`` (the loop and the HTTP
    parser are chosen by :func:`~.serve.serve`).

    Args:
        level: the log level (``--log-level``).

    Returns:
        The options.
    """
    return {
        "log_level": level.lower() if level.lower() in _UVICORN_LEVELS else "warning",
        "log_config": None,  # uvicorn's records go through the handler of --log-format
        "access_log": False,  # HttpApp writes its own access lines (logger mcp_codegen.http.access)
        "lifespan": "on",
        "ws": "none",
        "server_header": False,
        # X-Forwarded-* only from the proxies named in FORWARDED_ALLOW_IPS: uvicorn trusts
        # 127.0.0.1 by default, letting any local client choose the address it is rate-limited by
        "proxy_headers": bool(os.environ.get("FORWARDED_ALLOW_IPS")),
    }


def run(server: ServedServer, args: argparse.Namespace) -> None:
    """Serve ``server`` with uvicorn until SIGTERM/SIGINT, then drain (the main.py hook; blocking).

    Args:
        server: the server to serve.
        args: the parsed command line.

    Raises:
        SystemExit: uvicorn is not installed, the port cannot be bound, bad flags, or (after
            ``--workers``) a worker failed.
    """
    try:
        import uvicorn  # type: ignore[import-not-found, unused-ignore]  # noqa: F401  # optional: the http extra
    except ImportError:
        raise SystemExit("serving HTTP needs uvicorn: pip install uvicorn") from None
    from .serve import bind_socket, run_workers, serve

    try:
        settings = settings_from_args(args)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    level = str(getattr(args, "log_level", "WARNING"))
    options = uvicorn_options(level)
    grace = max(0.0, float(getattr(args, "grace", DEFAULT_GRACE)))
    delay = max(0.0, float(getattr(args, "shutdown_delay", 0.0) or 0.0))
    workers = int(getattr(args, "workers", 1) or 1)
    if workers > 1:
        from ..signing import STATE_KEY_ENV, keys_configured

        if not keys_configured(server.settings.state_key_file):
            os.environ[STATE_KEY_ENV] = secrets.token_hex(32)  # one key, inherited by every worker
        export_app_env(server, settings)
        log = (level, str(getattr(args, "log_format", "text")))
        raise SystemExit(run_workers(workers, args.host, args.port, options, grace=grace, shutdown_delay=delay, log=log))
    serve(HttpApp(server, settings), bind_socket(args.host, args.port), options, grace=grace, shutdown_delay=delay)


__all__ = ["DEFAULT_GRACE", "IMPL_ENV", "SETTINGS_ENV", "add_arguments", "app_from_env", "run", "settings_from_args", "uvicorn_options"]
