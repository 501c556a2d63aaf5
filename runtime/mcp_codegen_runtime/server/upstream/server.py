"""The mixin that gives a generated server base class its upstream-calling handlers.

A generated handler is ``return self.call_upstream(TOOL, BINDING, args, ctx)``.  Each call:

1. builds the request from the arguments (``request.py``, ``serialize.py``, ``body.py``) under
   the base URL: :meth:`UpstreamServer.configure_upstream` (``--upstream``), else the
   environment variable ``upstream.env`` (default ``<SERVER>_BASE_URL``), else ``baseUrl``;
2. copies the caller's HTTP request headers named in ``upstream.forwardHeaders`` (none over
   stdio), then the binding's own headers, then the credentials (``credentials.py``) over them;
3. sends it through the instance's pooled client (``client.py``), closed with the server
   (:meth:`~server.dispatch.ServerCore.on_close`, run by ``close_shared`` on shutdown);
4. turns the answer into the result or error (``results.py``).

Failures are tool errors (``isError``) that never carry our internals: no URL with its query,
no header, no exception text; a transport failure is ``"the upstream did not answer: <kind>"``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

from pydantic import BaseModel

from ...wire.content import ToolResult
from ...wire.tools import ToolDef
from .binding import HttpBinding, UpstreamDef
from .client import AnswerTooLarge, UpstreamClient
from .credentials import CredentialStore, install_redactor
from .request import Outgoing, build
from .results import failure, success, upstream_error
from .serialize import SerializeError

logger = logging.getLogger("mcp_codegen.server.upstream")

#: Headers never forwarded, whatever ``forwardHeaders`` says: the connection's own
#: (RFC 9110 §7.6.1), and those that describe the MCP request rather than the caller.
_NEVER_FORWARDED = frozenset({
    "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
    "content-length", "content-type", "content-encoding", "expect", "proxy-authorization", "proxy-authenticate",
})


class _State:
    """One server instance's upstream client and credentials."""

    def __init__(self, upstream: UpstreamDef) -> None:
        self.client = UpstreamClient(upstream.timeout, upstream.retries)
        self.credentials = CredentialStore(upstream.security, upstream.timeout)

    async def aclose(self) -> None:
        await self.client.aclose()
        await self.credentials.aclose()


def _check_base(url: str, where: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{where}: the upstream base URL must be an absolute http(s) URL")
    return url


class UpstreamServer:
    """Mixed into a generated server base class whose tools call a REST API (module docstring)."""

    upstream: ClassVar[UpstreamDef]
    #: ``--upstream URL`` (set by :meth:`configure_upstream`); beats the environment and the spec.
    upstream_override: ClassVar[str | None] = None

    @classmethod
    def configure_upstream(cls, base_url: str | None) -> None:
        """Replace the upstream's base URL (path included) for every instance; ``None`` keeps it.

        Raises:
            ValueError: ``base_url`` is not an absolute http(s) URL.
        """
        if base_url is not None:
            cls.upstream_override = _check_base(base_url, "--upstream")

    def upstream_base_url(self) -> str:
        """The base URL in force: :meth:`configure_upstream`, the environment variable, the spec.

        Raises:
            ToolError: the environment variable holds no absolute http(s) URL.
        """
        if self.upstream_override is not None:
            return self.upstream_override
        info = getattr(self, "server_info", None)
        env = self.upstream.env_name(info.name if info is not None else "")
        value = os.environ.get(env)
        if value:
            try:
                return _check_base(value, env)
            except ValueError as exc:
                raise upstream_error(str(exc)) from None
        return self.upstream.base_url

    def _upstream_state(self) -> _State:
        state: _State | None = self.__dict__.get("_upstream_state_")
        if state is None:
            install_redactor()
            state = self.__dict__["_upstream_state_"] = _State(self.upstream)
            on_close = getattr(self, "on_close", None)
            if on_close is not None:
                on_close(state.aclose)
        return state

    def call_upstream(self, tool: ToolDef, binding: HttpBinding, args: BaseModel, ctx: Any) -> Awaitable[ToolResult]:
        """Send ``args`` to the upstream as ``binding`` says and turn the answer into a result.

        The awaitable raises :class:`~wire.errors.ToolError` (or the tool's declared error) for
        every failure the caller should see (module docstring).
        """
        headers: Mapping[str, str] = getattr(ctx, "request_headers", None) or {}
        return self._call_upstream(tool, binding, args, headers)

    async def _call_upstream(self, tool: ToolDef, binding: HttpBinding, args: BaseModel,
                             caller_headers: Mapping[str, str]) -> ToolResult:
        values = args.model_dump(mode="json", by_alias=True, exclude_unset=True)
        try:
            outgoing = build(binding, values, self.upstream_base_url())
        except SerializeError as exc:
            raise upstream_error(f"cannot send the arguments: {exc}") from None
        state = self._upstream_state()
        alternatives = binding.security if binding.security is not None else self.upstream.default_security
        forward = self.upstream.forward_headers
        forwarded = _merge({name: value for name, value in caller_headers.items()
                            if name.lower() in forward and name.lower() not in _NEVER_FORWARDED},
                           outgoing.headers) if forward and caller_headers else outgoing.headers
        for attempt in (1, 2):
            applied = await state.credentials.apply(alternatives, tool.name)
            headers = _merge(forwarded, applied.headers)
            cookies = outgoing.cookies + applied.cookies
            if cookies:
                headers = _merge(headers, {"Cookie": "; ".join(cookies)})
            url = outgoing.url(applied.query)
            answer = await self._send(state, outgoing, url, headers)
            if answer.status == 401 and applied.oauth and attempt == 1:
                state.credentials.drop_tokens(applied.oauth)  # a revoked or expired token: one fresh try
                continue
            if 200 <= answer.status < 300:
                return success(tool, binding, answer, url)
            raise failure(tool, binding, answer)
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    async def _send(state: _State, outgoing: Outgoing, url: str, headers: dict[str, str]) -> Any:
        import httpx

        body = outgoing.body
        try:
            return await state.client.send(outgoing.method, url, headers, body.content if body else None,
                                           body.parts if body else None)
        except httpx.TimeoutException as exc:
            kind = f"timeout ({type(exc).__name__})"
        except httpx.ConnectError:
            kind = "connection failed (ConnectError)"
        except httpx.TransportError as exc:
            kind = f"connection broken ({type(exc).__name__})"
        except AnswerTooLarge:
            raise upstream_error("the upstream's answer is too large") from None
        logger.info("the upstream did not answer: %s", kind)
        raise upstream_error(f"the upstream did not answer: {kind}")


def _merge(base: Mapping[str, str], over: Mapping[str, str]) -> dict[str, str]:
    """``base`` with ``over``'s headers replacing those of the same name (case-insensitive)."""
    names = {name.lower() for name in over}
    return {**{k: v for k, v in base.items() if k.lower() not in names}, **over}


__all__ = ["UpstreamServer"]
