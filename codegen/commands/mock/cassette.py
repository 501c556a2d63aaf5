"""Writing cassettes (``mcp-codegen proxy --record``), with secrets scrubbed before anything is written.

The format is the one :mod:`mcp_codegen_runtime.server.mock.replay` reads back: a header line,
then one JSON line per message, each flushed as it is written, so a proxy that is killed loses
nothing already passed on.

Scrubbing (:class:`Scrubber`) replaces with ``"<redacted>"``:

* HTTP headers ``Authorization``, ``Cookie``, ``Set-Cookie``, ``Proxy-Authorization`` and any header
  whose name contains ``token``, ``key``, ``secret``, ``password`` or ``auth``;
* in URLs, the user information (``user:password@``) and the values of query parameters named
  like those;
* in a command line, the value of an option named like those (``--api-key X``, ``--token=X``);
* anywhere (messages, headers, URLs, the command line), every string equal to the value of a
  secret environment variable: those the spec names (``upstream.security[*].env``) and those
  given with ``--redact-env NAME``; values of 8 characters or more are also cut out of longer
  strings (``"Bearer <value>"``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from mcp_codegen_runtime.server.mock.replay import CASSETTE_VERSION, REDACTED

#: Header names always redacted (lower case).
SECRET_HEADERS = frozenset({"authorization", "cookie", "set-cookie", "proxy-authorization"})
#: Words that make a header, query parameter or option name secret.
SECRET_WORDS = ("token", "key", "secret", "password", "passwd", "auth", "credential", "session-id", "sessionid")
#: Secret values at least this long are also cut out of longer strings.
SUBSTRING_MIN = 8


def secret_name(name: str) -> bool:
    """Whether a header, query parameter or option called ``name`` holds a secret."""
    low = name.lower().lstrip("-")
    return low in SECRET_HEADERS or any(word in low for word in SECRET_WORDS)


def spec_secret_envs(spec: Path | None) -> list[str]:
    """The environment variables a spec names for credentials (``upstream.security[*].env``)."""
    if spec is None:
        return []
    try:
        import yaml

        data = yaml.safe_load(spec.read_text(encoding="utf-8"))
    except (OSError, ValueError, ImportError):
        return []
    upstream = data.get("upstream") if isinstance(data, dict) else None
    security = upstream.get("security") if isinstance(upstream, dict) else None
    entries = security.values() if isinstance(security, dict) else security if isinstance(security, list) else []
    names: list[str] = []
    for entry in entries:
        env = entry.get("env") if isinstance(entry, dict) else None
        if isinstance(env, str):
            names.append(env)
        elif isinstance(env, dict):  # {username: ENV, password: ENV} forms
            names += [v for v in env.values() if isinstance(v, str)]
        elif isinstance(env, list):
            names += [v for v in env if isinstance(v, str)]
    return names


class Scrubber:
    """Replaces secrets (see the module docstring) in everything written to a cassette."""

    def __init__(self, env_names: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> None:
        environ = os.environ if environ is None else environ
        values = {environ[name] for name in env_names if environ.get(name)}
        self.values = frozenset(values)
        self._long = sorted((v for v in values if len(v) >= SUBSTRING_MIN), key=len, reverse=True)

    def text(self, value: str) -> str:
        if value in self.values:
            return REDACTED
        for secret in self._long:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def json(self, value: Any) -> Any:
        """``value`` (JSON data) with every secret string replaced."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.json(v) for k, v in value.items()}
        return value

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, value in headers:
            low = name.lower()
            shown = REDACTED if secret_name(low) else self.text(value)
            out[low] = shown if low not in out else f"{out[low]}, {shown}"
        return out

    def url(self, url: str) -> str:
        """``url`` without user information and secret query values."""
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
        query = urlencode([(k, REDACTED if secret_name(k) else self.text(v))
                           for k, v in parse_qsl(parts.query, keep_blank_values=True)], safe="<>")
        return self.text(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))

    def command(self, argv: list[str]) -> list[str]:
        """A command line with secret option values, URLs and environment values replaced."""
        out: list[str] = []
        hide_next = False
        for arg in argv:
            if hide_next:
                out.append(REDACTED)
                hide_next = False
                continue
            name, eq, value = arg.partition("=")
            if arg.startswith("-") and secret_name(name):
                if eq:
                    out.append(f"{name}={REDACTED}")
                else:
                    out.append(arg)
                    hide_next = True
                continue
            out.append(self.url(arg) if re.match(r"^[a-z][a-z0-9+.-]*://", arg) else self.text(arg))
        return out


def session_hash(session_id: str | None) -> str | None:
    """What a cassette keeps of an HTTP session id (a hash: the id itself may grant access)."""
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:16] if session_id else None


class CassetteWriter:
    """Appends scrubbed lines to a cassette, each flushed at once; safe from several threads."""

    def __init__(self, path: Path, scrubber: Scrubber, header: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.scrubber = scrubber
        self._file: IO[str] = path.open("w", encoding="utf-8", newline="\n")
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._seq = 0
        self._line({"cassette": CASSETTE_VERSION, "transport": header.get("transport"),
                    "recorded": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    **{k: v for k, v in header.items() if k != "transport"}})

    def _line(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def message(self, direction: str, message: Any, http: dict[str, Any] | None = None) -> None:
        """Record one JSON-RPC message (a batch is recorded message by message)."""
        items = message if isinstance(message, list) else [message]
        with self._lock:
            if self._file.closed:  # (a late line after the proxy ended)
                return
            for item in items:
                self._seq += 1
                record: dict[str, Any] = {"seq": self._seq, "dir": direction,
                                          "t": round(time.monotonic() - self._start, 3),
                                          "message": self.scrubber.json(item)}
                if http is not None:
                    record["http"] = http
                self._line(record)

    def raw(self, direction: str, text: str) -> None:
        """Record a line that is not JSON (as a string message, scrubbed)."""
        self.message(direction, {"unparsed": text})

    def close(self) -> None:
        with self._lock:
            self._file.close()


__all__ = ["REDACTED", "CassetteWriter", "Scrubber", "secret_name", "session_hash", "spec_secret_envs"]
