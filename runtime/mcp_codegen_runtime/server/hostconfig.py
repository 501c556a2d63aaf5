"""Host configuration entries: the JSON a host (Claude Desktop, Claude Code, Cursor, VS Code)
needs to start this server over stdio, printed (``--print-config HOST``) or merged into the
host's configuration file (``--write-config FILE``).

The entry runs ``python -m <package>`` with the arguments and environment variables of
:func:`~..wire.launch.stdio_launch` (:func:`server_launch`), the same table the package's
``server.json`` and its bundle are written from: the variables the spec declares (``server.env``)
and those of its upstream REST API (base URL, credentials), each in the entry's ``env`` as an
empty placeholder (empty counts as unset); merging never replaces a value the user set there
with a placeholder."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from ..wire.launch import EnvVarDef, StdioLaunch, stdio_launch
from .base import ServerBase

#: Hosts whose MCP configuration ``--print-config`` writes an entry for.
HOSTS = ("claude-desktop", "claude-code", "cursor", "vscode")
#: The value of an environment variable the entry names for the user to fill in.
PLACEHOLDER = ""


def upstream_variables(base: type[ServerBase]) -> list[tuple[str, str]]:
    """The environment variables of an upstream-bound server and what each is for, never values
    (the base URL's, then each credential's: ``UpstreamDef.variables``); none without an upstream."""
    upstream = getattr(base, "upstream", None)
    return list(upstream.variables(base.server_info.name)) if upstream is not None else []


def server_launch(base: type[ServerBase]) -> StdioLaunch[EnvVarDef]:
    """How a host starts the server: :func:`~..wire.launch.stdio_launch` of the generated
    ``env_vars`` (a base without them, generated before runtime 2.1: its upstream's variables)."""
    declared = tuple(getattr(base, "env_vars", ()))
    if not declared:
        declared = tuple(EnvVarDef(var, what) for var, what in upstream_variables(base))
    return stdio_launch(declared)


def environment_problems(base: type[ServerBase], environ: Mapping[str, str]) -> list[str]:
    """What is wrong with the declared environment variables in ``environ``, one line each, for
    the start-up log: a required one unset or empty, a value outside its ``choices`` (shown,
    shortened, unless the variable is secret).  The server still starts: the tools that do not
    read the variable work, and one that does fails with its own message."""
    problems = []
    for var in server_launch(base).env:
        value = environ.get(var.name)
        about = " ".join(var.description.split())  # one log line, whatever the spec's text holds
        if not value:
            if var.required and var.default is None:
                problems.append(f"environment variable {var.name} is required and not set" + (f" ({about})" if about else ""))
        elif var.choices and value not in var.choices:
            shown = "its value" if var.secret else repr(value if len(value) <= 60 else value[:57] + "...")
            problems.append(f"environment variable {var.name}: {shown} is not one of {', '.join(var.choices)}")
    return problems


def print_variables(base: type[ServerBase], out: TextIO) -> None:
    """Write to ``out`` (stderr) the environment variables the entry holds (empty placeholders
    where the user has set nothing) and what each is for, never their values; nothing without any."""
    variables = server_launch(base).env
    if not variables:
        return
    print(f"{base.server_info.name}: set these in the entry's env (empty = unset):", file=out)
    width = max(len(var.name) for var in variables)
    for var in variables:
        flags = ", ".join(f for f, on in (("required", var.required), ("secret", var.secret),
                                          (f"default {var.default}", var.default is not None
                                           and f"default {var.default}" not in var.description)) if on)
        print(f"  {var.name.ljust(width)}  {var.description}{f' ({flags})' if flags else ''}", file=out)


def host_config(host: str, base: type[ServerBase], impl: str, extra_args: list[str] | None = None) -> dict[str, Any]:
    """A host's MCP configuration holding one entry that starts this server over stdio.

    Claude Desktop (``claude_desktop_config.json``) and Cursor (``.cursor/mcp.json``) use
    ``{"mcpServers": {name: {command, args, env}}}``, Claude Code (``.mcp.json``) the same with
    ``"type": "stdio"``, VS Code (``.vscode/mcp.json``) ``{"servers": {name: {"type": "stdio", ...}}}``.
    The interpreter is this one (absolute), ``PYTHONPATH`` holds the folders of the package and
    of the implementation module, so the entry works from any working directory.  ``--impl`` is
    left out when ``impl`` is the generated base itself (a complete one) or the spec's
    ``server.implementation`` (what ``python -m <package>`` serves anyway, as the package's entry
    in ``server.json`` and the bundle do); ``extra_args`` follow the
    others.  The arguments after ``-m <package>`` and the variables (placeholders in ``env``) are
    :func:`server_launch`'s.
    """
    package = base.__module__.split(".")[0]  # the generated package (the runtime may be shared)
    folders = [str(Path(sys.modules[package].__file__ or ".").resolve().parent.parent)]
    spec = importlib.util.find_spec(impl.partition(":")[0])
    if spec is not None and spec.origin:
        module_dir = Path(spec.origin).resolve().parent
        depth = impl.partition(":")[0].count(".") + (1 if spec.origin.endswith("__init__.py") else 0)
        for _ in range(depth):
            module_dir = module_dir.parent
        folders.append(str(module_dir))
    own = impl in (f"{base.__module__}:{base.__qualname__}", base.server_info.implementation)
    env = {"PYTHONPATH": os.pathsep.join(dict.fromkeys(folders))}
    launch = server_launch(base)
    env.update((var, PLACEHOLDER) for var in launch.env_names)
    entry: dict[str, Any] = {
        "command": sys.executable,
        "args": ["-m", package, *launch.arguments, *([] if own else ["--impl", impl]), *(extra_args or [])],
        "env": env,
    }
    name = base.server_info.name
    if host == "vscode":
        return {"servers": {name: {"type": "stdio", **entry}}}
    if host == "claude-code":
        return {"mcpServers": {name: {"type": "stdio", **entry}}}
    return {"mcpServers": {name: entry}}


def merge_config(path: Path, config: dict[str, Any]) -> str:
    """Merge the one server entry of ``config`` into the JSON file ``path`` (created if missing).

    Every other key and server is kept; an entry of the same name is replaced, except that the
    variables the user set in its ``env`` stay: added ones, and those the new entry only holds a
    placeholder for (:data:`PLACEHOLDER`, credentials the user fills in).  The file is replaced
    atomically, keeping its permissions.  Returns ``"added"`` or ``"replaced"``.

    Raises:
        ValueError: the file is not a JSON object (e.g. it has comments), or its server section
            is not an object.
        OSError: it cannot be read or written.
    """
    (section_key, servers), = config.items()
    (name, entry), = servers.items()
    path = path.resolve()  # a symlinked configuration stays a symlink
    text = path.read_text("utf-8") if path.exists() else ""
    try:
        existing: Any = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise ValueError(f"not plain JSON ({exc}); add the entry --print-config shows by hand") from None
    if not isinstance(existing, dict):
        raise ValueError("the file does not hold a JSON object")
    section = existing.setdefault(section_key, {})
    if not isinstance(section, dict):
        raise ValueError(f"{section_key!r} is not a JSON object")
    action = "replaced" if name in section else "added"
    old = section.get(name)
    if isinstance(old, dict) and isinstance(old.get("env"), dict) and isinstance(entry.get("env"), dict):
        mine = {k: v for k, v in entry["env"].items() if v != PLACEHOLDER or not old["env"].get(k)}
        entry = {**entry, "env": {**old["env"], **mine}}  # keep what the user set (API keys, …)
    section[name] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(existing, indent=2, ensure_ascii=False) + "\n")
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return action
