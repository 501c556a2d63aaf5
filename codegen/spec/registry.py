"""Checks of ``server.env`` and ``server.registry`` (docs/spec-format.md): every spec that could not
produce a ``server.json`` the MCP Registry accepts (schema 2025-12-11), or a valid server card, is
reported here, all of its mistakes at once.

The structural check (spec-format.schema.json) already holds the shapes; here what the registry's
schema and rules add, each located where the value is written (or where its default comes from):

====  ======================================================================================
E170  ``registry.name`` is not reverse-DNS with exactly one ``/`` (3-200 characters)
E171  the registry description is missing or over 100 characters, or the title is empty or over 100
E172  an environment variable declared twice (``env`` and ``environment`` both, or a name twice)
E173  a declaration contradicts itself: ``secret`` with a ``default``, a default outside ``choices``
      or not of its ``format``
E174  ``registry`` on a spec whose target has no server side (``target: client``)
E175  ``server.version`` the registry refuses (``latest``, a range such as ``^1.2``, ``1.x``)
E176  a URL the registry refuses (a remote, ``websiteUrl`` or the repository not absolute http(s)),
      one holding a user name or password (the files are public), a repository without ``source``
      on an unknown host, or a subfolder that is no clean path
E177  an icon the registry refuses (``src`` not https or over 255 characters, ``mimeType`` not
      PNG/JPEG/SVG/WebP, ``sizes`` not ``WxH`` or ``any``)
E178  ``registry.pypi`` is not a valid PyPI project name
W170  ``required: true`` with a ``default`` (the variable is never missing)
W171  a remote over plain http to a host that is not loopback
W172  the registry's title or description differs from ``server.title`` / ``server.description``
      (the card then contradicts what ``server/discover`` reports)
W173  ``registry.name``'s server part differs from ``server.name`` (the card's and ``serverInfo``'s)
====  ======================================================================================
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

from ..diagnostics import Diagnostic, Level
from .load import SourceDoc
from .model import SpecFile
from .pointer import join_pointer

#: The registry's (and the server card's) ``name`` pattern and lengths.
REGISTRY_NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$(?!\n)")
NAME_LENGTH = (3, 200)
TEXT_MAX = 100  # description and title
VERSION_MAX = 255
ICON_SRC_MAX = 255
ICON_MIME_TYPES = ("image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp")
ICON_SIZE = re.compile(r"^(\d+x\d+|any)$(?!\n)")
#: A version range the registry refuses ('^1.2.3', '~1.2.3', '>=1.2.3', '1.x', '1.*').
VERSION_RANGE = re.compile(r"^\s*[\^~<>=!]|(^|\.)[xX*](\.|$)|\s(-|\|\|)\s")
#: PEP 508 project name.
PYPI_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$(?!\n)", re.IGNORECASE)
#: Hosts whose ``repository.source`` goes without saying.
KNOWN_SOURCES = {"github.com": "github", "gitlab.com": "gitlab"}


def registry_values(spec: SpecFile) -> dict[str, tuple[Any, str]]:
    """Each registry field with its default applied, and the pointer of the value used
    (``registry.description`` else ``server.description``, ...); empty without ``registry``."""
    reg = spec.server.registry
    if reg is None:
        return {}
    server = {"title": spec.server.title, "description": spec.server.description, **spec.server.extra}
    out: dict[str, tuple[Any, str]] = {}
    for key in ("name", "title", "description", "websiteUrl", "icons", "repository", "pypi", "remotes"):
        if key in reg:
            out[key] = (reg[key], join_pointer("/server/registry", key))
        elif key in ("title", "description", "websiteUrl", "icons") and server.get(key) is not None:
            out[key] = (server[key], join_pointer("/server", key))
    return out


def repository(value: Any) -> dict[str, Any] | None:
    """``registry.repository`` as the registry writes it: a URL alone becomes ``{url, source}``
    with the source of a known host; None when the source cannot be told (E176)."""
    data = {"url": value} if isinstance(value, str) else dict(value)
    if "source" not in data:
        host = (urllib.parse.urlsplit(str(data.get("url", ""))).hostname or "").lower()
        if host not in KNOWN_SOURCES:
            return None
        data["source"] = KNOWN_SOURCES[host]
    return {k: data[k] for k in ("url", "source", "subfolder", "id") if k in data}


def _http_url(url: Any) -> bool:
    """An absolute http(s) URL that is also a URI (ASCII: the schemas' ``format: uri``)."""
    if not isinstance(url, str) or not url.isascii() or any(c.isspace() for c in url):
        return False
    try:
        parts = urllib.parse.urlsplit(url)
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


def _has_userinfo(url: Any) -> bool:
    """A URL carrying a user name or password (``https://user:secret@host``)."""
    try:
        parts = urllib.parse.urlsplit(url) if isinstance(url, str) else None
    except ValueError:
        return False
    return parts is not None and (parts.username is not None or parts.password is not None)


def _public_url_checks(doc: SourceDoc, urls: list[tuple[str, Any, str]]) -> list[Diagnostic]:
    """E176 for each published URL (what, value, pointer) that holds credentials: server.json and
    the card are public, so the message names the place, never the URL."""
    return [doc.diag("E176", f"{what} holds a user name or password; server.json and the server card are public",
                     at, hint="publish the URL without credentials; clients authenticate at run time")
            for what, url, at in urls if _has_userinfo(url)]


def registry_checks(doc: SourceDoc, spec: SpecFile) -> list[Diagnostic]:
    """Diagnostics of ``server.env`` and ``server.registry`` (module docstring)."""
    out = _env_checks(doc, spec)
    values = registry_values(spec)
    if not values:
        return out
    if spec.server.target == "client":
        out.append(doc.diag("E174", "server.registry needs the server side, but the spec's target is client",
                            "/server/registry", hint="drop `target: client` (or the registry section): the registry "
                            "entry starts the server"))
    name, at = values["name"]
    if not (REGISTRY_NAME.match(name) and NAME_LENGTH[0] <= len(name) <= NAME_LENGTH[1]):
        out.append(doc.diag("E170", f"registry name {name!r} is not reverse-DNS with exactly one '/' "
                            f"({NAME_LENGTH[0]}-{NAME_LENGTH[1]} characters)", at,
                            hint="e.g. io.github.<user>/<server> or com.example/<server> (letters, digits, . - "
                            "before the '/', also _ after it)"))
    elif name.rpartition("/")[2] != spec.server.name:
        out.append(doc.diag("W173", f"registry name {name!r} ends in a server name other than server.name "
                            f"{spec.server.name!r}", at, level=Level.WARNING,
                            hint=f"the card's name and server/discover's serverInfo name then disagree; "
                            f"e.g. {name.rpartition('/')[0]}/{spec.server.name}"))
    out += _texts(doc, spec, values)
    version = spec.server.version
    if version == "latest" or VERSION_RANGE.search(version) or len(version) > VERSION_MAX:
        out.append(doc.diag("E175", f"server.version {version!r} is not a version the registry accepts", "/server/version",
                            hint="a specific version such as 1.2.0 (no 'latest', no range like ^1.2 or 1.x)"))
    out += _urls(doc, values)
    out += _icons(doc, values)
    pypi = values.get("pypi")
    if pypi is not None and not PYPI_NAME.match(pypi[0]):
        out.append(doc.diag("E178", f"registry.pypi {pypi[0]!r} is not a PyPI project name", pypi[1],
                            hint="letters, digits, . _ - (starting and ending with a letter or digit)"))
    return out


def _env_checks(doc: SourceDoc, spec: SpecFile) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    s = spec.server
    raw = spec.doc.data.get("server") if isinstance(spec.doc.data, dict) else None
    if isinstance(raw, dict) and "env" in raw and "environment" in raw:
        out.append(doc.diag("E172", "server.env and server.environment are both given", "/server/environment",
                            hint="`environment` is an alias of `env`: keep one of them"))
    first: dict[str, str] = {}
    for var in s.env:
        if var.name in first:
            out.append(doc.diag("E172", f"environment variable {var.name!r} is declared twice (first at "
                                f"{first[var.name]})", var.pointer, hint="declare each variable once"))
            continue
        first[var.name] = var.pointer
        if var.secret and var.default is not None:
            out.append(doc.diag("E173", f"secret environment variable {var.name!r} has a default",
                                join_pointer(var.pointer, "default"),
                                hint="a secret is never written into server.json or a host's configuration: drop "
                                "the default (or secret: true)"))
        elif var.default is not None and var.choices and var.default not in var.choices:
            out.append(doc.diag("E173", f"the default {var.default!r} of {var.name!r} is not one of its choices",
                                join_pointer(var.pointer, "default"), hint=f"choices: {', '.join(var.choices)}"))
        elif var.default is not None and not _of_format(var.default, var.format):
            out.append(doc.diag("E173", f"the default {var.default!r} of {var.name!r} is not a {var.format}",
                                join_pointer(var.pointer, "default"),
                                hint="numbers as decimals (3, 2.5), booleans as true or false"))
        if var.required and var.default is not None:
            out.append(doc.diag("W170", f"environment variable {var.name!r} is required but has a default",
                                join_pointer(var.pointer, "required"), level=Level.WARNING,
                                hint="with a default it is never missing: drop one of them"))
    return out


def _of_format(value: str, fmt: str | None) -> bool:
    if fmt == "number":
        return re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", value) is not None
    if fmt == "boolean":
        return value in ("true", "false")
    return True


def _texts(doc: SourceDoc, spec: SpecFile, values: dict[str, tuple[Any, str]]) -> list[Diagnostic]:
    out = []
    if "description" not in values:
        out.append(doc.diag("E171", "the registry entry needs a description (1-100 characters)", "/server/registry",
                            hint="add server.description or registry.description"))
    for key in ("description", "title"):
        if key in values:
            text, at = values[key]
            if not 1 <= len(text) <= TEXT_MAX:
                out.append(doc.diag("E171", f"the registry {key} has {len(text)} characters; the registry allows "
                                    f"1-{TEXT_MAX}", at, hint=f"write a shorter registry.{key} (server.{key} may "
                                    "stay long)"))
            elif at.startswith("/server/registry/") and getattr(spec.server, key) not in (None, text):
                out.append(doc.diag("W172", f"registry.{key} differs from server.{key}", at, level=Level.WARNING,
                                    hint=f"the server card then contradicts the server's own {key}; drop "
                                    f"registry.{key} (server.{key} is its default) or make them equal"))
    return out


def _urls(doc: SourceDoc, values: dict[str, tuple[Any, str]]) -> list[Diagnostic]:
    out = []
    hint = "an absolute http(s) URL such as https://example.com"
    if "websiteUrl" in values and not _http_url(values["websiteUrl"][0]):
        out.append(doc.diag("E176", f"websiteUrl {values['websiteUrl'][0]!r} is not an absolute http(s) URL",
                            values["websiteUrl"][1], hint=hint))
    if "repository" in values:
        repo, at = values["repository"]
        url = repo if isinstance(repo, str) else repo.get("url")
        url_at = at if isinstance(repo, str) else join_pointer(at, "url")
        if not _http_url(url):
            out.append(doc.diag("E176", f"repository URL {url!r} is not an absolute http(s) URL", url_at,
                                hint="e.g. https://github.com/<user>/<repo>"))
        elif repository(repo) is None and not _has_userinfo(url):  # credentials: reported below, unechoed
            out.append(doc.diag("E176", f"repository {url!r} is on a host whose source is unknown", at,
                                hint="write repository: {url: ..., source: <hosting service>}"))
        sub = repo.get("subfolder") if isinstance(repo, dict) else None
        if isinstance(sub, str) and (sub.startswith("/") or "\\" in sub or any(
                part in ("", ".", "..") for part in sub.split("/"))):
            out.append(doc.diag("E176", f"repository subfolder {sub!r} is not a clean relative path",
                                join_pointer(at, "subfolder"), hint="e.g. servers/weather (no leading /, no . or ..)"))
    published = [("websiteUrl", *values["websiteUrl"])] if "websiteUrl" in values else []
    if "repository" in values:
        repo, at = values["repository"]
        published.append(("the repository URL", repo if isinstance(repo, str) else repo.get("url"),
                          at if isinstance(repo, str) else join_pointer(at, "url")))
    published += [(f"remote URL {i}", remote.get("url"), join_pointer("/server/registry/remotes", i, "url"))
                  for i, remote in enumerate(values.get("remotes", ([], ""))[0])]
    out += _public_url_checks(doc, published)
    for i, remote in enumerate(values.get("remotes", ([], ""))[0]):
        url, at = remote.get("url"), join_pointer("/server/registry/remotes", i, "url")
        if _has_userinfo(url):
            continue  # reported above, without echoing it
        if not _http_url(url):
            out.append(doc.diag("E176", f"remote URL {url!r} is not an absolute http(s) URL", at,
                                hint="the URL of the deployed MCP endpoint, e.g. https://mcp.example.com/mcp"))
        elif urllib.parse.urlsplit(url).scheme == "http" and urllib.parse.urlsplit(url).hostname not in (
                "localhost", "127.0.0.1", "::1"):
            out.append(doc.diag("W171", f"remote URL {url!r} uses plain http", at, level=Level.WARNING,
                                hint="hosted servers and cards must use https outside local development"))
    return out


def _icons(doc: SourceDoc, values: dict[str, tuple[Any, str]]) -> list[Diagnostic]:
    out = []
    icons, at = values.get("icons", ([], ""))
    for i, icon in enumerate(icons):
        where = join_pointer(at, i)
        src = icon.get("src")
        if not (isinstance(src, str) and src.startswith("https://") and _http_url(src) and len(src) <= ICON_SRC_MAX):
            out.append(doc.diag("E177", f"icon src {src!r} is not an https URL of at most {ICON_SRC_MAX} characters",
                                join_pointer(where, "src"), hint="the registry takes https icons only (no data: URIs)"))
        if "mimeType" in icon and icon["mimeType"] not in ICON_MIME_TYPES:
            out.append(doc.diag("E177", f"icon mimeType {icon['mimeType']!r} is not one the registry takes",
                                join_pointer(where, "mimeType"), hint=", ".join(ICON_MIME_TYPES)))
        for j, size in enumerate(icon.get("sizes") or []):
            if not ICON_SIZE.match(size):
                out.append(doc.diag("E177", f"icon size {size!r} is not WxH or any", join_pointer(where, "sizes", j),
                                    hint="e.g. 48x48"))
    return out
