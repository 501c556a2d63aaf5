"""Command line of a generated package: ``python -m <pkg> --stdio [--impl module:Class]``.

``main(BaseClass, prog=..., scaffold=...)`` is what the generated ``__main__.py`` calls.  The
handler class comes from ``--impl module:Class``, else ``server_info.implementation`` (the
spec's ``server.implementation``), else the class ``build --scaffold`` writes
(``<package>_impl:<Name>Service``) when that module is importable, else the generated base
itself when it is complete (``base_complete``: every tool calls an upstream REST API); it must
subclass the generated base.

A server whose tools call an upstream (the spec's ``upstream``) also takes ``--upstream URL``,
which replaces the upstream's base URL (``UpstreamServer.configure_upstream``), and
``--print-config`` lists its environment variables (:func:`.hostconfig.server_launch`).

Usage errors are one or two lines ending with "see --help" (the flag list is long, so no usage
dump); an implementation that cannot be imported names the search path and the fix.

HTTP: ``--http`` (with ``--host``/``--port``) is parsed here and served by the ``http``
subpackage (``add_arguments(parser)`` adds its flags, ``run(server, args)`` serves, blocking);
serving needs uvicorn, checked before anything is announced: without it ``--http`` exits with
the exact ``pip install`` to run.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import logging
import os
import shlex
import sys
import urllib.parse
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from ..schema.available import missing_schema_checker
from .base import ServerBase
from .dispatch import SUPPORTED_VERSIONS
from .handlers import check_implementation
from .hostconfig import HOSTS, environment_problems, host_config, merge_config, print_variables
from .logs import JsonLogFormatter, configure_logging
from .replicas import REDIS_URL_ENV
from .settings import ServerSettings
from .signing import StateKeyError
from .stdio.transport import run_stdio

logger = logging.getLogger("mcp_codegen.server")


def _http_module() -> ModuleType:
    """The HTTP transport (``server/http/``), imported only when ``--http`` is asked for or
    its flags are listed (it needs uvicorn only when it serves)."""
    from . import http

    return http


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
            raise ValueError(f"{module_name} has no attribute {attr}; {_classes_of(module, attr, base)}")
    if not isinstance(obj, type) or not issubclass(obj, base):
        raise ValueError(f"{spec} is not a subclass of {base.__name__}")
    return obj


def _classes_of(module: Any, wanted: str, base: type[ServerBase]) -> str:
    """The classes ``module`` defines, closest to ``wanted`` first (those that are no
    ``base`` marked), as a hint for a mistyped ``--impl``."""
    import difflib

    found = [obj for obj in vars(module).values()
             if isinstance(obj, type) and obj.__module__ == module.__name__]
    if not found:
        return "it defines no class"
    ranked = sorted(found, key=lambda c: (-difflib.SequenceMatcher(None, wanted.lower(), c.__name__.lower()).ratio(),
                                          c.__name__))
    return "its classes, closest first: " + ", ".join(
        f"{c.__name__}" + ("" if issubclass(c, base) else f" (not a {base.__name__})") for c in ranked)


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


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are the message and "see --help" (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}; see --help\n")


def _module_of(impl: str) -> str:
    return impl.partition(":")[0]


def _importable(module: str) -> bool:
    """Whether ``module`` would be found on ``sys.path`` (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def default_implementation(base: type[ServerBase], scaffold: str | None) -> str | None:
    """``server.implementation``, else the scaffold's ``module:Class`` when its module is importable,
    else the base itself when it is complete (``base_complete``: every handler generated)."""
    if base.server_info.implementation:
        return base.server_info.implementation
    if scaffold and _importable(_module_of(scaffold)):
        return scaffold
    if base.base_complete:
        return f"{base.__module__}:{base.__qualname__}"
    return None


def _absolute_url(url: str) -> bool:
    """Whether ``url`` is an absolute http(s) URL with a host (what ``--upstream`` takes)."""
    try:
        parts = urllib.parse.urlsplit(url)
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


def _configure_upstream(parser: argparse.ArgumentParser, base: type[ServerBase], args: argparse.Namespace) -> None:
    """``--upstream URL``: replace the upstream's base URL (an absolute http(s) URL, else a usage error)."""
    url = getattr(args, "upstream", None)
    if url is None:
        return
    if not _absolute_url(url):
        parser.error(f"--upstream {url!r} is not an absolute http(s) URL (e.g. https://api.example.com/v1)")
    upstream_server: Any = base  # an UpstreamServer (the upstream feature is imported by the package, not here)
    upstream_server.configure_upstream(url)


def _search_note(module: str) -> str:
    """Where ``import module`` looked (the working directory, PYTHONPATH) and how to point it elsewhere."""
    cwd = os.getcwd()
    searched_cwd = any(os.path.abspath(entry or ".") == cwd for entry in sys.path)
    where = f"the working directory {cwd}" if searched_cwd else f"not the working directory {cwd} (a console script)"
    entries = [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e]
    pythonpath = os.pathsep.join(os.path.abspath(e) for e in entries) if entries else "unset"
    top = module.split(".")[0]
    found = [f"{d}/{top}{tail}" for d in ("src", "lib") for tail in (".py", "/__init__.py") if Path(cwd, d, top + tail).is_file()]
    hint = (f"found {found[0]}: run with PYTHONPATH={os.pathsep.join([found[0].split('/')[0], *entries])}" if found
            else f"put the folder holding {top}.py on PYTHONPATH (e.g. PYTHONPATH=src)")
    return f"  searched {where} and PYTHONPATH ({pythonpath}); {hint}, or pass --impl module:Class"


def _load(parser: argparse.ArgumentParser, impl: str, base: type[ServerBase]) -> type[ServerBase]:
    """:func:`load_implementation`, its failures as short usage errors."""
    module = _module_of(impl)
    try:
        return load_implementation(impl, base)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and not (module == missing or module.startswith(missing + ".")):
            parser.error(f"{module} imports {missing}, which cannot be imported: {exc}\n{_search_note(missing)}")
        parser.error(f"cannot import {module} (--impl {impl}): {exc}\n{_search_note(module)}")
    except (ImportError, ValueError) as exc:
        parser.error(str(exc))


def _http_install(base: type[ServerBase]) -> str:
    """The command that installs what serving HTTP needs for this package."""
    top = base.__module__.split(".")[0]
    try:
        extras = metadata.distribution(top).metadata.get_all("Provides-Extra") or []
    except metadata.PackageNotFoundError:
        extras = []
    if "http" in extras:
        return f"pip install '{top}[http]'"
    package_file = getattr(sys.modules.get(top), "__file__", None)
    if package_file and (Path(package_file).parent / "pyproject.toml").is_file():  # server.project, not installed
        return f"pip install {shlex.quote(str(Path(package_file).parent) + '[http]')}"
    if __name__.split(".")[0] == "mcp_codegen_runtime":  # the runtime library, not a package's private copy
        return "pip install 'mcp-codegen-runtime[http]'"
    return "pip install uvicorn"


def _check_http(parser: argparse.ArgumentParser, base: type[ServerBase], args: argparse.Namespace) -> None:
    """Before anything is announced: uvicorn is importable and the HTTP flags make settings."""
    try:
        import uvicorn  # type: ignore[import-not-found, unused-ignore]  # noqa: F401  # optional: the http extra
    except ImportError:
        raise SystemExit(f"{parser.prog}: error: serving HTTP needs uvicorn, which {sys.executable} cannot import: "
                         f"{_http_install(base)}") from None
    try:
        _http_module().settings_from_args(args)
    except ValueError as exc:
        parser.error(str(exc))


def _check_optional(parser: argparse.ArgumentParser, base: type[ServerBase], args: argparse.Namespace) -> None:
    """Before anything is announced: the optional packages the flags ask for import (Redis for
    shared state, PyJWT for verifying OAuth tokens as JWTs), else one line naming the install."""
    if (args.redis_url or os.environ.get(REDIS_URL_ENV)) and not _importable("redis"):
        raise SystemExit(f"{parser.prog}: error: sharing state in Redis (--redis-url / {REDIS_URL_ENV}) needs "
                         f"redis-py, which {sys.executable} cannot import: pip install redis")
    if not args.http or getattr(args, "auth_introspection_url", None):
        return
    if getattr(base.server_info, "auth", None) is None and not (getattr(args, "auth_issuer", None)
                                                                 or getattr(args, "auth_jwks_url", None)):
        return
    from .http.jwks import import_pyjwt  # only for HTTP: a stdio server imports no HTTP code

    try:
        import_pyjwt()
    except RuntimeError as exc:
        raise SystemExit(f"{parser.prog}: error: {exc}") from None


def build_parser(base: type[ServerBase], prog: str | None, scaffold: str | None = None) -> argparse.ArgumentParser:
    info = base.server_info
    parser = _Parser(prog=prog, description=f"Serve the {info.name} MCP server.", epilog=_ENV_HELP)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="serve over stdin/stdout (default)")
    mode.add_argument("--http", action="store_true", help="serve Streamable HTTP")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    fallback = info.implementation or (f"{scaffold} (the build --scaffold class) when importable" if scaffold else "none")
    if not info.implementation and base.base_complete:
        fallback += f", else {base.__module__}:{base.__qualname__} (complete: every tool calls the upstream)"
    parser.add_argument("--impl", default=None, help=f"handler class as module:Class (default {fallback})")
    upstream = getattr(base, "upstream", None)
    if upstream is not None:
        parser.add_argument("--upstream", metavar="URL",
                            help=f"base URL of the REST API the tools call, path included (default: "
                                 f"${upstream.env_name(info.name)}, else the spec's upstream.baseUrl {upstream.base_url})")
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
    parser.add_argument("--max-concurrency-per-client", type=int, default=None,
                        help="of those, tool calls one HTTP client may run at once (default: three quarters)")
    parser.add_argument("--max-listen-streams-per-client", type=int, default=None,
                        help="of those, listen streams one HTTP client may hold (default: a tenth, at least 10)")
    parser.add_argument("--max-tasks", type=int, default=int(_env_number("MCP_CODEGEN_MAX_TASKS", defaults.max_tasks)),
                        help=f"tasks (tasks extension) stored at once, server-wide (default {defaults.max_tasks})")
    parser.add_argument("--max-tasks-per-client", type=int, default=None,
                        help="of those, how many one client may have (default: a tenth, at least 10)")
    parser.add_argument("--task-ttl", type=float, default=_env_number("MCP_CODEGEN_TASK_TTL", defaults.task_ttl),
                        help=f"seconds a task and its result are kept after it ended; a running task never expires "
                             f"(default {defaults.task_ttl:g})")
    parser.add_argument("--max-task-result-bytes", type=int,
                        default=int(_env_number("MCP_CODEGEN_MAX_TASK_RESULT_BYTES", defaults.max_task_result_bytes)),
                        help="bytes of finished task results kept at once, server-wide; the oldest are dropped first "
                             f"(default {defaults.max_task_result_bytes})")
    parser.add_argument("--max-task-result-bytes-per-client", type=int, default=None,
                        help="of those, how many one client's finished results may hold (default: an eighth); a larger "
                             "result fails its task")
    parser.add_argument("--print-config", choices=HOSTS, metavar="HOST",
                        help=f"print the server entry for a host's MCP configuration and exit ({', '.join(HOSTS)}): "
                             "absolute interpreter path, arguments and PYTHONPATH, so it starts from any folder")
    parser.add_argument("--write-config", metavar="FILE", type=Path,
                        help="with --print-config: merge the entry into the host's configuration FILE instead (other "
                             "servers and settings kept, an entry of the same name replaced, written atomically)")
    parser.add_argument("--check", action="store_true",
                        help="check the implementation and exit: 0 when every tool, resource, resource template, prompt and "
                             "completion handler is implemented (not a stub) and takes the runtime's arguments")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    parser.add_argument("--log-format", choices=("text", "json"), default=os.environ.get("MCP_CODEGEN_LOG_FORMAT", "text"),
                        help="stderr log lines as text or as one JSON object each (default text; MCP_CODEGEN_LOG_FORMAT)")
    # state keys (docs/keys.md); None: the environment's (server.signing)
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


