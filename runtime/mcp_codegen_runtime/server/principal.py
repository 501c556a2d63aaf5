"""Who is calling: the verified identity of an OAuth access token, and stable identity keys.

:class:`Principal` is what the OAuth resource server (:mod:`server.http.oauth`) hands to the
rest of the server: ``ctx.principal`` in handlers, ``ServerBase.authorize``, the binding of
legacy sessions, MRTR ``requestState`` and the rate-limit bucket.  Two principals are equal
when issuer, subject and client id are: a refreshed or stepped-up token (new scopes, new
expiry) is still the same caller.  Static bearer tokens keep any principal value (a name);
:func:`identity` gives both kinds one stable text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Principal:
    """The verified identity behind an access token.

    Attributes:
        subject: the token's ``sub`` (for a client-credentials token without one: the client id).
        issuer: the authorization server that issued it (``iss``), when known.
        client_id: the OAuth client the token was issued to (``client_id``/``azp``), when known.
        scopes: the granted scopes (``scope``, space-separated, or a ``scp`` list).
        claims: every claim of the token (or of the introspection answer).  Never logged.
        expires_at: ``exp`` (seconds since the epoch), when known.
    """

    subject: str
    issuer: str | None = None
    client_id: str | None = None
    scopes: frozenset[str] = field(default=frozenset(), compare=False)
    claims: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False, hash=False)
    expires_at: float | None = field(default=None, compare=False, repr=False)

    def missing(self, required: Iterable[str]) -> tuple[str, ...]:
        """The scopes of ``required`` this principal lacks (in their order)."""
        return tuple(s for s in required if s not in self.scopes)


def scopes_of(claims: Mapping[str, Any]) -> frozenset[str]:
    """The scopes of a token's claims: ``scope`` (space-separated) or ``scp`` (list or string)."""
    raw = claims.get("scope", claims.get("scp"))
    if isinstance(raw, str):
        return frozenset(raw.split())
    if isinstance(raw, (list, tuple)):
        return frozenset(s for s in raw if isinstance(s, str))
    return frozenset()


def principal_from_claims(claims: Mapping[str, Any]) -> Principal | None:
    """A :class:`Principal` from verified claims (None when it has neither ``sub`` nor a client id)."""
    client = claims.get("client_id", claims.get("azp"))
    client_id = client if isinstance(client, str) and client else None
    sub = claims.get("sub")
    subject = sub if isinstance(sub, str) and sub else client_id
    if subject is None:
        return None
    iss = claims.get("iss")
    exp = claims.get("exp")
    return Principal(
        subject=subject,
        issuer=iss if isinstance(iss, str) else None,
        client_id=client_id,
        scopes=scopes_of(claims),
        claims=dict(claims),
        expires_at=float(exp) if isinstance(exp, (int, float)) and not isinstance(exp, bool) else None,
    )


def identity(principal: Any) -> str:
    """A stable text naming the caller: ``issuer|subject|client`` for a :class:`Principal`,
    else ``repr(principal)`` (a static token's principal).  Scopes, claims and expiry do not count."""
    if isinstance(principal, Principal):
        return f"oauth:{principal.issuer or ''}|{principal.subject}|{principal.client_id or ''}"
    return repr(principal)
