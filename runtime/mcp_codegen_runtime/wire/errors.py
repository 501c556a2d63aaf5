"""The one error table shared by the generated server and client.

Every exception a client raises derives from :class:`McpError` and carries ``code``,
``message`` and ``data``.  ``code`` is the JSON-RPC error code (an int) for protocol errors
and the tool-error code (a string: a declared error's code, ``mcp-codegen.invalid_arguments``,
…) for :class:`ToolError` s, which are ``isError`` results rather than JSON-RPC errors.  ``error_for_code`` maps a JSON-RPC error object back to its
class; the server uses the same classes (``to_wire``) so both sides agree by construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from . import protocol as p


class McpError(Exception):
    """Base class of every MCP error raised by generated code."""

    #: The JSON-RPC code this class stands for (``None`` for client-only conditions).
    default_code: ClassVar[int | None] = None

    def __init__(self, message: str, *, code: int | str | None = None, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code: int | str | None = code if code is not None else self.default_code
        self.data = data

    def to_wire(self) -> dict[str, Any]:
        """The JSON-RPC error object for this exception."""
        err: dict[str, Any] = {
            "code": self.code if isinstance(self.code, int) else p.INTERNAL_ERROR,
            "message": self.message,
        }
        if self.data is not None:
            err["data"] = self.data
        return err


class ProtocolError(McpError):
    """A JSON-RPC error response (the request failed at the protocol level)."""

    default_code = p.INTERNAL_ERROR


class ParseError(ProtocolError):
    default_code = p.PARSE_ERROR


class InvalidRequestError(ProtocolError):
    default_code = p.INVALID_REQUEST


class MethodNotFoundError(ProtocolError):
    default_code = p.METHOD_NOT_FOUND


class InvalidParamsError(ProtocolError):
    default_code = p.INVALID_PARAMS


class UnknownToolError(InvalidParamsError):
    """tools/call named a tool the server does not have (-32602)."""


class InternalError(ProtocolError):
    default_code = p.INTERNAL_ERROR


class ResourceNotFoundError(ProtocolError):
    default_code = p.RESOURCE_NOT_FOUND


class UrlElicitationRequiredError(ProtocolError):
    default_code = p.URL_ELICITATION_REQUIRED


class HeaderMismatchError(ProtocolError):
    default_code = p.HEADER_MISMATCH


class MissingCapabilityError(ProtocolError):
    default_code = p.MISSING_CAPABILITY


class UnsupportedProtocolVersionError(ProtocolError):
    default_code = p.UNSUPPORTED_VERSION


class ToolError(McpError):
    """A tools/call that completed with ``isError: true``; ``code`` is its tool-error code
    (``_meta["mcp-codegen/error"].code``), or the JSON-RPC code it came as, or None."""

    #: The tool-error code this class stands for ("" for none).
    error_code: ClassVar[str] = ""

    def __init__(
        self,
        message: str,
        *,
        code: int | str | None = None,
        data: Any = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message, code=code if code is not None else (self.error_code or None), data=data)
        #: The full CallToolResult as received (client side), if any.
        self.result = result


class ToolExecutionError(ToolError):
    """The tool failed (``isError: true``) without a declared error code."""


class InvalidArgumentsError(ToolError):
    """The arguments did not validate against the tool's input schema.

    Wire (server side): an ``isError: true`` result with
    ``_meta["mcp-codegen/error"] = {"code": "mcp-codegen.invalid_arguments",
    "data": {"errors": [...]}}`` (``protocol.TOOL_ERROR_INVALID_ARGUMENTS``), or -32602
    for old protocol versions.  The client also recognises -32602 about arguments and the
    official SDKs' validation texts (see ``client/results.py``).
    """

    error_code = p.TOOL_ERROR_INVALID_ARGUMENTS


class DeclaredToolError(ToolError):
    """Base of the per-server error classes declared in a spec's ``errors`` section.

    A handler raises a subclass; the server sends ``isError: true`` with
    ``_meta["mcp-codegen/error"] = {"code": error_code, "data": data}`` and the client
    raises the same subclass again; ``code`` is the declared code on both sides.
    """


@dataclass(frozen=True)
class SchemaViolation:
    """One place where a value breaks its schema: the field's ``path`` (``a.b[0]``; ``""`` for
    the whole value) and what is wrong there (never the value itself)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def violations(data: Any) -> list[SchemaViolation]:
    """The ``errors`` of an error's ``data`` (``[{"path", "message"}, ...]``) as records;
    malformed entries are skipped."""
    items = data.get("errors") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    return [SchemaViolation(str(e.get("path") or ""), str(e["message"])) for e in items
            if isinstance(e, dict) and isinstance(e.get("message"), str)]


