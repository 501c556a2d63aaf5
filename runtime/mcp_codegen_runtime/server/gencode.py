"""The server side of the facade generated code imports (see :mod:`..gencode`).

``server.py`` subclasses :class:`ServerBase`; ``__init__.py`` re-exports the handler-facing
names; ``__main__.py`` calls :func:`main`; ``asgi.py`` re-exports the HTTP names.  The entry
point and the HTTP transport are loaded on first use (``from ... import main`` or
``HttpApp``), so importing a generated package for stdio serving or in-process tests loads
neither ``argparse`` nor the HTTP stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import ServerBase
from .context import Context, Elicited, InputUnavailableError
from .principal import Principal
from .settings import ServerSettings

if TYPE_CHECKING:
    from .http import HttpApp, HttpSettings, app_from_env, asgi_app, close_sse_stream
    from .main import main

#: The HTTP names, loaded with the transport on first access.
_HTTP_NAMES = frozenset({"HttpApp", "HttpSettings", "app_from_env", "asgi_app", "close_sse_stream"})


def __getattr__(name: str) -> Any:
    """Load the entry point or the HTTP transport when generated code first asks for it."""
    if name == "main":
        from . import main as entry

        value: Any = entry.main
    elif name in _HTTP_NAMES:
        from . import http

        value = getattr(http, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "Context",
    "Elicited",
    "HttpApp",
    "HttpSettings",
    "InputUnavailableError",
    "Principal",
    "ServerBase",
    "ServerSettings",
    "app_from_env",
    "asgi_app",
    "close_sse_stream",
    "main",
]
