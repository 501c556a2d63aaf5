"""Upstream-bound tools: a tool whose spec carries an ``http`` binding is served by calling a
REST API (the spec's ``upstream``), with no hand-written handler.

Generated code (``upstream.py``, ``server.py`` of a spec converted by ``mcp-codegen openapi``)
builds :class:`UpstreamDef` and one :class:`HttpBinding` per tool from the spec's own JSON and
mixes :class:`UpstreamServer` into the server base class, whose handlers return
``self.call_upstream(TOOL, BINDING, args, ctx)``.  The binding format is documented in
``docs/openapi.md``.

By concern:

================  ==========================================================================
``binding``       the ``upstream`` and ``http`` JSON parsed into frozen dataclasses
                  (``ValueError`` naming the key)
``serialize``     OpenAPI ``style``/``explode`` for path, query, header and cookie, and the
                  percent-encoding OpenAPI 3.1 asks for (a value never changes the path)
``body``          the request body: JSON, form-urlencoded, multipart (files from base64),
                  text, binary (from base64)
``request``       the request of one call: URL under the base URL, headers, cookies, body
``credentials``   apiKey, bearer, basic and OAuth 2 client credentials (authlib) from the
                  environment only; secrets kept out of logs
``client``        the pooled ``httpx.AsyncClient`` of a server instance: timeouts, no
                  redirects, retries of idempotent methods
``results``       the answer as a ``ToolResult`` (JSON checked against the ``outputSchema``,
                  text, image, audio, resource) or as the declared error of its status
``server``        the :class:`UpstreamServer` mixin: base URL precedence, forwarded headers,
                  the call, the client closed with the server
================  ==========================================================================
"""

from __future__ import annotations

from .binding import HttpBinding, UpstreamDef
from .server import UpstreamServer

__all__ = ["HttpBinding", "UpstreamDef", "UpstreamServer"]
