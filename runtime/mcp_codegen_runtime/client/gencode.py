"""The client side of the facade generated code imports (see :mod:`..gencode`).

``client.py`` subclasses :class:`ClientBase` and :class:`SyncClientBase` and marks unpassed
arguments with :data:`UNSET` (:func:`wire_arguments` drops them); ``__init__.py``
re-exports the records hooks and handlers receive; the per-tool modules of ``--layout agent``
connect with :func:`agent_client` / :func:`agent_client_async` (``client/agent/connect.py``).

The names of the optional features (``client/features.py``) are imported on first access (module
``__getattr__``), and their imports carry the marker ``# runtime-copy: optional``, so a private
runtime copy (``codegen/render/runtime_copy.py``) holds a feature's modules only when the
package's own files import one of its names from here:

==============  ====================================================================
``tasks``       ``TaskHandle``, ``SyncTaskHandle``, ``TaskStatus``, ``TaskCancelledError``
                (``client.py`` and ``__init__.py`` of a spec with task tools)
``skills``      ``LoadedSkill``, ``SkillEntry``, ``SkillFile``, ``SkillResource`` and the
                ``Skill*Error`` classes (``__init__.py`` of a spec declaring skills)
``oauth``       ``OAuthSettings`` (``__init__.py`` of a spec declaring ``server.auth``)
``agent``       ``agent_client``, ``agent_client_async`` (``--layout agent``)
==============  ====================================================================

Elsewhere reading one raises the ``ImportError`` of :func:`~client.features.missing`, naming
the feature and how to get it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..wire.apps import McpUiResourceMeta, McpUiToolMeta, UiResource
from .async_client import ClientBase
from .catalog import Completion
from .features import missing
from .http.auth import OAuthError
from .listing import Icon, Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations
from .results import UNSET, Unset, wire_arguments
from .subscriptions import Change, Subscription
from .sync_client import SyncClientBase
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
    from .oauth.settings import OAuthSettings  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    from .skills.calls import (  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        LoadedSkill,
        SkillDigestMismatchError,
        SkillEntry,
        SkillFile,
        SkillFrontmatterMismatchError,
        SkillResource,
        SkillSizeMismatchError,
        SkillVerificationError,
    )
    from .tasks.handle import TaskCancelledError, TaskHandle, TaskStatus  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    from .tasks.sync import SyncTaskHandle  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

#: The optional names (see the module docstring): name -> its feature.
_OPTIONAL = {
    "agent_client": "agent", "agent_client_async": "agent",
    "OAuthSettings": "oauth",
    **dict.fromkeys(("LoadedSkill", "SkillDigestMismatchError", "SkillEntry", "SkillFile", "SkillFrontmatterMismatchError",
                     "SkillResource", "SkillSizeMismatchError", "SkillVerificationError"), "skills"),
    **dict.fromkeys(("SyncTaskHandle", "TaskCancelledError", "TaskHandle", "TaskStatus"), "tasks"),
}


def __getattr__(name: str) -> Any:
    """The optional names, imported on first access."""
    feature = _OPTIONAL.get(name)
    if feature is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return _optional(feature, name)
    except ImportError as exc:
        missing(feature, name, exc)


def _optional(feature: str, name: str) -> Any:
    """``name`` from the module of ``feature`` that provides it."""
    if feature == "agent":
        from .agent import connect  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        return getattr(connect, name)
    if feature == "oauth":
        from .oauth import settings  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        return getattr(settings, name)
    if feature == "skills":
        from .skills import calls  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        return getattr(calls, name)
    if name == "SyncTaskHandle":
        from .tasks import sync  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        return getattr(sync, name)
    from .tasks import handle  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    return getattr(handle, name)


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
    "McpUiResourceMeta",
    "McpUiToolMeta",
    "OAuthError",
    "OAuthSettings",
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
    "UiResource",
    "Unset",
    "agent_client",
    "agent_client_async",
    "wire_arguments",
]
