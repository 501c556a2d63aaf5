"""Every golden case builds and imports with warnings as errors: a field pydantic warns about
(``model_dump``, ``model_config``: its protected namespace) or a model it refuses fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from codegen import build

CASES = Path(__file__).resolve().parent / "golden" / "cases"


def test_golden_builds_import_without_warnings(tmp_path: Path) -> None:
    result, report = build(sorted(CASES.glob("*/spec.yaml")), tmp_path)
    assert report is not None, [d.render() for d in result.diagnostics]
    modules = sorted(f"{p.parent.name}.{p.stem}" for p in tmp_path.glob("*/*.py")
                     if p.stem in ("models", "client", "server", "tools"))
    assert len({m.split(".")[0] for m in modules}) == len([p for p in CASES.iterdir() if p.is_dir()])
    code = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)\n"
    proc = subprocess.run([sys.executable, "-W", "error", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_client_sends_wire_names_of_fields_named_like_model_imports() -> None:
    """Properties named ``Field``, ``Any``, ``float``, ``None``: fields named like what models.py
    imports get ``_`` (else the model generator imports ``Field``/``Any`` under another name,
    module-wide); the client sends each property's wire name and names only what it imports."""
    from codegen import generate

    result = generate([CASES / "py_names" / "spec.yaml"])
    assert result.ok, [d.render() for d in result.diagnostics]
    [client] = [f.content for f in result.files if f.path == "py_names/client.py"]
    assert '"float": float_,' in client and '"None": None_,' in client and '"Any": Any_,' in client
    assert "_aliased" not in client
    assert "        float_: float | Unset = UNSET," in client  # no null: the schema does not allow it
