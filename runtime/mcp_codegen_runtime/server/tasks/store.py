"""Where the tasks of the ``io.modelcontextprotocol/tasks`` extension live: :class:`TaskStore`,
in memory (:class:`MemoryTaskStore`, one process) or in Redis (:class:`RedisTaskStore`, shared by
the replicas of a server, see :mod:`server.replicas`).

A task is three pieces, so that the replica running it and the replicas answering ``tasks/*``
never overwrite each other:

* the **record** (JSON object): ``taskId``, ``owner`` (the client it belongs to), ``status``,
  ``statusMessage``, ``createdAt``, ``lastUpdatedAt``, ``ttlMs``, ``pollIntervalMs`` and, once
  terminal, ``result`` or ``error``.  Only :meth:`TaskStore.update` changes it, and only while the
  task is not terminal (a late write of a cancelled task is dropped);
* the **pending input requests** (key -> ``{"method", "params"}``), set by the runner, answered by
  ``tasks/update``;
* the **answers** delivered by ``tasks/update`` and not yet taken by the runner.

Every piece expires ``ttlMs`` after the task's last change.  :meth:`TaskStore.create` admits a task
only while fewer than ``max_total`` tasks, and fewer than ``max_per_owner`` of that owner, are
stored (atomically: a Lua script in Redis).
"""

from __future__ import annotations

import json
import time
from typing import Any, Protocol

from ..replicas import _redis

JsonObject = dict[str, Any]

#: Statuses after which a task never changes again.
TERMINAL = frozenset({"completed", "failed", "cancelled"})


class TaskStore(Protocol):
    """The storage interface of the task manager (``server.tasks``)."""

    async def create(self, record: JsonObject, max_total: int, max_per_owner: int) -> bool:
        """Store a new task; False (nothing stored) when a cap is reached."""

    async def get(self, task_id: str) -> JsonObject | None:
        """The record plus ``inputRequests`` (the pending ones), or None (unknown or expired)."""

    async def update(self, task_id: str, fields: JsonObject) -> bool:
        """Merge ``fields`` into a non-terminal task (refreshing its expiry); False otherwise."""

    async def ask(self, task_id: str, key: str, request: JsonObject) -> None:
        """Add a pending input request."""

    async def answer(self, task_id: str, responses: JsonObject) -> None:
        """Deliver answers to pending requests (other keys are ignored) and unpend them."""

    async def take_answers(self, task_id: str) -> JsonObject:
        """Remove and return the answers delivered so far."""

    async def aclose(self) -> None:
        """Release connections."""


def _now_ms() -> int:
    return int(time.time() * 1000)


class MemoryTaskStore:
    """A :class:`TaskStore` in this process's memory."""

    def __init__(self) -> None:
        self._records: dict[str, JsonObject] = {}
        self._pending: dict[str, dict[str, JsonObject]] = {}
        self._answers: dict[str, JsonObject] = {}
        self._expiry: dict[str, int] = {}

    def _purge(self) -> None:
        now = _now_ms()
        for task_id in [t for t, at in self._expiry.items() if at <= now]:
            for table in (self._records, self._pending, self._answers, self._expiry):
                table.pop(task_id, None)

    def _touch(self, task_id: str) -> None:
        self._expiry[task_id] = _now_ms() + int(self._records[task_id]["ttlMs"])

    async def create(self, record: JsonObject, max_total: int, max_per_owner: int) -> bool:
        self._purge()
        owner = record["owner"]
        if len(self._records) >= max_total or sum(1 for r in self._records.values() if r["owner"] == owner) >= max_per_owner:
            return False
        task_id = record["taskId"]
        self._records[task_id] = dict(record)
        self._pending[task_id] = {}
        self._answers[task_id] = {}
        self._touch(task_id)
        return True

    async def get(self, task_id: str) -> JsonObject | None:
        self._purge()
        record = self._records.get(task_id)
        if record is None:
            return None
        out = dict(record)
        pending = self._pending.get(task_id) or {}
        if pending and out["status"] not in TERMINAL:
            out["inputRequests"] = dict(pending)
        return out

    async def update(self, task_id: str, fields: JsonObject) -> bool:
        self._purge()
        record = self._records.get(task_id)
        if record is None or record["status"] in TERMINAL:
            return False
        record.update(fields)
        self._touch(task_id)
        return True

    async def ask(self, task_id: str, key: str, request: JsonObject) -> None:
        if task_id in self._pending:
            self._pending[task_id][key] = request

    async def answer(self, task_id: str, responses: JsonObject) -> None:
        pending = self._pending.get(task_id)
        if pending is None:
            return
        for key, value in responses.items():
            if key in pending:
                del pending[key]
                self._answers[task_id][key] = value

    async def take_answers(self, task_id: str) -> JsonObject:
        answers = self._answers.get(task_id) or {}
        if answers:
            self._answers[task_id] = {}
        return dict(answers)

    async def aclose(self) -> None:
        return None


