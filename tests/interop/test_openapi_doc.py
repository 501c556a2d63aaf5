"""docs/openapi.md, executed: its blocks run in order in one bash session, in a fresh folder outside
the repository with a fresh venv, the way a new user runs them: a real FastAPI app is the REST API,
its OpenAPI 3.1 document is converted, built, served over stdio, called through the typed client,
curated and converted again, and called from the agent tree.  The app binds 127.0.0.1 and is
stopped by its PID (by the document, and here if the document failed before)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.support.doc_runner import blocks, run_document

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "openapi.md"


def test_the_blocks_are_there_and_all_run() -> None:
    doc = blocks(DOC.read_text("utf-8"))
    code = [b for b in doc if b.lang in ("sh", "bash", "python") or b.file]
    assert code and all(b.runs for b in code)
    assert [b.file for b in code if b.file] == ["api.py", "call.py", "curation.yaml", "agent-mcp.json"]
    sh = [b.text for b in code if b.lang == "sh"]
    assert "mcp-codegen openapi openapi.json" in sh[2] and "--layout agent" in sh[-1]


def test_the_document_runs_as_written(tmp_path: Path) -> None:
    proc = run_document(DOC, tmp_path, REPO, pid_file="api.pid")
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    out = proc.stdout
    # the typed calls went through the REST API: a JSON body, a query, the documented 404
    assert "added 1 write the docs False\nopen ['write the docs']\nnot found: HTTP 404\n" in out
    # --print-config listed the variables (stderr) and left them empty in the entry
    assert "TODOS_APIKEYHEADER" in proc.stderr and "TODOS_BASE_URL" in proc.stderr
    assert '"TODOS_APIKEYHEADER": ""' in out
    # the curation was kept by the second conversion and shaped the tools
    spec = yaml.safe_load((tmp_path / "specs" / "todos.yaml").read_text("utf-8"))
    assert spec["openapi"]["tools"]["list_todos"] == {"name": "todos"}
    names = [t["name"] for t in spec["tools"]]
    assert names == ["todos", "add_todo", "get_todo"]
    add = spec["tools"][1]
    assert "done" not in add["inputSchema"]["properties"]
    assert add["http"]["fixed"] == [{"in": "body", "name": "done", "value": False}]
    assert spec["tools"][2]["description"].startswith("One to-do by its id (404 when there is none).")
    # the agent tree found the tool and called it (the second to-do of the app)
    assert "['servers.todos.add_todo']" in out
    assert re.search(r"^agent added 2$", out, flags=re.M), out[-2000:]
    # the key was never written into a file of the output
    for path in (tmp_path / "agent").rglob("*"):
        if path.is_file():
            assert "s3cret" not in path.read_text("utf-8", "replace"), path
