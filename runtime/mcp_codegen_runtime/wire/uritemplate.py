"""RFC 6570 URI templates, both ways: ``expand`` (client: variables -> URI) and ``match``
(server: URI -> variables), for the resource templates of a server.

Supported: levels 1-3 — ``{var}``, ``{+var}``, ``{#var}``, ``{.var}``, ``{/var}``, ``{;var}``,
``{?var}``, ``{&var}`` with one or more comma-separated variables, and the prefix modifier
``{var:3}`` (expansion only truncates; matching accepts the value as sent).  Values are
strings; lists and the explode modifier (``*``, level 4) are refused when the template is
parsed, so a spec cannot declare a template this module would match wrongly.

Matching is strict: every literal must match exactly, every simple variable is one
non-empty run of unreserved or percent-encoded characters (reserved expansions may also
hold ``/``, ``?``, ``#`` …), query variables may come in any order, at most once, and may be
absent.  Percent-escapes are decoded (invalid UTF-8 is no match).  The standard library's
``re`` does the matching; no third-party package (the runtime depends on pydantic only).

To keep matching linear on hostile input, templates whose expansions could be split in more
than one way are refused when parsed: two expressions with no literal between them, more than
one reserved (``{+…}`` / ``{#…}``) expression, and a literal ``?`` before ``{&…}``; URIs
longer than :data:`MAX_URI` characters never match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote, unquote

_EXPR = re.compile(r"\{([^{}]*)\}")
#: Longer URIs never match a template (and are not scanned).
MAX_URI = 8192
_VARNAME = re.compile(r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*")

#: operator -> (first char, separator, named, if-empty, allow reserved)
_OPS: dict[str, tuple[str, str, bool, str, bool]] = {
    "": ("", ",", False, "", False),
    "+": ("", ",", False, "", True),
    "#": ("#", ",", False, "", True),
    ".": (".", ".", False, "", False),
    "/": ("/", "/", False, "", False),
    ";": (";", ";", True, "", False),
    "?": ("?", "&", True, "=", False),
    "&": ("&", "&", True, "=", False),
}
_UNRESERVED = "-._~"
_RESERVED = ":/?#[]@!$&'()*+,;="


class TemplateError(ValueError):
    """A URI template this module does not accept (the message says where and why)."""


@dataclass(frozen=True)
class _Var:
    name: str
    prefix: int | None


@dataclass(frozen=True)
class _Expr:
    op: str
    vars: tuple[_Var, ...]


@dataclass(frozen=True)
class UriTemplate:
    """A parsed template: literals and expressions in order, and the variable names."""

    text: str
    parts: tuple[str | _Expr, ...]

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(v.name for part in self.parts if isinstance(part, _Expr) for v in part.vars)

    @property
    def query_variables(self) -> tuple[str, ...]:
        """Variables of ``{?…}`` / ``{&…}`` expressions (a URI may leave them out)."""
        return tuple(v.name for part in self.parts if isinstance(part, _Expr) and part.op in ("?", "&") for v in part.vars)

    def expand(self, values: dict[str, str]) -> str:
        """The URI for ``values`` (missing or ``None`` values are left out, as RFC 6570 says)."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            first, sep, named, if_empty, reserved = _OPS[part.op]
            items = []
            for var in part.vars:
                value = values.get(var.name)
                if value is None:
                    continue
                text = str(value)[: var.prefix] if var.prefix is not None else str(value)
                encoded = quote(text, safe=_UNRESERVED + (_RESERVED if reserved else ""))
                if named:
                    items.append(f"{var.name}={encoded}" if encoded or if_empty else var.name)
                else:
                    items.append(encoded)
            if items:
                out.append(first + sep.join(items))
        return "".join(out)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables of ``uri`` if it is an expansion of this template, else None."""
        if len(uri) > MAX_URI:
            return None
        query_exprs = [p for p in self.parts if isinstance(p, _Expr) and p.op in ("?", "&")]
        head = uri
        query: dict[str, str] = {}
        try:
            if query_exprs:
                head, mark, rest = uri.partition("?")
                if mark:
                    if "#" in rest:
                        return None  # a fragment after the query: not an expansion of this template
                    for pair in rest.split("&"):
                        name, eq, value = pair.partition("=")
                        key = unquote(name, errors="strict")
                        if key in query:
                            return None  # a variable given twice
                        query[key] = unquote(value, errors="strict") if eq else ""
            pattern, names = _compiled(self)
            match = pattern.fullmatch(head)
            if match is None:
                return None
            values = {names[k]: unquote(v, errors="strict") for k, v in match.groupdict().items() if v is not None}
        except UnicodeDecodeError:
            return None
        allowed = {v.name for e in query_exprs for v in e.vars}
        if set(query) - allowed:
            return None
        values.update(query)
        return values


@lru_cache(maxsize=512)
def parse(text: str) -> UriTemplate:
    """Parse ``text``; raises :class:`TemplateError` for anything outside levels 1-3."""
    parts: list[str | _Expr] = []
    pos = 0
    seen: set[str] = set()
    for m in _EXPR.finditer(text):
        literal = text[pos : m.start()]
        if "{" in literal or "}" in literal:
            raise TemplateError(f"unbalanced brace near offset {pos}")
        if literal:
            parts.append(literal)
        parts.append(_expression(m.group(1), seen))
        pos = m.end()
    tail = text[pos:]
    if "{" in tail or "}" in tail:
        raise TemplateError(f"unbalanced brace near offset {pos}")
    if tail:
        parts.append(tail)
    if any(c.isspace() or ord(c) < 0x20 for c in text):
        raise TemplateError("a URI template cannot contain spaces or control characters")
    query_seen = False
    for part in parts:
        if isinstance(part, _Expr) and part.op in ("?", "&"):
            query_seen = True
        elif query_seen:
            raise TemplateError("nothing may follow a {?…} / {&…} query expression")
    _unambiguous(parts)
    return UriTemplate(text, tuple(parts))


def _unambiguous(parts: list[str | _Expr]) -> None:
    """Refuse templates a URI could match in several ways (and so in more than linear time)."""
    path = [p for p in parts if not (isinstance(p, _Expr) and p.op in ("?", "&"))]
    for left, right in zip(path, path[1:], strict=False):
        if isinstance(left, _Expr) and isinstance(right, _Expr):
            raise TemplateError("two expressions with no literal between them are ambiguous; put a literal between them")
    if sum(isinstance(p, _Expr) and p.op in ("+", "#") for p in parts) > 1:
        raise TemplateError("more than one reserved expression ({+…} / {#…}) is ambiguous")
    if any(isinstance(p, _Expr) and p.op == "&" for p in parts) and any(isinstance(p, str) and "?" in p for p in parts):
        raise TemplateError("a literal '?' before {&…} is not supported; use {?…} for the query")


def _expression(body: str, seen: set[str]) -> _Expr:
    op = body[:1] if body[:1] in _OPS and body[:1] != "" else ""
    if body[:1] and body[:1] in "=,!@|":
        raise TemplateError(f"operator {body[:1]!r} is reserved by RFC 6570 and not supported")
    names = body[len(op):]
    if not names:
        raise TemplateError("empty expression {}")
    out = []
    for spec in names.split(","):
        if spec.endswith("*"):
            raise TemplateError(f"the explode modifier in {{{body}}} (level 4) is not supported")
        name, colon, prefix = spec.partition(":")
        if not _VARNAME.fullmatch(name):
            raise TemplateError(f"invalid variable name {name!r}")
        if colon and not (prefix.isdigit() and 0 < int(prefix) < 10000):
            raise TemplateError(f"invalid prefix length in {spec!r}")
        if name in seen:
            raise TemplateError(f"variable {name!r} appears twice")
        seen.add(name)
        out.append(_Var(name, int(prefix) if colon else None))
    return _Expr(op, tuple(out))


_PCT = r"%[0-9A-Fa-f]{2}"
#: What one variable's value may look like on the wire, by how it was expanded: simple
#: expansions percent-encode everything but the unreserved characters; label (``.``)
#: expansions cannot hold a dot either; reserved ones (``+``, ``#``) keep reserved characters.
_VALUE = {
    "simple": rf"(?:[A-Za-z0-9\-._~]|{_PCT})+",
    "label": rf"(?:[A-Za-z0-9\-_~]|{_PCT})+",
    "reserved": rf"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|{_PCT})+?",
}

_CACHE: dict[str, tuple[re.Pattern[str], dict[str, str]]] = {}


def _compiled(template: UriTemplate) -> tuple[re.Pattern[str], dict[str, str]]:
    """The regex of the template's non-query part, and its group names -> variable names."""
    hit = _CACHE.get(template.text)
    if hit is not None:
        return hit
    out: list[str] = []
    groups: dict[str, str] = {}
    for part in template.parts:
        if isinstance(part, str):
            out.append(re.escape(part))
            continue
        if part.op in ("?", "&"):
            continue
        first, sep, named, _, reserved = _OPS[part.op]
        value = _VALUE["reserved" if reserved else "label" if part.op == "." else "simple"]
        pieces = []
        for var in part.vars:
            group = f"g{len(groups)}"
            groups[group] = var.name
            body = f"(?P<{group}>{value})"
            pieces.append(f"{re.escape(var.name)}(?:={body})?" if named else body)
        # RFC 6570 leaves undefined variables out: each may be absent, separators between present ones
        joined = "".join(f"(?:{re.escape(sep) if i else ''}{piece})?" for i, piece in enumerate(pieces))
        out.append(f"(?:{re.escape(first)}{joined})?" if first else joined)
    result = (re.compile("".join(out), re.DOTALL), groups)
    _CACHE[template.text] = result
    return result
