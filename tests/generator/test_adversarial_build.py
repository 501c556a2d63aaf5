"""Failed and interrupted builds leave the previous output and hand-written files as they were.

* an error or ``KeyboardInterrupt`` while staging files, or between any two ``os.replace``
  calls of the commit loop (monkeypatched, every position tried);
* SIGINT sent to a real ``mcp-codegen build`` subprocess at random moments (a large spec):
  afterwards the output is exactly the old tree or exactly the new one, never a mix, and no
  temp or backup files remain;
* a spec that fails validation writes nothing.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from adversarial_support import LONG, snapshot, write_spec

from codegen.api import build
from codegen.output import emit

HAND_WRITTEN = {"adv_impl.py": b"# mine\n", "adv/custom.py": b"# also mine\n"}


def _spec(version: str, tools: int = 3) -> dict[str, Any]:
    return {
        "mcp-codegen": 1,
        "server": {"name": "adv", "version": version},
        "tools": [{"name": f"tool_{i}", "description": f"v{version} tool {i}",
                   "inputSchema": {"type": "object", "properties": {f"p{version.replace('.', '')}_{i}": {"type": "string"}}}}
                  for i in range(tools)],
    }


def _prepare(tmp: Path, tools: int = 3) -> tuple[Path, Path, dict[str, bytes | str]]:
    """Build v1 into tmp/out, add hand-written files; return (v2 spec path, out, snapshot)."""
    out = tmp / "out"
    result, report = build([write_spec(tmp / "v1", _spec("1.0", tools))], out)
    assert report is not None, [d.render() for d in result.diagnostics]
    for rel, data in HAND_WRITTEN.items():
        (out / rel).write_bytes(data)
    return write_spec(tmp / "v2", _spec("2.0", tools + 1)), out, snapshot(out)


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.rglob("*") if "mcp-codegen-tmp" in p.name or "mcp-codegen-bak" in p.name)



@pytest.mark.parametrize("exc", [KeyboardInterrupt, OSError])
def test_interrupt_in_the_replace_loop_restores_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: type[BaseException]) -> None:
    v2, out, before = _prepare(tmp_path)
    real_replace = os.replace
    pristine = tmp_path / "pristine"
    shutil.copytree(out, pristine, symlinks=True)
    positions = range(200) if LONG else (0, 1, 2, 5, 10, 20, 30, 35, 36, 37, 38, 40, 60)
    raised = 0
    for stop_at in positions:
        count = [0]

        def failing(src: Any, dst: Any, stop_at: int = stop_at, count: list[int] = count) -> None:
            if ".mcp-codegen-tmp" in str(src):  # only the commit loop (not the build cache)
                if count[0] == stop_at:
                    raise exc("interrupted")
                count[0] += 1
            real_replace(src, dst)

        monkeypatch.setattr(emit.os, "replace", failing)
        try:
            result, report = build([v2], out)
            if report is None:  # an OSError becomes a located error (E043), not a traceback
                assert exc is OSError and "E043" in {d.code for d in result.diagnostics}
                raise exc("reported")
        except exc:
            raised += 1
            assert snapshot(out) == before, f"output changed after an interrupt at replace #{stop_at}"
            assert _leftovers(out) == []
            continue
        finally:
            monkeypatch.setattr(emit.os, "replace", real_replace)
        # the build got past every replace: put the old tree back and stop
        shutil.rmtree(out)
        shutil.copytree(pristine, out, symlinks=True)
        break
    assert raised >= 3
    result, report = build([v2], out)
    assert report is not None
    after = snapshot(out)
    assert all(after[rel] == data for rel, data in HAND_WRITTEN.items())
    assert after != before


def test_error_while_staging_leaves_output_untouched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    v2, out, before = _prepare(tmp_path)
    real = Path.write_bytes
    count = [0]

    def failing(self: Path, data: bytes) -> int:
        count[0] += 1
        if count[0] == 5:
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    result, report = build([v2], out)
    assert report is None and [d.code for d in result.diagnostics if d.is_error] == ["E043"]
    assert "No space left on device" in result.diagnostics[-1].message
    monkeypatch.setattr(Path, "write_bytes", real)
    assert snapshot(out) == before and _leftovers(out) == []


def test_invalid_spec_writes_nothing(tmp_path: Path) -> None:
    _, out, before = _prepare(tmp_path)
    bad = _spec("3.0")
    bad["tools"][0]["inputSchema"]["properties"] = {"x": {"$ref": "https://example.com/x.json"}}
    result, report = build([write_spec(tmp_path / "bad", bad)], out)
    assert report is None and not result.ok
    assert snapshot(out) == before


def test_sigint_during_a_real_build_leaves_old_or_new_tree(tmp_path: Path) -> None:
    tools = 120 if LONG else 40
    v2, out, before = _prepare(tmp_path, tools)
    reference = tmp_path / "reference"
    reference.mkdir()
    for rel, data in HAND_WRITTEN.items():
        (reference / rel).parent.mkdir(parents=True, exist_ok=True)
        (reference / rel).write_bytes(data)  # type: ignore[arg-type]
    assert build([v2], reference)[1] is not None
    new = snapshot(reference)
    # how long a full build takes, to spread the signals over it
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "codegen", "build", str(v2), "-o", str(tmp_path / "timing"), "-q"], check=True,
                   capture_output=True)
    full = time.monotonic() - start
    rng = random.Random(8)
    outcomes = {"old": 0, "new": 0}
    for _ in range(12 if LONG else 4):
        if snapshot(out) != before:  # reset to the old tree
            shutil.rmtree(out)
            assert build([tmp_path / "v1" / "spec.json"], out)[1] is not None
            for rel, data in HAND_WRITTEN.items():
                (out / rel).write_bytes(data)  # type: ignore[arg-type]
            before = snapshot(out)
        proc = subprocess.Popen([sys.executable, "-m", "codegen", "build", str(v2), "-o", str(out), "-q"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 1.0) * full)
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
        now = snapshot(out)
        assert now in (before, new), ("a mix of old and new files after SIGINT", sorted(k for k in set(now) | set(new) if now.get(k) != new.get(k)), sorted(k for k in set(now) | set(before) if now.get(k) != before.get(k)))
        assert _leftovers(out) == []
        outcomes["old" if now == before else "new"] += 1
    print(f"\nSIGINT outcomes over a {full:.1f}s build: {outcomes}")


def test_concurrent_builds_into_one_folder_never_mix(tmp_path: Path) -> None:
    """Two ``mcp-codegen build`` processes into one folder, four rounds: they are serialized,
    neither fails, and the tree is exactly one of the two outputs (never a mix)."""
    one = write_spec(tmp_path / "one", _spec("1.0", 30))
    two = write_spec(tmp_path / "two", _spec("2.0", 31))
    expected = {}
    for name, spec in (("one", one), ("two", two)):
        ref = tmp_path / f"ref-{name}"
        assert build([spec], ref)[1] is not None
        expected[name] = snapshot(ref)
    out = tmp_path / "out"
    env = {**os.environ, "MCP_CODEGEN_NO_CACHE": "1"}
    for _ in range(4):
        procs = [subprocess.Popen([sys.executable, "-m", "codegen", "build", str(spec), "-o", str(out), "-q"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                 for spec in (one, two)]
        for proc in procs:
            _, err = proc.communicate(timeout=300)
            assert proc.returncode == 0 and "Traceback" not in err, err
        assert snapshot(out) in (expected["one"], expected["two"])
        assert _leftovers(out) == []


def test_concurrent_builds_and_checks_with_the_build_cache_never_crash(tmp_path: Path) -> None:
    """The neighbour with the build cache on (a no-op build reads its stamp without the lock):
    builds of two specs, a rebuild of the same one and a ``check`` race into one folder, three
    rounds; none crashes, builds succeed, and the tree is exactly one of the two outputs."""
    one = write_spec(tmp_path / "one", _spec("1.0", 30))
    two = write_spec(tmp_path / "two", _spec("2.0", 31))
    expected = {}
    for name, spec in (("one", one), ("two", two)):
        ref = tmp_path / f"ref-{name}"
        assert build([spec], ref)[1] is not None
        expected[name] = snapshot(ref)
    out = tmp_path / "out"
    env = {**os.environ, "MCP_CODEGEN_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("MCP_CODEGEN_NO_CACHE", None)
    for _ in range(3):
        runs = [["build", str(one), "-q"], ["build", str(two), "-q"], ["build", str(one), "-q"], ["check", str(two)]]
        procs = [subprocess.Popen([sys.executable, "-m", "codegen", *args, "-o", str(out)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                 for args in runs]
        for args, proc in zip(runs, procs, strict=True):
            _, err = proc.communicate(timeout=300)
            assert "Traceback" not in err, err
            assert proc.returncode == 0 or (args[0] == "check" and proc.returncode == 1), (args, err)
        assert snapshot(out) in (expected["one"], expected["two"])
        assert _leftovers(out) == []


def test_check_waits_for_a_build_in_progress(tmp_path: Path) -> None:
    """``check`` compares one tree: while a build holds the folder's lock, it waits."""
    spec = write_spec(tmp_path / "s", _spec("1.0"))
    out = tmp_path / "out"
    assert build([spec], out)[1] is not None
    with emit.output_lock(out):
        proc = subprocess.Popen([sys.executable, "-m", "codegen", "check", str(spec), "-o", str(out)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        assert proc.poll() is None, proc.communicate()  # still waiting for the lock
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err


def test_a_no_op_build_that_sees_a_file_vanish_builds_instead_of_crashing(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The up-to-date check reads the output without the lock; a file replaced or deleted by
    another build meanwhile makes this build run under the lock, never crash."""
    from codegen.output import cache

    spec = write_spec(tmp_path / "s", _spec("1.0"))
    out = tmp_path / "out"
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MCP_CODEGEN_NO_CACHE", raising=False)
    assert build([spec], out)[1] is not None
    real = cache.stamp_matches

    def then_vanish(*args: Any, **kwargs: Any) -> Any:
        stamp = real(*args, **kwargs)
        assert stamp is not None  # up to date when looked at ...
        (out / "adv" / "models.py").unlink()  # ... then another build takes a file away
        return stamp

    monkeypatch.setattr(cache, "stamp_matches", then_vanish)
    result, report = build([spec], out)  # loads the files it returns
    assert report is not None, [d.render() for d in result.diagnostics]
    assert (out / "adv" / "models.py").is_file()
    assert any(f.path == "adv/models.py" for f in result.files)


def test_leftovers_of_a_killed_build_are_cleaned_up(tmp_path: Path) -> None:
    """kill -9 mid-commit leaves staged temp files and backups; the next build removes them
    (a backup whose file vanished is put back first) and writes the tree as generated."""
    v2, out, before = _prepare(tmp_path)
    client = out / "adv" / "client.py"
    (client.parent / ".client.py.4242-deadbeef.mcp-codegen-tmp").write_text("partial", "utf-8")
    (client.parent / ".client.py.mcp-codegen-bak").write_bytes(client.read_bytes())
    models = out / "adv" / "models.py"
    models.rename(models.parent / ".models.py.mcp-codegen-bak")  # killed between restore steps
    assert len(_leftovers(out)) == 3
    result, report = build([v2], out)
    assert report is not None, [d.render() for d in result.diagnostics]
    assert _leftovers(out) == []
    fresh = tmp_path / "fresh"
    build([v2], fresh)
    after = snapshot(out)
    assert {k: v for k, v in after.items() if not k.startswith("adv_impl")} == \
        {k: v for k, v in snapshot(fresh).items()} | {"adv/custom.py": HAND_WRITTEN["adv/custom.py"]}


def test_output_path_that_is_a_file_is_a_diagnostic(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("not a folder", "utf-8")
    spec = write_spec(tmp_path / "s", _spec("1.0"))
    proc = subprocess.run([sys.executable, "-m", "codegen", "build", str(spec), "-o", str(target)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "E042" in proc.stderr and "Traceback" not in proc.stderr
    assert target.read_text("utf-8") == "not a folder"
