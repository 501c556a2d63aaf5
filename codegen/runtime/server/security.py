"""Tamper-proof tokens (cursors, MRTR ``requestState``), rate limiting and size limits.

Signing keys: the environment variable ``MCP_CODEGEN_STATE_KEY`` holds the secret (any
string, ideally 32+ random bytes in hex).  To rotate, list several keys separated by
commas: the first one signs, every one verifies.  Without the variable each process draws
a random key at start-up, so tokens do not survive a restart and are not shared between
processes (set the variable for several HTTP workers behind a load balancer).
Each use derives its own sub-key (``purpose``), so a cursor can never pass for a
``requestState`` or the other way round.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
import time
from typing import Any

from ..wire.errors import InvalidParamsError

STATE_KEY_ENV = "MCP_CODEGEN_STATE_KEY"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def canonical_json(value: Any) -> bytes:
    """Deterministic JSON bytes (sorted keys, compact) for digests."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(value: Any) -> str:
    """Short SHA-256 digest of a JSON value (hex, 32 chars)."""
    return hashlib.sha256(canonical_json(value)).hexdigest()[:32]


def load_keys(env: str | None = None) -> list[bytes]:
    """Signing keys from ``MCP_CODEGEN_STATE_KEY`` (first signs), or one random key."""
    raw = os.environ.get(STATE_KEY_ENV, "") if env is None else env
    keys = [k.strip().encode() for k in raw.split(",") if k.strip()]
    return keys or [secrets.token_bytes(32)]


class Signer:
    """HMAC-SHA256 signed, optionally expiring JSON tokens for one purpose.

    Token format: ``base64url(json payload) "." base64url(mac)``.  Not encrypted: the
    payload is readable by the client, only tampering is detected.
    """

    def __init__(self, purpose: str, keys: list[bytes] | None = None) -> None:
        base = keys if keys is not None else load_keys()
        self._keys = [hmac.new(k, purpose.encode(), hashlib.sha256).digest() for k in base]

    def sign(self, payload: dict[str, Any], ttl: float | None = None) -> str:
        body = dict(payload)
        if ttl is not None:
            body["exp"] = int(time.time() + ttl) + 1
        raw = canonical_json(body)
        mac = hmac.new(self._keys[0], raw, hashlib.sha256).digest()
        return f"{_b64(raw)}.{_b64(mac)}"

    def verify(self, token: Any, what: str) -> dict[str, Any]:
        """The payload of a valid token.

        Raises:
            InvalidParamsError: malformed, tampered or expired token (-32602).
        """
        bad = InvalidParamsError(f"Invalid {what}")
        if not isinstance(token, str) or token.count(".") != 1 or len(token) > 1_000_000:
            raise bad
        body_b64, mac_b64 = token.split(".")
        try:
            raw, mac = _unb64(body_b64), _unb64(mac_b64)
        except (binascii.Error, ValueError):
            raise bad from None
        if _b64(raw) != body_b64 or _b64(mac) != mac_b64:
            raise bad  # non-canonical base64 (spare bits set): one token, one spelling
        if not any(
            hmac.compare_digest(hmac.new(k, raw, hashlib.sha256).digest(), mac) for k in self._keys
        ):
            raise bad
        try:
            payload = json.loads(raw)
        except ValueError:
            raise bad from None
        if not isinstance(payload, dict):
            raise bad
        exp = payload.get("exp")
        if exp is not None and (not isinstance(exp, int) or exp < time.time()):
            raise InvalidParamsError(f"Expired {what}")
        return payload


class TokenBucket:
    """Classic token bucket: ``rate`` tokens per second, at most ``burst`` stored."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._tokens = float(burst)
        self._stamp = time.monotonic()

    def take(self) -> bool:
        """Consume one token; False when the bucket is empty (rate limited)."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


def _within_limits(item: Any, max_string: int, depth_left: int) -> bool:
    """Fast recursive check used by :func:`exceeds_limits` (True: no limit broken)."""
    if depth_left < 0:
        return False
    if isinstance(item, str):
        return len(item) <= max_string
    if isinstance(item, dict):
        for k, v in item.items():
            if len(k) > max_string or not _within_limits(v, max_string, depth_left - 1):
                return False
    elif isinstance(item, list):
        for v in item:
            if not _within_limits(v, max_string, depth_left - 1):
                return False
    return True


def exceeds_limits(value: Any, max_string: int, max_depth: int) -> str | None:
    """Why ``value`` breaks the string-length or nesting limit, or None if it does not."""
    if max_depth <= 256 and _within_limits(value, max_string, max_depth):
        return None  # the common case, without the walk below (which names the violation)
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return f"nesting deeper than {max_depth}"
        if isinstance(item, str):
            if len(item) > max_string:
                return f"string longer than {max_string} characters"
        elif isinstance(item, dict):
            for k, v in item.items():
                if len(k) > max_string:
                    return f"string longer than {max_string} characters"
                stack.append((v, depth + 1))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return None
