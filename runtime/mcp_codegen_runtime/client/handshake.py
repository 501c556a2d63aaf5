"""The era probe: which protocol era and version a connection speaks.

By default the client probes ``server/discover`` (2026-07-28).  A DiscoverResult
means the modern era; a recognised modern error (-32022 with a common version:
retry; -32020/-32021: raise; over HTTP, -32601 with status 404) keeps it modern; any
other error (-32601 on stdio) or a timeout falls back to the legacy ``initialize``
handshake.  ``era="modern"|"legacy"`` or
``protocol_version="2025-06-18"`` (etc.) force one.  In the modern era every
request carries ``_meta`` (:func:`modern_meta`: protocolVersion, clientCapabilities,
clientInfo); capabilities are declared only for the handlers given.

:class:`Handshake` only talks; the client stores the :class:`Negotiated` outcome,
tells the transport, and (legacy) sends ``notifications/initialized``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal, cast

from ..wire import protocol as p
from ..wire.errors import (
    HeaderMismatchError,
    McpError,
    McpTimeoutError,
    MethodNotFoundError,
    MissingCapabilityError,
    ProtocolError,
    TransportClosedError,
    UnsupportedProtocolVersionError,
)
from .session import JsonRpcSession, Timeouts

logger = logging.getLogger("mcp_codegen.client")

Era = Literal["modern", "legacy"]


def requested_era(era: Era | None, protocol_version: str | None) -> Era | None:
    """The era a client is asked for, from its ``era=`` and ``protocol_version=`` options.

    Args:
        era: ``"modern"``, ``"legacy"`` or ``None`` (probe).
        protocol_version: a version to insist on, or ``None``.

    Returns:
        The forced era, or ``None`` to probe.

    Raises:
        ValueError: an unknown era or version, or a version of the other era.
    """
    if era not in (None, "modern", "legacy"):
        raise ValueError(f"era must be 'modern' or 'legacy', not {era!r}")
    if protocol_version is not None:
        if protocol_version not in p.ALL_VERSIONS and protocol_version not in p.CLIENT_LEGACY_VERSIONS:
            raise ValueError(f"unsupported protocol version {protocol_version!r}")
        version_era: Era = "modern" if protocol_version in p.MODERN_VERSIONS else "legacy"
        if era is not None and era != version_era:
            raise ValueError(f"protocol version {protocol_version} is not of the {era} era")
        era = version_era
    return era


def modern_meta(version: str, capabilities: dict[str, Any], client_info: dict[str, Any]) -> dict[str, Any]:
    """The ``_meta`` every 2026-07-28 request carries."""
    return {
        p.META_PROTOCOL_VERSION: version,
        p.META_CLIENT_CAPABILITIES: capabilities,
        p.META_CLIENT_INFO: client_info,
    }


@dataclass(frozen=True)
class Negotiated:
    """The outcome of the handshake: era, version and what the server said about itself."""

    era: Era
    version: str
    capabilities: dict[str, Any]
    #: The live ``serverInfo`` (self-reported; for display and logging only).
    server_info: dict[str, Any]
    instructions: str | None


class Handshake:
    """Negotiates the era of one connection (see the module docstring).

    Args:
        session: the started JSON-RPC session.
        capabilities: the client capabilities to declare.
        client_info: the client's ``clientInfo``.
    """

    def __init__(self, session: JsonRpcSession, capabilities: dict[str, Any], client_info: dict[str, Any]) -> None:
        self.session = session
        self.capabilities = capabilities
        self.client_info = client_info

    async def negotiate(
        self, *, era: Era | None, version: str | None, probe_timeout: float, timeouts: Timeouts
    ) -> Negotiated:
        """Probe ``server/discover`` and fall back to ``initialize`` as the options allow.

        Args:
            era: the forced era, or ``None`` to probe.
            version: the forced protocol version, or ``None`` for the latest of the era.
            probe_timeout: idle and hard timeout of the unforced probe.
            timeouts: the timeouts of every other request.

        Returns:
            The agreed era and version, with the server's capabilities and identity.

        Raises:
            UnsupportedProtocolVersionError: no common version.
            McpError: the forced era failed, or a recognised modern error.
        """
        if era == "legacy":
            return await self.initialize(version or p.LATEST_LEGACY, timeouts)
        version = version or p.LATEST
        probe = Timeouts(idle=probe_timeout, hard=probe_timeout) if era is None else timeouts
        try:
            result = await self.discover(version, probe)
        except UnsupportedProtocolVersionError as exc:
            return await self._other_version(exc, era, timeouts)
        except (HeaderMismatchError, MissingCapabilityError, TransportClosedError):
            raise  # recognised modern errors and a lost connection: never fall back
        except (McpError, McpTimeoutError) as exc:
            if era == "modern":
                raise
            if isinstance(exc, MethodNotFoundError) and _http_status(exc) == 404:
                # HTTP 404 + -32601 comes from a 2026 server (TOOLS-PROTOCOL §2.3); on stdio,
                # or with another status, -32601 means legacy.
                logger.debug("server/discover: HTTP 404 + -32601, a 2026 server; staying modern")
                return _negotiated("modern", version, {}, None)
            logger.debug("server/discover failed (%s); falling back to initialize", exc)
            try:
                return await self.initialize(p.LATEST_LEGACY, timeouts)
            except UnsupportedProtocolVersionError:
                if not isinstance(exc, McpTimeoutError):
                    raise
                # the probe only came late (a slow start): the server took it and now serves
                # 2026-07-28 on this connection, refusing initialize; ask again, with time
                logger.debug("initialize refused after a late probe; server/discover again")
                return await self._late_modern(version, timeouts)
        return _discovered(version, result)

    async def _late_modern(self, version: str, timeouts: Timeouts) -> Negotiated:
        """``server/discover`` again with the full timeouts (after a timed-out probe)."""
        try:
            return _discovered(version, await self.discover(version, timeouts))
        except UnsupportedProtocolVersionError as exc:
            return await self._other_version(exc, "modern", timeouts)  # a malformed answer is an error, not a reason to fall back

    async def _other_version(self, exc: UnsupportedProtocolVersionError, era: Era | None,
                             timeouts: Timeouts) -> Negotiated:
        """After -32022: the newest modern version the server lists, else (probing) its newest
        legacy version through ``initialize``; otherwise the error stands."""
        supported = exc.data.get("supported") if isinstance(exc.data, dict) else None
        supported = [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []
        modern = [v for v in p.MODERN_VERSIONS if v in supported]
        legacy = [v for v in p.CLIENT_LEGACY_VERSIONS if v in supported]
        if modern:
            return _discovered(modern[-1], await self.discover(modern[-1], timeouts))
        if legacy and era is None:
            return await self.initialize(legacy[-1], timeouts)
        raise exc

    async def discover(self, version: str, timeouts: Timeouts) -> Any:
        """Send ``server/discover`` for ``version``; return the raw result."""
        params = {"_meta": modern_meta(version, self.capabilities, self.client_info)}
        return await self.session.request("server/discover", params, timeouts=timeouts)

    async def initialize(self, version: str, timeouts: Timeouts) -> Negotiated:
        """The legacy ``initialize`` request (``notifications/initialized`` is the caller's).

        Args:
            version: the protocol version to ask for.
            timeouts: the request's timeouts.

        Returns:
            The legacy era with the version the server answered.

        Raises:
            ProtocolError: a malformed result.
            UnsupportedProtocolVersionError: the server answered with no legacy version.
        """
        params = {
            "protocolVersion": version,
            "capabilities": self.capabilities,
            "clientInfo": self.client_info,
        }
        result = await self.session.request("initialize", params, timeouts=timeouts)
        if not isinstance(result, dict):
            raise ProtocolError("malformed initialize result", data=result)
        agreed = result.get("protocolVersion")
        if agreed not in p.CLIENT_LEGACY_VERSIONS:
            raise UnsupportedProtocolVersionError(
                f"server answered initialize with protocol version {agreed!r}; this client speaks "
                f"{', '.join(p.CLIENT_LEGACY_VERSIONS)} (initialize) and {', '.join(p.MODERN_VERSIONS)}",
                data={"supported": list(p.CLIENT_LEGACY_VERSIONS), "requested": version, "answered": agreed},
            )
        return legacy_outcome(cast(str, agreed), result)


def legacy_outcome(version: str, result: dict[str, Any]) -> Negotiated:
    """The legacy outcome of an ``InitializeResult`` (the handshake's, or a renewed session's)."""
    return _negotiated("legacy", version, result, result.get("serverInfo"))


def _http_status(exc: McpError) -> Any:
    """The HTTP status the HTTP transport put in an error's ``data`` (None elsewhere)."""
    return exc.data.get("httpStatus") if isinstance(exc.data, dict) else None


def _discovered(version: str, result: Any) -> Negotiated:
    """The modern outcome of a DiscoverResult (switching to a common version if needed)."""
    if not isinstance(result, dict):
        raise ProtocolError("malformed server/discover result", data=result)
    supported_versions = result.get("supportedVersions")
    if isinstance(supported_versions, list) and version not in supported_versions:
        common = [v for v in p.MODERN_VERSIONS if v in supported_versions]
        if not common:
            raise UnsupportedProtocolVersionError(
                f"server supports none of {list(p.MODERN_VERSIONS)}",
                data={"supported": supported_versions, "requested": version},
            )
        version = common[-1]
    meta = result.get("_meta")
    info = meta.get(p.META_SERVER_INFO) if isinstance(meta, dict) else None
    return _negotiated("modern", version, result, info)


def _negotiated(era: Era, version: str, result: dict[str, Any], info: Any) -> Negotiated:
    caps = result.get("capabilities")
    instr = result.get("instructions")
    return Negotiated(
        era=era,
        version=version,
        capabilities=caps if isinstance(caps, dict) else {},
        server_info=info if isinstance(info, dict) else {},
        instructions=instr if isinstance(instr, str) else None,
    )
