"""The parts of the no-op fast path: the command-line reader, the plain config reader, the
fingerprint memo (codegen/commands/cli/entry.py, codegen/commands/config.py, codegen/output/fingerprint.py)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from codegen.commands import config
from codegen.commands.cli.entry import parse_build
from codegen.output import cache, fingerprint

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("argv", "expected"), [
    (["build", "specs", "-o", "out"], {"specs": [Path("specs")], "quiet": False, "output": Path("out")}),
    (["build", "-q", "--output=out", "a.yaml", "b.yaml"],
     {"specs": [Path("a.yaml"), Path("b.yaml")], "quiet": True, "output": Path("out")}),
    (["build", "--quiet", "--quiet"], {"specs": [], "quiet": True}),
    (["build", "s", "--target", "client", "--layout=agent", "--skill", "tree", "--library-runtime"],
     {"specs": [Path("s")], "quiet": False, "target": "client", "layout": "agent", "skill": "tree",
      "runtime": "library"}),
    (["build", "s", "--private-runtime"], {"specs": [Path("s")], "quiet": False, "runtime": "private"}),
])
def test_plain_build_command_lines_are_read(argv: list[str], expected: dict[str, object]) -> None:
    assert parse_build(argv) == expected


@pytest.mark.parametrize("argv", [
    [], ["check", "s", "-o", "out"], ["--version"], ["build", "s", "-v"], ["build", "s", "--verbose"],
    ["build", "s", "--watch"], ["build", "s", "--scaffold"], ["build", "s", "--verify-format"], ["build", "--help"],
    ["build", "s", "-oout"], ["build", "s", "-o=out"], ["build", "s", "-qo", "out"], ["build", "s", "-o"],
    ["build", "s", "-o", "out", "-o", "other"], ["build", "s", "--output="], ["build", "s", "-o", "-x"],
    ["build", "--", "s"], ["build", ""], ["build", "-"], ["build", "s", "--target", "neither"],
    ["build", "s", "--target=Server"], ["build", "s", "--layout", "tree"], ["build", "s", "--skill", "agent"],
    ["build", "s", "--library-runtime", "--private-runtime"], ["build", "s", "--shared-runtime"], ["build", "s", "--interval", "1"], ["build", "s", "--out", "x"],
    ["buil", "s"], ["build", "s", "--target", "both", "--target", "both"],
])
def test_anything_else_goes_to_the_full_command_line(argv: list[str]) -> None:
    assert parse_build(argv) is None


@pytest.mark.parametrize(("table", "plain"), [
    ({"specs": ["specs"], "output": "gen"}, True), ({"specs": "one.yaml"}, True), ({"target": "client"}, True),
    ({"runtime": "private"}, True), ({"runtime": "library", "docs": "d"}, True), ({"specs": []}, True),
    # not plainly typed: pydantic decides (coerces or rejects), as before
    ({"runtime": "shared"}, False), ({"runtime": 1}, False), ({"target": "Client"}, False),
    ({"specs": [1]}, False), ({"output": 3}, False), ({"unknown": 1}, False),
    ({"shared-runtime": True}, False), ({"shared_runtime": False}, False), ({"specs": ("a",)}, False), (["specs"], False),
])
def test_the_plain_reader_agrees_with_pydantic(table: object, plain: bool) -> None:
    try:
        checked: config.ConfigFile | None = config._validated_by_pydantic(table)
    except ValueError:
        checked = None
    read = config._plain(table)
    assert (read is not None) == plain
    if plain:
        assert read == checked and read == config._validated(table)
    else:
        if checked is None:
            with pytest.raises(ValueError):
                config._validated(table)
        else:
            assert config._validated(table) == checked


@pytest.fixture
def memo_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the generator as the fingerprinted package, this test's cache and key."""
    gen = tmp_path / "gen"
    shutil.copytree(REPO / "codegen", gen / "codegen", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "templates", gen / "templates")
    monkeypatch.setattr(fingerprint, "_PACKAGE", gen / "codegen")
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(cache.KEY_ENV, str(tmp_path / "key"))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    monkeypatch.setattr(cache, "_key", None)
    return gen


def _memoized(layout: str) -> str:
    return fingerprint.memoized(layout, *cache.fingerprint_memo())


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = fingerprint.compute

    def compute(layout: str) -> str:
        calls.append(1)
        return real(layout)

    monkeypatch.setattr(fingerprint, "compute", compute)
    return calls


def _settled() -> None:
    """Wait out the coarse file-time tick, so an edit after this shows in mtime/ctime."""
    time.sleep(0.05)


