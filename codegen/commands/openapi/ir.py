"""The converter's intermediate representation: the document's API as read, before any spec text.

Reading (:mod:`.operations`, :mod:`.results`, :mod:`.security`) fills these; curation
(:mod:`.curation`) and naming (:mod:`.naming`) choose tools from them; :mod:`.writer` alone
turns them into spec data and YAML text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .load import Ref


@dataclass
class Arg:
    """One tool argument: an inputSchema property and where its value goes."""

    name: str  # inputSchema property name
    location: str  # path, query, header, cookie or body
    wire: str | None  # parameter / body field name; None: the whole body
    schema: Any
    required: bool
    description: str = ""
    style: str | None = None
    explode: bool | None = None
    allow_reserved: bool = False
    where: Ref | None = None

    def binding(self) -> dict[str, Any]:
        out: dict[str, Any] = {"in": self.location}
        if self.wire is not None:
            out["name"] = self.wire
        if self.style is not None:
            out["style"] = self.style
        if self.explode is not None:
            out["explode"] = self.explode
        if self.allow_reserved:
            out["allowReserved"] = True
        return out


@dataclass
class Body:
    """The request body as sent: its media type, whether it is required, its file fields."""

    content_type: str
    required: bool
    files: dict[str, str] = field(default_factory=dict)  # multipart field -> content type


@dataclass
class DeclaredError:
    """One documented error response: its status key, error code, description and data schema."""

    status: str  # "404", "4XX" or "default"
    code: str
    description: str
    data: dict[str, Any]


@dataclass
class Results:
    """What the success and error responses become."""

    output_schema: dict[str, Any] | None = None
    wrap: bool = False
    accept: str | None = None
    errors: list[DeclaredError] = field(default_factory=list)


@dataclass
class Operation:
    """One operation of the document, read and converted, not yet named or curated."""

    method: str  # upper case
    path: str
    operation_id: str | None
    tags: list[str]
    summary: str
    description: str
    deprecated: bool
    args: list[Arg]
    body: Body | None
    results: Results
    security: list[list[str]] | None  # None: the document's default
    where: Ref

    @property
    def label(self) -> str:
        """``GET /pets/{id}``: how diagnostics and curation name the operation."""
        return f"{self.method} {self.path}"


@dataclass
class Fixed:
    """A pinned argument: sent on every call, not an argument any more."""

    location: str
    wire: str | None
    value: Any


@dataclass
class Tool:
    """A tool chosen from an operation: named, described, curated."""

    operation: Operation
    name: str
    description: str
    annotations: dict[str, Any]
    args: list[Arg]
    fixed: list[Fixed] = field(default_factory=list)


@dataclass
class SecurityScheme:
    """One scheme of ``upstream.security`` as the contract writes it."""

    name: str
    spec: dict[str, Any]


@dataclass
class Api:
    """The whole document as read."""

    title: str
    version: str
    description: str
    base_url: str | None
    schemes: list[SecurityScheme]
    default_security: list[list[str]] | None
    operations: list[Operation]
    defs: dict[str, Any]
    openapi_version: str
    source_sha256: str
