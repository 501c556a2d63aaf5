"""Cassettes: recorded MCP traffic (``mcp-codegen proxy --record``), read back for replay.

A cassette is JSON lines.  Line 1 is the header ``{"cassette": 1, "transport": "stdio" | "http",
"recorded": ..., "server": ..., "command": [...] | "upstream": URL}``; every further line one
message as it passed: ``{"seq": N, "dir": "c2s" | "s2c", "t": SECONDS, "message": {...}}``, over
HTTP with ``"http": {"method", "status", "headers", "session"}`` beside it.

:class:`Cassette` pairs each client request with the server's response (same JSON-RPC id, in
the same HTTP session) into an :class:`Exchange`.  A request is looked up by its method and its
params as canonical JSON, without what a client varies from run to run: the JSON-RPC id, and
``params._meta`` (progress tokens, the 2026 era's client information); ``initialize`` by its
protocol version alone (client names and capabilities vary too).  The same request recorded
several times answers with each recording in turn, then the last one again (a server's state
moving on, as it did while recording); a secret the proxy replaced by ``<redacted>`` matches
any text in its place.  :meth:`Cassette.nearest` names the recorded call
closest to one that was not recorded: the same method and tool name first, then the fewest
differing argument values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .values import canonical

#: The format version a cassette's header names (``"cassette": 1``).
CASSETTE_VERSION = 1
#: What the recording proxy writes in place of a secret.
REDACTED = "<redacted>"
#: Client requests answered only from a cassette; other methods fall back to the spec.
REPLAYED_ONLY = frozenset({"tools/call", "resources/read", "prompts/get", "completion/complete"})


class CassetteError(ValueError):
    """A cassette that cannot be read (the message names the file and line)."""


@dataclass
class Exchange:
    """One recorded request and the response it got (``response``: its ``result`` or ``error``)."""

    method: str
    params: dict[str, Any]
    response: dict[str, Any]
    line: int
    session: str | None = None

    @property
    def key(self) -> str:
        return request_key(self.method, self.params)

    def describe(self) -> str:
        """``tools/call get_weather {"location":"Paris"}``: the call, readable in one line."""
        return describe(self.method, self.params)


def strip_varying(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """``params`` without what clients vary between runs (``_meta``: progress tokens, client info)."""
    return {k: v for k, v in (params or {}).items() if k != "_meta"}


def request_key(method: str, params: Mapping[str, Any] | None) -> str:
    """What a request is looked up by (see the module docstring)."""
    if method == "initialize":
        return canonical({"method": method, "protocolVersion": (params or {}).get("protocolVersion")})
    return canonical({"method": method, "params": strip_varying(params)})


def describe(method: str, params: Mapping[str, Any] | None) -> str:
    """One readable line for a request (the tool's name and arguments for ``tools/call``)."""
    p = strip_varying(params)
    if method == "tools/call":
        return f"tools/call {p.get('name')} {canonical(p.get('arguments') or {})}"
    if method == "resources/read":
        return f"resources/read {p.get('uri')}"
    if method == "prompts/get":
        return f"prompts/get {p.get('name')} {canonical(p.get('arguments') or {})}"
    return f"{method} {canonical(p)}"


def _leaves(value: Any, at: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, f"{at}/{key}")
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves(item, f"{at}/{index}")
    else:
        yield at, canonical(value)


def _redacted_match(recorded: Any, actual: Any) -> bool:
    """``actual`` equals ``recorded``, where each ``<redacted>`` in a recorded string stands for any text."""
    if isinstance(recorded, str) and REDACTED in recorded:
        if not isinstance(actual, str):
            return False
        pattern = ".*".join(re.escape(part) for part in recorded.split(REDACTED))
        return re.fullmatch(pattern, actual, re.DOTALL) is not None
    if isinstance(recorded, Mapping):
        return (isinstance(actual, Mapping) and recorded.keys() == actual.keys()
                and all(_redacted_match(v, actual[k]) for k, v in recorded.items()))
    if isinstance(recorded, list):
        return (isinstance(actual, list) and len(recorded) == len(actual)
                and all(_redacted_match(a, b) for a, b in zip(recorded, actual, strict=True)))
    return canonical(recorded) == canonical(actual)


def difference(one: Any, two: Any) -> int:
    """How many leaf values (by JSON pointer) differ between two JSON values."""
    a, b = dict(_leaves(one)), dict(_leaves(two))
    return sum(1 for k in a.keys() | b.keys() if a.get(k) != b.get(k))


@dataclass
class Cassette:
    """A cassette read back (see the module docstring)."""

    path: str
    header: dict[str, Any]
    exchanges: list[Exchange] = field(default_factory=list)
    _by_key: dict[str, list[Exchange]] = field(default_factory=dict, repr=False)
    _played: dict[str, int] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, path: str | Path) -> Cassette:
        """Read a cassette file.

        Raises:
            CassetteError: unreadable, not JSON lines, or a header of another format.
        """
        shown = str(path)
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise CassetteError(f"{shown}: cannot read the cassette: {exc.strerror or exc}") from None
        records: list[tuple[int, dict[str, Any]]] = []
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                if number == len(lines):  # a last line cut short (the proxy was killed mid-write)
                    break
                raise CassetteError(f"{shown}:{number}: not a JSON line ({exc.msg})") from None
            if not isinstance(record, dict):
                raise CassetteError(f"{shown}:{number}: a cassette line is a JSON object")
            records.append((number, record))
        if not records or records[0][1].get("cassette") != CASSETTE_VERSION:
            raise CassetteError(f"{shown}:1: not a cassette: the first line must be a header "
                                f'{{"cassette": {CASSETTE_VERSION}, ...}} (written by mcp-codegen proxy --record)')
        cassette = cls(shown, records[0][1])
        cassette._pair(records[1:])
        return cassette

    def _pair(self, records: list[tuple[int, dict[str, Any]]]) -> None:
        pending: dict[tuple[str | None, str], tuple[int, dict[str, Any]]] = {}
        for number, record in records:
            message, direction = record.get("message"), record.get("dir")
            if not isinstance(message, dict) or "id" not in message:
                continue
            http = record.get("http")
            session = http.get("session") if isinstance(http, dict) else None
            ident = canonical(message["id"])
            if direction == "c2s" and isinstance(message.get("method"), str):
                pending[(session, ident)] = (number, message)
            elif direction == "s2c" and "method" not in message and ("result" in message or "error" in message):
                found = pending.pop((session, ident), None) or pending.pop((None, ident), None)
                if found is None:
                    continue
                line, request = found
                params: dict[str, Any] = request["params"] if isinstance(request.get("params"), dict) else {}
                response = {"result": message["result"]} if "result" in message else {"error": message["error"]}
                self.exchanges.append(Exchange(request["method"], params, response, line, session))
        for exchange in self.exchanges:
            self._by_key.setdefault(exchange.key, []).append(exchange)

    @property
    def server_info(self) -> dict[str, Any] | None:
        info = self.header.get("server")
        return info if isinstance(info, dict) else None

    def recorded(self, method: str, params: Mapping[str, Any] | None) -> list[Exchange]:
        """Every recording of this request, in order."""
        return list(self._by_key.get(request_key(method, params), []))

    def answer(self, method: str, params: Mapping[str, Any] | None) -> Exchange | None:
        """The recording that answers this request now (each in turn, then the last again), or None.
        A recorded string holding ``<redacted>`` (a secret the proxy scrubbed) matches any text there."""
        key = request_key(method, params)
        found = self._by_key.get(key)
        if not found:
            mine = strip_varying(params)
            found = [e for e in self.exchanges if e.method == method and REDACTED in e.key
                     and _redacted_match(strip_varying(e.params), mine)]
            if not found:
                return None
            key = found[0].key
        turn = self._played.get(key, 0)
        self._played[key] = turn + 1
        return found[min(turn, len(found) - 1)]

    def nearest(self, method: str, params: Mapping[str, Any] | None) -> Exchange | None:
        """The recorded request most like this one: the same method (and, for ``tools/call``
        and ``prompts/get``, the same name) first, then the fewest differing values."""
        mine = strip_varying(params)
        same = [e for e in self.exchanges if e.method == method]
        if not same:
            return None

        def rank(e: Exchange) -> tuple[int, int, int]:
            theirs = strip_varying(e.params)
            other_name = int(theirs.get("name") != mine.get("name"))
            return other_name, difference(mine, theirs), e.line

        return min(same, key=rank)

    def unrecorded(self, method: str, params: Mapping[str, Any] | None) -> str:
        """The message refusing a request the cassette does not hold, naming the nearest one."""
        near = self.nearest(method, params)
        text = f"no recorded answer for {describe(method, params)} in cassette {self.path}"
        if near is None:
            return text + f" (it records no {method} request)"
        return text + f"; nearest recorded call: {near.describe()} (line {near.line})"


__all__ = ["CASSETTE_VERSION", "REDACTED", "REPLAYED_ONLY", "Cassette", "CassetteError", "Exchange", "describe", "difference",
           "request_key", "strip_varying"]