def test_the_memo_answers_until_a_source_file_changes(memo_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fingerprint, "SETTLE_NS", 0)
    calls = _counting(monkeypatch)
    first = _memoized("2")
    assert first == fingerprint.compute("2") and len(calls) == 2
    assert _memoized("2") == first and len(calls) == 2  # the memo answered, nothing hashed
    assert _memoized("3") != first  # another entry layout
    _settled()
    version = memo_env / "codegen" / "_version.py"
    text = version.read_text("utf-8")
    version.write_text(text.replace('"', "'"), "utf-8")  # same size
    changed = _memoized("2")
    assert changed != first and changed == fingerprint.compute("2")
    _settled()
    (memo_env / "templates" / "new.jinja").write_text("x", "utf-8")
    assert _memoized("2") not in (first, changed)


def test_a_tool_upgrade_is_seen_through_its_dist_info(memo_env: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A distribution's version read from a folder first on sys.path: upgraded by renaming its
    dist-info (as pip does), then by editing METADATA in place, same size."""
    monkeypatch.setattr(fingerprint, "SETTLE_NS", 0)
    site = tmp_path / "site"
    dist = site / "PyYAML-90.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: PyYAML\nVersion: 90.0\n", "utf-8")
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    first = _memoized("2")
    assert _memoized("2") == first
    _settled()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: PyYAML\nVersion: 91.0\n", "utf-8")
    edited = _memoized("2")
    assert edited != first and edited == fingerprint.compute("2")
    _settled()
    dist.rename(site / "PyYAML-92.0.dist-info")
    (site / "PyYAML-92.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: PyYAML\nVersion: 92.0\n", "utf-8")
    renamed = _memoized("2")
    assert renamed not in (first, edited) and renamed == fingerprint.compute("2")


def test_fresh_files_are_not_trusted_to_the_memo(memo_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    """The copy was just written: within SETTLE_NS of its files' times no memo is stored, so
    an edit in the same timestamp tick can never be answered by a stale entry."""
    calls = _counting(monkeypatch)
    assert _memoized("2") == _memoized("2")
    assert len(calls) == 2
    assert not list((tmp_path / "cache").rglob("*.txt"))
    old = time.time_ns() - 2 * fingerprint.SETTLE_NS
    monkeypatch.setattr(fingerprint.time, "time_ns", lambda: old + 4 * fingerprint.SETTLE_NS)
    _memoized("2")
    assert len(list((tmp_path / "cache").rglob("*.txt"))) == 1  # settled now: stored


def test_a_forged_memo_is_a_miss(memo_env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(fingerprint, "SETTLE_NS", 0)
    value = _memoized("2")
    (entry,) = (tmp_path / "cache").rglob("*.txt")
    head, _, body = entry.read_text("utf-8").partition("\n")
    entry.write_text(f"{head}\n{'0' * 64}", "utf-8")  # the seal no longer matches
    assert _memoized("2") == value
    os.remove(tmp_path / "key")
    monkeypatch.setattr(cache, "_key", None)  # another machine's key: its entries are misses
    assert _memoized("2") == value


def _rglob_definition() -> list[tuple[str, str]]:
    """The hashed files as first defined: every ``rglob`` hit that is a file, outside
    ``__pycache__``, not ``.pyc``, sorted by path within each root."""
    found = []
    for root in fingerprint.roots():
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                found.append((path.relative_to(root).as_posix(), str(path)))
    return found


def test_the_hashed_files_are_every_source_file(memo_env: Path) -> None:
    """The scandir walk finds what rglob finds: links to files kept, links to folders not
    followed, __pycache__ and .pyc left out, nested folders in path order."""
    pkg = memo_env / "codegen"
    (pkg / "__pycache__").mkdir(exist_ok=True)
    (pkg / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (pkg / "stray.pyc").write_bytes(b"\0")
    (pkg / "a-b").mkdir()
    (pkg / "a-b" / "z.py").write_text("", "utf-8")
    (pkg / "a.py").write_text("", "utf-8")
    (pkg / "linked.py").symlink_to(pkg / "options.py")
    (pkg / "linked_dir").symlink_to(pkg / "spec", target_is_directory=True)
    (pkg / "dangling.py").symlink_to(pkg / "nowhere.py")
    files = fingerprint.source_files()
    assert files == _rglob_definition()
    rels = [rel for rel, _ in files]
    assert "linked.py" in rels and "a-b/z.py" in rels and "spec/discovery.py" in rels
    assert not any(r.startswith("linked_dir/") or r.endswith(".pyc") or "__pycache__" in r or r == "dangling.py"
                   for r in rels)
    assert "templates/client.py.jinja" not in rels and any(p.endswith("/templates/client.py.jinja") for _, p in files)
