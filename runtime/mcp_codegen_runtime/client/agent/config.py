"""Where an agent's tool functions find their servers: host-format MCP configuration files.

The format is the hosts' own: ``{"mcpServers": {NAME: ENTRY}}`` (Claude Desktop, Claude Code,
Cursor) or VS Code's ``{"servers": {NAME: ENTRY}}``, where ENTRY is a stdio server
``{"command", "args", "env", "cwd"}`` or an HTTP one ``{"url", "headers"}``, optionally with
``"type"`` (``stdio``, ``http``, ``streamable-http``, ``sse``).  The files looked at, in order
(the first that names the server wins):

* the files (or host names) of the environment variable :data:`ENV_SERVERS`, separated by
  ``os.pathsep``: a path to a JSON file, or ``claude-desktop``, ``claude-code``, ``cursor``,
  ``vscode`` for that host's own configuration files (:func:`host_files`);
* else ``<root>/mcp.json`` (``root``: the ``servers/`` folder).

``${NAME}``, ``${NAME:-default}`` and VS Code's ``${env:NAME}`` in ``command``, ``args``,
``env``, ``cwd``, ``url`` and ``headers`` are replaced from the process environment; VS Code's
``${workspaceFolder}`` is the folder holding ``.vscode``; its ``envFile`` (``NAME=value`` lines,
relative to that folder) is read under ``env``.  A variable that is not set is a
:class:`ServerConfigError` naming the server, the key and the variable (never a value: the
values are secrets and are neither logged nor put in exception texts).

Besides the host keys an entry may hold the agent options (:data:`OPTION_KEYS`: ``drift``,
``timeout``, ``confirm``, ``audit``, ``oauth``, ...; see ``client/agent/options.py``); their
environment variables override them.  Reading is lazy: nothing
here runs at import time.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, quote_plus

#: A list of configuration files or host names (``os.pathsep``-separated) to read instead of
#: ``servers/mcp.json``.
ENV_SERVERS = "MCP_CODEGEN_SERVERS"
#: The host names :data:`ENV_SERVERS` accepts.
HOST_NAMES = ("claude-desktop", "claude-code", "cursor", "vscode")
#: What a config file must be no larger than (bytes).
MAX_CONFIG_BYTES = 4 * 1024 * 1024
#: What an ``envFile`` must be no larger than (bytes).
MAX_ENV_FILE_BYTES = 1024 * 1024

#: The agent options an entry may hold besides the host keys (``client/agent/options.py``).
OPTION_KEYS = ("drift", "timeout", "confirm", "audit", "oauth", "stderr", "elicitation", "sampling")

Transport = Literal["stdio", "http"]
_TYPES: dict[str, Transport] = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamablehttp": "http"}
_VAR = re.compile(r"\$\{(?:(env):)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_VSCODE_VAR = re.compile(r"\$\{(workspaceFolder|userHome|input:[^}]*)\}")


class ServerConfigError(Exception):
    """A server cannot be found or its configuration entry is unusable (the text says which
    server, which file and which key; it never holds a secret value)."""


@dataclass(frozen=True)
class ServerEntry:
    """One server of a configuration file, its ``${VAR}`` references expanded.

    ``args``, ``env``, ``url`` and ``headers`` may hold secrets (expanded references): they are
    left out of ``repr``.
    """

    name: str
    source: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = field(default=(), repr=False)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    #: The agent options of the entry (:data:`OPTION_KEYS`).
    options: Mapping[str, Any] = field(default_factory=dict, repr=False)
    #: The command (stdio) or URL (HTTP) as the file writes it, ``${NAME}`` unexpanded: what
    #: messages show.
    label: str = ""
    #: The values taken from the environment (``${NAME}`` references, ``envFile`` lines) ->
    #: the reference that names them: what :meth:`redact` puts back in texts.
    secrets: Mapping[str, str] = field(default_factory=dict, repr=False)

    def redact(self, text: str) -> str:
        """``text`` with every value of :attr:`secrets` (of :data:`MIN_SECRET` characters or
        more, also percent-encoded) replaced by its ``${NAME}`` reference."""
        return redact(text, self.secrets)


#: Values shorter than this are not redacted: they would blank unrelated text (a port digit,
#: ``1`` of a flag) and cannot hold a secret worth the name.
MIN_SECRET = 4


def redact(text: str, secrets: Mapping[str, str]) -> str:
    """``text`` with each value of ``secrets`` (value -> reference) of at least
    :data:`MIN_SECRET` characters replaced by its reference, in its plain and percent-encoded
    forms (an HTTP library may print a URL encoded), longest values first."""
    forms: dict[str, str] = {}
    for value, reference in secrets.items():
        if len(value) >= MIN_SECRET:
            for form in (value, quote(value, safe=""), quote(value, safe="/:@"), quote_plus(value)):
                forms.setdefault(form, reference)
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, forms[form])
    return text


# ------------------------------------------------------------------------------- the files
class NotRegularFile(OSError):
    """The path names a device, a FIFO, a socket or a folder: nothing read from it."""


def read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file ``path`` (a caller seeing more than
    ``limit`` refuses the file).  The file is opened without blocking, so a FIFO with no
    writer cannot hang the caller; anything but a regular file (``/dev/zero``, a FIFO, a
    socket) is refused before a byte is read.

    Raises:
        NotRegularFile: not a regular file.
        OSError: it cannot be opened or read (``FileNotFoundError`` ...).
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "a folder, not a file")
        if not stat.S_ISREG(mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file")
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _upward(relative: str, start: Path) -> list[Path]:
    """``relative`` in ``start`` and each of its parents (nearest first)."""
    return [folder / relative for folder in (start, *start.parents)]


def app_dir(*parts: str) -> Path:
    """A per-user application folder: macOS ``~/Library/Application Support``, Windows
    ``%APPDATA%``, else ``$XDG_CONFIG_HOME`` (default ``~/.config``)."""
    home = Path.home()
    if sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return base.joinpath(*parts)


def host_files(host: str, cwd: Path | None = None) -> list[tuple[Path, str]]:
    """The configuration files of a host, most specific first, as (path, section).

    ``section`` says which part of the file holds the servers: ``"servers"`` (the whole file's
    ``mcpServers`` / ``servers``), or for Claude Code's ``~/.claude.json`` ``"claude-local"``
    (``projects[<folder>].mcpServers`` of the working folder or a parent) and ``"claude-user"``
    (its top-level ``mcpServers``).

    Args:
        host: one of :data:`HOST_NAMES`.
        cwd: the project folder (default: the working directory).
    """
    here = (cwd or Path.cwd()).resolve()
    home = Path.home()
    if host == "claude-desktop":
        return [(app_dir("Claude", "claude_desktop_config.json"), "servers")]
    if host == "claude-code":
        return [(home / ".claude.json", "claude-local"), *((p, "servers") for p in _upward(".mcp.json", here)),
                (home / ".claude.json", "claude-user")]
    if host == "cursor":
        return [*((p, "servers") for p in _upward(".cursor/mcp.json", here)), (home / ".cursor" / "mcp.json", "servers")]
    if host == "vscode":
        return [*((p, "servers") for p in _upward(".vscode/mcp.json", here)),
                (app_dir("Code", "User", "mcp.json"), "servers")]
    raise ServerConfigError(f"unknown host {host!r}: {ENV_SERVERS} takes file paths or one of {', '.join(HOST_NAMES)}")


def config_files(root: Path, environ: Mapping[str, str] | None = None) -> list[tuple[Path, str]]:
    """The files to look in, in order (see the module docstring), as (path, section)."""
    env = os.environ if environ is None else environ
    listed = env.get(ENV_SERVERS, "").strip()
    if not listed:
        return [(Path(root) / "mcp.json", "servers")]
    out: list[tuple[Path, str]] = []
    for item in (i.strip() for i in listed.split(os.pathsep)):
        if not item:
            continue
        if item in HOST_NAMES:
            out += host_files(item)
        elif not any(c in item for c in "/\\.") and not Path(item).exists():
            raise ServerConfigError(f"{ENV_SERVERS}: {item!r} is neither a configuration file nor a host "
                                    f"({', '.join(HOST_NAMES)})")
        else:
            out.append((Path(item).expanduser(), "servers"))
    return out


def strip_jsonc(text: str) -> str:
    """JSON with comments (``//``, ``/* */``) and trailing commas, as VS Code writes it, made
    plain JSON (strings are left alone)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            while i < n and text[i] not in "\r\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(c)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def read_servers(path: Path, section: str = "servers", cwd: Path | None = None) -> dict[str, Any]:
    """The raw server entries of one configuration file (``{}`` when it does not exist).

    Raises:
        ServerConfigError: the file exists but is not a JSON object with a servers object.
    """
    try:
        data = read_regular(path, MAX_CONFIG_BYTES)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return {}
    except OSError as exc:
        raise ServerConfigError(f"{path}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ServerConfigError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes")
    try:
        doc = json.loads(strip_jsonc(data.decode("utf-8-sig")))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ServerConfigError(f"{path}: not a JSON configuration ({exc})") from None
    if not isinstance(doc, dict):
        raise ServerConfigError(f"{path}: not a JSON object")
    if section == "claude-local":
        projects = doc.get("projects")
        here = (cwd or Path.cwd()).resolve()
        if not isinstance(projects, dict):
            return {}
        for folder in (here, *here.parents):
            project = projects.get(str(folder))
            if isinstance(project, dict) and isinstance(project.get("mcpServers"), dict):
                return dict(project["mcpServers"])
        return {}
    key = "mcpServers" if "mcpServers" in doc else "servers"
    servers = doc.get(key, {})
    if not isinstance(servers, dict):
        raise ServerConfigError(f"{path}: {key!r} is not a JSON object")
    return dict(servers)


# ----------------------------------------------------------------------------- the entry
def _expand(value: str, server: str, key: str, environ: Mapping[str, str], workspace: Path | None,
            secrets: dict[str, str] | None = None) -> str:
    def var(match: re.Match[str]) -> str:
        name, default = match.group(2), match.group(3)
        if name in environ:
            if secrets is not None:
                secrets.setdefault(environ[name], f"${{{name}}}")
            return environ[name]
        if default is not None:
            return default
        raise ServerConfigError(f"server {server!r}: {key} refers to ${{{name}}}, which is not set in the environment "
                                f"(set {name}, or change the entry)")

    def vscode(match: re.Match[str]) -> str:
        what = match.group(1)
        if what == "userHome":
            return str(Path.home())
        if what == "workspaceFolder" and workspace is not None:
            return str(workspace)
        raise ServerConfigError(f"server {server!r}: {key} uses ${{{what}}}, which only VS Code can fill in "
                                f"(use ${{NAME}} with an environment variable instead)")

    return _VAR.sub(var, _VSCODE_VAR.sub(vscode, value))


def _strings(value: Any, where: str, key: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, (str, int, float, bool))
                                              for k, v in value.items()):
        raise ServerConfigError(f"{where}: {key!r} must be an object of strings")
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in value.items()}


