"""Tamper-proof tokens signed with the state keys (cursors, MRTR ``requestState``).

State keys sign the tokens a client hands back: ``tools/list``, ``resources/list``,
``resources/templates/list`` and ``prompts/list`` cursors and MRTR ``requestState``.  A key is
the hexadecimal spelling of at least 32 random bytes (64 hex digits; make one with
``python -c "import secrets; print(secrets.token_hex(32))"``); anything shorter, not hex, or
with fewer than 8 distinct byte values (a placeholder such as all zeros) is refused at
start-up with a :class:`StateKeyError` naming where it came from.  Sources, read once when
the server is built (:func:`load_keys`):

* ``MCP_CODEGEN_STATE_KEY``: keys separated by commas or whitespace;
* a key file (``ServerSettings.state_key_file``, ``--state-key-file``, or
  ``MCP_CODEGEN_STATE_KEY_FILE``): one key per line, blank lines and ``#`` comments
  ignored.  A missing, unreadable or keyless file is an error; a file group or others may
  access is accepted with a warning (Kubernetes and Docker mount secrets 0644 / 0444 by
  default; prefer 0400 / ``chmod 600``);
* neither: each process draws a random key, so tokens do not survive a restart and are not
  shared between processes (fine for one process; set a key for several workers or replicas).

Setting both the variable and a key file is an error.  Rotation: the keys form an ordered
list, the first signs and every one verifies.  A rolling deploy rotates in three rounds: add the
new key second everywhere, then move it first, then remove the old one once the tokens it
signed expired (mcp-codegen's docs/keys.md).
Each use derives its own sub-key (``purpose``), so a cursor can never pass for a
``requestState`` or the other way round, and every token carries the server's audience
(``aud``: ``ServerSettings.state_audience``, else ``MCP_CODEGEN_STATE_AUDIENCE``, else the
server's name; :func:`resolve_audience`), checked on verify, so two servers sharing a key
refuse each other's tokens.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections.abc import Mapping
from typing import Any

from ..wire.errors import InvalidParamsError
from ..wire.tools import canonical_json

logger = logging.getLogger("mcp_codegen.server")

STATE_KEY_ENV = "MCP_CODEGEN_STATE_KEY"
STATE_KEY_FILE_ENV = "MCP_CODEGEN_STATE_KEY_FILE"
STATE_AUDIENCE_ENV = "MCP_CODEGEN_STATE_AUDIENCE"
#: The shortest state key accepted, in bytes.
MIN_KEY_BYTES = 32
_MAX_KEY_FILE = 64 * 1024
_HOW = 'make a key with: python -c "import secrets; print(secrets.token_hex(32))"'


class StateKeyError(ValueError):
    """A state key setting that cannot be used (the message says where it came from and
    how to make a key; it never repeats a key)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def digest(value: Any) -> str:
    """Short SHA-256 digest of a JSON value (hex, 32 chars)."""
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:32]


def _parse_key(text: str, where: str) -> bytes:
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise StateKeyError(f"{where} is not hexadecimal; {_HOW}") from None
    if len(key) < MIN_KEY_BYTES:
        raise StateKeyError(f"{where} has {len(key)} bytes, at least {MIN_KEY_BYTES} are needed; {_HOW}")
    if len(set(key)) < 8:
        raise StateKeyError(f"{where} is not random (fewer than 8 distinct bytes); {_HOW}")
    return key


