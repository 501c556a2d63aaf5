"""A private runtime copy holds just the closure of the package's imports: the optional features
(client/tasks/, client/skills/, client/oauth/, client/agent/; server/tasks/, server/skills.py)
only when the spec uses them, and a copy without one says so when it is used."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "generator" / "golden" / "cases"
MARKER = "# runtime-copy: optional"  # the documented marker of codegen/render/runtime_copy.py
FEATURES = ("client/oauth", "client/tasks", "client/skills", "client/agent", "server/tasks", "server/skills.py")


def _build(spec: Path, package: str, out: Path, *extra: str) -> Path:
    subprocess.run([sys.executable, "-m", "codegen", "build", str(spec), "-o", str(out), "--private-runtime", *extra],
                   check=True, capture_output=True)
    return out / package


def _weather(out: Path, *extra: str) -> Path:
    return _build(ROOT / "specs" / "weather.yaml", "weather", out, "--target", "client", *extra)


def _module(path: Path, top: Path) -> str:
    parts = list(path.relative_to(top).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(pkg: Path) -> dict[str, set[str]]:
    """Runtime module -> the names the generated files import from it (the package's own files,
    and the ``servers/`` tree of ``--layout agent`` beside it)."""
    root = f"{pkg.name}._runtime"
    found: dict[str, set[str]] = {}
    for f in pkg.parent.rglob("*.py"):
        if "_runtime" in f.relative_to(pkg.parent).parts:
            continue
        for node in ast.walk(ast.parse(f.read_text())):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            if node.level == 0 and (node.module == root or node.module.startswith(root + ".")):
                name = node.module.removeprefix(root).lstrip(".")
            elif node.level == 1 and f.parent == pkg and node.module.split(".")[0] == "_runtime":
                name = node.module.removeprefix("_runtime").lstrip(".")
            else:
                continue
            found.setdefault(name, set()).update(a.name for a in node.names)
    return found


def _closure(pkg: Path) -> set[str]:
    """The runtime modules the generated files import, followed through every unmarked relative
    import, and through a marked one only when the generated files import one of its names from
    the module holding it (written apart from codegen/render/runtime_copy.py, on purpose)."""
    top = pkg / "_runtime"
    have = {_module(p, top) for p in top.rglob("*.py")}
    imported = _imported(pkg)
    todo = list(imported)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        parts = name.split(".") if name else []
        for i in range(len(parts) + 1):  # a module and its packages
            m = ".".join(parts[:i])
            if m in seen:
                continue
            seen.add(m)
            folder = top / m.replace(".", "/") if m else top
            path = folder / "__init__.py" if folder.is_dir() else top / (m.replace(".", "/") + ".py")
            text = path.read_text()
            lines = text.splitlines()
            base = m.split(".") if m else []
            if path.name != "__init__.py":
                base = base[:-1]
            for node in ast.walk(ast.parse(text)):
                if not (isinstance(node, ast.ImportFrom) and node.level > 0):
                    continue
                marked = any(MARKER in line for line in lines[node.lineno - 1:node.end_lineno])
                if marked and not imported.get(m, set()) & {a.asname or a.name for a in node.names}:
                    continue
                b = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join([*b, *([node.module] if node.module else [])])
                todo.append(target)
                todo += [f"{target}.{a.name}".strip(".") for a in node.names if f"{target}.{a.name}".strip(".") in have]
    return seen


def _copied(pkg: Path) -> set[str]:
    top = pkg / "_runtime"
    return {_module(p, top) for p in top.rglob("*.py")}


def _features(pkg: Path) -> set[str]:
    return {f for f in FEATURES if (pkg / "_runtime" / f).exists()}


def _mypy(folder: Path, *targets: str) -> None:
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *targets], cwd=folder,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_a_client_only_copy_of_a_spec_without_features_holds_none_of_them(tmp_path: Path) -> None:
    pkg = _weather(tmp_path)
    assert _copied(pkg) == _closure(pkg)
    assert _features(pkg) == set()
    assert not {m for m in _copied(pkg) if m.startswith("server")}
    assert "TaskHandle" not in (pkg / "__init__.py").read_text()  # the feature names go with the feature


@pytest.mark.parametrize(("case", "package", "extra", "features"), [
    ("tasks", "jobs", ("--target", "client"), {"client/tasks"}),
    ("skills", "skillful", (), {"client/skills", "server/skills.py"}),
    ("kitchen_sink", "sink", ("--target", "client"), {"client/oauth"}),
    ("tasks", "jobs", ("--target", "server"), {"server/tasks"}),
    ("skills", "skillful", ("--target", "server"), {"server/skills.py"}),
    ("kitchen_sink", "sink", ("--target", "server"), set()),
])
def test_a_spec_using_a_feature_gets_its_modules(tmp_path: Path, case: str, package: str, extra: tuple[str, ...],
                                                 features: set[str]) -> None:
    pkg = _build(CASES / case / "spec.yaml", package, tmp_path, *extra)
    assert _copied(pkg) == _closure(pkg)
    assert _features(pkg) == features


def test_an_agent_layout_copy_gets_client_agent(tmp_path: Path) -> None:
    pkg = _weather(tmp_path, "--layout", "agent")
    assert _copied(pkg) == _closure(pkg)
    assert "client/agent" in _features(pkg)  # and client/oauth/, which the agent's server entries may name
    assert (pkg / "_runtime" / "client" / "agent" / "connect.py").is_file()


LEAN_USE = """
import asyncio, pytest
import weather, weather.client
from weather import WeatherClient, WeatherSyncClient
from weather._runtime import client as rt_client
from weather._runtime.client import gencode

