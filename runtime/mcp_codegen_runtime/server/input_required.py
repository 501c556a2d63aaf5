"""The 2026-07-28 ``input_required`` round trip (MRTR): the signed, expiring ``requestState`` token.

The payload carries the tool name, a digest of the arguments, a digest of the principal
(:func:`server.principal.identity`: issuer, subject and client of a verified token),
an expiry, and the answers of earlier rounds (so a multi-round call needs no server-side
storage).  It is HMAC-signed and bound to the server's audience (see :mod:`server.signing`
for the keys, ``MCP_CODEGEN_STATE_KEY``) but not encrypted: answers came from the client
anyway.  Anything that fails verification (tampered, expired, issued by another server, for
another tool, other arguments or another principal) is a JSON-RPC ``-32602``.
"""

from __future__ import annotations

import secrets
from typing import Any

from ..wire.errors import InvalidParamsError
from .principal import identity
from .signing import Signer, digest


def _principal_digest(principal: Any) -> str:
    # the verified identity (issuer, subject, client), not the token: a refreshed token still fits
    return "" if principal is None else digest(identity(principal))


class RequestStateCodec:
    """Issue and open ``requestState`` tokens."""

    def __init__(self, signer: Signer, ttl: float) -> None:
        self._signer = signer
        self._ttl = ttl

    def issue(self, tool: str | list[str], arguments: Any, principal: Any, answers: dict[str, Any]) -> str:
        payload = {
            "t": tool,
            "a": digest(arguments),
            "p": _principal_digest(principal),
            "r": answers,
            "n": secrets.token_hex(8),
        }
        return self._signer.sign(payload, ttl=self._ttl)

    def open(self, token: Any, tool: str | list[str], arguments: Any, principal: Any) -> dict[str, Any]:
        """The answers stored in a valid token for this very call.

        Raises:
            InvalidParamsError: the token is invalid or belongs to another call (-32602).
        """
        payload = self._signer.verify(token, "requestState")
        if (
            payload.get("t") != tool
            or payload.get("a") != digest(arguments)
            or payload.get("p") != _principal_digest(principal)
        ):
            raise InvalidParamsError("Invalid requestState: issued for another request")
        answers = payload.get("r")
        return dict(answers) if isinstance(answers, dict) else {}

    def answers(self, params: dict[str, Any], name: str | list[str], arguments: Any, principal: Any) -> dict[str, Any]:
        """The answers of a retried request: its ``requestState``'s, then its ``inputResponses``.

        ``name`` is what the state is bound to (a tool's name, or ``["prompt", <name>]``).

        Raises:
            InvalidParamsError: malformed ``inputResponses`` or an invalid state (-32602).
        """
        responses = params.get("inputResponses")
        if responses is not None and (
            not isinstance(responses, dict) or not all(isinstance(v, dict) for v in responses.values())
        ):
            raise InvalidParamsError("Invalid params: inputResponses must map keys to result objects")
        state = params.get("requestState")
        answers = {} if state is None else self.open(state, name, arguments, principal)
        answers.update(responses or {})
        return answers
