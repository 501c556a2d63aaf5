"""The generator's wheel ships the templates and the spec-format schema and works installed; the
runtime is its own distribution (``runtime/``); a generated package installs into a fresh venv
beside the runtime with the README's steps, or alone with a private runtime copy."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml
from common_support import weather_spec

REPO = Path(__file__).resolve().parents[2]


def test_wheel_contains_templates_and_schema_but_not_the_runtime(tmp_path: Path) -> None:
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
    assert not any(n.startswith(("codegen/runtime/", "mcp_codegen_runtime/")) for n in names)  # a dependency now
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


def _fresh_venv(path: Path) -> Path:
    """A new virtual environment without the suite's packages; its Python."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, capture_output=True, timeout=300)
    return path / "bin" / "python"


def _pip(python: Path, *args: str) -> None:
    proc = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]


def _project_spec(tmp_path: Path, extra: str = "") -> Path:
    spec = (REPO / "specs" / "weather.yaml").read_text("utf-8").replace(
        "  version: 1.2.0\n", f"  version: 1.2.0\n  project: true\n{extra}", 1)
    assert "project: true" in spec
    return weather_spec(tmp_path / "specs", spec)


def _serves(script: Path, tmp_path: Path, args: tuple[str, ...] = ()) -> None:
    """The console script serves the tools over stdio (``args`` first), its implementation on its own path."""
    import asyncio
    import os
    import shutil

    from mcp_codegen_runtime.client import ClientBase

    impl = tmp_path / "impl"
    impl.mkdir(exist_ok=True)
    shutil.copy(REPO / "generated_examples" / "weather_impl.py", impl / "weather_impl.py")
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(impl)}

    async def main() -> None:
        async with ClientBase.stdio(str(script), [*args, "--impl", "weather_impl:WeatherService"], env=env, cwd="/",
                                    audit=None) as c:
            assert [t.name for t in await c.list_tools()] == ["get_weather", "get_forecast"]

    asyncio.run(asyncio.wait_for(main(), 60))


