"""URLs as both sides compare them (OAuth resources, token audiences)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def comparable_url(url: str, *, query: bool = True) -> str:
    """``url`` for comparisons: scheme and host lower-cased, no fragment, no trailing ``/`` on
    the path (``https://h/`` is ``https://h``); the query kept unless ``query`` is False.  A
    string without a scheme and a host is returned as it is."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return url
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"),
                       parts.query if query else "", ""))
