"""``manifest.json`` of a bundle, from the IR: what the host shows (name, description, author,
tools, prompts, icon, links), asks the user for (``user_config``, one entry per environment
variable of ``ServerIR.env``) and runs (``server.mcp_config``: the launch arguments and the
environment of the one launch function every consumer shares).

Manifest version 0.3 (:data:`MANIFEST_VERSION`): MANIFEST.md calls it the current version and
hosts such as Claude Desktop read it; 0.4 only adds the server type ``uv`` (the host installs the
dependencies itself), which a bundle with its dependencies vendored in ``server/lib`` does not
use, so 0.3 reaches every host that reads 0.4 and those that stop at 0.3."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...ir.nodes import EnvVarIR, ProjectIR

MANIFEST_VERSION = "0.3"
#: The entry point inside the bundle (the host runs it with ``python``).
ENTRY_POINT = "server/main.py"
#: The vendored packages, on ``PYTHONPATH``.
LIB = "server/lib"
#: ``user_config`` type of each ``env[].format`` (the registry's formats; none = string).
USER_CONFIG_TYPES = {None: "string", "string": "string", "number": "number", "boolean": "boolean", "filepath": "file"}


@dataclass(frozen=True)
class Author:
    name: str
    email: str | None = None
    url: str | None = None

    def as_json(self) -> dict[str, str]:
        return {k: v for k, v in (("name", self.name), ("email", self.email), ("url", self.url)) if v}


@dataclass(frozen=True)
class Runtime:
    """What the staged contents need: a Python version range and, with native modules, the
    platform they were built for (``sys.platform``); None = any."""

    python: str
    platform: str | None


def user_config_key(env_name: str) -> str:
    """The ``user_config`` key of an environment variable (its name, lower-cased)."""
    return env_name.lower()


def description_of(ir: ProjectIR) -> str | None:
    """The one-line description the host shows: the registry's, else ``server.description``,
    else ``server.instructions``, else ``server.title``."""
    registry = ir.server.registry
    for text in (registry.description if registry else None, ir.server.description, ir.server.instructions,
                 ir.server.title):
        if text and text.strip():
            return text.strip()
    return None


def _default(value: str, kind: str) -> str | int | float | bool:
    """A default as the ``user_config`` type shows it (numbers and booleans typed when they parse)."""
    if kind == "boolean" and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if kind == "number":
        for parse in (int, float):
            try:
                return parse(value)
            except ValueError:
                pass
    return value


def user_config(env: Sequence[EnvVarIR]) -> dict[str, dict[str, Any]]:
    """One ``user_config`` entry per environment variable.  An optional variable without a default
    gets the default ``""``: the host (``getMcpConfigForManifest``) substitutes only the values it
    has, so an unset one would reach the server as the literal ``${user_config.key}``; empty counts
    as unset for the runtime."""
    out: dict[str, dict[str, Any]] = {}
    for var in env:
        kind = USER_CONFIG_TYPES.get(var.format, "string")
        text = var.description.strip()
        if var.choices:
            text += f" (one of: {', '.join(var.choices)})"
        entry: dict[str, Any] = {"type": kind, "title": var.name, "description": text, "required": var.required}
        if var.secret:
            entry["sensitive"] = True
        if var.default is not None:
            entry["default"] = _default(var.default, kind)
        elif not var.required:
            entry["default"] = ""
        out[user_config_key(var.name)] = entry
    return out


def mcp_config(args: Sequence[str], env_names: Sequence[str]) -> dict[str, Any]:
    """``server.mcp_config``: ``python <entry> ARGS`` with ``PYTHONPATH`` on the vendored packages
    and each variable from its ``user_config`` entry."""
    env = {"PYTHONPATH": f"${{__dirname}}/{LIB}"}
    env.update((name, f"${{user_config.{user_config_key(name)}}}") for name in env_names)
    return {"command": "python", "args": [f"${{__dirname}}/{ENTRY_POINT}", *args], "env": env}


def _links(ir: ProjectIR) -> dict[str, Any]:
    """``repository`` and ``homepage`` from the spec's registry section."""
    registry = ir.server.registry
    out: dict[str, Any] = {}
    if registry is None:
        return out
    if registry.repository and registry.repository.get("url"):
        out["repository"] = {"type": "git", "url": registry.repository["url"]}
    if registry.website_url:
        out["homepage"] = registry.website_url
    return out


def build_manifest(ir: ProjectIR, *, args: Sequence[str], env: Sequence[EnvVarIR], author: Author, runtime: Runtime,
                   icon: str | None) -> dict[str, Any]:
    """The manifest (keys in the order MANIFEST.md lists them).  ``args`` and ``env`` are the
    launch function's; ``icon`` the PNG's path in the bundle, if any."""
    server = ir.server
    manifest: dict[str, Any] = {"manifest_version": MANIFEST_VERSION, "name": server.name}
    if server.title:
        manifest["display_name"] = server.title
    manifest["version"] = server.version
    manifest["description"] = description_of(ir) or server.name
    manifest["author"] = author.as_json()
    manifest.update(_links(ir))
    if icon:
        manifest["icon"] = icon
    manifest["server"] = {"type": "python", "entry_point": ENTRY_POINT,
                          "mcp_config": mcp_config(args, [var.name for var in env])}
    if ir.tools:
        manifest["tools"] = [{"name": t.name, "description": t.description} for t in ir.tools]
    if ir.prompts:  # the text is the server's (its prompts/get handler): none to declare here
        manifest["prompts"] = [_prompt(p.wire) for p in ir.prompts]
    compatibility: dict[str, Any] = {}
    if runtime.platform:
        compatibility["platforms"] = [runtime.platform]
    compatibility["runtimes"] = {"python": runtime.python}
    manifest["compatibility"] = compatibility
    if env:
        manifest["user_config"] = user_config(env)
    return manifest


def _prompt(wire: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": wire["name"]}
    if wire.get("description"):
        entry["description"] = wire["description"]
    names = [a["name"] for a in wire.get("arguments") or []]
    if names:
        entry["arguments"] = names
    entry["text"] = ""
    return entry
