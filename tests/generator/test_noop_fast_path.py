"""The no-op fast path (codegen/commands/cli/entry.py): an up-to-date ``build`` answered before typer loads.

Every test runs real ``mcp-codegen`` processes with their own cache folder and key.  A probe
records whether the process answered from the fast path (typer never imported) or went on to
the full command line, so each test can fail both ways: the shortcut must be taken when nothing
changed, print exactly what the full build prints, and decline every change (the full build
then rebuilds, as before).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: Runs the console entry point; writes "fast" or "full" to $PROBE_FILE as it exits.
PROBE = ("import os, sys\n"
         "try:\n"
         "    from codegen.commands.cli.entry import main\n"
         "    main()\n"
         "finally:\n"
         "    open(os.environ['PROBE_FILE'], 'w').write('full' if 'typer' in sys.modules else 'fast')\n")


def _spec(name: str = "noop", tools: int = 2, ref: bool = False) -> dict[str, object]:
    props: dict[str, object] = {"text": {"type": "string"}}
    if ref:
        props["price"] = {"$ref": "shared.json#/$defs/Money"}
    return {"mcp-codegen": 1, "server": {"name": name, "version": "1.0"},
            "tools": [{"name": f"tool_{i}", "description": f"tool {i}",
                       "inputSchema": {"type": "object", "properties": props}} for i in range(tools)]}


def _write(folder: Path, spec: dict[str, object], name: str = "spec") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "shared.json").write_text(json.dumps({"$defs": {"Money": {"type": "integer", "minimum": 0}}}), "utf-8")
    path = folder / f"{name}.json"
    path.write_text(json.dumps(spec), "utf-8")
    return path


class Runner:
    """``mcp-codegen`` in a fresh process, in ``cwd``, with this test's cache and key."""

    def __init__(self, tmp: Path, pythonpath: Path = REPO) -> None:
        self.tmp, self.pythonpath = tmp, pythonpath
        self.probe = tmp / "probe.txt"

    def __call__(self, *args: str | Path, fast: bool = True, cwd: Path | None = None,
                 **env: str) -> tuple[subprocess.CompletedProcess[str], str]:
        full_env = {**os.environ, "MCP_CODEGEN_CACHE_DIR": str(self.tmp / "cache"),
                    "MCP_CODEGEN_CACHE_KEY_FILE": str(self.tmp / "cache-key"), "PYTHONPATH": str(self.pythonpath),
                    "PROBE_FILE": str(self.probe)}
        for name in ("MCP_CODEGEN_NO_CACHE", "MCP_CODEGEN_FAST_PATH", "TTY_COMPATIBLE", "FORCE_COLOR", "NO_COLOR"):
            full_env.pop(name, None)
        full_env.update(env)
        if not fast:
            full_env["MCP_CODEGEN_FAST_PATH"] = "0"
        proc = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], cwd=cwd or self.tmp, env=full_env,
                              capture_output=True, text=True, timeout=300)
        return proc, self.probe.read_text("utf-8")


@pytest.fixture
def run(tmp_path: Path) -> Runner:
    return Runner(tmp_path)


def _tree(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("extra", [("-q",), (), ("--target", "both", "--private-runtime"), ("--layout=agent",)])
def test_an_up_to_date_build_is_answered_before_typer_and_prints_the_same(run: Runner, tmp_path: Path,
                                                                           extra: tuple[str, ...]) -> None:
    spec = _write(tmp_path / "specs", _spec())
    args = ("build", spec, "-o", tmp_path / "out", *extra)
    first, how = run(*args)
    assert first.returncode == 0 and how == "full", first.stderr  # nothing to be up to date with yet
    full, how_full = run(*args, fast=False)
    quick, how_quick = run(*args)
    assert (how_full, how_quick) == ("full", "fast")
    assert (quick.returncode, quick.stdout, quick.stderr) == (full.returncode, full.stdout, full.stderr) == (0, full.stdout, "")
    if "-q" not in extra:
        assert full.stdout.endswith(" unchanged\n") and " 0 created, 0 updated, 0 deleted, " in full.stdout


def test_warnings_and_a_terminal_print_the_same_as_the_full_build(run: Runner, tmp_path: Path) -> None:
    """The stamp's diagnostics (here W101: a package name that shadows the standard library),
    relocated and coloured, and the progress-line reset a terminal gets."""
    spec = _write(tmp_path / "specs", _spec(name="json"))
    for extra in ((), ("-q",)):
        args = ("build", spec, "-o", tmp_path / "out", *extra)
        run(*args)
        for env in ({}, {"TTY_COMPATIBLE": "1", "TERM": "xterm-256color"}):
            full, how_full = run(*args, fast=False, cwd=spec.parent, **env)
            quick, how_quick = run(*args, cwd=spec.parent, **env)
            assert (how_full, how_quick) == ("full", "fast")
            assert "W101" in full.stderr
            assert (quick.returncode, quick.stdout, quick.stderr) == (full.returncode, full.stdout, full.stderr)
            assert ("\x1b[" in full.stderr) == bool(env)


def test_pyproject_defaults_are_read_and_their_change_is_seen(run: Runner, tmp_path: Path) -> None:
    _write(tmp_path / "specs", _spec())
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.mcp-codegen]\nspecs = ["specs"]\noutput = "gen"\n', "utf-8")
    assert run("build", "-q")[0].returncode == 0
    assert run("build", "-q")[1] == "fast"
    pyproject.write_text('[tool.mcp-codegen]\nspecs = ["specs"]\noutput = "gen"\nruntime = "private"\n', "utf-8")
    proc, how = run("build", "-q")
    assert proc.returncode == 0 and how == "full"
    assert next((tmp_path / "gen").glob("*/_runtime/gencode.py"), None) is not None  # rebuilt with the new option
    assert run("build", "-q")[1] == "fast"
    pyproject.write_text('[tool.mcp-codegen]\nspecs = ["specs"]\noutput = "gen"\nruntime = "maybe"\n', "utf-8")
    bad, how = run("build", "-q")
    assert (bad.returncode, how) == (2, "full") and "[tool.mcp-codegen] is invalid" in bad.stderr
    pyproject.write_text('[tool.mcp-codegen]\nspecs = ["specs"]\noutput = "gen"\nshared-runtime = true\n', "utf-8")
    gone, how = run("build", "-q")
    assert (gone.returncode, how) == (2, "full") and "shared-runtime is gone" in gone.stderr


