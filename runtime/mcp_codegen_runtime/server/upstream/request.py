"""The upstream request of one call: URL, headers, cookies and body from the arguments.

Arguments arrive as ``args.model_dump(mode="json", by_alias=True, exclude_unset=True)``: keyed by
the inputSchema property name, an omitted optional argument absent (and its schema default
not sent).  ``http.args`` says where each goes; ``http.fixed`` adds pinned values.  The path
template is expanded (``serialize.py``) and joined under the base URL's path, never replacing
it; the base URL's own query, if any, comes first in the query string.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .binding import ArgBinding, HttpBinding
from .body import EncodedBody, encode_body
from .serialize import SerializeError, cookie_items, expand_path, header_value, path_value, query_items


@dataclass
class Outgoing:
    """A request ready to send (credentials and forwarded headers not yet added)."""

    method: str
    base: str
    path: str
    query: list[str] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    cookies: list[str] = field(default_factory=list)
    body: EncodedBody | None = None

    def url(self, extra_query: Sequence[str] = ()) -> str:
        """The full URL (``extra_query``: credentials' items, appended last)."""
        scheme, netloc, path, query = _base(self.base)
        items = ([query] if query else []) + self.query + list(extra_query)
        return urlunsplit((scheme, netloc, path + self.path, "&".join(items), ""))


@functools.lru_cache(maxsize=64)
def _base(url: str) -> tuple[str, str, str, str]:
    """Scheme, authority, path (no trailing ``/``) and query of a base URL, split once."""
    parts = urlsplit(url)
    return parts.scheme, parts.netloc, parts.path.rstrip("/"), parts.query


def _place(out: Outgoing, arg: ArgBinding, value: Any, paths: dict[str, str]) -> None:
    name = arg.name or ""
    if arg.location == "path":
        paths[name] = path_value(name, value, arg.style, arg.explode)
    elif arg.location == "query":
        out.query.extend(query_items(name, value, arg.style, arg.explode, arg.allow_reserved))
    elif arg.location == "header":
        out.headers[name] = header_value(name, value, arg.explode)
    elif arg.location == "cookie":
        out.cookies.extend(cookie_items(name, value, arg.explode))


def build(binding: HttpBinding, values: Mapping[str, Any], base_url: str) -> Outgoing:
    """The request ``binding`` makes of the argument ``values``.

    Raises:
        SerializeError: an argument that cannot be sent where it goes (the message names it).
    """
    out = Outgoing(binding.method, base_url, "")
    paths: dict[str, str] = {}
    body: dict[str, Any] = {}
    whole: tuple[bool, Any] = (False, None)
    for fixed in binding.fixed:
        if fixed.location != "body":
            _place(out, fixed.as_arg(), fixed.value, paths)
        elif fixed.name is None:
            whole = (True, fixed.value)
        else:
            body[fixed.name] = fixed.value
    for prop, arg in binding.args.items():
        if prop not in values:
            continue
        value = values[prop]
        if arg.location != "body":
            _place(out, arg, value, paths)
        elif arg.name is None:
            whole = (True, value)
        else:
            body[arg.name] = value
    missing = [a.name for p, a in binding.args.items() if a.location == "path" and a.name not in paths]
    if missing:
        raise SerializeError(f"the path parameter {missing[0]!r} has no value")
    out.path = expand_path(binding.path, paths)
    if binding.accept is not None:
        out.headers["Accept"] = binding.accept
    if binding.body is not None:
        if whole[0]:
            out.body = encode_body(binding.body, whole[1])
        elif body or (binding.body.required and not any(a.name is None for a in binding.args.values()
                                                         if a.location == "body")):  # required: {} at least
            out.body = encode_body(binding.body, body)
        elif binding.body.required:
            raise SerializeError("the request body is required")
        if out.body is not None and out.body.content_type is not None:
            out.headers["Content-Type"] = out.body.content_type
    return out


__all__ = ["Outgoing", "build"]
