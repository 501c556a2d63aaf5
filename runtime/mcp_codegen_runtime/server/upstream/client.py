"""The HTTP client of one server instance's upstream calls: pooled, bounded, retrying with care.

* One ``httpx.AsyncClient`` per server instance (its connection pool), made on the first call
  (again if the event loop changed: a pool belongs to one loop) and closed with the server.
* ``timeout`` seconds for each phase of a request (connect, write, read, pool).
* Redirects are not followed: a 3xx is an answer like any other non-2xx, so neither our
  credentials nor a caller's forwarded headers ever reach another host.
* Retries (at most ``retries``) only of idempotent methods (GET HEAD OPTIONS PUT DELETE TRACE):
  on a transport failure (connect, read, timeout) and on 502/503/504, after 0.2 s, 0.4 s, ...
  (at most 2 s), or after the answer's ``Retry-After`` when it asks at most 10 s; a 429 only when
  its ``Retry-After`` asks at most 10 s.  POST and PATCH are sent once.
* An answer is read up to :data:`MAX_BODY` bytes; a larger one fails the call.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from dataclasses import dataclass
from typing import Any

from .body import Part

#: Methods retried (RFC 9110 §9.2.2 idempotent methods).
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
RETRY_STATUSES = frozenset({502, 503, 504})
#: The longest ``Retry-After`` waited for, in seconds.
MAX_RETRY_AFTER = 10.0
#: The largest answer read, in bytes.
MAX_BODY = 32 * 1024 * 1024


class AnswerTooLarge(Exception):
    """The upstream's answer is larger than :data:`MAX_BODY`."""


@dataclass(frozen=True)
class Answer:
    """The upstream's answer: status, reason phrase, headers (lower-case names) and body."""

    status: int
    reason: str
    headers: dict[str, str]
    body: bytes


def _need_httpx() -> Any:
    try:
        import httpx
    except ImportError:  # pragma: no cover - the http extra is a dependency of every upstream package
        raise ImportError("upstream-bound tools need httpx: install the runtime's 'http' extra") from None
    return httpx


def retry_after(value: str | None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delay or HTTP date); None when absent or malformed."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class UpstreamClient:
    """Sends requests to the upstream (module docstring)."""

    def __init__(self, timeout: float, retries: int) -> None:
        self.timeout = timeout
        self.retries = retries
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _pool(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            httpx = _need_httpx()
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout), follow_redirects=False)
            self._loop = loop
        return self._client

    async def send(self, method: str, url: str, headers: dict[str, str], content: bytes | None,
                   parts: list[tuple[str, Part]] | None) -> Answer:
        """Send the request, retrying as the module docstring says.

        Raises:
            httpx.TransportError: the upstream did not answer (after the retries).
            AnswerTooLarge: the answer exceeds :data:`MAX_BODY`.
        """
        httpx = _need_httpx()
        attempts = 1 + (self.retries if method in IDEMPOTENT else 0)
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                answer = await self._once(method, url, headers, content, parts)
            except httpx.TransportError:
                if last:
                    raise
                await asyncio.sleep(self._backoff(attempt))
                continue
            wait = self._retry_wait(answer, attempt)
            if wait is None or last:
                return answer
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _backoff(attempt: int) -> float:
        return float(min(2.0, 0.2 * 2 ** attempt))

    def _retry_wait(self, answer: Answer, attempt: int) -> float | None:
        """How long to wait before retrying ``answer`` (None: it is final)."""
        if answer.status not in RETRY_STATUSES and answer.status != 429:
            return None
        asked = retry_after(answer.headers.get("retry-after"))
        if asked is not None:
            return asked if asked <= MAX_RETRY_AFTER else None
        return None if answer.status == 429 else self._backoff(attempt)

    async def _once(self, method: str, url: str, headers: dict[str, str], content: bytes | None,
                    parts: list[tuple[str, Part]] | None) -> Answer:
        client = self._pool()
        request = client.build_request(method, url, headers=headers, content=content, files=parts or None)
        response = await client.send(request, stream=True)
        try:
            body = bytearray()
            async for chunk in response.aiter_raw() if method == "HEAD" else response.aiter_bytes():
                body += chunk
                if len(body) > MAX_BODY:
                    raise AnswerTooLarge()
        finally:
            await response.aclose()
        return Answer(response.status_code, response.reason_phrase,
                      {k.lower(): v for k, v in response.headers.items()}, bytes(body))

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


__all__ = ["IDEMPOTENT", "MAX_BODY", "Answer", "AnswerTooLarge", "UpstreamClient", "retry_after"]