def clear(exc, feature):
    text = str(exc)
    assert f"client/{feature}/" in text and "--library-runtime" in text, text
    assert "in its spec" in text or "--layout agent" in text, text

for name, feature in [("TaskHandle", "tasks"), ("SyncTaskHandle", "tasks"), ("LoadedSkill", "skills"),
                      ("SkillEntry", "skills"), ("OAuthSettings", "oauth"), ("agent_client", "agent")]:
    with pytest.raises(ImportError) as e:
        getattr(gencode, name)
    clear(e.value, feature)
with pytest.raises(ImportError) as e:
    rt_client.OAuthSettings
clear(e.value, "oauth")
assert rt_client.OAuthError.__name__ == "OAuthError"  # the transport's error is core

WeatherClient.http("http://127.0.0.1:9/mcp", bearer_token="t")  # a static token needs no OAuth
with pytest.raises(ImportError) as e:
    WeatherClient.http("http://127.0.0.1:9/mcp", auth=object())
clear(e.value, "oauth")

async def main():
    client = WeatherClient.http("http://127.0.0.1:9/mcp")
    assert client.supports_skills is False  # no server yet: a plain answer, no import
    for call in (client.list_skills(), client.get_skill("skill://x/SKILL.md"), client.load_skill("x")):
        with pytest.raises(ImportError) as e:
            await call
        clear(e.value, "skills")
    with pytest.raises(ImportError) as e:
        await client._start_content(weather.TOOLS[0], {})
    clear(e.value, "tasks")
    client.declare_tasks = True
    with pytest.raises(ImportError) as e:
        client._modern_capabilities()
    clear(e.value, "tasks")

asyncio.run(main())
sync = WeatherSyncClient.http("http://127.0.0.1:9/mcp")
with pytest.raises(ImportError) as e:
    sync.list_skills()
clear(e.value, "skills")
sync.close()
print("ok")
"""


def test_a_lean_copy_imports_and_a_left_out_feature_says_what_brings_it(tmp_path: Path) -> None:
    _weather(tmp_path)
    done = subprocess.run([sys.executable, "-c", LEAN_USE], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


FEATURE_USE = """
import asyncio
from jobs import JobsClient, JobsServerBase, TaskHandle
from jobs.models import ExportReportOutput
from skillful import SkillfulClient, SkillfulServerBase

class Jobs(JobsServerBase):
    async def export_report(self, args, ctx):
        return ExportReportOutput(url="https://x/" + args.report, bytes=3)

async def main():
    async with JobsClient.in_process(Jobs(), era="modern", audit=None) as c:
        handle = await c.start_export_report(report="r")
        assert isinstance(handle, TaskHandle)
        assert await handle.result() == ExportReportOutput(url="https://x/r", bytes=3)
        assert type(c.task_notices).__name__ == "TaskNotices"
    async with SkillfulClient.in_process(SkillfulServerBase(), audit=None) as c:
        assert c.supports_skills
        entries = await c.list_skills()
        loaded = await c.load_skill(entries[0])
        assert loaded.skill_md.verified

asyncio.run(main())
print("ok")
"""


def test_copies_with_features_run_and_pass_mypy_strict(tmp_path: Path) -> None:
    jobs = _build(CASES / "tasks" / "spec.yaml", "jobs", tmp_path)
    skillful = _build(CASES / "skills" / "spec.yaml", "skillful", tmp_path)
    assert _features(jobs) == {"client/tasks", "server/tasks"}
    assert _features(skillful) == {"client/skills", "server/skills.py"}
    done = subprocess.run([sys.executable, "-c", FEATURE_USE], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    _mypy(tmp_path, "jobs", "skillful")


def test_the_lean_copy_and_an_agent_layout_copy_pass_mypy_strict(tmp_path: Path) -> None:
    lean = _weather(tmp_path / "lean")
    agent = _weather(tmp_path / "agent", "--layout", "agent")
    _mypy(lean.parent, "weather")
    _mypy(agent.parent, "weather", "servers")


def test_a_server_only_copy_of_a_spec_without_features_holds_none_of_them(tmp_path: Path) -> None:
    pkg = _build(ROOT / "specs" / "weather.yaml", "weather", tmp_path, "--target", "server")
    assert _copied(pkg) == _closure(pkg)
    assert _features(pkg) == set()
    assert not {m for m in _copied(pkg) if m.startswith("client")}
    assert "TaskContext" not in (pkg / "__init__.py").read_text()


LEAN_SERVER_USE = """
import asyncio, dataclasses, pytest
import weather
from weather import WeatherServerBase
from weather._runtime.server import gencode

