"""What a plain ``pull`` imports: not the lowering (``codegen.ir.lower``, about 0.15 s with
the schema machinery it brings), nor the model generator; and the runtime member names
``pull.normalize`` computes on its own are the lowering's."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from codegen.commands.pull import normalize as pull_normalize
from codegen.ir import lower

REPO = Path(__file__).resolve().parents[2]
PROBE = ("import json, sys\nfrom codegen.commands.cli.main import main\nsys.argv[0] = 'mcp-codegen'\n"
         "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
         "print(json.dumps({m: m in sys.modules for m in ('codegen.ir.lower', 'datamodel_code_generator', 'codegen.commands.pull.flow')}))\n")


def test_the_runtime_member_names_are_the_lowerings() -> None:
    pull_normalize.runtime_member_names.cache_clear()
    saved = sys.modules.pop("codegen.ir.lower")
    try:
        own = pull_normalize.runtime_member_names()  # computed here, without the lowering
    finally:
        sys.modules["codegen.ir.lower"] = saved
        pull_normalize.runtime_member_names.cache_clear()
    assert own == lower.runtime_member_names()
    assert {"connect", "list_tools", "aclose", "timeout"} <= own


def test_a_plain_pull_imports_neither_the_lowering_nor_the_model_generator(tmp_path: Path) -> None:
    server = [sys.executable, str(REPO / "bench" / "pull_server.py"), "--tools", "5"]
    argv = ["pull", "--stdio", shlex.join(server), "-o", str(tmp_path / "s.yaml")]
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {"codegen.ir.lower": False, "datamodel_code_generator": False, "codegen.commands.pull.flow": True}


ENTRY_PROBE = ("import json, sys\nfrom codegen.commands.cli.entry import main\nsys.argv[0] = 'mcp-codegen'\n"
               "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
               "print(json.dumps({m: m in sys.modules for m in ('codegen.api', 'codegen.commands.cli.main', 'codegen.commands.pull.flow')}))\n")


def test_a_plain_pull_through_the_entry_point_runs_without_the_build_api(tmp_path: Path) -> None:
    """``entry.main`` gives a plain ``pull --stdio`` the command line with ``pull`` alone
    (``cli.app.pull_main``): same spec bytes as the full command line, build API not imported."""
    server = [sys.executable, str(REPO / "bench" / "pull_server.py"), "--tools", "5"]
    lean, full = tmp_path / "lean.yaml", tmp_path / "full.yaml"
    proc = subprocess.run([sys.executable, "-c", ENTRY_PROBE, "pull", "--stdio", shlex.join(server), "-o", str(lean)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {"codegen.api": False, "codegen.commands.cli.main": False, "codegen.commands.pull.flow": True}
    assert f"wrote {lean} (5 tool(s))" in proc.stdout
    proc = subprocess.run([sys.executable, "-c", PROBE, "pull", "--stdio", shlex.join(server), "-o", str(full)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert lean.read_bytes() == full.read_bytes()
