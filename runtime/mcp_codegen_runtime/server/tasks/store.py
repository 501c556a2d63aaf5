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

A task never expires while it runs (``working`` or ``input_required``): its pieces expire
``ttlMs`` after it ended (its terminal change).  In Redis a running task is held by a lease
(:data:`LEASE`) that the replica running it renews (:meth:`TaskStore.keep`), so the tasks of a
replica that died still go.  :meth:`TaskStore.create` admits a task only while fewer than
``max_total`` tasks, and fewer than ``max_per_owner`` of that owner, are stored (atomically: a Lua
script in Redis); running tasks count.

Finished results are also held to a byte budget (:class:`ResultBudget`: the JSON size of a
task's ``result`` or ``error``), per owner and in total.  When a task ends, the oldest finished
tasks of its owner are dropped (forgotten, as if expired) until its result fits the owner's
budget, then the oldest finished tasks of anyone until it fits the total; a result larger than
either budget by itself is not kept: the task ends ``failed`` (-32603, the message says the size
and the budget).
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

from ..replicas import _redis

JsonObject = dict[str, Any]

#: Statuses after which a task never changes again.
TERMINAL = frozenset({"completed", "failed", "cancelled"})
#: Seconds a running task's pieces live in Redis without a renewal (:meth:`TaskStore.keep`).
LEASE = 30.0
_INTERNAL_ERROR = -32603


@dataclass(frozen=True)
class ResultBudget:
    """Bytes of finished results kept at once: in total and per owner (module docstring)."""

    total: int
    per_owner: int

    def refusal(self, size: int) -> JsonObject | None:
        """The fields that end a task whose result of ``size`` bytes fits no budget, else None."""
        limit = min(self.total, self.per_owner)
        if size <= limit:
            return None
        return {"status": "failed", "error": {
            "code": _INTERNAL_ERROR,
            "message": f"Internal error: the task's result ({size} bytes) is larger than the server keeps "
                       f"for one client ({limit} bytes)"}}


def result_size(fields: JsonObject) -> int:
    """What a terminal change holds in bytes (its ``result`` and ``error`` as compact JSON)."""
    kept = {k: fields[k] for k in ("result", "error") if k in fields}
    if not kept:
        return 0
    return len(json.dumps(kept, separators=(",", ":"), ensure_ascii=False, default=str).encode("utf-8", "replace"))


class TaskStore(Protocol):
    """The storage interface of the task manager (``server.tasks``)."""

    async def create(self, record: JsonObject, max_total: int, max_per_owner: int) -> bool:
        """Store a new task; False (nothing stored) when a cap is reached."""

    async def get(self, task_id: str) -> JsonObject | None:
        """The record plus ``inputRequests`` (the pending ones), or None (unknown or expired)."""

    async def update(self, task_id: str, fields: JsonObject) -> bool:
        """Merge ``fields`` into a non-terminal task; False otherwise.  A terminal change starts the
        task's expiry and is held to the result budget (module docstring)."""

    async def keep(self, task_id: str) -> str | None:
        """Renew a running task's lease (Redis; nothing to do in memory); its status, or None
        when the task is gone."""

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
    """A :class:`TaskStore` in this process's memory (``budget``: the finished results kept;
    None: unbounded)."""

    def __init__(self, budget: ResultBudget | None = None) -> None:
        self._records: dict[str, JsonObject] = {}
        self._pending: dict[str, dict[str, JsonObject]] = {}
        self._answers: dict[str, JsonObject] = {}
        self._expiry: dict[str, int] = {}  # finished tasks only: running ones never expire
        self._budget = budget
        #: finished tasks holding a result, oldest end first -> (owner, bytes)
        self._finished: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._owner_bytes: dict[str, int] = {}
        self.result_bytes = 0

    def _drop(self, task_id: str) -> None:
        for table in (self._records, self._pending, self._answers, self._expiry):
            table.pop(task_id, None)
        held = self._finished.pop(task_id, None)
        if held is not None:
            owner, size = held
            self.result_bytes -= size
            left = self._owner_bytes.get(owner, 0) - size
            if left > 0:
                self._owner_bytes[owner] = left
            else:
                self._owner_bytes.pop(owner, None)

    def _purge(self) -> None:
        now = _now_ms()
        for task_id in [t for t, at in self._expiry.items() if at <= now]:
            self._drop(task_id)

    def _make_room(self, owner: str, size: int) -> None:
        """Drop the oldest finished tasks of ``owner``, then of anyone, until ``size`` fits."""
        budget = self._budget
        if budget is None:
            return
        for task_id in [t for t, (o, _) in self._finished.items() if o == owner]:
            if self._owner_bytes.get(owner, 0) + size <= budget.per_owner:
                break
            self._drop(task_id)
        while self._finished and self.result_bytes + size > budget.total:
            self._drop(next(iter(self._finished)))

    async def create(self, record: JsonObject, max_total: int, max_per_owner: int) -> bool:
        self._purge()
        owner = record["owner"]
        if len(self._records) >= max_total or sum(1 for r in self._records.values() if r["owner"] == owner) >= max_per_owner:
            return False
        task_id = record["taskId"]
        self._records[task_id] = dict(record)
        self._pending[task_id] = {}
        self._answers[task_id] = {}
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
        if fields.get("status") in TERMINAL:
            size = result_size(fields)
            refusal = self._budget.refusal(size) if self._budget is not None else None
            if refusal is not None:
                fields = {**{k: v for k, v in fields.items() if k != "result"}, **refusal}
                size = result_size(fields)
            self._make_room(record["owner"], size)
            record.update(fields)
            self._expiry[task_id] = _now_ms() + int(record["ttlMs"])
            self._finished[task_id] = (record["owner"], size)
            self._owner_bytes[record["owner"]] = self._owner_bytes.get(record["owner"], 0) + size
            self.result_bytes += size
            return True
        record.update(fields)
        return True

    async def keep(self, task_id: str) -> str | None:
        record = self._records.get(task_id)
        return None if record is None else str(record["status"])

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
#: max per owner, lease ms.  Indexes are sorted sets scored by expiry (ms, Redis clock).
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

#: KEYS: record, all-index, owner-index, pending, answers, results (finished ids by expiry),
#: the owner's results, result sizes (hash), result owners (hash), total bytes, the owner's bytes;
#: ARGV: the record JSON read, the new record JSON, id, lease ms, budget total, budget per owner,
#: key prefix, result bytes, "1" when the change ends the task, the task's ttl ms, its owner.
#: Returns -1 when the record changed since it was read (the caller reads it again): the merge is
#: made in Python, as Lua's cjson would turn an empty JSON array into an object.  A running
#: task's pieces live a lease; a finished one's ``ttlMs``, after the oldest finished results
#: were dropped to make room for its own (the byte budget).
_UPDATE = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
if raw ~= ARGV[1] then return -1 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[4])
if ARGV[9] == '1' then
  ttl = tonumber(ARGV[10])
  local prefix = ARGV[7]
  local function forget(id)
    local size = tonumber(redis.call('HGET', KEYS[8], id) or '0')
    local owner = redis.call('HGET', KEYS[9], id)
    redis.call('HDEL', KEYS[8], id)
    redis.call('HDEL', KEYS[9], id)
    redis.call('ZREM', KEYS[6], id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('DECRBY', KEYS[10], size)
    if owner then
      redis.call('ZREM', prefix .. ':results:' .. owner, id)
      redis.call('ZREM', prefix .. ':tasks:' .. owner, id)
      redis.call('DECRBY', prefix .. ':result-bytes:' .. owner, size)
    end
    local base = prefix .. ':task:' .. id
    redis.call('DEL', base, base .. ':pending', base .. ':answers')
  end
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now)) do forget(id) end
  local size = tonumber(ARGV[8])
  while tonumber(redis.call('GET', KEYS[11]) or '0') + size > tonumber(ARGV[6]) do
    local oldest = redis.call('ZRANGE', KEYS[7], 0, 0)
    if #oldest == 0 then break end
    forget(oldest[1])
  end
  while tonumber(redis.call('GET', KEYS[10]) or '0') + size > tonumber(ARGV[5]) do
    local oldest = redis.call('ZRANGE', KEYS[6], 0, 0)
    if #oldest == 0 then break end
    forget(oldest[1])
  end
  redis.call('ZADD', KEYS[6], now + ttl, ARGV[3])
  redis.call('ZADD', KEYS[7], now + ttl, ARGV[3])
  redis.call('HSET', KEYS[8], ARGV[3], size)
  redis.call('HSET', KEYS[9], ARGV[3], ARGV[11])
  redis.call('INCRBY', KEYS[10], size)
  redis.call('INCRBY', KEYS[11], size)
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
redis.call('ZADD', KEYS[2], 'XX', now + ttl, ARGV[3])
redis.call('ZADD', KEYS[3], 'XX', now + ttl, ARGV[3])
for i = 4, 5 do if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ttl) end end
return 1
"""

#: KEYS: record, all-index, owner-index, pending, answers; ARGV: id, lease ms.  Renews a running
#: task's lease; returns its status (nil when gone).
_KEEP = """
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local s = cjson.decode(raw)['status']
if s == 'completed' or s == 'failed' or s == 'cancelled' then return s end
local lease = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('PEXPIRE', KEYS[1], lease)
redis.call('ZADD', KEYS[2], 'XX', now + lease, ARGV[1])
redis.call('ZADD', KEYS[3], 'XX', now + lease, ARGV[1])
for i = 4, 5 do if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], lease) end end
return s
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