def main(base: type[ServerBase], *, prog: str | None = None, argv: Sequence[str] | None = None,
         scaffold: str | None = None) -> None:
    """Parse the command line and serve (blocks until the transport ends).

    Args:
        base: the generated server base class.
        prog: the program name in messages.
        argv: the arguments (default ``sys.argv[1:]``).
        scaffold: ``module:Class`` that ``build --scaffold`` writes: the implementation when
            neither ``--impl`` nor ``server.implementation`` names one and it is importable.
    """
    parser = build_parser(base, prog, scaffold)
    args = parser.parse_args(argv)
    configure_logging(args.log_level, args.log_format)
    if args.http and not (args.check or args.print_config):
        _check_http(parser, base, args)
    args.impl = args.impl or default_implementation(base, scaffold)
    if not args.impl:
        if scaffold:
            module, _, name = scaffold.partition(":")
            parser.error(f"no implementation: the spec sets no server.implementation and {module} (class {name}, "
                         f"written by mcp-codegen build --scaffold) is not importable\n{_search_note(module)}")
        parser.error("no implementation: pass --impl module:Class")
    cls = _load(parser, args.impl, base)
    if args.check:
        report = check_implementation(cls, base)
        for line in report.lines():
            print(line, file=sys.stderr)
        print(f"{args.impl}: {report.summary()}", file=sys.stderr)
        raise SystemExit(0 if report.complete else 1)
    if args.write_config and not args.print_config:
        parser.error("--write-config needs --print-config HOST (which host's format to write)")
    if args.print_config:
        upstream_url = getattr(args, "upstream", None)
        if upstream_url is not None:
            _configure_upstream(parser, base, args)  # checked, and passed on to the entry
        config = host_config(args.print_config, base, args.impl, ["--upstream", upstream_url] if upstream_url else [])
        print_variables(base, sys.stderr)
        if args.write_config is None:
            print(json.dumps(config, indent=2))
            return
        try:
            action = merge_config(args.write_config, config)
        except (OSError, ValueError) as exc:
            parser.error(f"cannot update {args.write_config}: {exc}")
        print(f"{action} server {base.server_info.name!r} in {args.write_config}", file=sys.stderr)
        return
    _check_optional(parser, base, args)
    _configure_upstream(parser, base, args)
    missing = missing_schema_checker(base.tool_defs)  # refuse to start rather than fail every call
    if missing:
        raise SystemExit(f"{parser.prog}: error: {missing}")
    try:
        unlimited = args.rate_limit <= 0
        settings = ServerSettings(
            page_size=args.page_size, call_timeout=args.call_timeout, max_concurrent_calls=args.max_concurrency,
            max_concurrent_calls_per_client=args.max_concurrency_per_client,
            max_listen_streams_per_client=args.max_listen_streams_per_client,
            max_listen_streams=args.max_listen_streams,
            max_tasks=args.max_tasks, max_tasks_per_client=args.max_tasks_per_client, task_ttl=args.task_ttl,
            max_task_result_bytes=args.max_task_result_bytes,
            max_task_result_bytes_per_client=args.max_task_result_bytes_per_client,
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
    report = check_implementation(cls, base)
    if not report.complete:
        logger.warning("%s: %s; calling these is an error", cls.__name__, report.summary())
    for problem in environment_problems(base, os.environ):
        logger.warning("%s", problem)
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
