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
    runtime = {f"codegen/runtime/{p.relative_to(REPO / 'codegen/runtime').as_posix()}"
               for p in (REPO / "codegen/runtime").rglob("*.py")}
    assert len(runtime) > 40 and runtime <= names  # every subpackage (wire, schema, server, client)
    assert "codegen/spec/spec-format.schema.json" in names
    # installed into a scratch target, the package finds its templates without the repo
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    code = ("import codegen.render.package as r, pathlib; d = r.templates_dir(); "
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

    from mcp_codegen_runtime.client import ClientBase

    from codegen import build

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
    assert "authlib>=1.7" in meta["project"]["optional-dependencies"]["oauth"]  # the OAuth client flow
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
            assert [t.name for t in await c.list_tools()] == ["get_weather", "get_forecast"]

    asyncio.run(asyncio.wait_for(main(), 60))


def test_sdist_and_wheel_build_and_their_metadata_is_ready_to_publish(tmp_path: Path) -> None:
    """``python -m build`` makes the sdist, then the wheel from it (so the sdist is complete);
    ``twine check --strict`` passes; the metadata names what a user installs."""
    import email
    import tarfile
    import tomllib

    dist = tmp_path / "dist"
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(REPO)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    sdist = dist / f"mcp_typed_codegen-{project['version']}.tar.gz"
    wheel = dist / f"mcp_typed_codegen-{project['version']}-py3-none-any.whl"
    assert sdist.is_file() and wheel.is_file()
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    with tarfile.open(sdist) as tar:
        members = {m.split("/", 1)[1] for m in tar.getnames() if "/" in m}
    assert {"LICENSE", "README.md", "pyproject.toml", "codegen/runtime/server/core.py",
            "codegen/spec/spec-format.schema.json", "templates/client.py.jinja"} <= members
    assert not any(m.startswith(("tests/", "generated_examples/", "bench/", ".ci/")) for m in members)
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(zf.read(meta_name))
        entry_points = zf.read(meta_name.replace("METADATA", "entry_points.txt")).decode()
    assert meta["Name"] == "mcp-typed-codegen" and meta["Version"] == project["version"]
    assert meta["License-Expression"] == "MIT" and meta["Requires-Python"] == ">=3.11"
    requires = set(meta.get_all("Requires-Dist") or [])
    assert set(project["dependencies"]) <= requires
    assert "mcp-codegen = codegen.commands.entry:main" in entry_points  # a plain pull --stdio starts its server first
    assert meta.get_payload().startswith("# mcp-codegen")  # the README is the long description
