"""Build caches are hints, never authority: poisoned, truncated or foreign entries only cost time.

Every cache layer (black output, spec results, build stamps) is attacked in a real
``mcp-codegen build`` subprocess with its own cache folder and key; the output must then be
byte-identical to a build without any cache.  Also: a spec saved while a build runs makes
the next build regenerate (the stamp records the bytes that were used, not the bytes on
disk afterwards).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from adversarial_support import snapshot, write_spec

from codegen.api import build
from codegen.driver import pipeline
from codegen.output import cache

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"
INJECTED = "import os; os.system('touch /tmp/mcp-codegen-poisoned')  # injected\n"


def _build(out: Path, env: dict[str, str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "codegen", "build", str(SPECS), "-o", str(out), "-q"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes | str]:
    out = tmp_path_factory.mktemp("ref") / "out"
    _build(out, {**os.environ, "MCP_CODEGEN_NO_CACHE": "1"})
    return snapshot(out)


def _entries(cache_dir: Path, kind: str) -> list[Path]:
    return sorted(p for p in (cache_dir / kind).rglob("*") if p.is_file())


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _inject(path: Path) -> None:
    """Edit a sealed entry's body (keeping its seal line): models.py gets a line of code."""
    head, _, body = path.read_text("utf-8").partition("\n")
    if path.parent.parent.name == "results":
        entry = json.loads(body)
        entry["files"] = [[p, INJECTED + c if p.endswith("models.py") else c, v] for p, c, v in entry["files"]]
        body = json.dumps(entry)
    else:
        body = INJECTED + body
    path.write_text(f"{head}\n{body}", "utf-8")


def _foreign_seal(path: Path) -> None:
    """Re-seal the (edited) body with another machine's key: a shared cache copied in."""
    _inject(path)
    _, _, body = path.read_text("utf-8").partition("\n")
    seal = hmac.new(b"another machine's key " * 2, body.encode(), hashlib.sha256).hexdigest()
    path.write_text(f"mcp-codegen-cache 1 {seal}\n{body}", "utf-8")


def _unsealed(path: Path) -> None:
    """A hand-written entry without any seal line."""
    _inject(path)
    path.write_text(path.read_text("utf-8").partition("\n")[2], "utf-8")


@pytest.mark.parametrize("attack", [_truncate, _inject, _foreign_seal, _unsealed], ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("kind", ["format", "results", "stamps"])
def test_poisoned_cache_never_changes_the_output(tmp_path: Path, reference: dict[str, bytes | str],
                                                 kind: str, attack: Callable[[Path], None]) -> None:
    env = {**os.environ, "MCP_CODEGEN_CACHE_DIR": str(tmp_path / "cache"),
           "MCP_CODEGEN_CACHE_KEY_FILE": str(tmp_path / "key")}
    warm = tmp_path / "warm"
    _build(warm, env)  # fills every layer
    assert snapshot(warm) == reference
    entries = _entries(tmp_path / "cache", kind)
    assert entries, f"no {kind} entries were written"
    for entry in entries:
        attack(entry)
    if kind == "stamps":  # the stamp is consulted by a rebuild of the same folder: break that folder
        victim = next(p for p in sorted(warm.rglob("models.py")))
        victim.write_text(INJECTED, "utf-8")
        os.utime(victim, ns=(0, 0))
        _build(warm, env)
        assert snapshot(warm) == reference
    fresh = tmp_path / "fresh"
    _build(fresh, env)
    assert snapshot(fresh) == reference
    assert not any(INJECTED.strip() in str(v) for v in snapshot(fresh).values())


def test_spec_saved_during_a_build_makes_the_next_build_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = write_spec(tmp_path / "spec", {"mcp-codegen": 1, "server": {"name": "racy", "version": "1.0"},
                                          "tools": [{"name": "first", "inputSchema": {"type": "object"}}]})
    later = spec.read_text("utf-8").replace('"first"', '"second"')
    real = pipeline.lower_one

    def saving_during_build(path: Path, display: str, **kw: object) -> pipeline.Lowered:
        low = real(path, display, **kw)  # type: ignore[arg-type]
        spec.write_text(later, "utf-8")  # the user saves while the build is generating
        return low

    monkeypatch.setattr(cache, "_key", None)
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("MCP_CODEGEN_CACHE_KEY_FILE", str(tmp_path / "key"))
    monkeypatch.setattr(pipeline, "lower_one", saving_during_build)
    out = tmp_path / "out"
    result, report = build([spec], out)
    assert report is not None and "first" in (out / "racy" / "client.py").read_text("utf-8")
    monkeypatch.setattr(pipeline, "lower_one", real)
    result, report = build([spec], out)  # must notice the saved spec, not trust the stamp
    assert report is not None and report.updated, report
    assert "async def second" in (out / "racy" / "client.py").read_text("utf-8")


_OPENED: list[str] = []


def _count_opens(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and isinstance(args[0], str) and "/read-once-" in args[0]:
        _OPENED.append(args[0])


def test_each_input_file_is_read_once_per_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold build reads every spec and every $ref target once (discovery, cache keys, the
    loader and the stamp share the bytes); a no-op build reads each once to hash it."""
    import sys

    folder = tmp_path / "read-once-specs"
    folder.mkdir()
    (folder / "shared.yaml").write_text("$defs:\n  Name: {type: string, minLength: 1}\n", "utf-8")
    (folder / "svc.yaml").write_text(
        "mcp-codegen: 1\nserver: {name: once, version: '1.0'}\ntools:\n  - name: greet\n"
        "    inputSchema: {type: object, properties: {who: {$ref: 'shared.yaml#/$defs/Name'}}}\n", "utf-8")
    monkeypatch.setattr(cache, "_key", None)
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("MCP_CODEGEN_CACHE_KEY_FILE", str(tmp_path / "key"))
    monkeypatch.setenv("MCP_CODEGEN_JOBS", "1")
    sys.addaudithook(_count_opens)  # cannot be removed; it only records paths of this test
    _OPENED.clear()
    result, report = build([folder], tmp_path / "out")
    assert report is not None, [d.render() for d in result.diagnostics]
    assert sorted(Path(p).name for p in _OPENED) == ["shared.yaml", "svc.yaml"], _OPENED
    _OPENED.clear()
    result, report = build([folder], tmp_path / "out")
    assert report is not None and not report.created and not report.updated
    assert sorted(Path(p).name for p in _OPENED) == ["shared.yaml", "svc.yaml"], _OPENED
