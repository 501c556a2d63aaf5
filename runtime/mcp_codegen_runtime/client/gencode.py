"""The client side of the facade generated code imports (see :mod:`..gencode`).

``client.py`` subclasses :class:`ClientBase` and :class:`SyncClientBase` and marks unpassed
arguments with :data:`UNSET` (:func:`wire_arguments` drops them); ``__init__.py``
re-exports the records hooks and handlers receive; the per-tool modules of ``--layout agent``
connect with :func:`agent_client` / :func:`agent_client_async` (``client/agent/connect.py``).
"""

from __future__ import annotations

from .agent.connect import agent_client, agent_client_async
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
