"""What the environment decides for the HTTP client transport (``client/http/transport.py``).

:func:`usable_for`: whether the lean h11 pool (``client/http/pool.py``) can serve a URL, or
httpx must (a proxy in the environment, credentials in the URL, no h11);
:func:`remember_missing_sniffio`: a cheap failed ``import sniffio`` for httpcore.
"""

from __future__ import annotations

import importlib.util
import sys
import urllib.request


def usable_for(url: str) -> bool:
    """Whether :class:`PooledHttp` can serve ``url``: http(s) without credentials in it, no proxy
    in the environment, h11 present."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return False  # credentials in the URL: httpx turns them into basic auth
    proxies = urllib.request.getproxies()
    if any(proxies.get(k) for k in ("http", "https", "all")):
        return False
    try:
        import h11  # type: ignore[import-not-found, unused-ignore]  # noqa: F401  (comes with httpx)
    except ImportError:  # pragma: no cover - h11 is a dependency of httpx
        return False
    return True


def remember_missing_sniffio() -> None:
    """Make a failed ``import sniffio`` cheap: httpcore 1.x tries it for every lock, event and
    shield it creates, and without sniffio each try searched ``sys.path`` (a quarter of the client's
    CPU at 100 concurrent calls); a ``None`` in ``sys.modules`` fails at once, with the same ImportError."""
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


__all__ = ["remember_missing_sniffio", "usable_for"]