def clear(exc, feature, folder):
    text = str(exc)
    assert f"the {feature} feature" in text and folder in text and "--library-runtime" in text, text
    assert "in its spec" in text, text

for name, feature, folder in [("TaskContext", "tasks", "server/tasks/"),
                              ("SkillIntegrityError", "skills", "server/skills.py")]:
    with pytest.raises(ImportError) as e:
        getattr(gencode, name)
    clear(e.value, feature, folder)

class Lean(WeatherServerBase):
    pass

server = Lean()  # no tasks, no skills: nothing of them is imported
with pytest.raises(ImportError) as e:
    server._tasks()  # what a task tool call or tasks/* needs
clear(e.value, "tasks", "server/tasks/")

class Tasky(WeatherServerBase):  # a tool turned into a task tool at run time
    tool_defs = tuple(dataclasses.replace(t, task_support="optional") for t in WeatherServerBase.tool_defs)

async def main():
    env = type("Env", (), {"modern": True, "caps": {}})()
    with pytest.raises(ImportError) as e:
        await Tasky()._call_tool({"name": Tasky.tool_defs[0].name, "arguments": {}}, 1, None, env)
    clear(e.value, "tasks", "server/tasks/")
    # tasks/* to a server without task tools: the library's answers (no task can exist), not an import error
    from weather._runtime.wire.errors import InvalidParamsError, MissingCapabilityError
    with pytest.raises(MissingCapabilityError):
        await server._serve("tasks/get", {"taskId": "t1"}, 2, None, env)
    declared = type("Env", (), {"modern": True, "caps": {"extensions": {"io.modelcontextprotocol/tasks": {}}}})()
    with pytest.raises(InvalidParamsError, match="unknown task 't1'"):
        await server._serve("tasks/get", {"taskId": "t1"}, 3, None, declared)
    with pytest.raises(InvalidParamsError, match="needs a string taskId"):
        await server._serve("tasks/cancel", {}, 4, None, declared)

asyncio.run(main())

class Skilled(WeatherServerBase):
    skill_defs = (object(),)

with pytest.raises(ImportError) as e:
    Skilled()
clear(e.value, "skills", "server/skills.py")
print("ok")
"""


def test_a_lean_server_copy_says_what_brings_a_left_out_feature(tmp_path: Path) -> None:
    _build(ROOT / "specs" / "weather.yaml", "weather", tmp_path, "--target", "server")
    done = subprocess.run([sys.executable, "-c", LEAN_SERVER_USE], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    _mypy(tmp_path, "weather")


SERVER_FEATURE_USE = """
import asyncio
from jobs import JobsServerBase, TaskContext
from jobs.models import ExportReportOutput
from jobs._runtime.wire import protocol as p
from skillful import SkillfulServerBase, SkillIntegrityError

seen = []

class Jobs(JobsServerBase):
    async def export_report(self, args, ctx):
        seen.append(isinstance(ctx, TaskContext))
        return ExportReportOutput(url="https://x/" + args.report, bytes=3)

def meta(caps):
    return {p.META_PROTOCOL_VERSION: p.MODERN_VERSIONS[-1], p.META_CLIENT_CAPABILITIES: caps}

async def main():
    async with Jobs().connect_in_process() as peer:
        caps = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
        await peer.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "export_report", "arguments": {"report": "r"}, "_meta": meta(caps)}})
        while (answer := await peer.receive()).get("id") != 1:
            pass
        assert "result" in answer, answer
    async with SkillfulServerBase().connect_in_process() as peer:
        await peer.send({"jsonrpc": "2.0", "id": 2, "method": "skills/list", "params": {"_meta": meta({})}})
        while (answer := await peer.receive()).get("id") != 2:
            pass
        assert answer["result"]["skills"], answer
    assert issubclass(SkillIntegrityError, RuntimeError)

asyncio.run(main())
print("ok")
"""


def test_server_only_copies_with_features_serve_and_pass_mypy_strict(tmp_path: Path) -> None:
    jobs = _build(CASES / "tasks" / "spec.yaml", "jobs", tmp_path, "--target", "server")
    skillful = _build(CASES / "skills" / "spec.yaml", "skillful", tmp_path, "--target", "server")
    assert _features(jobs) == {"server/tasks"} and _features(skillful) == {"server/skills.py"}
    done = subprocess.run([sys.executable, "-c", SERVER_FEATURE_USE], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    _mypy(tmp_path, "jobs", "skillful")
