"""The spec's ``upstream`` section and a tool's ``http`` binding, parsed once at import time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class UpstreamDef:
    """The spec's ``upstream`` section (base URL, its environment variable, timeouts, credentials)."""

    base_url: str
    env: str | None = None
    spec: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_spec(cls, data: Mapping[str, Any]) -> UpstreamDef:
        """Parse the ``upstream`` section as the spec writes it.

        Raises:
            ValueError: a key is missing or malformed (the message names it).
        """
        base_url = data.get("baseUrl")
        if not isinstance(base_url, str):
            raise ValueError("upstream.baseUrl: a URL string is required")
        env = data.get("env")
        return cls(base_url=base_url, env=env if isinstance(env, str) else None, spec=dict(data))


@dataclass(frozen=True)
class HttpBinding:
    """One tool's ``http`` section: method, path template and where each argument goes."""

    method: str
    path: str
    spec: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_spec(cls, data: Mapping[str, Any]) -> HttpBinding:
        """Parse a tool's ``http`` section as the spec writes it.

        Raises:
            ValueError: a key is missing or malformed (the message names it).
        """
        method, path = data.get("method"), data.get("path")
        if not isinstance(method, str) or not isinstance(path, str):
            raise ValueError("http.method and http.path: strings are required")
        return cls(method=method.upper(), path=path, spec=dict(data))


__all__ = ["HttpBinding", "UpstreamDef"]
