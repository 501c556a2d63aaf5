"""The facade generated code imports: the names both sides share, and the runtime API version.

Generated modules import the runtime only through three fixed modules, so the runtime can
move anything else without changing a generated file:

======================  ==============================================================
``gencode``             this module: :data:`RUNTIME_API`, :func:`require_api`, the tool and
                        catalog tables, content blocks and the error classes
``server.gencode``      what ``server.py``, ``__main__.py`` and ``asgi.py`` use
``client.gencode``      what ``client.py`` uses (and the records ``__init__.py`` re-exports)
======================  ==============================================================

(A private runtime copy of ``--target client`` has no ``server/``, that of ``--target server``
no ``client/``, so each side has its own facade.)  Whatever is not in an ``__all__`` here is
internal and may change in any release.

:data:`RUNTIME_API` counts incompatible changes of these three modules; it is the major number
of the ``mcp-codegen-runtime`` version, and a minor release only adds to them.  A generated
package's ``__init__.py`` calls ``require_api(N[, minor])`` before importing anything else from
the runtime: on an installed runtime older than the package (an older API, or an older minor
release of its API), or one that dropped API ``N``, the import fails with an
:class:`ImportError` naming both versions and the ``pip install`` that fixes it, rather than
with a missing name deep inside the package.
"""

from __future__ import annotations

from . import RUNTIME_VERSION
from .wire.apps import UiResourceDef
from .wire.content import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolResult,
)
from .wire.errors import (
    ConfirmationDeniedError,
    DeclaredToolError,
    HeaderMismatchError,
    InputRequiredLoopError,
    InternalError,
    InvalidArgumentsError,
    InvalidParamsError,
    InvalidRequestError,
    McpError,
    McpTimeoutError,
    MethodNotFoundError,
    MissingCapabilityError,
    OutputValidationError,
    ParseError,
    ProtocolError,
    ResourceNotFoundError,
    ToolError,
    ToolExecutionError,
    TransportClosedError,
    UnknownToolError,
    UnsupportedProtocolVersionError,
    UrlElicitationRequiredError,
)
from .wire.launch import EnvVarDef
from .wire.resources import (
    CompletionDef,
    PromptDef,
    PromptMessage,
    PromptResult,
    ResourceContents,
    ResourceDef,
    ResourceTemplateDef,
)
from .wire.skills import SkillDef, SkillFileDef
from .wire.tools import AuthDef, InputDef, ServerInfo, ToolDef

#: The facade's API version: raised on every incompatible change of a ``gencode`` module.  It is
#: the major number of the ``mcp-codegen-runtime`` version, so a generated package asks for the
#: compatible-release range ``~=API.MINOR`` of it.
RUNTIME_API = int(RUNTIME_VERSION.split(".")[0])
#: The oldest API this runtime still serves (generated code needing less is refused).
RUNTIME_API_MIN = 1


def require_api(needed: int, package: str, minor: int = 0) -> None:
    """Refuse to load ``package`` (generated for runtime API ``needed``) on a runtime without it.

    Args:
        needed: The :data:`RUNTIME_API` of the runtime the package was generated with.
        package: The generated package's name, for the message.
        minor: The minor version of that runtime: a minor release adds to the facade, so an
            older minor of the same API may lack a name the package imports.

    Raises:
        ImportError: ``needed`` is outside ``RUNTIME_API_MIN..RUNTIME_API``, or the runtime is an
            older minor release of API ``needed``; the message names both versions and the
            command that fixes it.
    """
    have_minor = int(RUNTIME_VERSION.split(".")[1])
    if RUNTIME_API_MIN <= needed < RUNTIME_API or (needed == RUNTIME_API and minor <= have_minor):
        return
    runtime = __name__.rpartition(".")[0]
    have = f"{runtime} {RUNTIME_VERSION} provides runtime API {RUNTIME_API_MIN}..{RUNTIME_API}"
    if needed > RUNTIME_API or needed == RUNTIME_API:
        fix = f"upgrade the runtime: pip install --upgrade 'mcp-codegen-runtime~={needed}.{minor}'"
        wanted = f"runtime API {needed}" + (f" (mcp-codegen-runtime {needed}.{minor} or newer)" if needed == RUNTIME_API else "")
    else:
        fix = (f"rebuild {package} with an mcp-codegen made for runtime {RUNTIME_VERSION}, or install the runtime"
               f" it was built for: pip install 'mcp-codegen-runtime~={needed}.{minor}'")
        wanted = f"runtime API {needed}"
    raise ImportError(f"{package} needs mcp-codegen {wanted}, but {have}: {fix}")


__all__ = [
    "RUNTIME_API",
    "RUNTIME_API_MIN",
    "AudioContent",
    "AuthDef",
    "BlobResourceContents",
    "CompletionDef",
    "ConfirmationDeniedError",
    "DeclaredToolError",
    "EmbeddedResource",
    "EnvVarDef",
    "HeaderMismatchError",
    "ImageContent",
    "InputDef",
    "InputRequiredLoopError",
    "InternalError",
    "InvalidArgumentsError",
    "InvalidParamsError",
    "InvalidRequestError",
    "McpError",
    "McpTimeoutError",
    "MethodNotFoundError",
    "MissingCapabilityError",
    "OutputValidationError",
    "ParseError",
    "PromptDef",
    "PromptMessage",
    "PromptResult",
    "ProtocolError",
    "ResourceContents",
    "ResourceDef",
    "ResourceLink",
    "ResourceNotFoundError",
    "ResourceTemplateDef",
    "ServerInfo",
    "SkillDef",
    "SkillFileDef",
    "TextContent",
    "TextResourceContents",
    "ToolDef",
    "ToolError",
    "ToolExecutionError",
    "ToolResult",
    "TransportClosedError",
    "UiResourceDef",
    "UnknownToolError",
    "UnsupportedProtocolVersionError",
    "UrlElicitationRequiredError",
    "require_api",
]
