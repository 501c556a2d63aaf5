"""``pull`` is fast by default: no check build unless ``--check`` (issue 32 point 4).

The server is ``bench/pull_server.py`` (50 tools, standard library only).  Whether the check
build ran is read from the pulling process itself: the build imports the model generator
(``datamodel_code_generator``), nothing else in ``pull`` does.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import yaml
from pull_support import REPO

SERVER = [sys.executable, str(REPO / "bench" / "pull_server.py"), "--tools", "50"]
#: Runs the CLI in this interpreter, then prints whether the model generator was imported.
PROBE = ("import sys\nfrom codegen.commands.cli.main import main\n"
         "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code or 0\nelse:\n    code = 0\n"
         "print(json.dumps({'code': code, 'built': 'datamodel_code_generator' in sys.modules}))\n")


def _pull(out: Path, *extra: str) -> tuple[dict[str, object], str]:
    argv = ["mcp-codegen", "pull", "--stdio", shlex.join(SERVER), "-o", str(out), "--force", *extra]
    proc = subprocess.run([sys.executable, "-c", "import json\n" + PROBE, *argv[1:]], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def test_pull_skips_the_check_build_unless_asked(tmp_path: Path) -> None:
    spec = tmp_path / "synthetic.yaml"
    fast, _ = _pull(spec)
    assert fast == {"code": 0, "built": False}
    text = spec.read_text("utf-8")
    data = yaml.safe_load(text)
    assert [t["name"] for t in data["tools"]] == [f"tool_{i:03d}" for i in range(50)]

    checked, _ = _pull(spec, "--check")
    assert checked == {"code": 0, "built": True}
    assert spec.read_text("utf-8") == text  # the same spec either way

    legacy, _ = _pull(spec, "--no-check")  # still accepted (scripts), and the default anyway
    assert legacy == {"code": 0, "built": False}


def test_pull_notes_are_still_located_without_the_check_build(tmp_path: Path) -> None:
    """A repair pull makes (W104: a `type: int` alias) is still reported, at its line, without a build."""
    script = tmp_path / "server.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if 'id' not in m: continue\n"
        "    if m['method'] == 'initialize':\n"
        "        r = {'protocolVersion': '2025-11-25', 'capabilities': {'tools': {}}, 'serverInfo': {'name': 'alias', 'version': '1'}}\n"
        "    elif m['method'] == 'tools/list':\n"
        "        r = {'tools': [{'name': 'count', 'description': 'Count.', 'inputSchema': {'type': 'object', 'properties': {'n': {'type': 'int'}}}}]}\n"
        "    else:\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'error': {'code': -32601, 'message': 'no'}}), flush=True)\n"
        "        continue\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n", encoding="utf-8")
    spec = tmp_path / "alias.yaml"
    argv = ["pull", "--stdio", shlex.join([sys.executable, str(script)]), "-o", str(spec), "--force"]
    proc = subprocess.run([sys.executable, "-m", "codegen", *argv], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "W104" in proc.stderr and f"{spec}:" in proc.stderr, proc.stderr
    assert yaml.safe_load(spec.read_text("utf-8"))["tools"][0]["inputSchema"]["properties"]["n"] == {"type": "integer"}