class OutputValidationError(McpError):
    """A tool result did not match the tool's output schema.

    ``errors`` names each failing field and why (from ``data["errors"]``: what the server's
    -32603 with ``data.code`` ``mcp-codegen.invalid_output`` carries, or the client's own check
    of ``structuredContent``); ``str()`` includes them.  Neither holds the result's values:
    ``result`` is the result as received when the client's own check failed (else None).
    """

    default_code = p.INTERNAL_ERROR

    def __init__(self, message: str, *, code: int | str | None = None, data: Any = None,
                 result: dict[str, Any] | None = None) -> None:
        super().__init__(message, code=code, data=data)
        self.errors: list[SchemaViolation] = violations(data)
        self.result = result

    def __str__(self) -> str:
        details = "; ".join(str(e) for e in self.errors)
        return f"{self.message} ({details})" if details and details not in self.message else self.message


class McpTimeoutError(McpError):
    """A request did not complete within its timeout."""


class TransportClosedError(McpError):
    """The connection to the peer was lost or closed."""


class InputRequiredLoopError(McpError):
    """The server kept answering ``input_required`` beyond the allowed rounds."""


class ConfirmationDeniedError(McpError):
    """The client's confirm hook refused a tool call; nothing was sent."""


_BY_CODE: dict[int, type[ProtocolError]] = {
    p.PARSE_ERROR: ParseError,
    p.INVALID_REQUEST: InvalidRequestError,
    p.METHOD_NOT_FOUND: MethodNotFoundError,
    p.INVALID_PARAMS: InvalidParamsError,
    p.INTERNAL_ERROR: InternalError,
    p.RESOURCE_NOT_FOUND: ResourceNotFoundError,
    p.URL_ELICITATION_REQUIRED: UrlElicitationRequiredError,
    p.HEADER_MISMATCH: HeaderMismatchError,
    p.MISSING_CAPABILITY: MissingCapabilityError,
    p.UNSUPPORTED_VERSION: UnsupportedProtocolVersionError,
}


def error_for_code(code: int) -> type[ProtocolError]:
    """The exception class for a JSON-RPC error code (``ProtocolError`` if unknown)."""
    return _BY_CODE.get(code, ProtocolError)


def from_wire(error: Any) -> ProtocolError:
    """Build the exception for a JSON-RPC error object received from a peer."""
    if not isinstance(error, dict):
        return InternalError("malformed error object", data=error)
    code = error.get("code")
    message = error.get("message")
    if not isinstance(code, int) or isinstance(code, bool):
        return InternalError("malformed error object", data=error)
    cls = error_for_code(code)
    return cls(
        message if isinstance(message, str) else "", code=code, data=error.get("data")
    )


class MissingDependencyError(ImportError):
    """An optional package a feature needs is not installed (raised where the feature is set
    up, not when it is first used): ``install`` is the command that brings it."""

    def __init__(self, feature: str, package: str, install: str) -> None:
        super().__init__(f"{feature} needs {package}, which this Python cannot import: {install}", name=package)
        self.feature, self.package, self.install = feature, package, install

