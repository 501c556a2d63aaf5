"""The agent tree on disk: several servers built into one ``servers/`` tree, rebuilt, checked,
searched and type-checked (``mypy --strict``), with expectations written by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agent_support import check_skill
from common_support import weather_spec

from codegen import build, check
from codegen.options import Options

REPO = Path(__file__).resolve().parents[2]
WEATHER, NOTES = REPO / "specs" / "weather.yaml", REPO / "specs" / "notes.yaml"
AGENT = Options(layout="agent")


def _build(specs: list[Path], out: Path, options: Options = AGENT) -> None:
    result, report = build(specs, out, options=options)
    assert report is not None, [d.render() for d in result.diagnostics]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """weather, then notes, built one after the other into one folder."""
    out = tmp_path_factory.mktemp("tree")
    _build([WEATHER], out)
    _build([NOTES], out)
    return out


def _python(code: str, cwd: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_building_one_server_after_another_extends_the_tree(tree: Path) -> None:
    readme = (tree / "servers" / "README.md").read_text("utf-8")
    assert readme.splitlines()[-2:] == ["- notes (5 tools): A small note store.",
                                        "- weather (2 tools): Current weather and forecasts for any city."]
    init = (tree / "servers" / "__init__.py").read_text("utf-8")
    assert "MCP servers as typed Python functions: 2 server(s).\n\nnotes (5 tools): A small note store.\n" in init
    assert 'SERVERS: tuple[str, ...] = (\n    "notes",\n    "weather",\n)\n' in (tree / "servers" / "_search.py").read_text("utf-8")
    assert sorted(p.name for p in (tree / "servers").iterdir() if p.is_dir()) == ["notes", "weather"]
    assert (tree / "weather" / "client.py").is_file() and (tree / "notes" / "client.py").is_file()


def test_rebuilding_one_server_keeps_the_others(tmp_path: Path) -> None:
    _build([WEATHER], tmp_path)
    _build([NOTES], tmp_path)
    spec = weather_spec(tmp_path, WEATHER.read_text("utf-8").replace("A plain-text forecast", "A forecast"))
    _build([spec], tmp_path)
    readme = (tmp_path / "servers" / "README.md").read_text("utf-8")
    assert "- notes (5 tools)" in readme and "- weather (2 tools)" in readme
    assert "get_forecast: A forecast for the next days." in (tmp_path / "servers" / "weather" / "__init__.py").read_text("utf-8")
    assert (tmp_path / "servers" / "notes" / "create_note.py").is_file()


def test_check_sees_drift_of_a_tool_module_and_of_the_spec(tmp_path: Path) -> None:
    _build([WEATHER], tmp_path)
    _build([NOTES], tmp_path)
    for spec in (WEATHER, NOTES):
        result, diffs = check([spec], tmp_path, AGENT)
        assert result.ok and diffs == [], diffs
    module = tmp_path / "servers" / "weather" / "get_weather.py"
    module.write_text(module.read_text("utf-8").replace("location=location", "location=location.upper()"), "utf-8")
    _, diffs = check([WEATHER], tmp_path, AGENT)
    assert len(diffs) == 1 and "servers/weather/get_weather.py (on disk)" in diffs[0]
    _build([WEATHER], tmp_path)
    text = WEATHER.read_text("utf-8")  # the spec drops a tool (and its view): its module is stale, then deleted
    spec = weather_spec(tmp_path, text[:text.index("  - name: get_forecast")])
    _, diffs = check([spec], tmp_path, AGENT)
    assert "stale (generated earlier, no longer produced): servers/weather/get_forecast.py\n" in diffs
    assert any("servers/README.md" in d for d in diffs)  # the README's tool count
    _build([spec], tmp_path)
    assert not (tmp_path / "servers" / "weather" / "get_forecast.py").exists()
    assert "- weather (1 tool): " in (tmp_path / "servers" / "README.md").read_text("utf-8")


def test_a_hand_written_file_in_the_tree_is_never_overwritten(tmp_path: Path) -> None:
    mine = tmp_path / "servers" / "weather" / "get_weather.py"
    mine.parent.mkdir(parents=True)
    mine.write_text("# mine\n", "utf-8")
    result, report = build([WEATHER], tmp_path, options=AGENT)
    assert report is None
    assert [d.code for d in result.diagnostics if d.is_error] == ["E041"]
    assert mine.read_text("utf-8") == "# mine\n"


def test_search_tools_by_name_and_description_at_each_detail(tree: Path) -> None:
    code = """
import sys
import servers, servers.notes
print(servers.search_tools("note", detail="name"))
print(servers.search_tools("forecast"))
print(servers.search_tools("delete", server="notes", detail="name"))
print(servers.notes.search_tools("weather"))
print(len(servers.search_tools("")))
print(servers.search_tools("get weather", detail="full")[0])
print("weather" in sys.modules, "servers.weather.get_weather" in sys.modules)
"""
    lines = _python(code, tree).splitlines()
    assert lines[0] == ("['servers.notes.create_note', 'servers.notes.delete_note', 'servers.notes.get_note', "
                        "'servers.notes.list_notes', 'servers.notes.update_note']")
    assert lines[1] == "['servers.weather.get_forecast: A plain-text forecast for the next days.']"
    assert lines[2] == "['servers.notes.delete_note']"
    assert lines[3] == "[]"
    assert lines[4] == "7"
    assert lines[5] == "from servers.weather import get_weather"
    assert lines[7].startswith("def get_weather(*, location: str, unit: Unit | Literal['celsius', 'fahrenheit'] | "
                               "Unset = UNSET) -> GetWeatherOutput:")
    assert lines[8] == '    """Current weather for a location.'
    assert "    Raises:" in lines and "        UnknownLocationError (from weather.errors): No such place." in lines
    assert lines[-1] == "False False"  # searching imported no tool module and no client package


