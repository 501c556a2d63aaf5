"""The client side of the facade generated code imports (see :mod:`..gencode`).

``client.py`` subclasses :class:`ClientBase` and :class:`SyncClientBase` and marks unpassed
arguments with :data:`UNSET` (:func:`wire_arguments` drops them); ``__init__.py``
re-exports the records hooks and handlers receive; the per-tool modules of ``--layout agent``
connect with :func:`agent_client` / :func:`agent_client_async` (``client/agent/connect.py``).

Those two are optional: ``client/agent/`` is imported on their first access (module
``__getattr__``), and their imports carry the marker ``# runtime-copy: optional``, so a private
runtime copy (``codegen/render/runtime_copy.py``) holds ``client/agent/`` only when the package's
own files import one of them.  Elsewhere reading them raises an ``ImportError`` saying so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .async_client import ClientBase
from .catalog import Completion
from .listing import Icon, Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations
from .results import UNSET, Unset, wire_arguments
from .skills.calls import (
    LoadedSkill,
    SkillDigestMismatchError,
    SkillEntry,
    SkillFile,
    SkillFrontmatterMismatchError,
    SkillResource,
    SkillSizeMismatchError,
    SkillVerificationError,
)
from .subscriptions import Change, Subscription
from .sync_client import SyncClientBase
from .tasks.handle import TaskCancelledError, TaskHandle, TaskStatus
from .tasks.sync import SyncTaskHandle
from .types import (
    AuditRecord,
    CatalogChange,
    CompatReport,
    ElicitationRequest,
    ElicitationResponse,
    Progress,
    Root,
    SamplingRequest,
    SamplingResponse,
    ToolCallInfo,
)

if TYPE_CHECKING:
    from .agent.connect import agent_client, agent_client_async  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

#: The optional names (see the module docstring).
_OPTIONAL = frozenset({"agent_client", "agent_client_async"})


def __getattr__(name: str) -> Any:
    """The optional names, imported on first access."""
    if name not in _OPTIONAL:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from .agent import connect  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    except ImportError as exc:
        raise ImportError(f"{name} needs the runtime's client/agent/ modules, which this private runtime copy does "
                          "not hold (the package's own files do not use them); import the mcp-codegen-runtime "
                          "library instead") from exc
    return getattr(connect, name)


__all__ = [
    "UNSET",
    "AuditRecord",
    "CatalogChange",
    "Change",
    "ClientBase",
    "CompatReport",
    "Completion",
    "ElicitationRequest",
    "ElicitationResponse",
    "Icon",
    "LoadedSkill",
    "Progress",
    "Prompt",
    "PromptArgument",
    "Resource",
    "ResourceTemplate",
    "Root",
    "SamplingRequest",
    "SamplingResponse",
    "SkillDigestMismatchError",
    "SkillEntry",
    "SkillFile",
    "SkillFrontmatterMismatchError",
    "SkillResource",
    "SkillSizeMismatchError",
    "SkillVerificationError",
    "Subscription",
    "SyncClientBase",
    "SyncTaskHandle",
    "TaskCancelledError",
    "TaskHandle",
    "TaskStatus",
    "Tool",
    "ToolAnnotations",
    "ToolCallInfo",
    "Unset",
    "agent_client",
    "agent_client_async",
    "wire_arguments",
]
