"""The agent options of a server entry: drift policy, timeout, confirmation and audit hooks, OAuth.

Each option comes from its environment variable if set, else from the server's entry in the
configuration file (``client/agent/config.py``), else its default:

* ``drift`` / ``MCP_CODEGEN_DRIFT``: ``warn`` (default: one log line per server), ``raise``
  (:class:`~client.agent.connect.ServerDriftError`), ``off`` (no check);
* ``timeout`` / ``MCP_CODEGEN_TIMEOUT``: seconds a call may take in all (default ``120``);
* ``confirm`` / ``MCP_CODEGEN_CONFIRM``: ``destructive`` (default: refuse the tools declared
  ``destructiveHint: true``), ``allow``, ``deny`` (refuse every tool not declared read-only),
  or ``module:function`` (a confirm hook, asked before every tool not declared read-only);
* ``audit`` / ``MCP_CODEGEN_AUDIT``: ``log`` (default: a line per call on
  ``mcp_codegen.client.audit``), ``off``, or ``module:function`` (an audit hook);
* ``elicitation`` / ``MCP_CODEGEN_ELICITATION`` and ``sampling`` / ``MCP_CODEGEN_SAMPLING``:
  ``module:function`` handlers of the server's requests (default none: not declared);
* ``oauth`` (HTTP): ``true`` (default: the OAuth flow on a 401, unless the entry sends its own
  ``Authorization``), ``false``, or ``{"client_id", "client_secret", "scope", "redirect_uri",
  "client_name", "client_metadata_url", "headless"}``;
* ``stderr`` (stdio): ``capture`` (default: kept in memory, its last lines shown when the server
  fails to start), ``passthrough``, ``discard``.

OAuth tokens are kept in the file :data:`ENV_TOKEN_FILE` names, else ``mcp-codegen/oauth-tokens.json``
in the user's configuration folder (``~/.config``, or ``$XDG_CONFIG_HOME``; macOS
``~/Library/Application Support``; Windows ``%APPDATA%``), by ``client/oauth/tokens.py``: mode 0600,
in a 0700 folder, replaced atomically.
A ``module:function`` is imported on the first connection, not before.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from ...wire.errors import ConfirmationDeniedError
from ..hooks import default_audit_hook
from ..types import AuditHook, ConfirmHook, ToolCallInfo
from .config import ServerConfigError, ServerEntry, app_dir

ENV_DRIFT = "MCP_CODEGEN_DRIFT"
ENV_TIMEOUT = "MCP_CODEGEN_TIMEOUT"
ENV_CONFIRM = "MCP_CODEGEN_CONFIRM"
ENV_AUDIT = "MCP_CODEGEN_AUDIT"
ENV_TOKEN_FILE = "MCP_CODEGEN_TOKEN_FILE"
ENV_ELICITATION = "MCP_CODEGEN_ELICITATION"
ENV_SAMPLING = "MCP_CODEGEN_SAMPLING"
#: Seconds a call may take in all, unless configured.
DEFAULT_TIMEOUT = 120.0

DriftPolicy = Literal["warn", "raise", "off"]


def _option(entry: ServerEntry, key: str, env_name: str | None, environ: Mapping[str, str]) -> tuple[Any, str]:
    """(value, where it came from) of one option: the environment variable, else the entry."""
    if env_name is not None and environ.get(env_name, "").strip():
        return environ[env_name].strip(), env_name
    return entry.options.get(key), f"{key!r} of server {entry.name!r} in {entry.source}"


def drift_policy(entry: ServerEntry, environ: Mapping[str, str] | None = None) -> DriftPolicy:
    """``warn``, ``raise`` or ``off`` (see the module docstring)."""
    value, where = _option(entry, "drift", ENV_DRIFT, os.environ if environ is None else environ)
    if value is None:
        return "warn"
    if value in ("warn", "raise", "off"):
        return value  # type: ignore[no-any-return]
    raise ServerConfigError(f"{where}: drift must be warn, raise or off, not {value!r}")


def call_timeout(entry: ServerEntry, environ: Mapping[str, str] | None = None) -> float:
    """Seconds a call to this server may take in all (see the module docstring)."""
    value, where = _option(entry, "timeout", ENV_TIMEOUT, os.environ if environ is None else environ)
    if value is None:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = -1.0
    if isinstance(value, bool) or not 0 < seconds < float("inf"):
        raise ServerConfigError(f"{where}: timeout must be a positive number of seconds, not {value!r}")
    return seconds


def load_reference(reference: str, where: str) -> Any:
    """The object a ``module:function`` reference names (imported now).

    Raises:
        ServerConfigError: not of that form, not importable, or not callable.
    """
    module, sep, attr = reference.partition(":")
    if not sep or not module or not attr:
        raise ServerConfigError(f"{where}: {reference!r} is not a module:function reference")
    try:
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except ImportError as exc:
        raise ServerConfigError(f"{where}: cannot import {module!r} ({exc})") from None
    except AttributeError:
        raise ServerConfigError(f"{where}: {module!r} has no {attr!r}") from None
    if not callable(obj):
        raise ServerConfigError(f"{where}: {reference!r} is not callable")
    return obj


def refuse_destructive(info: ToolCallInfo) -> bool:
    """The confirm hook of ``confirm: destructive`` (the default): a tool declared
    ``destructiveHint: true`` (and not read-only) is refused, every other tool goes ahead."""
    if info.annotations.get("destructiveHint") is True and info.annotations.get("readOnlyHint") is not True:
        raise ConfirmationDeniedError(
            f"{info.tool} is declared destructive and no confirmation hook is configured: set {ENV_CONFIRM}="
            f"module:function (a hook that asks someone) or 'allow' (or the server entry's \"confirm\")",
            data={"tool": info.tool})
    return True


def refuse_writes(info: ToolCallInfo) -> bool:
    """The confirm hook of ``confirm: deny``: only tools declared read-only go ahead."""
    raise ConfirmationDeniedError(f"{info.tool} is not declared read-only and {ENV_CONFIRM} (or \"confirm\") is 'deny'",
                                  data={"tool": info.tool})


def confirm_hook(entry: ServerEntry, environ: Mapping[str, str] | None = None) -> ConfirmHook | None:
    """The confirm hook of this server (see the module docstring)."""
    value, where = _option(entry, "confirm", ENV_CONFIRM, os.environ if environ is None else environ)
    if value is None or value == "destructive":
        return refuse_destructive
    if value == "allow":
        return None
    if value == "deny":
        return refuse_writes
    if not isinstance(value, str):
        raise ServerConfigError(f"{where}: confirm must be destructive, allow, deny or module:function")
    hook: ConfirmHook = load_reference(value, where)
    return hook


def audit_hook(entry: ServerEntry, environ: Mapping[str, str] | None = None) -> AuditHook | None:
    """The audit hook of this server (see the module docstring)."""
    value, where = _option(entry, "audit", ENV_AUDIT, os.environ if environ is None else environ)
    if value is None or value == "log":
        return default_audit_hook
    if value == "off":
        return None
    if not isinstance(value, str):
        raise ServerConfigError(f"{where}: audit must be log, off or module:function")
    hook: AuditHook = load_reference(value, where)
    return hook


def handler(entry: ServerEntry, key: str, env_name: str, environ: Mapping[str, str] | None = None) -> Any:
    """The ``module:function`` handler of ``key`` (``elicitation``, ``sampling``), or None."""
    value, where = _option(entry, key, env_name, os.environ if environ is None else environ)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ServerConfigError(f"{where}: {key} must be a module:function reference")
    return load_reference(value, where)


def token_file(environ: Mapping[str, str] | None = None) -> Path:
    """Where OAuth tokens are kept (see the module docstring)."""
    env = os.environ if environ is None else environ
    named = env.get(ENV_TOKEN_FILE, "").strip()
    return Path(named).expanduser() if named else app_dir("mcp-codegen", "oauth-tokens.json")


_OAUTH_KEYS = ("client_id", "client_secret", "client_metadata_url", "client_name", "redirect_uri", "scope")


def oauth_settings(entry: ServerEntry, environ: Mapping[str, str] | None = None) -> Any:
    """The ``OAuthSettings`` of an HTTP server (file token storage), or None without OAuth."""
    value = entry.options.get("oauth")
    where = f"'oauth' of server {entry.name!r} in {entry.source}"
    own_auth = any(k.lower() == "authorization" for k in entry.headers)
    if value is False or (value is None and own_auth):
        return None
    if value is not None and value is not True and not isinstance(value, dict):
        raise ServerConfigError(f"{where}: must be true, false or an object")
    given = value if isinstance(value, dict) else {}
    unknown = sorted(set(given) - set(_OAUTH_KEYS) - {"headless"})
    if unknown:
        raise ServerConfigError(f"{where}: unknown keys {', '.join(unknown)} (known: {', '.join(_OAUTH_KEYS)}, headless)")
    from ..oauth.flow import OAuthSettings
    from ..oauth.tokens import FileTokenStorage

    settings = {k: given[k] for k in _OAUTH_KEYS if k in given}
    storage = FileTokenStorage(token_file(environ))
    if given.get("headless") is True:
        return OAuthSettings.headless(storage=storage, **settings)
    return OAuthSettings(storage=storage, **settings)


def client_options(entry: ServerEntry, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The keyword arguments of ``Client.stdio(...)`` / ``Client.http(...)`` for this entry."""
    seconds = call_timeout(entry, environ)
    options: dict[str, Any] = {
        "timeout": seconds,
        "max_timeout": seconds,
        "confirm": confirm_hook(entry, environ),
        "audit": audit_hook(entry, environ),
        "elicitation": handler(entry, "elicitation", ENV_ELICITATION, environ),
        "sampling": handler(entry, "sampling", ENV_SAMPLING, environ),
    }
    if entry.transport == "http":
        options.update(headers=dict(entry.headers), http_timeout=min(30.0, seconds), auth=oauth_settings(entry, environ))
    else:
        stderr = entry.options.get("stderr", "capture")
        if stderr not in ("passthrough", "capture", "discard"):
            raise ServerConfigError(f"'stderr' of server {entry.name!r} in {entry.source}: "
                                    f"passthrough, capture or discard, not {stderr!r}")
        options.update(env=dict(entry.env), cwd=entry.cwd, stderr=stderr)
    return options


__all__ = [
    "DEFAULT_TIMEOUT",
    "ENV_AUDIT",
    "ENV_CONFIRM",
    "ENV_DRIFT",
    "ENV_ELICITATION",
    "ENV_SAMPLING",
    "ENV_TIMEOUT",
    "ENV_TOKEN_FILE",
    "audit_hook",
    "call_timeout",
    "client_options",
    "confirm_hook",
    "drift_policy",
    "handler",
    "load_reference",
    "oauth_settings",
    "refuse_destructive",
    "refuse_writes",
    "token_file",
]
