"""Static description of a server's tools, emitted by the generator into ``tools.py``.

The generated ``tools.py`` holds one :class:`ToolDef` per tool and one :class:`ServerInfo`;
the server base class and the client class both read them, which is what keeps the two
sides of one spec in sync.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .errors import DeclaredToolError


@dataclass(frozen=True)
class AuthDef:
    """The spec's ``server.auth``: the server is an OAuth 2.1 resource server (docs/auth.md).

    Attributes:
        authorization_servers: issuer URLs of the authorization servers whose tokens are
            accepted (RFC 9728 ``authorization_servers``; a token's ``iss`` must be one).
        resource: the canonical URL of the MCP endpoint (RFC 8707; the audience tokens must
            name), or None to give it at run time (``--auth-resource``).
        scopes: scopes every request needs (besides a tool's own ``scopes``).
        scopes_supported: further scopes to advertise (the protected resource metadata lists
            these, ``scopes`` and every tool's scopes).
        resource_name: a human-readable name for the metadata.
    """

    authorization_servers: tuple[str, ...]
    resource: str | None = None
    scopes: tuple[str, ...] = ()
    scopes_supported: tuple[str, ...] = ()
    resource_name: str | None = None


@dataclass(frozen=True)
class ServerInfo:
    """Identity and instructions of a generated server (``serverInfo`` on the wire)."""

    name: str
    version: str
    title: str | None = None
    description: str | None = None
    instructions: str | None = None
    #: Default ``module:Class`` implementing the server, used by ``python -m <package>``.
    implementation: str | None = None
    #: The spec's ``server.auth`` (OAuth resource server), or None.
    auth: AuthDef | None = None
    #: The spec file the package was generated from, as its header names it (for messages
    #: such as ``--check``'s; never sent to clients).
    spec: str | None = None


@dataclass(frozen=True)
class InputDef:
    """A client input a tool may ask for during a call (spec key ``inputs``).

    ``method`` is ``elicitation/create``, ``sampling/createMessage`` or ``roots/list``;
    ``params`` are the request params as written in the spec (e.g. ``message`` and
    ``requestedSchema`` for a form elicitation).  ``response_model`` is the generated
    model of the elicitation form content, when there is one.
    """

    key: str
    method: str
    params: Mapping[str, Any]
    response_model: type[BaseModel] | None = None


@dataclass(frozen=True)
class ToolDef:
    """Everything the runtime knows about one tool.

    Attributes:
        name: the wire name (``tools/call`` ``name``).
        method: the Python method name of the handler (server) and of the typed
            call (client); decided by the generator, never derived at run time.
        wire: the Tool object as listed by ``tools/list`` in the newest protocol
            version; ``inputSchema``/``outputSchema`` are self-contained (shared
            ``$defs`` bundled in).  Older versions drop fields from it at run time.
        input_model: the pydantic model of the arguments.
        output_model: the pydantic model of ``structuredContent`` (``None`` when the
            tool declares no ``outputSchema``).  A ``RootModel`` when the output is not
            an object.
        schema_checked: True when the models cannot express a schema exactly; the
            runtime then validates against the original schema (``jsonschema``) first
            and the (looser) models only give the handler its typed view.
        assert_formats: ``format`` is an assertion (the spec's ``server.formatAssertion``),
            checked with ``jsonschema``'s format checker; otherwise an annotation.
        raw_output: the spec's ``raw_output: true``: text content is sent as the handler
            wrote it (by default terminal control sequences are stripped).
        errors: declared error code -> exception class.
        inputs: declared input key -> :class:`InputDef`.
        scopes: OAuth scopes a caller's token needs to call this tool (spec key ``scopes``;
            enforced by the HTTP transport with 403 ``insufficient_scope``, docs/auth.md).
        fingerprint: sha256 of the canonical JSON of name + schemas, for drift checks.
        client_output_schema: the spec's ``overlays`` output type of a tool whose server
            publishes no ``outputSchema`` (the client checks results against it; never sent,
            not in ``wire`` nor in ``fingerprint``).
        client_output_checked: that schema needs ``jsonschema`` beside its model (W100).
        task_support: the spec's ``task`` key: ``forbidden`` (default), ``optional`` (runs as a
            task of the ``io.modelcontextprotocol/tasks`` extension when the client declared it)
            or ``required`` (only as a task; other clients get -32021).  See ``server.tasks``.
    """

    name: str
    method: str
    wire: Mapping[str, Any]
    input_model: type[BaseModel]
    output_model: type[BaseModel] | None = None
    schema_checked: bool = False
    assert_formats: bool = False
    raw_output: bool = False
    errors: Mapping[str, type[DeclaredToolError]] = field(default_factory=dict)
    inputs: Mapping[str, InputDef] = field(default_factory=dict)
    fingerprint: str = ""
    scopes: tuple[str, ...] = ()
    client_output_schema: Mapping[str, Any] | None = None
    client_output_checked: bool = False
    task_support: str = "forbidden"

    @property
    def read_only(self) -> bool:
        """The ``readOnlyHint`` annotation (a hint only; default False)."""
        ann = self.wire.get("annotations") or {}
        return bool(ann.get("readOnlyHint", False))

    @property
    def destructive(self) -> bool:
        """``destructiveHint`` (default True), meaningful only when not read-only."""
        ann = self.wire.get("annotations") or {}
        return not self.read_only and bool(ann.get("destructiveHint", True))


def canonical_json(value: Any) -> str:
    """Canonical JSON text: sorted keys, no whitespace, UTF-8 kept as is.

    Used for tool fingerprints and for the argument digests of the client audit hook.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def tool_fingerprint(wire: Mapping[str, Any]) -> str:
    """sha256 (hex) of the canonical JSON of a wire Tool's name, inputSchema and outputSchema.

    The generator stores it as ``ToolDef.fingerprint``; the client recomputes it from the
    live ``tools/list`` in ``check_compat()``.  Other fields (description, annotations,
    ...) do not count; an absent key (e.g. no ``outputSchema``) is left out.
    """
    core = {k: wire[k] for k in ("name", "inputSchema", "outputSchema") if k in wire}
    return hashlib.sha256(canonical_json(core).encode("utf-8")).hexdigest()
