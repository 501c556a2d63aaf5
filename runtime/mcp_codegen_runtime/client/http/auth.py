"""What the HTTP transport knows of OAuth without the flow: :class:`OAuthError`.

The flow (``client/oauth/``, an optional feature: ``client/features.py``) raises it and the
transport catches it; defined here, the transport needs the flow only when ``auth=`` is given.
"""

from __future__ import annotations


class OAuthError(Exception):
    """The authorization flow failed (the text says why; it never contains a token or a code)."""


__all__ = ["OAuthError"]