def read_env_file(path: Path, where: str) -> dict[str, str]:
    """VS Code's ``envFile``: ``NAME=value`` lines (``#`` comments, ``export`` and quotes allowed).

    Only a regular file of at most :data:`MAX_ENV_FILE_BYTES` is read (a device or a FIFO is
    refused without blocking, see :func:`read_regular`).

    Raises:
        ServerConfigError: the file cannot be read, is not a regular file or is too large, is
            not UTF-8, or a line is not ``NAME=value`` (by number).
    """
    try:
        data = read_regular(path, MAX_ENV_FILE_BYTES)
    except OSError as exc:
        raise ServerConfigError(f"{where}: envFile {path} cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > MAX_ENV_FILE_BYTES:
        raise ServerConfigError(f"{where}: envFile {path} is larger than {MAX_ENV_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ServerConfigError(f"{where}: envFile {path} is not UTF-8 text") from None
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", key):
            raise ServerConfigError(f"{where}: envFile {path} line {number} is not NAME=value")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key] = value
    return out


def parse_entry(name: str, raw: Any, source: Path, environ: Mapping[str, str] | None = None) -> ServerEntry:
    """One raw entry as a :class:`ServerEntry` (references expanded; ``cwd`` relative to the file).

    Raises:
        ServerConfigError: the entry is not usable (which key, and why).
    """
    env_ = os.environ if environ is None else environ
    where = f"server {name!r} in {source}"
    if not isinstance(raw, dict):
        raise ServerConfigError(f"{where}: the entry is not a JSON object")
    kind = raw.get("type")
    if kind is not None and (not isinstance(kind, str) or kind.lower() not in (*_TYPES, "sse")):
        raise ServerConfigError(f"{where}: unknown \"type\" {kind!r} (stdio, http, streamable-http or sse)")
    if isinstance(kind, str) and kind.lower() == "sse":
        raise ServerConfigError(f"{where}: the old HTTP+SSE transport is not supported; give the server's "
                                f"Streamable HTTP endpoint with \"type\": \"http\"")
    transport: Transport = _TYPES[kind.lower()] if isinstance(kind, str) else "http" if "url" in raw else "stdio"
    workspace = source.parent.parent if source.parent.name == ".vscode" else source.parent

    secrets: dict[str, str] = {}

    def expand(value: str, key: str) -> str:
        return _expand(value, name, key, env_, workspace, secrets)

    def text(key: str, value: Any) -> str:
        if not isinstance(value, str):
            raise ServerConfigError(f"{where}: {key!r} must be a string")
        return expand(value, key)

    options = {k: raw[k] for k in OPTION_KEYS if k in raw}
    if isinstance(options.get("oauth"), dict):
        options["oauth"] = {k: expand(v, f"oauth.{k}") if isinstance(v, str) else v
                            for k, v in options["oauth"].items()}
    if transport == "http":
        if "url" not in raw:
            raise ServerConfigError(f"{where}: an HTTP entry needs \"url\"")
        headers = {k: expand(v, f"headers.{k}") for k, v in _strings(raw.get("headers"), where, "headers").items()}
        return ServerEntry(name, str(source), "http", url=text("url", raw["url"]), headers=headers, options=options,
                           label=raw["url"], secrets=secrets)
    if "command" not in raw:
        raise ServerConfigError(f"{where}: a stdio entry needs \"command\" (or give \"url\" for HTTP)")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
        raise ServerConfigError(f"{where}: 'args' must be a list of strings")
    env = {k: expand(v, f"env.{k}") for k, v in _strings(raw.get("env"), where, "env").items()}
    if "envFile" in raw:
        env_file = Path(text("envFile", raw["envFile"])).expanduser()
        from_file = read_env_file(env_file if env_file.is_absolute() else workspace / env_file, where)
        for key, value in from_file.items():
            secrets.setdefault(value, f"${{{key}}}")
        env = {**from_file, **env}
    cwd = raw.get("cwd")
    folder = None
    if cwd is not None:
        folder = Path(text("cwd", cwd)).expanduser()
        folder = folder if folder.is_absolute() else source.parent / folder
    return ServerEntry(
        name, str(source), "stdio", command=text("command", raw["command"]),
        args=tuple(expand(str(a), f"args[{i}]") for i, a in enumerate(args)),
        env=env, cwd=str(folder) if folder is not None else None, options=options, label=raw["command"],
        secrets=secrets,
    )


def find_server(server: str, root: Path, environ: Mapping[str, str] | None = None) -> ServerEntry:
    """The entry of ``server`` from the first file that names it (see the module docstring).

    Raises:
        ServerConfigError: no file names it (the text lists the files looked at and the servers
            they name), or its entry is unusable.
    """
    files = config_files(root, environ)
    seen: dict[str, None] = {}
    for path, section in files:
        servers = read_servers(path, section)
        if server in servers:
            return parse_entry(server, servers[server], path, environ)
        seen.update(dict.fromkeys(servers))
    looked = ", ".join(dict.fromkeys(f"{p}" + (f" ({s})" if s != "servers" else "") for p, s in files))
    known = ", ".join(sorted(seen)) or "none"
    hint = f"add it to {Path(root) / 'mcp.json'}" if not (os.environ if environ is None else environ).get(ENV_SERVERS) \
        else f"add it to one of them, or change {ENV_SERVERS}"
    raise ServerConfigError(f"no MCP server {server!r} is configured; servers found: {known}; "
                            f"files looked at: {looked}; {hint}")


__all__ = [
    "ENV_SERVERS",
    "HOST_NAMES",
    "OPTION_KEYS",
    "app_dir",
    "ServerConfigError",
    "ServerEntry",
    "config_files",
    "find_server",
    "host_files",
    "parse_entry",
    "read_env_file",
    "read_regular",
    "read_servers",
    "redact",
    "strip_jsonc",
]
