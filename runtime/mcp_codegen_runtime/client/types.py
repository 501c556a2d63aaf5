"""Client-side data types: user handler payloads, hook records and reports.

These are the typed values the generated client hands to user code:

* handler payloads for client input (:class:`ElicitationRequest` /
  :class:`ElicitationResponse`, :class:`SamplingRequest` / :class:`SamplingResponse`,
  :class:`Root`) — the same types in both protocol eras (legacy: the server sends a
  JSON-RPC request; 2026-07-28: an ``input_required`` result lists the requests);
* hook records (:class:`ToolCallInfo` for the confirm hook, :class:`AuditRecord` for the
  audit hook, :class:`Progress` for progress callbacks);
* :class:`CompatReport` returned by ``check_compat()``.

Handlers may be plain functions or coroutine functions; plain functions run in a worker
thread (so a handler may block on a human without stalling the event loop).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from ..wire.tools import ToolDef


class _Wire(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ElicitationRequest(_Wire):
    """``elicitation/create`` params (form or URL mode).

    ``tool`` and ``key`` say which tool call asked and under which ``inputRequests`` key
    (2026-07-28); ``input_def`` is the spec's declared input for that key, when the tool
    is one of the generated client's own tools.  In the legacy era ``tool`` is filled
    when exactly one tool call is in flight, ``key``/``input_def`` when the message
    matches a declared input of that tool.
    """

    message: str = ""
    mode: Literal["form", "url"] = "form"
    requestedSchema: dict[str, Any] | None = None
    url: str | None = None
    elicitationId: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")
    tool: str | None = Field(default=None, exclude=True)
    key: str | None = Field(default=None, exclude=True)
    input_def: Any = Field(default=None, exclude=True)


class ElicitationResponse(_Wire):
    """The user's answer: ``accept`` (with ``content`` for forms), ``decline`` or ``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


class SamplingRequest(_Wire):
    """``sampling/createMessage`` params (messages are kept as wire dicts)."""

    messages: list[dict[str, Any]] = Field(default_factory=list)
    maxTokens: int = 0
    systemPrompt: str | None = None
    modelPreferences: dict[str, Any] | None = None
    includeContext: str | None = None
    temperature: float | None = None
    stopSequences: list[str] | None = None
    metadata: dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = None
    toolChoice: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")
    tool: str | None = Field(default=None, exclude=True)
    key: str | None = Field(default=None, exclude=True)


class SamplingResponse(_Wire):
    """The sampled message: ``content`` is a content block dict (e.g. ``{"type":"text",...}``)."""

    role: Literal["assistant", "user"] = "assistant"
    content: Any
    model: str
    stopReason: str | None = None


class Root(_Wire):
    """A root the client exposes (``file://`` URI and optional name)."""

    uri: str
    name: str | None = None


ElicitationHandler: TypeAlias = Callable[
    [ElicitationRequest], "Awaitable[ElicitationResponse] | ElicitationResponse"
]
SamplingHandler: TypeAlias = Callable[[SamplingRequest], "Awaitable[SamplingResponse] | SamplingResponse"]
RootsHandler: TypeAlias = Callable[[], "Awaitable[list[Root]] | list[Root]"]


@dataclass(frozen=True)
class Progress:
    """One ``notifications/progress`` for a call."""

    progress: float
    total: float | None = None
    message: str | None = None


ProgressCallback: TypeAlias = Callable[[Progress], "Awaitable[None] | None"]


@dataclass(frozen=True)
class ToolCallInfo:
    """What the confirm hook is shown before a tool call is sent.

    ``tool_def`` is the generated definition when the tool is one of the client's own
    (its annotations come from the spec and are trusted); for any other tool it is
    ``None`` and ``annotations`` come from the server's ``tools/list`` (untrusted, may
    be empty).  ``reason`` says why confirmation is asked: ``"not read-only"``,
    ``"destructive"`` or ``"unknown tool"``.
    """

    tool: str
    arguments: Mapping[str, Any]
    reason: str
    tool_def: ToolDef | None = None
    annotations: Mapping[str, Any] = field(default_factory=dict)
    title: str | None = None
    description: str | None = None


ConfirmHook: TypeAlias = Callable[[ToolCallInfo], "Awaitable[bool] | bool"]


@dataclass(frozen=True)
class AuditRecord:
    """One tool call, as given to the audit hook (after it finished, whatever the outcome).

    ``outcome`` is ``"ok"``, ``"tool_error"`` (``isError`` result), ``"denied"`` (the confirm
    hook refused; nothing was sent), ``"timeout"``, ``"transport_closed"``, ``"cancelled"``
    or ``"error"``; ``error`` names the exception class when not ok.
    ``arguments_sha256`` is the sha256 of the canonical JSON of the arguments (see
    ``tools.canonical_json``), so logs can correlate calls without storing the values.
    """

    tool: str
    arguments_sha256: str
    outcome: str
    duration_s: float
    era: str | None
    protocol_version: str | None
    error: str | None = None
    error_code: int | str | None = None
    rounds: int = 1
    server: str | None = None


AuditHook: TypeAlias = Callable[[AuditRecord], "Awaitable[None] | None"]


@dataclass(frozen=True)
class ToolChange:
    """One tool whose fingerprint differs between the generated client and the server."""

    name: str
    expected_fingerprint: str
    live_fingerprint: str
    #: Which parts differ: any of ``"inputSchema"``, ``"outputSchema"``.
    fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class CatalogChange:
    """A resource (by URI), resource template or prompt (by name) that differs from the server."""

    kind: Literal["resource", "template", "prompt"]
    key: str
    #: ``removed`` (the client uses it, the server lacks it), ``changed`` (see ``detail``) or
    #: ``added`` (on the server only: safe).
    change: Literal["removed", "changed", "added"]
    detail: str = ""


@dataclass(frozen=True)
class CompatReport:
    """Generated tool table vs. the live ``tools/list`` (by ``ToolDef.fingerprint``).

    ``added``: on the server only; ``removed``: in the client only (calls will fail);
    ``changed``: schemas differ; ``unchanged``: identical fingerprints.
    """

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[ToolChange, ...]
    unchanged: tuple[str, ...]
    #: Resources, templates and prompts that differ (``client/compat.py``).
    catalog: tuple[CatalogChange, ...] = ()
    #: What was assumed, not a failure: e.g. a declared list the server answers with -32601.
    notes: tuple[str, ...] = ()

    @property
    def compatible(self) -> bool:
        """True when every tool, resource, template and prompt of the client exists on the server
        as the client expects it."""
        return not self.removed and not self.changed and all(c.change == "added" for c in self.catalog)

    def __str__(self) -> str:
        lines = [f"compatible: {self.compatible}"]
        lines += [f"  + {n} (server only)" for n in self.added]
        lines += [f"  - {n} (missing on server)" for n in self.removed]
        lines += [f"  ~ {c.name} ({', '.join(c.fields) or 'schemas'} differ)" for c in self.changed]
        marks = {"added": "+", "removed": "-", "changed": "~"}
        lines += [f"  {marks[c.change]} {c.kind} {c.key}" + (f" ({c.detail})" if c.detail else f" ({c.change})")
                  for c in self.catalog]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)
