"""What a handler and a caller see of a union and of defaults: a ``oneOf`` of a string and an
object reaches the handler as ``str | Person`` (no ``RootModel`` whose text is ``.root``), the
errors of a refused call name the field path only (no pydantic class such as ``author.Author``),
and the client's docstrings show a default as JSON (``"medium"``, ``""``), not a Python repr."""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen import build

SPEC = """\
mcp-codegen: 1
server: {name: assign-desk, version: "1"}
$defs:
  Person: {type: object, properties: {name: {type: string}}, required: [name]}
tools:
  - name: assign
    description: Assign an issue.
    inputSchema:
      type: object
      properties:
        author: {oneOf: [{type: string, minLength: 1}, {$ref: "#/$defs/Person"}]}
        count: {anyOf: [{type: integer, minimum: 1}, {type: string, enum: [all]}]}
        priority: {type: string, enum: [low, medium, high], default: medium}
        note: {type: string, default: ""}
      required: [author]
    outputSchema:
      type: object
      properties: {kind: {type: string}}
      required: [kind]
"""

IMPL = """\
from assign_desk import AssignDeskServerBase, Context
from assign_desk.models import AssignInput, AssignOutput


class Desk(AssignDeskServerBase):
    async def assign(self, args: AssignInput, ctx: Context) -> AssignOutput:
        author = args.author
        kind = "text" if isinstance(author, str) else "person " + author.name
        count = "str" if isinstance(args.count, str) else type(args.count).__name__
        return AssignOutput(kind=f"{kind}/{count}")
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("handler_types")
    (root / "spec.yaml").write_text(SPEC, "utf-8")
    result, report = build([root / "spec.yaml"], root / "out")
    assert report is not None, [d.render() for d in result.diagnostics]
    (root / "out" / "desk_impl.py").write_text(IMPL, "utf-8")
    return root / "out"


def test_the_scalar_branch_is_a_plain_value_and_mypy_strict_passes(out: Path) -> None:
    models = (out / "assign_desk" / "models.py").read_text("utf-8")
    assert "RootModel[str]" not in models and "RootModel[int]" not in models
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "assign_desk", "desk_impl.py"], cwd=out,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _calls(out: Path, monkeypatch: pytest.MonkeyPatch, *arguments: dict[str, Any]) -> list[Any]:
    monkeypatch.syspath_prepend(str(out))
    package = importlib.import_module("assign_desk")
    desk = importlib.import_module("desk_impl").Desk

    async def main() -> list[Any]:
        async with package.AssignDeskClient.in_process(desk(), audit=None) as client:
            return [await client.call_raw("assign", args) for args in arguments]

    return asyncio.run(main())


def test_the_handler_gets_str_or_the_model(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text, person = _calls(out, monkeypatch, {"author": "ann", "count": 2}, {"author": {"name": "Ann"}, "count": "all"})
    assert text.structuredContent == {"kind": "text/int"}, text
    assert person.structuredContent == {"kind": "person Ann/str"}, person


def test_refusals_name_the_field_path_only(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty, wrong, missing = _calls(out, monkeypatch, {"author": ""}, {"author": 5}, {"author": {"nom": "Ann"}})
    for result in (empty, wrong, missing):
        assert result.isError
    errors = [result.meta["mcp-codegen/error"]["data"]["errors"] for result in (empty, wrong, missing)]
    assert {e["path"] for e in errors[0]} == {"author"}
    assert {e["path"] for e in errors[1]} == {"author"}
    assert {e["path"] for e in errors[2]} == {"author", "author.name"}
    text = str(errors)
    for internal in ("Person", "constrained-str", "Author", "str"):
        assert f"author.{internal}" not in text and f"'{internal}'" not in text, text
    assert "Input should be an object" in text and "String should have at least 1 character" in text


def test_client_docstrings_show_defaults_as_json(out: Path) -> None:
    client = (out / "assign_desk" / "client.py").read_text("utf-8")
    assert "priority: one of: low, medium, high (optional; the schema's default is \"medium\")" in client
    assert "note: string (optional; the schema's default is \"\")" in client
    assert "Priority.medium" not in client and '"\\")' not in client
