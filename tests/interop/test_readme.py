"""README.md, executed: its "Use it in your project" path runs as written from an empty folder
with a fresh venv (tests/support/doc_runner.py turns the blocks into one bash session), then the
results are checked against what the README says they are, and its Python is type-checked."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.doc_runner import blocks, script

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


def test_every_code_block_of_the_readme_runs_or_says_why_not() -> None:
    doc = blocks(README.read_text("utf-8"))
    code = [b for b in doc if b.lang in ("sh", "bash", "python") or b.file]
    left_out = [b for b in code if not b.runs]
    assert [b.not_run for b in left_out] == [
        "CI's own commands (.ci/run runs scripts/test, which runs the README test)"]
    assert "scripts/bootstrap" in left_out[0].text and left_out[0].line < 40  # the set-up commands come first
    files = [b.file for b in code if b.file]
    assert files == ["specs/weather.yaml", "out/weather_impl.py", "out/call_weather.py"]


def test_readme_user_path_runs_as_written(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).resolve().parent), env.get("PATH", "")])
    env["MCP_CODEGEN_SRC"] = str(REPO)
    proc = subprocess.run(["bash", "-c", script(blocks(README.read_text("utf-8")))], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    out = proc.stdout
    assert re.search(r"^mcp-codegen \d+\.\d+\.\d+$", out, flags=re.M), out[:500]
    by_block = dict(re.findall(r"### block \d+ \(line (\d+)\)\n(.*?)(?=### block|\Z)", out, flags=re.S))
    readme = README.read_text("utf-8")
    line_of = {b.text.strip(): str(b.line) for b in blocks(readme)}
    # step 3: one summary line for the build (and one for the scaffold it wrote)
    build = by_block[line_of["mcp-codegen validate specs\nmcp-codegen build specs -o out --scaffold"]]
    assert re.search(r"^1 spec\(s\) -> out: \d+ created", build, flags=re.M), build
    assert len(build.strip().splitlines()) <= 3, build
    # step 5: the host entry names the server and starts it over stdio
    served = by_block[line_of["cd out\npython -m weather --check\npython -m weather --print-config claude-code"]]
    assert '"weather"' in served and "--stdio" in served, served
    # step 6 printed what the README says it prints
    assert "It prints `18.0 sunny celsius`, `refused: {'location': 'Atlantis'}` and `fahrenheit`." in readme
    assert "18.0 sunny celsius\nrefused: {'location': 'Atlantis'}\nfahrenheit\n" in out, out[-2000:]
    # the README's Python passes mypy --strict against the generated package
    typed = subprocess.run([sys.executable, "-m", "mypy", "--strict", "weather_impl.py",
                            "call_weather.py"], cwd=tmp_path / "out", capture_output=True, text=True, timeout=600)
    assert typed.returncode == 0, typed.stdout[-3000:]
