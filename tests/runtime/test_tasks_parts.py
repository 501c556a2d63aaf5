"""Parts of the tasks extension: the spec key ``task`` (validation with did-you-mean, what reaches
``ToolDef.task_support`` and the typed clients' ``start_<tool>``), the task settings, the memory task
store (caps in total and per owner, expiry, terminal records frozen, answers moved once) and the
client's reading of task results."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp_codegen_runtime.client.tasks.handle import TaskHandle, status_of
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.server.tasks.manager import declares_tasks
from mcp_codegen_runtime.server.tasks.store import MemoryTaskStore, ResultBudget
from mcp_codegen_runtime.wire.errors import InvalidParamsError, ProtocolError
from tasks_support import exercise_budget, exercise_store

from codegen import generate
from codegen.api import build


def _spec(tmp_path: Path, **tool_keys: Any) -> Path:
    tool = {"name": "build", "description": "Builds.", "inputSchema": {"type": "object"}, **tool_keys}
    path = tmp_path / "jobs.yaml"
    path.write_text(yaml.safe_dump({"mcp-codegen": 1, "server": {"name": "jobs", "version": "1"}, "tools": [tool]}),
                    "utf-8")
    return path


@pytest.mark.parametrize(("keys", "pointer", "hint"), [
    ({"task": "requried"}, "/tools/0/task", "did you mean 'required'?"),
    ({"task": "sometimes"}, "/tools/0/task", "allowed: forbidden, optional, required"),
    ({"tasks": "optional"}, "/tools/0/tasks", "did you mean 'task'?"),
])
def test_a_wrong_task_key_or_value_is_an_error_with_a_hint(tmp_path: Path, keys: dict[str, Any], pointer: str,
                                                           hint: str) -> None:
    result = generate([_spec(tmp_path, **keys)])
    errors = [d for d in result.diagnostics if d.level.value == "error"]
    assert [d.pointer for d in errors] == [pointer]
    assert hint in errors[0].hint


def test_a_task_tool_gets_task_support_and_start_methods(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result, _ = build([_spec(tmp_path, task="required")], out)
    assert result.ok, [d.render() for d in result.diagnostics]
    tools = (out / "jobs" / "tools.py").read_text("utf-8")
    client = (out / "jobs" / "client.py").read_text("utf-8")
    assert 'task_support="required",' in tools
    assert "async def start_build(self) -> TaskHandle[ToolResult]:" in client
    assert "def start_build(self) -> SyncTaskHandle[ToolResult]:" in client


def test_a_start_method_that_collides_with_a_tool_is_reported(tmp_path: Path) -> None:
    tools = [{"name": "build", "description": "B.", "inputSchema": {"type": "object"}, "task": "optional"},
             {"name": "start_build", "description": "S.", "inputSchema": {"type": "object"}}]
    path = tmp_path / "jobs.yaml"
    path.write_text(yaml.safe_dump({"mcp-codegen": 1, "server": {"name": "jobs", "version": "1"}, "tools": tools}),
                    "utf-8")
    result = generate([path])
    assert not result.ok
    assert any("start_build" in d.message for d in result.diagnostics if d.level.value == "error")


def test_task_settings_defaults_and_bounds() -> None:
    s = ServerSettings()
    assert (s.task_ttl, s.max_tasks, s.tasks_per_client()) == (3600.0, 1000, 100)
    assert ServerSettings(max_tasks=5).tasks_per_client() == 5
    assert ServerSettings(max_tasks=50, max_tasks_per_client=80).tasks_per_client() == 50
    with pytest.raises(ValueError):
        ServerSettings(max_tasks=0)
    with pytest.raises(ValueError):
        ServerSettings(max_tasks_per_client=0)


def test_declaring_the_extension() -> None:
    assert declares_tasks({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    assert not declares_tasks({"extensions": {"io.modelcontextprotocol/tasks": True}})
    assert not declares_tasks({"tasks": {}})  # the 2025-11-25 core slot is not the extension


def test_memory_store() -> None:
    asyncio.run(exercise_store(MemoryTaskStore()))


def test_memory_store_result_budget() -> None:
    store = MemoryTaskStore(ResultBudget(total=9000, per_owner=3000))
    asyncio.run(exercise_budget(store, 3000, 9000))
    assert store.result_bytes <= 9000


def test_status_of_reads_tasks_and_refuses_malformed_ones() -> None:
    st = status_of({"taskId": "t", "status": "input_required", "ttlMs": 5, "pollIntervalMs": True,
                    "inputRequests": {"k": {"method": "roots/list"}}})
    assert (st.task_id, st.status, st.ttl_ms, st.poll_interval_ms, st.terminal) == ("t", "input_required", 5, None, False)
    assert dict(st.input_requests) == {"k": {"method": "roots/list"}}
    with pytest.raises(ProtocolError):
        status_of({"taskId": 3, "status": "working"})


class _FakeClient:
    """Answers tasks/get from a script (a unit test of the handle's reading only)."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = answers
        self.sent: list[tuple[str, Any]] = []

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Any:
        self.sent.append((method, params))
        return self.answers.pop(0) if method == "tasks/get" else {}

    async def _fulfil(self, method: str, params: Any, tool: str | None, key: str | None, tool_def: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"key": key}}


def test_a_failed_task_raises_its_error_and_input_is_answered_once() -> None:
    created = {"resultType": "task", "taskId": "t1", "status": "working", "pollIntervalMs": 1}
    client = _FakeClient([
        {"taskId": "t1", "status": "input_required", "inputRequests": {"k": {"method": "elicitation/create"}}},
        {"taskId": "t1", "status": "input_required", "inputRequests": {"k": {"method": "elicitation/create"}}},
        {"taskId": "t1", "status": "failed", "error": {"code": -32602, "message": "bad"}},
    ])
    handle: TaskHandle[dict[str, Any]] = TaskHandle(client, "tool", None, created, lambda raw: raw)
    with pytest.raises(InvalidParamsError, match="bad"):
        asyncio.run(handle.result())
    updates = [params for method, params in client.sent if method == "tasks/update"]
    assert updates == [{"taskId": "t1", "inputResponses": {"k": {"action": "accept", "content": {"key": "k"}}}}]
