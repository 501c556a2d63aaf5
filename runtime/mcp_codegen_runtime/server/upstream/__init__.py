"""Upstream-bound tools: a tool whose spec carries an ``http`` binding is served by calling a
REST API (the spec's ``upstream``), with no hand-written handler.

Generated code (``upstream.py``, ``server.py`` of a spec converted by ``mcp-codegen openapi``)
builds :class:`UpstreamDef` and one :class:`HttpBinding` per tool from the spec's own JSON and
mixes :class:`UpstreamServer` into the server base class, whose handlers return
``self.call_upstream(TOOL, BINDING, args, ctx)``.  The binding format is documented in
``docs/openapi.md``.
"""

from __future__ import annotations

from .binding import HttpBinding, UpstreamDef
from .server import UpstreamServer

__all__ = ["HttpBinding", "UpstreamDef", "UpstreamServer"]
