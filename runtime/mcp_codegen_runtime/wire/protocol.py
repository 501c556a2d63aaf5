"""Protocol constants shared by the server and the client side of the runtime."""

from __future__ import annotations

from typing import Final

JSONRPC: Final = "2.0"

V2024_11_05: Final = "2024-11-05"
V2025_03_26: Final = "2025-03-26"
V2025_06_18: Final = "2025-06-18"
V2025_11_25: Final = "2025-11-25"
V2026_07_28: Final = "2026-07-28"

#: Handshake-era versions, oldest first.
LEGACY_VERSIONS: Final[tuple[str, ...]] = (V2025_03_26, V2025_06_18, V2025_11_25)
#: Stateless-era versions, oldest first.
MODERN_VERSIONS: Final[tuple[str, ...]] = (V2026_07_28,)
ALL_VERSIONS: Final[tuple[str, ...]] = LEGACY_VERSIONS + MODERN_VERSIONS
#: Handshake-era versions a client accepts: also 2024-11-05, which many deployed servers
#: still answer (its tools are those of 2025-03-26 without ``annotations``; the generated
#: servers do not offer it).
CLIENT_LEGACY_VERSIONS: Final[tuple[str, ...]] = (V2024_11_05, *LEGACY_VERSIONS)
LATEST_LEGACY: Final = V2025_11_25
LATEST: Final = V2026_07_28

# Keys of params._meta / result._meta in the 2026-07-28 era.
META_PROTOCOL_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION_ID: Final = "io.modelcontextprotocol/subscriptionId"
META_PROGRESS_TOKEN: Final = "progressToken"

#: The tasks extension (SEP-2663): its ``capabilities.extensions`` key.
TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"

#: Result ``_meta`` key under which a declared tool error travels: ``{"code": ..., "data": ...}``.
META_TOOL_ERROR: Final = "mcp-codegen/error"

# JSON-RPC error codes (see errors.py for the exception classes).
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
RESOURCE_NOT_FOUND: Final = -32002
URL_ELICITATION_REQUIRED: Final = -32042
HEADER_MISMATCH: Final = -32020
MISSING_CAPABILITY: Final = -32021
UNSUPPORTED_VERSION: Final = -32022

RESULT_COMPLETE: Final = "complete"
RESULT_INPUT_REQUIRED: Final = "input_required"

# Codes of tool-execution errors the runtime itself produces (``isError: true`` results,
# ``_meta[META_TOOL_ERROR]["code"]``).  The dotted prefix keeps them apart from the error
# codes declared in a spec (plain identifiers).
TOOL_ERROR_INVALID_ARGUMENTS: Final = "mcp-codegen.invalid_arguments"
TOOL_ERROR_INTERNAL: Final = "mcp-codegen.internal"
TOOL_ERROR_NOT_IMPLEMENTED: Final = "mcp-codegen.not_implemented"
TOOL_ERROR_FORBIDDEN: Final = "mcp-codegen.forbidden"
TOOL_ERROR_RATE_LIMITED: Final = "mcp-codegen.rate_limited"
TOOL_ERROR_TIMEOUT: Final = "mcp-codegen.timeout"
TOOL_ERROR_INPUT_UNAVAILABLE: Final = "mcp-codegen.input_unavailable"
#: An upstream-bound tool (``server/upstream/``): the REST API failed, answered an error no
#: declared error matches (``data: {"status", "body"}``), or an answer its schema refuses.
TOOL_ERROR_UPSTREAM: Final = "mcp-codegen.upstream"
#: ``data.code`` of the -32603 a server sends when a handler's result breaks the output schema.
ERROR_INVALID_OUTPUT: Final = "mcp-codegen.invalid_output"

LOG_LEVELS: Final[tuple[str, ...]] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
