"""The client side of the facade generated code imports (see :mod:`..gencode`).

``client.py`` subclasses :class:`ClientBase` and :class:`SyncClientBase` and marks unpassed
arguments with :data:`UNSET` (:func:`wire_arguments` drops them); ``__init__.py``
re-exports the records hooks and handlers receive.
"""

from __future__ import annotations

from .base import ClientBase
from .catalog import Completion
from .listing import Icon, Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations
from .results import UNSET, Unset, wire_arguments
from .skills import (
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
from .sync import SyncClientBase
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
    "Tool",
    "ToolAnnotations",
    "ToolCallInfo",
    "Unset",
    "wire_arguments",
]
