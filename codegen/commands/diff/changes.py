"""The vocabulary of ``mcp-codegen diff``: change kinds, their severity, and :class:`Change`.

Every change found between two versions of a server is a :class:`Change` with a stable
``kind`` (used by ``--allow TOOL:KIND``, in JSON/JUnit/SARIF output and in docs) whose
severity is fixed by :data:`KINDS`:

* ``breaking``: an existing client (any client, not only generated ones) may fail;
* ``codegen``: the wire contract is compatible but code using the generated package breaks
  (a Python method, class or keyword argument was renamed or removed);
* ``safe``: compatible for everyone.
"""

from __future__ import annotations

import enum
import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any


class Severity(enum.Enum):
    BREAKING = "breaking"
    CODEGEN = "codegen"
    SAFE = "safe"


B, C, S = Severity.BREAKING, Severity.CODEGEN, Severity.SAFE

#: kind -> (severity, one-line description).  Stable identifiers: never rename one.
KINDS: dict[str, tuple[Severity, str]] = {
    # servers and tools
    "server-removed": (B, "a server (spec) was removed"),
    "server-added": (S, "a server (spec) was added"),
    "server-info-changed": (S, "server name, version, title, description or instructions changed"),
    "tool-removed": (B, "a tool was removed"),
    "tool-renamed": (B, "a tool was renamed (same schemas, new name)"),
    "tool-added": (S, "a tool was added"),
    "tool-doc-changed": (S, "a tool's title or description changed"),
    "annotation-destructive": (B, "a tool became destructive, stopped being read-only or idempotent"),
    "annotation-changed": (S, "a tool annotation changed in a harmless direction"),
    "client-input-added": (B, "a tool now asks the client for input (elicitation, sampling, roots)"),
    "client-input-removed": (S, "a tool no longer asks the client for an input"),
    "client-input-changed": (S, "the message or parameters of a client input request changed"),
    "error-added": (S, "a tool declares a new error"),
    "error-removed": (C, "a declared error was removed (its exception class disappears)"),
    # resources, templates, prompts
    "resource-removed": (B, "a resource (fixed URI) was removed"),
    "resource-added": (S, "a resource was added"),
    "resource-changed": (S, "a resource's name, title, description, MIME type or annotations changed"),
    "resource-template-removed": (B, "a resource template was removed"),
    "resource-template-added": (S, "a resource template was added"),
    "resource-template-changed": (S, "a resource template's name, title, description or MIME type changed"),
    "prompt-removed": (B, "a prompt was removed"),
    "prompt-added": (S, "a prompt was added"),
    "prompt-argument-required": (B, "a prompt gained a required argument, or an argument became required"),
    "prompt-argument-added": (S, "a prompt gained an optional argument"),
    "prompt-argument-removed": (B, "a prompt argument was removed (generated servers refuse it; its keyword argument goes)"),
    "prompt-changed": (S, "a prompt's title, description or an argument's description changed"),
    # inputs (contravariant: the new schema must accept everything the old one accepted)
    "input-required-added": (B, "a new required input, or an optional input made required"),
    "input-optional-added": (S, "a new optional input"),
    "input-required-removed": (S, "a required input made optional"),
    "input-property-removed": (B, "an input removed from a closed object (now rejected)"),
    "input-property-removed-open": (S, "an input removed from an open object (now ignored)"),
    "input-type-narrowed": (B, "an input accepts fewer types"),
    "input-type-widened": (S, "an input accepts more types"),
    "input-enum-value-removed": (B, "an input enum lost a value (or an enum/const was added)"),
    "input-enum-value-added": (S, "an input enum gained a value (or lost its enum/const)"),
    "input-constraint-tightened": (B, "an input constraint tightened (minLength up, maximum down, pattern added ...)"),
    "input-constraint-loosened": (S, "an input constraint loosened"),
    "input-variant-removed": (B, "an input anyOf/oneOf lost a variant"),
    "input-variant-added": (S, "an input anyOf/oneOf gained a variant"),
    "input-changed": (B, "an input schema changed in a way that is neither wider nor narrower"),
    # outputs (covariant: the new schema must produce only what the old one allowed)
    "output-schema-removed": (B, "a tool no longer declares an outputSchema"),
    "output-schema-added": (S, "a tool now declares an outputSchema"),
    "output-field-removed": (B, "an output field was removed"),
    "output-field-added": (S, "an output field was added to an open object"),
    "output-field-added-closed": (B, "an output field was added to an object with additionalProperties: false"),
    "output-required-removed": (B, "a required output field made optional"),
    "output-required-added": (S, "an optional output field made required"),
    "output-type-widened": (B, "an output may have more types"),
    "output-type-narrowed": (S, "an output has fewer types"),
    "output-enum-value-added": (B, "an output enum gained a value (or lost its enum/const)"),
    "output-enum-value-removed": (S, "an output enum lost a value"),
    "output-constraint-loosened": (B, "an output constraint loosened (maxLength up, pattern removed ...)"),
    "output-constraint-tightened": (S, "an output constraint tightened"),
    "output-variant-added": (B, "an output anyOf/oneOf gained a variant"),
    "output-variant-removed": (S, "an output anyOf/oneOf lost a variant"),
    "output-changed": (B, "an output schema changed in a way that is neither wider nor narrower"),
    # either side
    "schema-doc-changed": (S, "a schema description, title, examples or other annotation changed"),
    "default-changed": (S, "a schema default changed"),
    "schema-equivalent-change": (S, "the schema text changed without changing what it accepts ($defs renamed ...)"),
    # a cassette's recorded traffic against the spec (check --cassette)
    "recorded-output-invalid": (B, "a recorded tools/call result no longer fits the tool's output schema"),
    "recorded-arguments-invalid": (B, "recorded tools/call arguments no longer fit the tool's input schema"),
    "recorded-tool-unknown": (B, "a recorded tools/call names a tool the spec no longer has"),
    # generated code only
    "python-package-renamed": (C, "the generated package name changed"),
    "python-class-renamed": (C, "a generated class was renamed"),
    "python-method-renamed": (C, "a generated client/server method was renamed"),
    "python-kwarg-removed": (C, "a keyword argument of a generated client method was removed or renamed"),
}


