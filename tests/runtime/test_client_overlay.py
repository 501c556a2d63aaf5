"""Typed results without a server schema (issue 28 point 3) and servers that leave declared lists
unanswered (point 5), against a real stdio server (``tests/support/optional_lists_server.py``: no
``outputSchema`` on its tools, no ``serverInfo.version``, -32601 for ``resources/templates/list``).

The spec's ``overlays`` give ``get_note`` a client-side output type: the typed method returns the
model, checked on the client, while the wire tool, its fingerprint, ``check_compat()`` and ``diff``
stay as they were; ``pull --force`` keeps the overlays.  ``ToolResult.json()`` reads untyped results.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from common_support import run_async
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.wire.content import TextContent, ToolResult

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "tests" / "support" / "optional_lists_server.py"
CLI = [sys.executable, "-m", "codegen"]
OVERLAY = {
    "$defs": {"Note": {"type": "object", "properties": {"id": {"type": "integer"},
                                                        "text": {"type": "string", "pattern": "^[a-z ]+$"}},
                       "required": ["id", "text"]}},
    "overlays": {"get_note": {"outputSchema": {"$ref": "#/$defs/Note"}}},
}


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def server_cmd(*extra: str) -> str:
    return " ".join([sys.executable, str(SERVER), *extra])


def pulled(tmp_path: Path) -> Path:
    spec = tmp_path / "specs" / "ol.yaml"
    proc = cli("pull", "--stdio", server_cmd(), "-o", str(spec), "--name", "ol", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "note: the server declares resources but answers resources/templates/list with -32601" in proc.stderr
    return spec


def with_overlay(spec: Path) -> None:
    data = yaml.safe_load(spec.read_text("utf-8"))
    data.update(json.loads(json.dumps(OVERLAY)))
    spec.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")


def lock(out: Path) -> dict[str, Any]:
    return json.loads((out / "ol" / "mcp-codegen.lock").read_text("utf-8"))


def test_check_compat_takes_an_unanswered_declared_list_as_empty_with_a_note() -> None:
    async def main(*extra: str) -> Any:
        async with ClientBase.stdio(sys.executable, [str(SERVER), *extra], stderr="capture") as c:
            return await c.check_compat()

    report = run_async(main())
    assert report.compatible and report.notes == (
        "the server declares resources but answers resources/templates/list with -32601: taken as empty",)
    assert "note: the server declares resources" in str(report)
    report = run_async(main("--no-prompts-list"))
    assert report.compatible and len(report.notes) == 2 and "prompts/list" in report.notes[1]


def test_tool_result_json_reads_structured_content_else_the_single_json_text_block() -> None:
    async def main() -> list[Any]:
        async with ClientBase.stdio(sys.executable, [str(SERVER)], stderr="capture") as c:
            out: list[Any] = [(await c.call_tool("get_note", {"id": 4})).json()]
            for name in ("get_text", "get_two"):
                with pytest.raises(ValueError) as err:
                    (await c.call_tool(name, {})).json()
                out.append(str(err.value))
            return out

    note, not_json, two = run_async(main())
    assert note == {"id": 4, "text": "a note"}
    assert "no structuredContent and its text block is not JSON" in not_json and "'no JSON here'" in not_json
    assert "no structuredContent and 2 text blocks, not one" in two
    assert ToolResult(structuredContent={"a": 1}, content=[TextContent(text="x")]).json() == {"a": 1}
    with pytest.raises(ValueError, match="0 text blocks"):
        ToolResult().json()


USE = '''
import json, sys
from ol import OlSyncClient, OutputValidationError
from ol.models import Note

with OlSyncClient.stdio(sys.executable, [sys.argv[1]]) as c:
    note: Note = c.get_note(id=3)
    out = {"type": type(note).__name__, "text": note.text.upper(), "id": note.id}
    try:
        c.get_note(id=0)  # "bad Text!" breaks the overlay's pattern
    except OutputValidationError as exc:
        out["refused"] = [e.path for e in exc.errors]
    report = c.check_compat()
    out["compatible"] = report.compatible
    out["changed"] = [ch.name for ch in report.changed]
    out["notes"] = list(report.notes)
    out["untyped"] = c.get_text().text()
print(json.dumps(out))
'''


def test_overlay_types_the_result_and_changes_nothing_on_the_wire(tmp_path: Path) -> None:
    spec = pulled(tmp_path)
    assert cli("build", str(spec), "-o", str(tmp_path / "plain"), cwd=tmp_path).returncode == 0
    plain = spec.read_text("utf-8")
    with_overlay(spec)
    proc = cli("build", str(spec), "-o", str(tmp_path / "typed"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the fingerprints and wire tools are those of the spec without the overlay
    before, after = lock(tmp_path / "plain")["tools"], lock(tmp_path / "typed")["tools"]
    assert sorted(before) == sorted(after) == ["get_note", "get_text", "get_two"]
    for k in before:
        assert (before[k]["fingerprint"], before[k]["wire_sha256"]) == (after[k]["fingerprint"], after[k]["wire_sha256"])
    assert after["get_note"]["python"]["output_class"] == "Note" and "output_class" not in before["get_note"]["python"]
    proc = subprocess.run([sys.executable, "-c", USE, str(SERVER)], cwd=tmp_path / "typed", capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["type"] == "Note" and out["text"] == "A NOTE" and out["id"] == 3
    assert out["refused"] == ["text"]
    assert out["compatible"] is True and out["changed"] == [] and len(out["notes"]) == 1
    assert out["untyped"] == "no JSON here"
    # diff: the overlay is no change, and the live server (no version) is no change either
    (tmp_path / "old.yaml").write_text(plain, "utf-8")
    proc = cli("diff", str(tmp_path / "old.yaml"), str(spec), cwd=tmp_path)
    assert proc.returncode == 0 and "no changes" in proc.stdout, proc.stdout + proc.stderr
    proc = cli("diff", str(spec), "stdio:" + server_cmd(), cwd=tmp_path)
    assert proc.returncode == 0 and "no changes" in proc.stdout, proc.stdout + proc.stderr
    assert "server-info-changed" not in proc.stdout and "note: stdio:" in proc.stderr


def test_the_overlay_model_type_checks_for_user_code(tmp_path: Path) -> None:
    spec = pulled(tmp_path)
    with_overlay(spec)
    assert cli("build", str(spec), "-o", str(tmp_path / "out"), cwd=tmp_path).returncode == 0
    code = "from ol import OlSyncClient\n\ndef f(c: OlSyncClient) -> str:\n    return c.get_note(id=1).text.upper()\n"
    (tmp_path / "out" / "use_ok.py").write_text(code, "utf-8")
    (tmp_path / "out" / "use_bad.py").write_text(code.replace(".text.upper()", ".txt"), "utf-8")
    run = [sys.executable, "-m", "mypy", "--strict"]
    ok = subprocess.run([*run, "use_ok.py"], cwd=tmp_path / "out", capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stdout
    bad = subprocess.run([*run, "use_bad.py"], cwd=tmp_path / "out", capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1 and '"Note" has no attribute "txt"' in bad.stdout, bad.stdout


def test_repull_with_force_keeps_the_overlays_and_their_defs(tmp_path: Path) -> None:
    spec = pulled(tmp_path)
    with_overlay(spec)
    proc = cli("pull", "--stdio", server_cmd(), "-o", str(spec), "--name", "ol", "--force", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = yaml.safe_load(spec.read_text("utf-8"))
    assert data["overlays"] == OVERLAY["overlays"] and data["$defs"]["Note"] == OVERLAY["$defs"]["Note"]
    assert "# Kept from the spec this pull replaced" in spec.read_text("utf-8")
    assert cli("validate", str(spec), cwd=tmp_path).returncode == 0


def test_an_overlay_for_an_unknown_tool_or_a_typed_tool_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "x.yaml"
    spec.write_text(
        "mcp-codegen: 1\nserver: {name: x, version: 1.0.0}\ntools:\n"
        "  - {name: get_note, inputSchema: {type: object}}\n"
        "  - {name: typed, inputSchema: {type: object}, outputSchema: {type: object}}\n"
        "overlays:\n  get_nte: {outputSchema: {type: object}}\n  typed: {outputSchema: {type: object}}\n", "utf-8")
    proc = cli("validate", str(spec), cwd=tmp_path)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert "error[E011]: overlay for 'get_nte', which is not a tool of this spec" in text
    assert "did you mean 'get_note'?" in text
    assert "error[E010]: tool 'typed' has its own outputSchema" in text
