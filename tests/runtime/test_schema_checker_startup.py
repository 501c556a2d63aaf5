"""A server whose tools need ``jsonschema`` refuses to start without it (one line on stderr,
non-zero exit) instead of starting healthy and failing every call of those tools; a server
whose schemas are model-exact (nullable forms included) starts and serves without it.

Real processes: ``python -m <package> --stdio`` of generated packages, with ``jsonschema``
made unimportable by a ``sitecustomize`` on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from codegen import build

BLOCK = "import sys\nsys.modules['jsonschema'] = None  # as if it were not installed\n"


def _package(root: Path, name: str, properties: dict[str, Any]) -> Path:
    spec = {"mcp-codegen": 1, "server": {"name": name, "version": "1"}, "tools": [
        {"name": "pick", "description": "Pick.", "inputSchema": {"type": "object", "properties": properties}},
        {"name": "plain", "description": "Plain.", "inputSchema": {"type": "object"}},
    ]}
    (root / f"{name}.yaml").write_text(yaml.safe_dump(spec), "utf-8")
    result, written = build([root / f"{name}.yaml"], root / "out")
    assert written is not None, [d.render() for d in result.diagnostics]
    server_mod = f"{name}.server"
    (root / "out" / f"{name}_impl.py").write_text(
        f"from {server_mod} import {name.title()}ServerBase\n"
        "from typing import Any\n"
        f"class Impl({name.title()}ServerBase):\n"
        "    def pick(self, args: Any, ctx: Any) -> Any:\n"
        "        return f'picked {args.model_dump(mode=\"json\", exclude_unset=True)}'\n"
        "    def plain(self, args: Any, ctx: Any) -> Any:\n"
        "        return 'plain'\n", "utf-8")
    return root / "out"


def _serve(out: Path, block: Path, name: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(block), str(out)])
    return subprocess.run([sys.executable, "-m", name, "--stdio", "--impl", f"{name}_impl:Impl"], cwd=out, env=env,
                          input=stdin, capture_output=True, text=True, timeout=60)


def _calls(*arguments: dict[str, Any]) -> str:
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    lines += [{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "pick", "arguments": a}}
              for i, a in enumerate(arguments)]
    return "".join(json.dumps(line) + "\n" for line in lines)


def _refused(answer: dict[str, Any]) -> bool:
    """An invalid-arguments answer: -32602 (this protocol version) or an error result."""
    return "error" in answer or bool(answer["result"].get("isError"))


def test_server_needing_jsonschema_refuses_to_start_without_it(tmp_path: Path) -> None:
    block = tmp_path / "block"
    block.mkdir()
    (block / "sitecustomize.py").write_text(BLOCK, "utf-8")
    out = _package(tmp_path, "checked", {"v": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 5}]}})
    proc = _serve(out, block, "checked", _calls({"v": 1}))
    assert proc.returncode != 0
    assert proc.stdout == ""  # never answered anything
    assert proc.stderr.splitlines() == [
        "checked: error: tool 'pick' needs the 'jsonschema' package to check arguments against the original "
        "schema, and it is not installed: pip install jsonschema"], proc.stderr
    # with jsonschema importable the same package starts and serves
    served = _serve(out, tmp_path / "nothing", "checked", _calls({"v": 1}, {"v": 5.5}, {"v": 2.5}))
    assert served.returncode == 0, served.stderr
    answers = [json.loads(line) for line in served.stdout.splitlines()]
    assert {a["id"]: _refused(a) for a in answers} == {0: False, 1: False, 2: False, 3: True}


def test_model_exact_nullable_server_starts_and_serves_without_jsonschema(tmp_path: Path) -> None:
    block = tmp_path / "block"
    block.mkdir()
    (block / "sitecustomize.py").write_text(BLOCK, "utf-8")
    out = _package(tmp_path, "exact", {
        "n": {"type": ["integer", "null"], "minimum": 0},
        "e": {"enum": ["a", "b", None]},
        "o": {"oneOf": [{"type": "null"}, {"type": "string", "maxLength": 2}]},
    })
    proc = _serve(out, block, "exact", _calls({"n": None, "e": None, "o": None}, {"n": 3, "e": "a", "o": "ab"},
                                             {"n": -1}, {"n": "5"}, {"e": "c"}, {"o": "abc"}))
    assert proc.returncode == 0, proc.stderr
    answers = {a["id"]: a for a in map(json.loads, proc.stdout.splitlines())}
    assert [_refused(answers[i]) for i in range(1, 7)] == [False, False, True, True, True, True]
    text = answers[1]["result"]["content"][0]["text"]
    assert all(f"'{k}': None" in text for k in "neo"), text  # explicit nulls reached the handler
    assert "jsonschema" not in proc.stderr


def test_asgi_factory_refuses_to_boot_without_jsonschema(tmp_path: Path) -> None:
    """``uvicorn --factory <pkg>.asgi:app_from_env``: the worker does not boot (status 3, which
    uvicorn and gunicorn take for "do not restart") and the log says why."""
    block = tmp_path / "block"
    block.mkdir()
    (block / "sitecustomize.py").write_text(BLOCK, "utf-8")
    out = _package(tmp_path, "boot", {"v": {"not": {"type": "string"}}})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=os.pathsep.join([str(block), str(out)]), MCP_CODEGEN_IMPL="boot_impl:Impl")
    script = "import logging; logging.basicConfig(); from boot.asgi import app_from_env; app_from_env()"
    proc = subprocess.run([sys.executable, "-c", script], cwd=out, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, proc.stderr
    assert "cannot start: tool 'pick' needs the 'jsonschema' package" in proc.stderr
    assert "pip install jsonschema" in proc.stderr
