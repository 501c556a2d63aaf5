"""The wheel ships the templates, the runtime and the spec-format schema, and works installed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_wheel_contains_templates_runtime_and_schema(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(REPO)],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:  # hatchling not in the venv: build with isolation (downloads it from PyPI)
        proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(REPO)],
                              capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    wheel = next(tmp_path.glob("mcp_typed_codegen-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {p.relative_to(REPO / "templates").as_posix() for p in (REPO / "templates").rglob("*") if p.is_file()}
    assert templates and {f"codegen/templates/{t}" for t in templates} <= names
    assert {f"codegen/runtime/{p.name}" for p in (REPO / "codegen/runtime").glob("*.py")} <= names
    assert "codegen/spec/spec-format.schema.json" in names
    # installed into a scratch target, the package finds its templates without the repo
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    code = ("import codegen.render as r, pathlib; d = r.templates_dir(); "
            "assert 'site' in str(d), d; print(sorted(p.name for p in d.iterdir() if p.is_file())[0])")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "__init__.py.jinja"
