"""Generated code is clean under ``mypy --strict``: the committed examples (with their
hand-written implementations) and every golden case built afresh."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from codegen import build

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "tests" / "golden" / "cases"


def mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def test_generated_examples_pass_mypy_strict() -> None:
    proc = mypy(".", cwd=REPO / "generated_examples")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_golden_builds_pass_mypy_strict(tmp_path: Path) -> None:
    result, report = build(sorted(CASES.glob("*/spec.yaml")), tmp_path)
    assert report is not None, [d.render() for d in result.diagnostics]
    packages = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    assert len(packages) == len(list(CASES.iterdir()))
    proc = mypy(*packages, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


NATURAL_USE = '''
from weather import WeatherClient
from catalog.client import CatalogClient


async def use(w: WeatherClient, c: CatalogClient) -> float:
    out = await w.get_weather(location="Chicago", unit="celsius")  # an enum's value, as the docs write it
    await w.get_forecast(location="Paris", days=3)
    await c.search_products(query="desk", sort="price_desc", status=["active"], max_price={"amount": 100})
    await c.quote(lines=[{"kind": "product", "sku": "LAMP-01"}], coupon=None)  # plain dicts for objects
    return out.temperature
'''


def test_natural_client_code_passes_mypy_strict(tmp_path: Path) -> None:
    """Calls written the way the README writes them type-check; a wrong enum value does not."""
    (tmp_path / "natural_use.py").write_text(NATURAL_USE, "utf-8")
    env_path = str(REPO / "generated_examples")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "natural_use.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "MYPYPATH": env_path})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tmp_path / "wrong_use.py").write_text(NATURAL_USE.replace('unit="celsius"', 'unit="kelvin"'), "utf-8")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "wrong_use.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "MYPYPATH": env_path})
    assert proc.returncode == 1 and "Literal['kelvin']" in proc.stdout and 'Argument "unit"' in proc.stdout, proc.stdout