def test_generated_package_installs_beside_the_runtime_into_a_fresh_venv(tmp_path: Path) -> None:
    """The README's steps: ``pip install <clone>/runtime OUT/weather`` in a new venv gives the
    runtime at a version the package's compatible-release range admits, with the package's
    extras, and a ``weather-server`` console script that serves from any folder."""
    import tomllib

    from mcp_codegen_runtime import RUNTIME_VERSION

    from codegen import build

    result, written = build([_project_spec(tmp_path)], tmp_path / "out")
    assert written is not None, [d.render() for d in result.diagnostics]
    package = tmp_path / "out" / "weather"
    assert not (package / "_runtime").exists()
    meta = tomllib.loads((package / "pyproject.toml").read_text("utf-8"))["project"]
    major, minor = RUNTIME_VERSION.split(".")[:2]
    registry = yaml.safe_load((REPO / "specs" / "weather.yaml").read_text("utf-8"))["server"]["registry"]
    pypi = registry["pypi"]  # the spec publishes the package to the MCP Registry under this PyPI name
    assert meta["name"] == pypi and meta["version"] == "1.2.0"
    assert meta["dependencies"] == [f"mcp-codegen-runtime~={major}.{minor}"]  # no extra this spec needs
    assert meta["optional-dependencies"]["http"] == [f"mcp-codegen-runtime[http]~={major}.{minor}"]
    assert meta["scripts"] == {"weather-server": "weather.__main__:cli", pypi: "weather.__main__:cli"}
    python = _fresh_venv(tmp_path / "venv")
    _pip(python, str(REPO / "runtime"), f"{package}[http]")
    code = ("import importlib.metadata as m, weather, weather.client, uvicorn, httpx\n"
            "print(m.version('mcp-codegen-runtime'), weather.__file__)\n")
    out = subprocess.run([str(python), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    version, where = out.stdout.split()
    assert version == RUNTIME_VERSION and "site-packages" in where
    _serves(tmp_path / "venv" / "bin" / "weather-server", tmp_path)
    # what `uvx <identifier> <packageArguments>` of server.json runs: the script named as the project
    (entry,) = json.loads((package / "server.json").read_text("utf-8"))["packages"]
    assert entry["identifier"] == pypi and entry["runtimeHint"] == "uvx"
    _serves(tmp_path / "venv" / "bin" / entry["identifier"], tmp_path, tuple(a["value"] for a in entry["packageArguments"]))
    # the PyPI page (the distribution's long description) carries the registry's ownership line
    code = f"import importlib.metadata as m; print(m.metadata({pypi!r}).get_payload())"
    out = subprocess.run([str(python), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and f"<!-- mcp-name: {registry['name']} -->\n" in out.stdout, out.stdout + out.stderr


def test_a_private_runtime_package_installs_alone(tmp_path: Path) -> None:
    """``server.runtime: private``: the package carries the runtime modules it imports and needs
    no ``mcp-codegen-runtime`` (pydantic only) in a fresh venv."""
    import tomllib

    from codegen import build

    result, written = build([_project_spec(tmp_path, "  runtime: private\n")], tmp_path / "out")
    assert written is not None, [d.render() for d in result.diagnostics]
    package = tmp_path / "out" / "weather"
    meta = tomllib.loads((package / "pyproject.toml").read_text("utf-8"))["project"]
    assert meta["dependencies"] == ["pydantic>=2.7"]
    assert "authlib>=1.7" in meta["optional-dependencies"]["oauth"]  # the OAuth client flow, as packages
    python = _fresh_venv(tmp_path / "venv")
    _pip(python, str(package))
    site = next((tmp_path / "venv").glob("lib/python3*/site-packages"))
    assert (site / "weather" / "_runtime" / "server" / "gencode.py").is_file() and (site / "weather" / "py.typed").is_file()
    assert not list(site.glob("mcp_codegen_runtime*"))
    _serves(tmp_path / "venv" / "bin" / "weather-server", tmp_path)


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
    assert {"LICENSE", "README.md", "pyproject.toml", "codegen/spec/spec-format.schema.json",
            "templates/client.py.jinja"} <= members
    assert not any(m.startswith(("tests/", "generated_examples/", "bench/", ".ci/")) for m in members)
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(zf.read(meta_name))
        entry_points = zf.read(meta_name.replace("METADATA", "entry_points.txt")).decode()
    assert meta["Name"] == "mcp-typed-codegen" and meta["Version"] == project["version"]
    assert meta["License-Expression"] == "MIT" and meta["Requires-Python"] == ">=3.11"
    requires = set(meta.get_all("Requires-Dist") or [])
    assert set(project["dependencies"]) <= requires
    assert "mcp-codegen = codegen.commands.cli.entry:main" in entry_points  # a plain pull --stdio starts its server first
    assert meta.get_payload().startswith("# mcp-codegen")  # the README is the long description


def test_the_runtime_distribution_builds_and_its_metadata_is_ready_to_publish(tmp_path: Path) -> None:
    """``runtime/`` builds its own sdist and wheel (every module, its extras), ``twine check`` passes."""
    import email

    from mcp_codegen_runtime import RUNTIME_VERSION

    dist = tmp_path / "dist"
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(REPO / "runtime")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    wheel = dist / f"mcp_codegen_runtime-{RUNTIME_VERSION}-py3-none-any.whl"
    sdist = dist / f"mcp_codegen_runtime-{RUNTIME_VERSION}.tar.gz"
    assert wheel.is_file() and sdist.is_file()
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta = email.message_from_bytes(zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
    sources = {f"mcp_codegen_runtime/{p.relative_to(REPO / 'runtime' / 'mcp_codegen_runtime').as_posix()}"
               for p in (REPO / "runtime" / "mcp_codegen_runtime").rglob("*.py")}
    assert len(sources) > 100 and sources <= names and "mcp_codegen_runtime/py.typed" in names
    assert meta["Name"] == "mcp-codegen-runtime" and meta["Version"] == RUNTIME_VERSION
    assert {"http", "oauth", "redis", "jsonschema", "fast"} <= set(meta.get_all("Provides-Extra") or [])
    assert "pydantic>=2.7" in (meta.get_all("Requires-Dist") or [])