#: No budget given: effectively none.
_UNBOUNDED = ResultBudget(total=1 << 62, per_owner=1 << 62)


class RedisTaskStore:
    """A :class:`TaskStore` in Redis, shared by every replica of the same state audience.

    Keys: ``mcp-codegen:<audience>:task:<id>`` (the record), ``…:<id>:pending`` and
    ``…:<id>:answers`` (hashes of JSON), ``mcp-codegen:<audience>:tasks`` and
    ``…:tasks:<owner>`` (sorted sets of live task ids, for the caps), and for the result budget
    ``…:results``, ``…:results:<owner>`` (finished ids by expiry), ``…:result-size``,
    ``…:result-owner`` (hashes by id), ``…:result-bytes`` and ``…:result-bytes:<owner>``.
    ``lease``: seconds a running task lives without :meth:`keep`.
    """

    def __init__(self, url: str, audience: str, budget: ResultBudget | None = None, lease: float = LEASE) -> None:
        self._prefix = f"mcp-codegen:{audience}"
        self._redis = _redis(url)
        self._scripts: dict[str, Any] = {}
        self._budget = budget or _UNBOUNDED
        self._lease_ms = max(1, int(lease * 1000))

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
                             self._lease_ms)
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
        name = f"{self._prefix}:task:{task_id}"
        for _ in range(100):  # the record changed between the read and the write: read it again
            raw = await self._redis.get(name)
            record = json.loads(raw) if isinstance(raw, str) else None
            if not isinstance(record, dict) or record.get("status") in TERMINAL:
                return False
            owner = str(record.get("owner", ""))
            change, size, ends = fields, 0, fields.get("status") in TERMINAL
            if ends:
                size = result_size(change)
                refusal = self._budget.refusal(size)
                if refusal is not None:
                    change = {**{k: v for k, v in change.items() if k != "result"}, **refusal}
                    size = result_size(change)
            p = self._prefix
            keys = [*self._keys(task_id, owner), f"{p}:results", f"{p}:results:{owner}", f"{p}:result-size",
                    f"{p}:result-owner", f"{p}:result-bytes", f"{p}:result-bytes:{owner}"]
            done = await self._run("update", _UPDATE, keys, raw, json.dumps({**record, **change}), task_id,
                                   self._lease_ms, self._budget.total, self._budget.per_owner, p, size,
                                   "1" if ends else "0", int(record["ttlMs"]), owner)
            if done != -1:
                return bool(done)
        return False

    async def keep(self, task_id: str) -> str | None:
        record = await self._record(task_id)
        if record is None:
            return None
        status = await self._run("keep", _KEEP, self._keys(task_id, str(record.get("owner", ""))), task_id,
                                 self._lease_ms)
        return status if isinstance(status, str) else None

    async def ask(self, task_id: str, key: str, request: JsonObject) -> None:
        record = await self._record(task_id)
        if record is None:
            return
        name = f"{self._prefix}:task:{task_id}:pending"
        await self._redis.hset(name, key, json.dumps(request))
        await self._redis.pexpire(name, self._lease_ms)

    async def answer(self, task_id: str, responses: JsonObject) -> None:
        record = await self._record(task_id)
        if record is None or not responses:
            return
        base = f"{self._prefix}:task:{task_id}"
        await self._run("answer", _ANSWER, [f"{base}:pending", f"{base}:answers"], json.dumps(responses),
                        self._lease_ms)

    async def take_answers(self, task_id: str) -> JsonObject:
        flat = await self._run("take", _TAKE, [f"{self._prefix}:task:{task_id}:answers"])
        return {flat[i]: json.loads(flat[i + 1]) for i in range(0, len(flat), 2)}

    async def aclose(self) -> None:
        await self._redis.aclose()


__all__ = ["LEASE", "MemoryTaskStore", "RedisTaskStore", "ResultBudget", "TERMINAL", "TaskStore", "result_size"]
