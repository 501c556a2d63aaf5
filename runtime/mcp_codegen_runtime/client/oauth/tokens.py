"""Where the OAuth client keeps what it got: tokens and client registrations.

:class:`TokenStorage` is the interface (three methods over JSON-able dicts, keyed by the
protected resource's canonical URL); two implementations:

* :class:`MemoryTokenStorage` (the default): the process's memory; a new process logs in again.
* :class:`FileTokenStorage`: one JSON file holding every entry, created with permissions
  ``0600`` (owner only) and replaced atomically (written to a temporary file in the same
  folder, flushed, ``fsync``-ed, then renamed over the old one), so a crash leaves the old
  file or the new one, never half of one.  Entries of other resources are kept.

An entry (see :class:`~client.oauth.flow.OAuthFlow`) holds the authorization server's issuer and
endpoints, the client registration made with it (``client_id``, maybe ``client_secret``), and
the tokens (``access_token``, ``refresh_token``, ``expires_at``, ``scope``).  The values are
secrets: a custom storage should keep them as carefully (a keyring, an encrypted store).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class TokenStorage(Protocol):
    """Storage of OAuth state per protected resource (``key``: its canonical URL)."""

    def load(self, key: str) -> dict[str, Any] | None:
        """The entry stored for ``key``, or None."""
        ...

    def save(self, key: str, entry: dict[str, Any]) -> None:
        """Store ``entry`` (JSON-able) for ``key``, replacing the old one."""
        ...

    def delete(self, key: str) -> None:
        """Forget ``key`` (no error if absent)."""
        ...


class MemoryTokenStorage:
    """Entries in memory (copies in and out: callers cannot change stored state by accident)."""

    def __init__(self) -> None:
        self._entries: dict[str, str] = {}

    def load(self, key: str) -> dict[str, Any] | None:
        text = self._entries.get(key)
        return json.loads(text) if text is not None else None

    def save(self, key: str, entry: dict[str, Any]) -> None:
        self._entries[key] = json.dumps(entry)

    def delete(self, key: str) -> None:
        self._entries.pop(key, None)

    def __repr__(self) -> str:
        return f"MemoryTokenStorage({len(self._entries)} entries)"


class FileTokenStorage:
    """Entries in one JSON file, mode ``0600``, replaced atomically (see the module docstring).

    Args:
        path: the file (``~`` expanded); its folder is created (mode ``0700``) when missing.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()

    def _read(self) -> dict[str, Any]:
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text)
        except ValueError:
            return {}  # an unreadable file is treated as empty and replaced on the next save
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=folder)
        try:
            os.fchmod(fd, 0o600)  # mkstemp makes it 0600 already; made explicit
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def load(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            entry = self._read().get(key)
        return entry if isinstance(entry, dict) else None

    def save(self, key: str, entry: dict[str, Any]) -> None:
        with self._lock:
            data = self._read()
            data[key] = entry
            self._write(data)

    def delete(self, key: str) -> None:
        with self._lock:
            data = self._read()
            if data.pop(key, None) is not None:
                self._write(data)

    def __repr__(self) -> str:
        return f"FileTokenStorage({str(self.path)!r})"


__all__ = ["FileTokenStorage", "MemoryTokenStorage", "TokenStorage"]
