"""What the HTTP transport knows of OAuth without the flow: :class:`OAuthError`, and loading
the flow (``client/oauth/``, an optional feature: ``client/features.py``) when ``auth=`` is given.

A private runtime copy holds ``client/oauth/`` only when the package's spec declares
``server.auth``; :func:`oauth_flow` says so when a connection asks for OAuth without it.
"""

from __future__ import annotations

from typing import Any

from ..features import missing


class OAuthError(Exception):
    """The authorization flow failed (the text says why; it never contains a token or a code)."""


def oauth_flow() -> Any:
    """The module of the OAuth flow (``client/oauth/flow.py``), imported on first use."""
    try:
        from ..oauth import flow  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    except ImportError as exc:
        missing("oauth", "Client.http(..., auth=...)", exc)
    return flow


__all__ = ["OAuthError", "oauth_flow"]
