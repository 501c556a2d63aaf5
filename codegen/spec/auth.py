"""Checks of the OAuth parts of a spec: ``server.auth`` URLs and tool ``scopes`` (docs/auth.md).

The structural check (spec-format.schema.json) already holds the shapes and the scope
syntax; here: issuer and resource URLs must be absolute ``http(s)`` URLs without a
fragment (issuers also without a query, RFC 8414) — E090; plain ``http`` to a host that is
not loopback is W107; tools declaring ``scopes`` in a spec without ``server.auth`` get W108.
"""

from __future__ import annotations

import ipaddress
import urllib.parse

from ..diagnostics import Diagnostic, Level
from .load import SourceDoc
from .model import SpecFile
from .pointer import join_pointer


def _loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _url(doc: SourceDoc, url: str, ptr: str, what: str, *, issuer: bool) -> list[Diagnostic]:
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
    except ValueError:
        parts, host = None, None
    if parts is None or parts.scheme not in ("http", "https") or not host or parts.fragment or (issuer and parts.query):
        extra = " or query" if issuer else ""
        return [doc.diag("E090", f"{what} {url!r} is not an absolute http(s) URL without a fragment{extra}", ptr,
                         hint="e.g. https://auth.example.com" if issuer else "e.g. https://mcp.example.com/mcp")]
    if parts.scheme == "http" and not _loopback(host):
        return [doc.diag("W107", f"{what} {url!r} uses plain http", ptr, level=Level.WARNING,
                         hint="tokens and keys travel in the clear; use https (http is fine for loopback only)")]
    return []


def auth_checks(doc: SourceDoc, spec: SpecFile) -> list[Diagnostic]:
    """Diagnostics of ``server.auth`` and of tool ``scopes`` (module docstring)."""
    out: list[Diagnostic] = []
    auth = spec.server.auth
    if auth is not None:
        for i, url in enumerate(auth.authorization_servers):
            out.extend(_url(doc, url, join_pointer("/server/auth/authorizationServers", i), "authorization server",
                            issuer=True))
        if auth.resource is not None:
            out.extend(_url(doc, auth.resource, "/server/auth/resource", "resource", issuer=False))
    else:
        for tool in spec.tools:
            if tool.scopes:
                out.append(doc.diag("W108", f"tool {tool.name!r} declares scopes but the spec has no server.auth",
                                    join_pointer(tool.pointer, "scopes"), level=Level.WARNING,
                                    hint="add server.auth (authorizationServers, ...) or configure OAuth with the "
                                    "--auth-* flags; static tokens pass scope checks"))
    return out
