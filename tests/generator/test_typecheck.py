"""Generated code is clean under ``mypy --strict``: the committed examples (with their
hand-written implementations) and every golden case built afresh."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from codegen import build
from codegen.options import Options

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "generator" / "golden" / "cases"


def mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", *args],
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
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "natural_use.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "MYPYPATH": env_path})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tmp_path / "wrong_use.py").write_text(NATURAL_USE.replace('unit="celsius"', 'unit="kelvin"'), "utf-8")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "wrong_use.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "MYPYPATH": env_path})
    assert proc.returncode == 1 and "Literal['kelvin']" in proc.stdout and 'Argument "unit"' in proc.stdout, proc.stdout


def _pydantic_only_python() -> Path:
    """A venv (cached in the ignored .cache/) with the runtime library, no extra, and pydantic,
    nothing else: what a user of a stdio server has.  pydantic is pinned to the version the test
    environment runs; the runtime is this checkout's (editable, so the cache follows it)."""
    import pydantic

    venv = REPO / ".cache" / f"runtime-pydantic-only-{pydantic.VERSION}"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=300)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        f"pydantic=={pydantic.VERSION}"], check=True, timeout=600)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                        "-e", str(REPO / "runtime")], check=True, timeout=600)
    return python


def test_packages_pass_mypy_strict_with_only_pydantic_installed(tmp_path: Path) -> None:
    """With the runtime but none of its extras (no httpx, uvicorn or jsonschema), every target
    type-checks (the HTTP parts import their optional package lazily) and imports."""
    python = _pydantic_only_python()
    check = subprocess.run([str(python), "-c", "import httpx"], capture_output=True, timeout=60)
    assert check.returncode != 0, "the pydantic-only venv must not have httpx"
    for target in ("server", "client", "both"):
        out = tmp_path / target
        result, report = build([REPO / "specs" / "weather.yaml"], out, options=Options(target=target))
        assert report is not None, [d.render() for d in result.diagnostics]
        proc = mypy("--python-executable", str(python), "-p", "weather", cwd=out)
        assert proc.returncode == 0, f"target {target}:\n{proc.stdout}{proc.stderr}"
        proc = subprocess.run([str(python), "-c", "import weather; print(sorted(weather.__all__))"], cwd=out,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert ("WeatherClient" in proc.stdout) == (target != "server")
        assert ("WeatherServerBase" in proc.stdout) == (target != "client")


TASK_USE = '''
from everything import EverythingClient, EverythingSyncClient, ToolResult
from everything.models import SlowComputeOutput


async def use(c: EverythingClient, s: EverythingSyncClient) -> float:
    handle = await c.start_slow_compute(seconds=1, label="x")
    async for status in handle:
        message: str | None = status.status_message
    out: SlowComputeOutput = await handle.result()
    failed: ToolResult = await (await c.start_failing_job()).result()
    blocking = s.start_slow_compute(seconds=1)
    for change in blocking:
        print(change.status, message)
    return out.seconds + blocking.result().seconds + len(failed.content)
'''


def test_task_handles_are_typed(tmp_path: Path) -> None:
    """``start_<tool>`` handles carry the tool's output type through ``result()`` (async and sync)."""
    env = {**__import__("os").environ, "MYPYPATH": str(REPO / "generated_examples")}
    (tmp_path / "task_use.py").write_text(TASK_USE, "utf-8")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "task_use.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tmp_path / "task_wrong.py").write_text(TASK_USE.replace("out: SlowComputeOutput", "out: str"), "utf-8")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "task_wrong.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 1 and "Incompatible types in assignment" in proc.stdout, proc.stdout
