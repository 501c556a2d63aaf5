"""The server side of the facade generated code imports (see :mod:`..gencode`).

``server.py`` subclasses :class:`ServerBase`; ``__init__.py`` re-exports the handler-facing
names; ``__main__.py`` calls :func:`main`; ``asgi.py`` re-exports the HTTP names.  The entry
point and the HTTP transport are loaded on first use (``from ... import main`` or
``HttpApp``), so importing a generated package for stdio serving or in-process tests loads
neither ``argparse`` nor the HTTP stack.

The names of the optional features (``server/features.py``) are imported on first access too, and
their imports carry the marker ``# runtime-copy: optional``, so a private runtime copy
(``codegen/render/runtime_copy.py``) holds a feature's modules only when the package's own files
import one of its names from here:

==============  ====================================================================
``tasks``       ``TaskContext`` (``__init__.py`` of a spec with task tools)
``skills``      ``SkillIntegrityError`` (``__init__.py`` of a spec declaring skills)
``upstream``    ``UpstreamServer``, ``UpstreamDef``, ``HttpBinding`` (``server.py`` and
                ``upstream.py`` of a spec with an ``upstream`` section)
==============  ====================================================================

Elsewhere reading one raises the ``ImportError`` of :func:`~server.features.missing`, naming
the feature and how to get it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .admission import nonblocking
from .base import ServerBase
from .context import Context, Elicited, InputUnavailableError
from .features import missing
from .principal import Principal
from .settings import ServerSettings

if TYPE_CHECKING:
    from .http import HttpApp, HttpSettings, app_from_env, asgi_app, close_sse_stream
    from .main import main
    from .skills import SkillIntegrityError  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    from .tasks.manager import TaskContext  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    from .upstream import HttpBinding, UpstreamDef, UpstreamServer  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

#: The HTTP names, loaded with the transport on first access.
_HTTP_NAMES = frozenset({"HttpApp", "HttpSettings", "app_from_env", "asgi_app", "close_sse_stream"})
#: The optional names (see the module docstring): name -> its feature.
_OPTIONAL = {"SkillIntegrityError": "skills", "TaskContext": "tasks",
             "HttpBinding": "upstream", "UpstreamDef": "upstream", "UpstreamServer": "upstream"}


def __getattr__(name: str) -> Any:
    """Load the entry point or the HTTP transport when generated code first asks for it."""
    if name == "main":
        from . import main as entry

        value: Any = entry.main
    elif name in _HTTP_NAMES:
        from . import http

        value = getattr(http, name)
    elif name in _OPTIONAL:
        try:
            value = _optional(name)
        except ImportError as exc:
            missing(_OPTIONAL[name], name, exc)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def _optional(name: str) -> Any:
    """``name`` from the module of the optional feature that provides it."""
    if name == "SkillIntegrityError":
        from .skills import SkillIntegrityError  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        return SkillIntegrityError
    if _OPTIONAL[name] == "upstream":
        from .upstream import HttpBinding, UpstreamDef, UpstreamServer  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        return {"HttpBinding": HttpBinding, "UpstreamDef": UpstreamDef, "UpstreamServer": UpstreamServer}[name]
    from .tasks.manager import TaskContext  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    return TaskContext


__all__ = [
    "Context",
    "Elicited",
    "HttpApp",
    "HttpBinding",
    "HttpSettings",
    "InputUnavailableError",
    "Principal",
    "ServerBase",
    "ServerSettings",
    "SkillIntegrityError",
    "TaskContext",
    "UpstreamDef",
    "UpstreamServer",
    "app_from_env",
    "asgi_app",
    "close_sse_stream",
    "main",
    "nonblocking",
]