#: KEYS: record, all-index, owner-index, pending, answers; ARGV: record JSON, id, max total,
#: max per owner, ttl ms.  Indexes are sorted sets scored by expiry (ms, Redis clock).
_CREATE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) or redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then
  return 0
end
local ttl = tonumber(ARGV[5])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[2])
redis.call('ZADD', KEYS[3], now + ttl, ARGV[2])
return 1
"""

#: KEYS: record, all-index, owner-index, pending, answers; ARGV: fields JSON, id.
_UPDATE = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local record = cjson.decode(raw)
local s = record['status']
if s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end
for k, v in pairs(cjson.decode(ARGV[1])) do record[k] = v end
local ttl = tonumber(record['ttlMs'])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('SET', KEYS[1], cjson.encode(record), 'PX', ttl)
redis.call('ZADD', KEYS[2], 'XX', now + ttl, ARGV[2])
redis.call('ZADD', KEYS[3], 'XX', now + ttl, ARGV[2])
for i = 4, 5 do if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ttl) end end
return 1
"""

#: KEYS: pending, answers; ARGV: responses JSON, ttl ms.  Moves answered keys atomically.
_ANSWER = """
local responses = cjson.decode(ARGV[1])
for k, v in pairs(responses) do
  if redis.call('HDEL', KEYS[1], k) == 1 then
    redis.call('HSET', KEYS[2], k, cjson.encode(v))
    redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]))
  end
end
return 1
"""

#: KEYS: answers.  Returns and deletes every answer.
_TAKE = """
local all = redis.call('HGETALL', KEYS[1])
if #all > 0 then redis.call('DEL', KEYS[1]) end
return all
"""


class RedisTaskStore:
    """A :class:`TaskStore` in Redis, shared by every replica of the same state audience.

    Keys: ``mcp-codegen:<audience>:task:<id>`` (the record), ``…:<id>:pending`` and
    ``…:<id>:answers`` (hashes of JSON), ``mcp-codegen:<audience>:tasks`` and
    ``…:tasks:<owner>`` (sorted sets of live task ids, for the caps).
    """

    def __init__(self, url: str, audience: str) -> None:
        self._prefix = f"mcp-codegen:{audience}"
        self._redis = _redis(url)
        self._scripts: dict[str, Any] = {}

    def _keys(self, task_id: str, owner: str) -> list[str]:
        base = f"{self._prefix}:task:{task_id}"
        return [base, f"{self._prefix}:tasks", f"{self._prefix}:tasks:{owner}", f"{base}:pending", f"{base}:answers"]

    async def _run(self, name: str, source: str, keys: list[str], *args: Any) -> Any:
        script = self._scripts.get(name)
        if script is None:
            script = self._scripts[name] = self._redis.register_script(source)
        return await script(keys=keys, args=list(args))

    async def _record(self, task_id: str) -> JsonObject | None:
        raw = await self._redis.get(f"{self._prefix}:task:{task_id}")
        if not isinstance(raw, str):
            return None
        record = json.loads(raw)
        return record if isinstance(record, dict) else None

    async def create(self, record: JsonObject, max_total: int, max_per_owner: int) -> bool:
        keys = self._keys(record["taskId"], record["owner"])
        ok = await self._run("create", _CREATE, keys, json.dumps(record), record["taskId"], max_total, max_per_owner,
                             int(record["ttlMs"]))
        return bool(ok)

    async def get(self, task_id: str) -> JsonObject | None:
        record = await self._record(task_id)
        if record is None:
            return None
        if record.get("status") not in TERMINAL:
            pending = await self._redis.hgetall(f"{self._prefix}:task:{task_id}:pending")
            if pending:
                record["inputRequests"] = {k: json.loads(v) for k, v in sorted(pending.items())}
        return record

    async def update(self, task_id: str, fields: JsonObject) -> bool:
        record = await self._record(task_id)
        if record is None:
            return False
        keys = self._keys(task_id, str(record.get("owner", "")))
        return bool(await self._run("update", _UPDATE, keys, json.dumps(fields), task_id))

    async def ask(self, task_id: str, key: str, request: JsonObject) -> None:
        record = await self._record(task_id)
        if record is None:
            return
        name = f"{self._prefix}:task:{task_id}:pending"
        await self._redis.hset(name, key, json.dumps(request))
        await self._redis.pexpire(name, int(record["ttlMs"]))

    async def answer(self, task_id: str, responses: JsonObject) -> None:
        record = await self._record(task_id)
        if record is None or not responses:
            return
        base = f"{self._prefix}:task:{task_id}"
        await self._run("answer", _ANSWER, [f"{base}:pending", f"{base}:answers"], json.dumps(responses),
                        int(record["ttlMs"]))

    async def take_answers(self, task_id: str) -> JsonObject:
        flat = await self._run("take", _TAKE, [f"{self._prefix}:task:{task_id}:answers"])
        return {flat[i]: json.loads(flat[i + 1]) for i in range(0, len(flat), 2)}

    async def aclose(self) -> None:
        await self._redis.aclose()


__all__ = ["MemoryTaskStore", "RedisTaskStore", "TERMINAL", "TaskStore"]
