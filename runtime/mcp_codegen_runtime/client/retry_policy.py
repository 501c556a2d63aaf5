"""Safe retries of the client: :class:`RetryPolicy`, what may be repeated, and the retry loop.

Off by default.  ``Client.stdio(..., retry="safe")`` (or ``retry=RetryPolicy(...)``, on any
constructor) retries a call only when repeating it cannot do harm:

* **the request never reached the server**: the connection could not be made (refused,
  timed out, no free connection), it broke before the request was written, the client was
  still connecting, the transport had already closed before the send, the server answered
  HTTP 503 (it did not process the request; its ``Retry-After`` is honoured up to
  ``max_delay``), or a legacy session was lost again after one renewal (a 404 means the
  server never saw the request);
* **or the request may have run but the tool is repeatable**: the generated tool table
  (the spec, not the live server) marks it ``readOnlyHint: true`` or ``idempotentHint:
  true``, or the policy names it in ``repeat_tools``; a tool the table does not know is
  judged by the live ``tools/list`` annotations.  ``tools/list`` pages are always
  repeatable.

A call that may have run (the connection broke after the request was sent: a server killed
mid-call, a stream cut before the answer) and is not repeatable is never sent again: it
raises :class:`CallMayHaveRunError`.  Answers of the server (a JSON-RPC error, an
``isError`` result, a rate limit) and timeouts are never retried.

Between attempts the client waits ``initial_delay * multiplier**n`` seconds (at most
``max_delay``), the last ``jitter`` fraction of it drawn at random, and stops once the next
attempt would start after ``deadline`` seconds from the first one or after ``max_attempts``
attempts: :class:`RetriesExhaustedError` (the last error is its ``__cause__``).  When the
failure closed the transport (a stdio server that exited, an HTTP server that refused the
connection) the client reconnects first with a fresh transport of the same settings (stdio:
the command is spawned again), agreeing on the era and version it had agreed before.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from ..wire.errors import McpError, McpTimeoutError, TransportClosedError

logger = logging.getLogger("mcp_codegen.client.retry")

T = TypeVar("T")
#: Where a failed attempt left its request: never sent, or sent (it may have run).
Delivery = Literal["not_sent", "may_have_run"]


@dataclass(frozen=True)
class RetryPolicy:
    """How the client retries safe calls (see the module docstring).

    Args:
        deadline: seconds from the first attempt after which no attempt starts.
        max_attempts: the most attempts of one call (the first included).
        initial_delay: the wait before the second attempt, in seconds.
        max_delay: the longest wait between two attempts (also caps ``Retry-After``).
        multiplier: each wait is this many times the previous one.
        jitter: the fraction of each wait drawn at random (0: none, 1: all of it).
        repeat_tools: names of tools the caller declares safe to repeat although the
            tool table does not mark them read-only or idempotent.
        reconnect: start a fresh transport when a failure closed the old one.
    """

    deadline: float = 10.0
    max_attempts: int = 5
    initial_delay: float = 0.1
    max_delay: float = 2.0
    multiplier: float = 2.0
    jitter: float = 0.5
    repeat_tools: frozenset[str] = field(default_factory=frozenset)
    reconnect: bool = True

    def __post_init__(self) -> None:
        if not self.deadline > 0 or self.max_attempts < 1:
            raise ValueError("RetryPolicy needs deadline > 0 and max_attempts >= 1")
        if self.initial_delay < 0 or self.max_delay < self.initial_delay or self.multiplier < 1:
            raise ValueError("RetryPolicy needs 0 <= initial_delay <= max_delay and multiplier >= 1")
        if not 0 <= self.jitter <= 1:
            raise ValueError("RetryPolicy.jitter must be between 0 and 1")
        object.__setattr__(self, "repeat_tools", frozenset(self.repeat_tools))

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        """The wait after failed attempt number ``attempt`` (1 for the first), in seconds."""
        base = min(self.max_delay, self.initial_delay * self.multiplier ** max(0, attempt - 1))
        draw = (rng or random).random()
        return base * (1 - self.jitter) + base * self.jitter * draw


#: What the constructors accept: a policy, ``"safe"`` (the default policy) or ``None`` (off).
RetrySetting = RetryPolicy | Literal["safe"] | None


def resolve_policy(setting: RetrySetting) -> RetryPolicy | None:
    """The policy of a ``retry=`` argument.

    Raises:
        ValueError: anything other than a policy, ``"safe"`` or ``None``.
    """
    if setting is None or isinstance(setting, RetryPolicy):
        return setting
    if setting == "safe":
        return RetryPolicy()
    raise ValueError(f"retry must be a RetryPolicy, 'safe' or None, not {setting!r}")


class CallMayHaveRunError(TransportClosedError):
    """The connection was lost after the call was sent; it may have run on the server, and it
    was not sent again because the tool is not marked read-only or idempotent."""


class RetriesExhaustedError(McpError):
    """A call still failed when its retry deadline or attempt count ran out (the last error
    is the ``__cause__``; ``data``: ``attempts``, ``elapsedS``, ``mayHaveRun``, ``lastError``)."""


def delivery(exc: BaseException) -> Delivery | None:
    """Where ``exc`` left its request, or None when it is the server's answer (not retried)."""
    if not isinstance(exc, McpError) or isinstance(exc, (CallMayHaveRunError, RetriesExhaustedError)):
        return None
    data: Mapping[str, Any] = exc.data if isinstance(exc.data, dict) else {}
    sent = data.get("requestSent")
    if sent is False or data.get("sessionLost") is True:
        return "not_sent"
    if sent is True:  # e.g. a 503 on the resumption of a stream whose request was processed
        return "may_have_run"
    if data.get("httpStatus") == 503:
        return "not_sent"
    return "may_have_run" if isinstance(exc, TransportClosedError) else None