@dataclass(frozen=True)
class Change:
    """One difference between the old and the new version of a server.

    Attributes:
        server: the server name (the new one when it was renamed).
        tool: the tool's wire name ("" for server-level changes).
        kind: a key of :data:`KINDS`.
        path: where, as a JSON pointer into the wire Tool (``/inputSchema/properties/x``),
            or "" for the tool itself.
        message: a readable sentence.
        old: the old value (JSON-ready), when meaningful.
        new: the new value (JSON-ready), when meaningful.
        allowed: set by :func:`apply_allow` when ``--allow`` covers this change.
        file: the spec file to point at (new side, else old), for SARIF.
        line: 1-based line in ``file`` (0 when unknown).
    """

    server: str
    tool: str
    kind: str
    path: str
    message: str
    old: Any = None
    new: Any = None
    allowed: bool = False
    file: str = ""
    line: int = 0

    @property
    def severity(self) -> Severity:
        return KINDS[self.kind][0]

    @property
    def blocking(self) -> bool:
        """Breaking (wire or generated code) and not allowed."""
        return self.severity is not Severity.SAFE and not self.allowed


def parse_allow(rule: str) -> tuple[str, str] | None:
    """Split ``TOOL:KIND`` (``*`` globs allowed; KIND may also be a severity); None if malformed."""
    tool, sep, kind = rule.rpartition(":")
    if not sep or not tool or not kind:
        return None
    return tool, kind


def _matches(change: Change, tool_glob: str, kind_glob: str) -> bool:
    names = {change.tool, f"{change.server}/{change.tool}"} if change.tool else {"", change.server}
    tool_ok = tool_glob == "*" or any(fnmatch.fnmatchcase(n, tool_glob) for n in names if n)
    kind_ok = fnmatch.fnmatchcase(change.kind, kind_glob) or kind_glob == change.severity.value
    return tool_ok and kind_ok


def apply_allow(changes: Iterable[Change], rules: Iterable[tuple[str, str]], allow_all: bool = False) -> list[Change]:
    """Mark the changes covered by ``--allow`` rules (or all non-safe ones with ``allow_all``)."""
    rules = list(rules)
    out = []
    for c in changes:
        if c.severity is not Severity.SAFE and (allow_all or any(_matches(c, t, k) for t, k in rules)):
            c = replace(c, allowed=True)
        out.append(c)
    return out


def sort_changes(changes: Iterable[Change]) -> list[Change]:
    """Stable report order: server, tool, severity (breaking first), path, kind, message."""
    rank = {B: 0, C: 1, S: 2}
    return sorted(changes, key=lambda c: (c.server, c.tool, rank[c.severity], c.path, c.kind, c.message))
