"""State shared by the replicas of one server: a change bus and a rate limit, in memory or in Redis.

Without Redis (the default) a server runs alone: changes reach this process's listeners and each
process has its own token buckets.  With ``ServerSettings.redis_url`` (``--redis-url`` /
``MCP_CODEGEN_REDIS_URL``) every replica of the same server (same state audience) shares:

* :class:`RedisChangeBus` — one pub/sub channel, ``mcp-codegen:<audience>:changes``: a change
  published by any replica (``tools/list_changed``, a resource update, ...) is delivered by every
  replica to its own legacy sessions and ``subscriptions/listen`` streams (a task's
  ``notifications/tasks`` too: kind ``task``, its owner and params as JSON in the ``uri`` slot);
* :class:`RedisRateLimit` — one token bucket per client key in Redis
  (``mcp-codegen:<audience>:bucket:<key>``), refilled and taken atomically by a Lua script on the
  Redis clock, so N replicas admit what one would.

Both speak to Redis with redis-py (``pip install redis``), imported only when a URL is set.  When
Redis cannot be reached a change is still delivered locally and the local bucket decides (logged),
so an outage degrades to single-process behaviour instead of refusing every call.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

logger = logging.getLogger("mcp_codegen.server")

#: The Redis URL when ``ServerSettings.redis_url`` is not set.
REDIS_URL_ENV = "MCP_CODEGEN_REDIS_URL"

Deliver = Callable[[str, "str | None"], Awaitable[None]]

#: Refill and take one token atomically; KEYS[1] the bucket, ARGV rate, burst.  Returns 1 or 0.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens, stamp = tonumber(b[1]), tonumber(b[2])
if tokens == nil then tokens, stamp = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
local ttl = math.ceil(burst / math.max(rate, 0.000001)) + 1
redis.call('EXPIRE', KEYS[1], math.min(ttl, 86400))
return ok
"""


def _redis(url: str) -> Any:
    """A redis-py asyncio client for ``url`` (redis-py is an optional extra)."""
    try:
        import redis.asyncio as aioredis  # type: ignore[import-not-found, unused-ignore]  # optional extra
    except ImportError:
        raise RuntimeError("sharing state in Redis needs redis-py: pip install redis") from None
    return aioredis.from_url(url, decode_responses=True, health_check_interval=30)


class ChangeBus(Protocol):
    """Carries changes between the replicas of a server (see the module docstring)."""

    async def start(self, deliver: Deliver) -> None:
        """Begin delivering every published change with ``deliver(kind, uri)``."""

    async def publish(self, kind: str, uri: str | None) -> None:
        """Announce a change to every replica (this one included)."""

    async def aclose(self) -> None:
        """Stop delivering and release the connection."""


class RedisChangeBus:
    """A :class:`ChangeBus` on one Redis pub/sub channel."""

    def __init__(self, url: str, audience: str) -> None:
        self.channel = f"mcp-codegen:{audience}:changes"
        self._redis = _redis(url)
        self._deliver: Deliver | None = None
        self._task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()

    async def start(self, deliver: Deliver) -> None:
        self._deliver = deliver
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._listen(), name="mcp-change-bus")
            try:  # a change published right after start must not be missed
                await asyncio.wait_for(self._subscribed.wait(), 5)
            except TimeoutError:
                logger.warning("change bus: not subscribed to %s yet (Redis unreachable?)", self.channel)

    async def publish(self, kind: str, uri: str | None) -> None:
        try:
            await self._redis.publish(self.channel, json.dumps({"kind": kind, "uri": uri}))
        except Exception as exc:  # Redis down: this replica's listeners still hear it
            logger.warning("change bus: publishing failed (%r); delivering locally only", exc)
            if self._deliver is not None:
                await self._deliver(kind, uri)

    async def _listen(self) -> None:
        delay = 0.1
        while True:
            try:
                pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
                async with pubsub:
                    await pubsub.subscribe(self.channel)
                    self._subscribed.set()
                    delay = 0.1
                    async for message in pubsub.listen():
                        await self._dispatch(message)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.warning("change bus: connection to Redis lost (%r); retrying", exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict) or message.get("type") != "message" or self._deliver is None:
            return
        try:
            change = json.loads(message.get("data") or "")
            kind, uri = change["kind"], change.get("uri")
        except (ValueError, TypeError, KeyError):
            logger.warning("change bus: ignoring a malformed message on %s", self.channel)
            return
        if isinstance(kind, str) and (uri is None or isinstance(uri, str)):
            await self._deliver(kind, uri)

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self._redis.aclose()


class RedisRateLimit:
    """Token buckets in Redis, shared by every replica (see the module docstring)."""

    def __init__(self, url: str, audience: str, rate: float, burst: int) -> None:
        self.prefix = f"mcp-codegen:{audience}:bucket:"
        self._redis = _redis(url)
        self._take = self._redis.register_script(_TAKE)
        self._rate, self._burst = rate, burst

    async def admit(self, client_key: str) -> bool | None:
        """Take one token from the client's shared bucket; None when Redis cannot be reached
        (the caller then uses this process's bucket: :class:`~server.admission.Limits`)."""
        try:
            return bool(await self._take(keys=[self.prefix + client_key], args=[self._rate, self._burst]))
        except Exception as exc:
            logger.warning("rate limit: Redis unreachable (%r); using this process's bucket", exc)
            return None

    async def aclose(self) -> None:
        await self._redis.aclose()


__all__ = ["REDIS_URL_ENV", "ChangeBus", "RedisChangeBus", "RedisRateLimit"]