def is_repeatable(name: str, wire: Mapping[str, Any] | None, policy: RetryPolicy) -> bool:
    """True when the tool ``name`` (its wire ``Tool``, if known) may be called twice safely."""
    if name in policy.repeat_tools:
        return True
    notes = (wire or {}).get("annotations")
    return isinstance(notes, dict) and (notes.get("readOnlyHint") is True or notes.get("idempotentHint") is True)


def _retry_after(exc: McpError, cap: float) -> float:
    data = exc.data if isinstance(exc.data, dict) else {}
    value = data.get("retryAfter")
    try:
        seconds = float(value) if value is not None else 0.0
    except (TypeError, ValueError):
        return 0.0
    return min(max(seconds, 0.0), cap)


async def run_with_retries(
    policy: RetryPolicy,
    what: str,
    connect: Callable[[], Awaitable[None]],
    call: Callable[[], Awaitable[T]],
    *,
    repeatable: bool,
    recover: Callable[[McpError], Awaitable[None]],
    rng: random.Random | None = None,
) -> T:
    """Run ``connect()`` then ``call()``, again after safe failures (see the module docstring).

    Args:
        policy: the retry policy.
        what: the call, for messages (``tools/call 'get_weather'``).
        connect: makes sure the client is connected (its failures never ran the call).
        call: one attempt of the call.
        repeatable: the call may run twice without harm.
        recover: called before a new attempt with the error (reconnects a closed transport;
            raises when it cannot).
        rng: the random source of the jitter.

    Raises:
        CallMayHaveRunError: the call may have run and is not repeatable.
        RetriesExhaustedError: the deadline or the attempt count ran out.
    """
    loop = asyncio.get_running_loop()
    started = loop.time()
    attempts = 0
    may_have_run = False
    while True:
        attempts += 1
        sent = False
        try:
            await connect()
            sent = True
            return await call()
        except McpError as exc:
            kind = delivery(exc)
            if not sent and (kind is not None or isinstance(exc, McpTimeoutError)):
                kind = "not_sent"  # connecting failed or timed out: the call itself was not sent
            if kind is None:
                raise
            if kind == "may_have_run":
                if not repeatable:
                    raise CallMayHaveRunError(
                        f"{what}: the connection was lost after the request was sent, so it may have run on the "
                        f"server; it is not sent again because the tool is not marked readOnlyHint or "
                        f"idempotentHint ({exc.message})",
                        data={"requestSent": True, "attempts": attempts, "lastError": type(exc).__name__},
                    ) from exc
                may_have_run = True
            wait = max(policy.delay(attempts, rng), _retry_after(exc, policy.max_delay))
            elapsed = loop.time() - started
            if attempts >= policy.max_attempts or elapsed + wait > policy.deadline:
                note = " (an attempt may have run)" if may_have_run else " (no attempt reached the server)"
                raise RetriesExhaustedError(
                    f"{what} failed after {attempts} attempt(s) in {elapsed:.1f} s{note}: {exc.message}",
                    data={"attempts": attempts, "elapsedS": round(elapsed, 3), "mayHaveRun": may_have_run,
                          "lastError": type(exc).__name__},
                ) from exc
            logger.info("%s: attempt %d failed (%s: %s); retrying in %.2f s", what, attempts, type(exc).__name__,
                        exc.message, wait)
            await asyncio.sleep(wait)
            await recover(exc)


__all__ = [
    "CallMayHaveRunError",
    "RetriesExhaustedError",
    "RetryPolicy",
    "RetrySetting",
    "delivery",
    "is_repeatable",
    "resolve_policy",
    "run_with_retries",
]
