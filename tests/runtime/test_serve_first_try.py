"""``python -m <pkg>`` serves from the first try: the scaffold class is the default implementation,
``--http`` checks uvicorn before announcing anything and names the exact install, usage errors
are one or two lines ending with "see --help", and an implementation that cannot be imported
names the search path and the fix.  Real processes of a package freshly built in tmp_path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from codegen.api import build

REPO = Path(__file__).resolve().parents[2]

SPEC = """\
mcp-codegen: 1
server: {{name: todo, version: 1.0.0, project: {project}}}
tools:
  - name: echo
    inputSchema:
      type: object
      properties: {{message: {{type: string}}}}
      required: [message]
"""

IMPL = '''
from todo import Context, TodoServerBase
from todo.models import EchoInput


class TodoService(TodoServerBase):
    async def echo(self, args: EchoInput, ctx: Context) -> dict[str, str]:
        return {"message": args.message}
'''

NO_UVICORN = "import sys\nsys.modules['uvicorn'] = None  # import uvicorn raises ImportError\n"


def _project(tmp_path: Path, project: bool = False) -> Path:
    spec = tmp_path / "specs" / "todo.yaml"
    spec.parent.mkdir(parents=True)
    spec.write_text(SPEC.format(project="true" if project else "false"))
    result, report = build([spec], tmp_path / "out")
    assert report is not None, [d.render() for d in result.diagnostics]
    return tmp_path / "out"


def _run(cwd: Path, *args: str, pythonpath: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run([sys.executable, "-m", "todo", *args], cwd=cwd, env=env, input="", capture_output=True,
                          text=True, timeout=60)


def _short_usage_error(proc: subprocess.CompletedProcess[str]) -> list[str]:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert 1 <= len(lines) <= 2 and lines[-1].endswith("; see --help"), proc.stderr
    assert "usage:" not in proc.stderr and lines[0].startswith("todo: error: "), proc.stderr
    return lines


def test_usage_errors_are_one_or_two_lines_ending_with_see_help(tmp_path: Path) -> None:
    out = _project(tmp_path)
    (out / "todo_impl.py").write_text(IMPL)
    for args, needle in ((["--bogus"], "unrecognized arguments: --bogus"),
                         (["--port", "x"], "argument --port: invalid int value: 'x'"),
                         (["--log-format", "xml"], "argument --log-format: invalid choice"),
                         (["--impl", "todo_impl"], "--impl must look like module:Class"),
                         (["--impl", "todo_impl:Nope"], "todo_impl has no attribute Nope"),
                         (["--impl", "json:JSONDecoder"], "json:JSONDecoder is not a subclass of TodoServerBase"),
                         (["--write-config", "x.json"], "--write-config needs --print-config HOST")):
        lines = _short_usage_error(_run(out, *args))
        assert needle in lines[0], (args, lines)


def test_missing_implementation_names_the_scaffold_the_search_path_and_the_fix(tmp_path: Path) -> None:
    _project(tmp_path)
    proc = _run(tmp_path, "--stdio", pythonpath="out")  # a relative PYTHONPATH, shown absolute
    first, second = _short_usage_error(proc)
    assert "no implementation" in first and "todo_impl (class TodoService, written by mcp-codegen build --scaffold)" in first
    assert f"searched the working directory {tmp_path}" in second and f"PYTHONPATH ({tmp_path / 'out'})" in second
    assert "PYTHONPATH=src" in second and "--impl module:Class" in second
    # the implementation is in src/: the message says so, and the fix it names works
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "todo_impl.py").write_text(IMPL)
    _, second = _short_usage_error(_run(tmp_path, "--stdio", pythonpath="out"))
    assert f"found src/todo_impl.py: run with PYTHONPATH=src{os.pathsep}out" in second
    served = _run(tmp_path, "--stdio", pythonpath=f"src{os.pathsep}out")
    assert served.returncode == 0 and "todo 1.0.0: MCP over stdio" in served.stderr, served.stderr


def test_unimportable_impl_names_the_search_path(tmp_path: Path) -> None:
    out = _project(tmp_path)
    first, second = _short_usage_error(_run(out, "--impl", "handlers:TodoService", pythonpath="lib"))
    assert first == "todo: error: cannot import handlers (--impl handlers:TodoService): No module named 'handlers'"
    assert f"searched the working directory {out} and PYTHONPATH ({out / 'lib'})" in second
    # the module is found but imports something that is not there: that module is named
    (out / "handlers.py").write_text("import not_installed_dependency\n")
    first, _ = _short_usage_error(_run(out, "--impl", "handlers:TodoService"))
    assert "handlers imports not_installed_dependency, which cannot be imported" in first


def test_the_scaffold_class_is_the_default_implementation(tmp_path: Path) -> None:
    spec = tmp_path / "specs" / "todo.yaml"
    spec.parent.mkdir(parents=True)
    spec.write_text(SPEC.format(project="false"))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    scaffolded = subprocess.run([sys.executable, "-m", "codegen", "build", "specs", "-o", "out", "--scaffold"], cwd=tmp_path,
                                env=env, capture_output=True, text=True, timeout=120)
    assert scaffolded.returncode == 0, scaffolded.stderr
    assert "wrote    out/todo_impl.py" in scaffolded.stdout and "python -m todo serves it by default" in scaffolded.stdout
    help_text = " ".join(_run(tmp_path / "out", "--help").stdout.split())
    assert "(default todo_impl:TodoService (the build --scaffold class) when importable)" in help_text
    served = _run(tmp_path / "out", "--stdio")
    assert served.returncode == 0 and "todo 1.0.0: MCP over stdio" in served.stderr, served.stderr
    checked = _run(tmp_path / "out", "--check")
    assert "todo_impl:TodoService: 0 of 1 tools implemented" in checked.stderr, checked.stderr


def test_http_without_uvicorn_says_the_exact_install_before_announcing(tmp_path: Path) -> None:
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(NO_UVICORN)
    plain = _project(tmp_path / "plain")
    project = _project(tmp_path / "project", project=True)
    installed = tmp_path / "installed"  # the package as pip installed it: its metadata has the http extra
    (installed / "todo-1.0.0.dist-info").mkdir(parents=True)
    (installed / "todo-1.0.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: todo\nVersion: 1.0.0\nProvides-Extra: http\nProvides-Extra: oauth\n")
    for out, extra, install in ((plain, "", "pip install 'mcp-codegen-runtime[http]'"),
                                (project, "", f"pip install '{project / 'todo'}[http]'"),
                                (project, str(installed), "pip install 'todo[http]'")):
        (out / "todo_impl.py").write_text(IMPL)
        proc = _run(out, "--http", "--port", "1", pythonpath=os.pathsep.join(filter(None, [str(shim), extra])))
        assert proc.returncode == 1 and "Streamable HTTP" not in proc.stderr, proc.stderr
        assert proc.stderr.strip() == f"todo: error: serving HTTP needs uvicorn, which {sys.executable} cannot import: {install}"


def test_missing_optional_packages_are_one_line_before_anything_starts(tmp_path: Path) -> None:
    """``--redis-url`` without redis-py, OAuth JWT verification without PyJWT: one line naming
    the install, no traceback, nothing announced (the neighbour of the missing-uvicorn case)."""
    out = _project(tmp_path)
    (out / "todo_impl.py").write_text(IMPL)
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text("import sys\nsys.modules['redis'] = None\nsys.modules['jwt'] = None\n")
    path = os.pathsep.join([str(shim), str(out)])
    for args, needle in ((["--stdio", "--redis-url", "redis://127.0.0.1:1/0"], "pip install redis"),
                         (["--http", "--port", "1", "--auth-issuer", "https://as.example",
                           "--auth-resource", "http://127.0.0.1:1/mcp"], "pip install 'pyjwt[crypto]'")):
        proc = _run(out, *args, pythonpath=path)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode != 0 and len(lines) == 1 and needle in lines[0], proc.stderr
        assert "Traceback" not in proc.stderr and "MCP over" not in proc.stderr
