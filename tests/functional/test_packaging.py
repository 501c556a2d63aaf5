"""The wheel ships the templates, the runtime and the spec-format schema, and works installed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


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


def test_generated_package_with_project_installs_and_serves_from_anywhere(tmp_path: Path) -> None:
    """``server.project: true``: ``pip install OUT/weather`` gives an importable package and a
    ``weather-server`` console script that serves from any folder (the implementation module
    on its own path)."""
    import asyncio
    import os
    import shutil
    import tomllib

    from codegen import build
    from codegen.runtime.client import ClientBase

    spec = (REPO / "specs" / "weather.yaml").read_text("utf-8").replace("  version: 1.2.0\n", "  version: 1.2.0\n  project: true\n", 1)
    assert "project: true" in spec
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "weather.yaml").write_text(spec, "utf-8")
    result, written = build([tmp_path / "specs" / "weather.yaml"], tmp_path / "out")
    assert written is not None, [d.render() for d in result.diagnostics]
    meta = tomllib.loads((tmp_path / "out" / "weather" / "pyproject.toml").read_text("utf-8"))
    assert meta["project"]["name"] == "weather" and meta["project"]["version"] == "1.2.0"
    assert meta["project"]["scripts"] == {"weather-server": "weather.__main__:cli"}
    assert meta["project"]["optional-dependencies"]["http"]
    prefix = tmp_path / "prefix"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--prefix", str(prefix),
                           str(tmp_path / "out" / "weather")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    site = next(prefix.glob("lib/python3*/site-packages"))
    assert (site / "weather" / "_runtime" / "server" / "core.py").is_file() and (site / "weather" / "py.typed").is_file()
    impl = tmp_path / "impl"
    impl.mkdir()
    shutil.copy(REPO / "generated_examples" / "weather_impl.py", impl / "weather_impl.py")
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": f"{site}{os.pathsep}{impl}"}
    script = str(prefix / "bin" / "weather-server")

    async def main() -> None:
        async with ClientBase.stdio(script, ["--impl", "weather_impl:WeatherService"], env=env, cwd="/", audit=None) as c:
            assert [t["name"] for t in await c.list_tools()] == ["get_weather", "get_forecast"]

    asyncio.run(asyncio.wait_for(main(), 60))