def test_the_tree_and_a_script_using_it_pass_mypy_strict(tree: Path, tmp_path: Path) -> None:
    script = tree / "use_tools.py"
    script.write_text('''
import asyncio

import servers
from servers.notes import create_note, list_notes
from servers.weather import get_forecast, get_weather, get_weather_async


def report() -> str:
    now = get_weather(location="Paris", unit="celsius")
    later = get_forecast(location="Paris", days=2)
    note = create_note(title="trip", body=str(now.temperature) + later.text())
    listed = list_notes()
    found: list[str] = servers.search_tools("note", detail="summary")
    return f"{note} {listed} {found} {asyncio.run(get_weather_async(location='Oslo')).conditions}"
''', "utf-8")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "servers", "use_tools.py"],
                          cwd=tree, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    script.write_text(script.read_text("utf-8").replace('unit="celsius"', 'unit="kelvin"'), "utf-8")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "use_tools.py"],
                          cwd=tree, capture_output=True, text=True, timeout=900)
    script.unlink()
    assert proc.returncode == 1 and "kelvin" in proc.stdout, proc.stdout


def test_one_skill_for_the_whole_tree(tmp_path: Path) -> None:
    _build([WEATHER], tmp_path)
    _build([NOTES], tmp_path, Options(layout="agent", skill="tree"))
    path = tmp_path / "skills" / "mcp-servers" / "SKILL.md"
    text = path.read_text("utf-8")
    check_skill("skills/mcp-servers/SKILL.md", text)
    assert "- `servers/notes/`: A small note store.\n" in text and "- `servers/weather/`: " in text
    index = json.loads((tmp_path / "servers" / "weather" / "_index.json").read_text("utf-8"))
    assert index["skill"] == "weather"
    _build([WEATHER], tmp_path, Options(layout="agent", skill="server"))
    check_skill("skills/weather/SKILL.md", (tmp_path / "skills" / "weather" / "SKILL.md").read_text("utf-8"))


def test_diff_compares_an_agent_tree_with_a_spec(tmp_path: Path) -> None:
    from codegen.commands.diff import diff

    _build([WEATHER], tmp_path / "out")
    _build([NOTES], tmp_path / "out")
    same = diff(str(tmp_path / "out" / "servers" / "weather"), str(WEATHER))
    assert same.loaded and same.changes == [], same.diagnostics
    whole = diff(str(tmp_path / "out"), str(tmp_path / "out" / "servers"))  # the folder or its servers/: both servers
    assert whole.loaded and whole.changes == [] and {k[0] for k in whole.tool_keys} == {"notes", "weather"}
    text = WEATHER.read_text("utf-8").replace("      required: [location]\n", "      required: [location, unit]\n", 1)
    changed = weather_spec(tmp_path, text)
    drift = diff(str(tmp_path / "out" / "servers" / "weather"), str(changed))
    assert [(c.tool, c.kind, c.severity.value) for c in drift.blocking] == [
        ("get_weather", "input-required-added", "breaking")]


def test_every_golden_and_example_spec_makes_a_tree_clean_under_mypy_strict(tmp_path: Path) -> None:
    """The signatures of every shape the goldens hold (TypedDicts, Mapping, datetime, enums,
    overlays, odd names) import what they use: all specs in one tree, client side."""
    specs = sorted((REPO / "tests" / "generator" / "golden" / "cases").glob("*/spec.yaml")) + sorted((REPO / "specs").glob("*.yaml"))
    _build(specs, tmp_path, Options(layout="agent", target="client"))
    servers = [p.name for p in (tmp_path / "servers").iterdir() if p.is_dir()]
    assert len(servers) == len(specs)
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "servers"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_another_server_taking_over_a_server_folder_is_refused_naming_both(tmp_path: Path) -> None:
    _build([WEATHER], tmp_path / "out")
    other = tmp_path / "other.yaml"  # another server whose package is also "weather"
    other.write_text(NOTES.read_text("utf-8").replace("  name: notes\n", "  name: notes\n  package: weather\n", 1), "utf-8")
    result, report = build([other], tmp_path / "out", options=AGENT)
    assert report is None
    [diag] = [d for d in result.diagnostics if d.is_error]
    assert diag.code == "E032" and "server 'weather'" in diag.message and "server 'notes'" in diag.message
    assert "specs/weather.yaml" in diag.message and diag.file.endswith("other.yaml")
    assert "- weather (2 tools)" in (tmp_path / "out" / "servers" / "README.md").read_text("utf-8")  # untouched


def test_importing_the_tree_opens_no_config_and_starts_nothing(tree: Path) -> None:
    """An audit hook watches the imports: no process, no socket, no mcp.json or index read."""
    code = """
import sys
seen = []
def hook(event, args):
    if event in ("subprocess.Popen", "os.system", "os.posix_spawn", "socket.connect"):
        seen.append(event)
    elif event == "open" and isinstance(args[0], str) and args[0].endswith(("mcp.json", "_index.json")):
        seen.append(args[0])
sys.addaudithook(hook)
import servers, servers.weather, servers.notes
from servers.weather.get_weather import get_weather
print(seen)
servers.search_tools("note")
print([s.rsplit("/", 2)[-2] for s in seen])
"""
    lines = _python(code, tree).splitlines()
    assert lines == ["[]", "['notes', 'weather']"]  # searching reads the indexes, and only them
