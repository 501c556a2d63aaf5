"""The ASGI application factory for process managers: ``<package>.asgi:app_from_env``.

``python -m <package> --http --workers N`` runs its own worker processes (:mod:`.serve`); to
let uvicorn or gunicorn manage them instead, point them at the factory::

    MCP_CODEGEN_IMPL=weather_impl:WeatherService MCP_CODEGEN_STATE_KEY=$(openssl rand -hex 32) \\
        uvicorn --factory weather.asgi:app_from_env --workers 4 --host 0.0.0.0 --port 8000
    gunicorn -k uvicorn_worker.UvicornWorker -w 4 'weather.asgi:app_from_env()'

Every worker builds its own server: the class named by ``MCP_CODEGEN_IMPL`` (``module:Class``)
with the settings in ``MCP_CODEGEN_HTTP_SETTINGS`` (JSON: ``{"http": {...}, "server": {...}}``,
fields of :class:`HttpSettings` and ``ServerSettings``; :func:`export_app_env` writes both).

Several processes must share the signing key of cursors and ``requestState``
(``MCP_CODEGEN_STATE_KEY``, ``MCP_CODEGEN_STATE_KEY_FILE`` or ``state_key_file`` in the settings): with a random key per process, a
cursor or ``input_required`` round trip fails whenever the next request lands on another
process.  :func:`app_from_env` therefore refuses to start (exit status 3, which stops
uvicorn's and gunicorn's supervisors) without one when it sees several workers: ``MCP_CODEGEN_WORKERS`` (an explicit count, checked first), else ``--workers`` /
``-w`` on the command line of uvicorn or gunicorn, gunicorn's ``GUNICORN_CMD_ARGS``, or
``WEB_CONCURRENCY`` (the default of both).  Under gunicorn with no count in sight (a
configuration file may set one) it refuses too; set ``MCP_CODEGEN_WORKERS=1`` for a single
worker.  Counts given only in code (``uvicorn.run(..., workers=4)``) cannot be seen: set
``MCP_CODEGEN_WORKERS``.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...schema.available import missing_schema_checker
from .app import HttpApp
from .oauth import oauth_from_json, oauth_to_json
from .settings import HttpSettings

if TYPE_CHECKING:
    from ..interface import ServedServer

IMPL_ENV = "MCP_CODEGEN_IMPL"
SETTINGS_ENV = "MCP_CODEGEN_HTTP_SETTINGS"
WORKERS_ENV = "MCP_CODEGEN_WORKERS"
#: Exit status of a worker that cannot boot, for uvicorn (STARTUP_FAILURE) and gunicorn (WORKER_BOOT_ERROR).
_BOOT_FAILURE = 3
logger = logging.getLogger("mcp_codegen.http")


def export_app_env(server: ServedServer, settings: HttpSettings) -> None:
    """Describe ``server`` and ``settings`` in the environment :func:`app_from_env` reads
    (``tokens`` and ``verify_token`` stay out: workers read ``MCP_CODEGEN_HTTP_TOKENS``; so do
    the OAuth client secret and verifier object: workers read ``MCP_CODEGEN_OAUTH_CLIENT_SECRET``)."""
    cls = type(server)
    os.environ[IMPL_ENV] = f"{cls.__module__}:{cls.__qualname__}"
    os.environ[SETTINGS_ENV] = json.dumps({
        "http": {k: v for k, v in vars(settings).items() if k not in ("tokens", "verify_token", "oauth")}
        | {"oauth": oauth_to_json(settings.oauth)},
        "server": dict(vars(server.settings)),
    })


def _count(text: str) -> int | None:
    return int(text) if text.strip().isdigit() else None


def _argv_workers(argv: Sequence[str], short: bool) -> int | None:
    """``--workers N`` / ``--workers=N`` (and gunicorn's ``-w N`` / ``-wN``), the last one wins."""
    found: int | None = None
    for i, arg in enumerate(argv):
        value: str | None = None
        if arg == "--workers" or (short and arg == "-w"):
            value = argv[i + 1] if i + 1 < len(argv) else None
        elif arg.startswith("--workers="):
            value = arg.partition("=")[2]
        elif short and arg.startswith("-w") and arg[2:].isdigit():
            value = arg[2:]
        if value is not None and _count(value) is not None:
            found = _count(value)
    return found


def worker_count(environ: Mapping[str, str] | None = None, argv: Sequence[str] | None = None) -> int | None:
    """How many worker processes serve this application, as far as can be seen (module
    docstring); None under gunicorn when no count is in sight."""
    env = os.environ if environ is None else environ
    args = sys.argv if argv is None else argv
    explicit = env.get(WORKERS_ENV, "").strip()
    if explicit:
        if _count(explicit) is None:
            raise RuntimeError(f"{WORKERS_ENV}={explicit!r} is not a number")
        return _count(explicit)
    program = os.path.basename(args[0]) if args else ""
    gunicorn = env.get("SERVER_SOFTWARE", "").startswith("gunicorn") or program.startswith("gunicorn")
    found = _argv_workers(args[1:], short=gunicorn)
    if found is None and gunicorn:
        found = _argv_workers(env.get("GUNICORN_CMD_ARGS", "").split(), short=True)
    if found is None:
        found = _count(env.get("WEB_CONCURRENCY", ""))
    if found is None and gunicorn:
        return None
    return found or 1


def check_shared_key(environ: Mapping[str, str] | None = None, argv: Sequence[str] | None = None,
                     key_file: str | None = None) -> None:
    """Raise unless one process serves or the processes share a signing key.

    Args:
        environ: the environment (default ``os.environ``).
        argv: the command line (default ``sys.argv``).
        key_file: ``ServerSettings.state_key_file``, if any.

    Raises:
        RuntimeError: several (or, under gunicorn, an unknown number of) workers and no key
            configured (:func:`server.signing.keys_configured`: neither
            ``MCP_CODEGEN_STATE_KEY``, ``MCP_CODEGEN_STATE_KEY_FILE`` nor ``key_file``).
    """
    from ..signing import keys_configured

    env = os.environ if environ is None else environ
    if keys_configured(key_file, env):
        return
    count = worker_count(env, argv)
    if count is None or count > 1:
        seen = "an unknown number of gunicorn workers" if count is None else f"{count} worker processes"
        raise RuntimeError(
            f"{seen} but no shared state key: every process would sign cursors and requestState with its own "
            f"random key, and requests landing on another process would fail. Set MCP_CODEGEN_STATE_KEY "
            f"(e.g. `openssl rand -hex 32`) or MCP_CODEGEN_STATE_KEY_FILE for every worker"
            + (f", or {WORKERS_ENV}=1 if there is only one worker" if count is None else "")
        )


def app_from_env() -> HttpApp:
    """ASGI factory: the application of the class named by ``MCP_CODEGEN_IMPL``.

    Returns:
        The application of a new instance of that class, with the settings in
        ``MCP_CODEGEN_HTTP_SETTINGS``.

    Raises:
        SystemExit: status 3 (logged first), which uvicorn and gunicorn take for a worker
            that cannot boot (they stop rather than start it again and again):
            ``MCP_CODEGEN_IMPL`` is not ``module:Class``, or several workers without a
            shared state key (:func:`check_shared_key`).
    """
    from ..settings import ServerSettings

    config = json.loads(os.environ.get(SETTINGS_ENV, "{}"))
    try:
        check_shared_key(key_file=config.get("server", {}).get("state_key_file"))
        spec = os.environ.get(IMPL_ENV, "")
        module_name, _, attr = spec.partition(":")
        if not module_name or not attr:
            raise RuntimeError(f"set {IMPL_ENV}=module:Class")
    except RuntimeError as exc:
        logger.error("cannot start: %s", exc)
        raise SystemExit(_BOOT_FAILURE) from None
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    missing = missing_schema_checker(getattr(obj, "tool_defs", ()))
    if missing:
        logger.error("cannot start: %s", missing)
        raise SystemExit(_BOOT_FAILURE)
    http = config.get("http", {})
    for key in ("allowed_hosts", "allowed_origins"):
        if http.get(key) is not None:
            http[key] = tuple(http[key])
    http["oauth"] = oauth_from_json(http.get("oauth"))
    server = obj(settings=ServerSettings(**config.get("server", {})))
    settings = HttpSettings(**http)
    app: HttpApp = server.asgi_app(settings) if hasattr(server, "asgi_app") else HttpApp(server, settings)
    return app


__all__ = ["IMPL_ENV", "SETTINGS_ENV", "WORKERS_ENV", "app_from_env", "check_shared_key",
           "export_app_env", "worker_count"]