def test_every_change_makes_the_full_build_decide(run: Runner, tmp_path: Path) -> None:
    spec = _write(tmp_path / "specs", _spec(ref=True))
    out = tmp_path / "out"
    args = ("build", spec.parent, "-o", out, "-q")
    assert run(*args)[0].returncode == 0
    built = _tree(out)
    assert run(*args)[1] == "fast"

    def declined_then_rebuilt(label: str, *other: str | Path) -> None:
        proc, how = run(*(other or args))
        assert proc.returncode == 0, (label, proc.stderr)
        assert how == "full", label
        assert run(*(other or args))[1] == "fast", label  # and up to date again

    # a spec edited, same size, mtime put back: its hash differs
    st = spec.stat()
    text = spec.read_text("utf-8")
    spec.write_text(text.replace('"tool 0"', '"tool 9"'), "utf-8")
    os.utime(spec, ns=(st.st_atime_ns, st.st_mtime_ns))
    declined_then_rebuilt("spec edited")
    assert _tree(out) != built
    spec.write_text(text, "utf-8")
    declined_then_rebuilt("spec edited back")
    assert _tree(out) == built
    # a $ref-ed file changed
    shared = spec.parent / "shared.json"
    shared.write_text(shared.read_text("utf-8").replace('"minimum": 0', '"minimum": 1'), "utf-8")
    declined_then_rebuilt("$ref file edited")
    # a generated file edited by hand, then one deleted: both rewritten
    models = next(p for p in out.rglob("models.py"))
    before = models.read_bytes()
    models.write_bytes(before + b"# edited\n")
    declined_then_rebuilt("output edited")
    assert models.read_bytes() == before
    models.unlink()
    declined_then_rebuilt("output deleted")
    assert models.read_bytes() == before
    # another output folder, other options, another spec set
    declined_then_rebuilt("-o", "build", spec.parent, "-o", tmp_path / "elsewhere", "-q")
    declined_then_rebuilt("--target", "build", spec.parent, "-o", out, "-q", "--target", "server")
    declined_then_rebuilt("a spec added", "build", spec, _write(tmp_path / "more", _spec("more")), "-o", out, "-q")


def test_command_lines_it_does_not_know_go_to_the_full_cli(run: Runner, tmp_path: Path) -> None:
    spec = _write(tmp_path / "specs", _spec())
    out = tmp_path / "out"
    run("build", spec, "-o", out, "-q")
    for args in (("build", spec, "-o", out, "-v"), ("build", spec, "-o", out, "--help"), ("build", spec, f"-o{out}"),
                 ("build", spec, "-o", out, "--target", "nope"), ("build", spec, "-o", out, "-o", out),
                 ("build", "--", spec, "-o", out), ("check", spec, "-o", out), ("build", spec, "-o", out, "-qv")):
        proc, how = run(*args)
        assert how == "full", args
    bad, how = run("build", spec, "-o", out, "--target", "nope")
    assert bad.returncode == 2 and "nope" in bad.stderr  # typer's own usage error, as before


def test_a_changed_generator_is_seen(tmp_path: Path) -> None:
    """A copy of the generator: built, up to date (the fingerprint memo written once its files
    are older than the settle time), then its version file and a template edited in place."""
    gen = tmp_path / "gen"
    shutil.copytree(REPO / "codegen", gen / "codegen", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "templates", gen / "templates")
    time.sleep(2.2)  # codegen.output.fingerprint.SETTLE_NS: files this fresh are not trusted to the memo
    run = Runner(tmp_path, pythonpath=gen)
    spec = _write(tmp_path / "specs", _spec())
    args = ("build", spec, "-o", tmp_path / "out", "-q")
    assert run(*args)[0].returncode == 0
    assert run(*args)[1] == "fast"
    assert list((tmp_path / "cache" / "fingerprint").rglob("*.txt"))  # the memo answered
    version = gen / "codegen" / "_version.py"
    version.write_text(version.read_text("utf-8") + "# a new release\n", "utf-8")
    proc, how = run(*args)
    assert proc.returncode == 0 and how == "full"
    assert run(*args)[1] == "fast"
    template = next((gen / "templates").glob("*.jinja"))
    data = template.read_bytes()
    template.write_bytes(data + b"{# edited #}")
    assert run(*args)[1] == "full"