def read_key_file(path: str) -> list[bytes]:
    """The keys of a key file: one hex key per line, blank lines and ``#`` comments ignored.

    Raises:
        StateKeyError: the file cannot be read, holds no key, or a key is invalid.
    """
    where = f"state key file {path} ({STATE_KEY_FILE_ENV} / --state-key-file)"
    try:
        with open(path, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            data = handle.read(_MAX_KEY_FILE + 1)
    except OSError as exc:
        raise StateKeyError(f"{where} cannot be read: {exc.strerror or exc}") from None
    if len(data) > _MAX_KEY_FILE:
        raise StateKeyError(f"{where} is larger than {_MAX_KEY_FILE} bytes: not a key file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise StateKeyError(f"{where} is not text; {_HOW}") from None
    keys = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            keys.append(_parse_key(line, f"{where}, line {number},"))
    if not keys:
        raise StateKeyError(f"{where} holds no key; {_HOW}")
    if os.name == "posix" and mode & 0o077:
        logger.warning("state key file %s may be accessed by group or others (mode %03o); restrict it to its "
                       "owner (chmod 600, or defaultMode 0400 for a Kubernetes secret)", path, mode & 0o777)
    return keys


def keys_configured(key_file: str | None = None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a shared key is configured (``key_file``, the key variable or the key-file
    variable), i.e. whether :func:`load_keys` would not draw a random one."""
    env = os.environ if environ is None else environ
    return bool(key_file or STATE_KEY_ENV in env or env.get(STATE_KEY_FILE_ENV, "").strip())


def load_keys(key_file: str | None = None, environ: Mapping[str, str] | None = None) -> list[bytes]:
    """The state keys, first signs: from ``key_file`` (else ``MCP_CODEGEN_STATE_KEY_FILE``) or
    ``MCP_CODEGEN_STATE_KEY``, or one random key when neither is set.

    Args:
        key_file: a key file path (``ServerSettings.state_key_file``); None: the variable's.
        environ: the environment to read (default ``os.environ``).

    Raises:
        StateKeyError: an invalid key, an unreadable or keyless file, a set but empty
            variable, or both the variable and a key file.
    """
    env = os.environ if environ is None else environ
    path = key_file or env.get(STATE_KEY_FILE_ENV, "").strip() or None
    if path is not None and STATE_KEY_ENV in env:
        raise StateKeyError(f"both {STATE_KEY_ENV} and a state key file ({path}) are set: use one of them")
    if path is not None:
        return read_key_file(path)
    if STATE_KEY_ENV not in env:
        return [secrets.token_bytes(MIN_KEY_BYTES)]
    parts = env[STATE_KEY_ENV].replace(",", " ").split()
    if not parts:
        raise StateKeyError(f"{STATE_KEY_ENV} is set but holds no key (unset it for a random key per process); {_HOW}")
    return [_parse_key(k, f"{STATE_KEY_ENV} (key {i} of {len(parts)})") for i, k in enumerate(parts, 1)]


def resolve_audience(configured: str | None, default: str, environ: Mapping[str, str] | None = None) -> str:
    """The audience tokens are bound to: ``configured`` (``ServerSettings.state_audience``),
    else ``MCP_CODEGEN_STATE_AUDIENCE``, else ``default`` (the server's name)."""
    env = os.environ if environ is None else environ
    return configured or env.get(STATE_AUDIENCE_ENV, "").strip() or default


class Signer:
    """HMAC-SHA256 signed, optionally expiring JSON tokens for one purpose and audience.

    Token format: ``base64url(json payload) "." base64url(mac)``; the payload gets ``aud``
    (the audience) and, with a ``ttl``, ``exp``.  Not encrypted: the payload is readable by
    the client, only tampering is detected.

    Raises:
        StateKeyError: no key, or a key shorter than :data:`MIN_KEY_BYTES`.
    """

    def __init__(self, purpose: str, keys: list[bytes] | None = None, audience: str = "") -> None:
        base = keys if keys is not None else load_keys()
        if not base or any(not isinstance(k, bytes) or len(k) < MIN_KEY_BYTES for k in base):
            raise StateKeyError(f"state keys must be bytes of at least {MIN_KEY_BYTES} each; {_HOW}")
        self._keys = [hmac.new(k, purpose.encode(), hashlib.sha256).digest() for k in base]
        self.audience = audience

    def sign(self, payload: dict[str, Any], ttl: float | None = None) -> str:
        body = dict(payload)
        body["aud"] = self.audience
        if ttl is not None:
            body["exp"] = int(time.time() + ttl) + 1
        raw = canonical_json(body).encode()
        mac = hmac.new(self._keys[0], raw, hashlib.sha256).digest()
        return f"{_b64(raw)}.{_b64(mac)}"

    def verify(self, token: Any, what: str) -> dict[str, Any]:
        """The payload of a valid token (signed by one of the keys, for this audience).

        Raises:
            InvalidParamsError: malformed, tampered or expired token, or one issued for
                another audience (-32602).
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
        if payload.get("aud") != self.audience:
            raise InvalidParamsError(f"Invalid {what}: issued for another server (audience)")
        exp = payload.get("exp")
        if exp is not None and (not isinstance(exp, int) or exp < time.time()):
            raise InvalidParamsError(f"Expired {what}")
        return payload
