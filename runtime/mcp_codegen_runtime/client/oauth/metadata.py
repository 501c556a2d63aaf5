"""Discovery for the MCP authorization flow: protected resource and authorization server metadata.

Used by :class:`~client.oauth.flow.OAuthFlow`; every function takes the transport's
``httpx.AsyncClient`` (redirects are not followed: a metadata URL must answer itself).

* :func:`parse_challenge`: the parameters of a ``WWW-Authenticate: Bearer ...`` challenge
  (``resource_metadata``, ``scope``, ``error``).
* :func:`discover_resource`: protected resource metadata (RFC 9728): the
  ``resource_metadata`` URL of the challenge, else ``/.well-known/oauth-protected-resource``
  with the server URL's path appended, else at the root.  None when there is none (a server of
  the 2025-03-26 revision).
* :func:`check_resource`: the metadata's ``resource`` must name this server: same scheme,
  host and port, and a path that is the server URL's path or a parent of it.
* :func:`discover_issuer`: authorization server metadata (RFC 8414 and OpenID Connect
  Discovery), with the well-known suffix inserted before the issuer's path, then OpenID's
  appended form; the document's ``issuer`` must equal the issuer the URL was built from
  (simple string comparison, RFC 8414 §3.3); a mismatch is refused, not skipped.
* :func:`check_endpoint`: every URL the flow fetches or sends the user to because a server
  named it (the challenge's ``resource_metadata``, ``authorization_servers``, the
  authorization, token and registration endpoints) must be ``https``; plain ``http`` only to
  a loopback host when the MCP server itself is on loopback; never another scheme.  A host
  that is an address must be public, loopback only for a loopback MCP server, private
  (RFC 1918, ``fc00::/7``) only for a loopback or private MCP server, never link-local
  (``169.254/16``, ``fe80::/10``), unspecified, multicast or reserved.  ``allow_local``
  (``OAuthSettings.allow_local_urls``) lifts the address and ``http`` rules, not the scheme one.
  Here host names are not resolved (``localhost`` counts as loopback); the flow's HTTP clients
  resolve each one when they connect and apply the same rules to its addresses
  (``client/oauth/net.py``).
* :func:`read_limited`: documents (and registration answers) are read as a stream and cut at :data:`MAX_METADATA_BYTES` and
  :data:`METADATA_DEADLINE` seconds; redirects are not followed.
* :func:`fallback_metadata`: the 2025-03-26 defaults when a server without resource metadata
  has no authorization server metadata either: ``/authorize``, ``/token`` and ``/register``
  at the server's origin.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from ...wire.urls import comparable_url
from ..http.auth import OAuthError

if TYPE_CHECKING:  # types only; httpx is optional
    import httpx  # type: ignore[import-not-found, unused-ignore]

logger = logging.getLogger("mcp_codegen.client.oauth")

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
OAUTH_WELL_KNOWN = "/.well-known/oauth-authorization-server"
OPENID_WELL_KNOWN = "/.well-known/openid-configuration"
#: The largest metadata document read.
MAX_METADATA_BYTES = 256 * 1024
#: Most seconds spent reading one metadata document (a server trickling bytes is cut).
METADATA_DEADLINE = 10.0

_PARAM = re.compile(r'([A-Za-z0-9_\-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


def parse_challenge(header: str | None) -> dict[str, str]:
    """The auth-params of a ``Bearer`` (or ``DPoP``, RFC 9449 §7.1) challenge (lower-case names); {} without one."""
    if not header:
        return {}
    match = re.search(r"(?:^|,)\s*(?:bearer|dpop)\b", header, re.IGNORECASE)
    if match is None:
        return {}
    params: dict[str, str] = {}
    for m in _PARAM.finditer(header, match.end()):
        name = m.group(1).lower()
        value = m.group(2) if m.group(2) is not None else m.group(3)
        params.setdefault(name, re.sub(r"\\(.)", r"\1", value))
    return params


def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def canonical_resource(url: str) -> str:
    """The canonical URI of an MCP server (RFC 8707): lower-case scheme and host, no
    fragment, no query, no trailing slash."""
    return comparable_url(url, query=False)


def check_resource(resource: str, server_url: str) -> None:
    """Refuse protected resource metadata that names another resource than ``server_url``.

    Raises:
        OAuthError: another origin, or a path that is not ``server_url``'s nor a parent of it.
    """
    have, want = urlsplit(canonical_resource(resource)), urlsplit(canonical_resource(server_url))
    if (have.scheme, have.netloc) != (want.scheme, want.netloc):
        raise OAuthError(f"the protected resource metadata names resource {resource!r}, not this server ({server_url})")
    parent = have.path.rstrip("/") + "/"
    if have.path and want.path != have.path and not want.path.startswith(parent):
        raise OAuthError(f"the protected resource metadata names resource {resource!r}, not this server ({server_url})")


def address_allowed(kind: str, server: str) -> bool:
    """May the flow of an MCP server of address kind ``server`` reach an address of ``kind``?"""
    return not (kind == "forbidden" or (kind == "loopback" and server != "loopback")
                or (kind == "private" and server not in ("loopback", "private")))


def address_kind(host: str) -> str:
    """``loopback``, ``private``, ``forbidden`` (link-local, unspecified, multicast,
    reserved), ``public``, or ``name`` (a host name, not resolved)."""
    if host.lower().rstrip(".") == "localhost" or host.lower().endswith(".localhost"):
        return "loopback"
    try:
        ip = ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return "name"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local or ip.is_unspecified or ip.is_multicast or ip.is_reserved:
        return "forbidden"
    return "private" if ip.is_private else "public"


def check_endpoint(url: Any, server_url: str, what: str, *, allow_local: bool = False) -> str:
    """``url`` when the flow may use it (module docstring), for a flow with ``server_url``.

    Raises:
        OAuthError: another scheme, plain http, or an address the MCP server's own does not allow.
    """
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise OAuthError(f"{what} is not an http(s) URL: refused")
    kind = address_kind(parts.hostname)
    if allow_local:
        return str(url)
    server = address_kind(urlsplit(server_url).hostname or "")
    if not address_allowed(kind, server):
        raise OAuthError(f"{what} {url} points at a {kind} address: refused "
                         "(OAuthSettings(allow_local_urls=True) allows it)")
    if parts.scheme == "http" and not (kind == "loopback" and server == "loopback"):
        raise OAuthError(f"{what} {url} is not https: refused (plain http only on loopback)")
    return str(url)


async def read_limited(http: httpx.AsyncClient, method: str, url: str, what: str = "metadata",
                       **options: Any) -> tuple[int, bytes]:
    """(status, body) of a request, the body read as a stream, cut beyond
    :data:`MAX_METADATA_BYTES` and after :data:`METADATA_DEADLINE` seconds in all.

    Raises:
        OAuthError: the body is too large or too slow.
        httpx.HTTPError: the request failed.
    """
    async def read() -> tuple[int, bytes]:
        async with http.stream(method, url, **options) as resp:
            body = bytearray()
            async for chunk in resp.aiter_bytes():
                body += chunk
                if len(body) > MAX_METADATA_BYTES:
                    raise OAuthError(f"{url}: {what} larger than {MAX_METADATA_BYTES} bytes")
            return resp.status_code, bytes(body)

    try:
        return await asyncio.wait_for(read(), METADATA_DEADLINE)
    except TimeoutError:
        raise OAuthError(f"{url}: {what} not read within {METADATA_DEADLINE:g} s") from None


async def _get_json(http: httpx.AsyncClient, url: str) -> dict[str, Any] | None:
    """GET a JSON object; None on any HTTP error status, network error or non-object body.

    Raises:
        OAuthError: the document is too large or too slow.
    """
    import json

    import httpx

    try:
        status, content = await read_limited(http, "GET", url, headers={"accept": "application/json"})
    except httpx.HTTPError as exc:
        logger.debug("GET %s failed: %r", url, exc)
        return None
    if status != 200:
        logger.debug("GET %s: HTTP %d", url, status)
        return None
    try:
        data = json.loads(content)
    except ValueError:
        logger.debug("GET %s: not JSON", url)
        return None
    return data if isinstance(data, dict) else None


def resource_metadata_urls(server_url: str, challenge: dict[str, str]) -> list[str]:
    """Where protected resource metadata is looked for, in order (RFC 9728 and MCP)."""
    urls: list[str] = []
    if challenge.get("resource_metadata"):
        urls.append(challenge["resource_metadata"])
    base = origin(server_url)
    path = urlsplit(server_url).path.rstrip("/")
    if path:
        urls.append(base + PRM_WELL_KNOWN + path)
    urls.append(base + PRM_WELL_KNOWN)
    return list(dict.fromkeys(urls))


async def discover_resource(http: httpx.AsyncClient, server_url: str, challenge: dict[str, str], *,
                            allow_local: bool = False) -> dict[str, Any] | None:
    """The protected resource metadata of ``server_url``, checked; None when there is none.

    Raises:
        OAuthError: metadata without ``authorization_servers`` or naming another resource, or
            a URL :func:`check_endpoint` refuses.
    """
    for url in resource_metadata_urls(server_url, challenge):
        if url == challenge.get("resource_metadata"):
            check_endpoint(url, server_url, "the resource_metadata URL", allow_local=allow_local)
        prm = await _get_json(http, url)
        if prm is None:
            continue
        servers = prm.get("authorization_servers")
        if not isinstance(servers, list) or not servers or not all(isinstance(s, str) for s in servers):
            raise OAuthError(f"{url}: protected resource metadata without authorization_servers")
        resource = prm.get("resource")
        if not isinstance(resource, str) or not resource:
            raise OAuthError(f"{url}: protected resource metadata without resource")
        check_resource(resource, server_url)
        check_endpoint(servers[0], server_url, "the authorization server", allow_local=allow_local)
        return prm
    return None


def issuer_metadata_urls(issuer: str) -> list[str]:
    """Where authorization server metadata of ``issuer`` is looked for, in order (MCP
    2025-11-25: RFC 8414 path insertion, OpenID path insertion, OpenID path appending)."""
    base = origin(issuer)
    path = urlsplit(issuer).path.rstrip("/")
    if not path:
        return [base + OAUTH_WELL_KNOWN, base + OPENID_WELL_KNOWN]
    return [base + OAUTH_WELL_KNOWN + path, base + OPENID_WELL_KNOWN + path, base + path + OPENID_WELL_KNOWN]


async def discover_issuer(http: httpx.AsyncClient, issuer: str, server_url: str | None = None, *,
                          allow_local: bool = False) -> dict[str, Any] | None:
    """The authorization server metadata of ``issuer``; None when no well-known URL has any.

    Raises:
        OAuthError: a document whose ``issuer`` is not ``issuer`` (it must not be used), one
            without the endpoints the flow needs, or an endpoint :func:`check_endpoint`
            refuses (for a flow with ``server_url``).
    """
    for url in issuer_metadata_urls(issuer):
        meta = await _get_json(http, url)
        if meta is None:
            continue
        if meta.get("issuer") != issuer:
            raise OAuthError(
                f"the authorization server metadata at {url} names issuer {meta.get('issuer')!r}, "
                f"not {issuer!r}: refused (RFC 8414 §3.3)"
            )
        for key in ("authorization_endpoint", "token_endpoint"):
            if not isinstance(meta.get(key), str):
                raise OAuthError(f"the authorization server metadata at {url} has no {key}")
        if server_url is not None:
            for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint"):
                if key in meta:
                    check_endpoint(meta[key], server_url, f"the {key}", allow_local=allow_local)
        return meta
    return None


def fallback_metadata(server_url: str) -> dict[str, Any]:
    """The 2025-03-26 default endpoints at the server's origin (no ``issuer``)."""
    base = origin(server_url)
    return {
        "authorization_endpoint": base + "/authorize",
        "token_endpoint": base + "/token",
        "registration_endpoint": base + "/register",
    }


__all__ = [
    "OAuthError",
    "address_allowed",
    "address_kind",
    "canonical_resource",
    "check_endpoint",
    "check_resource",
    "discover_issuer",
    "discover_resource",
    "fallback_metadata",
    "parse_challenge",
    "read_limited",
]
