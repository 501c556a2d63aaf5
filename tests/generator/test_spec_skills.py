"""Skills declared in a spec (``skills:``, SEP-2640) are read and checked at build time: every
refusal is a located diagnostic (E120-E126), and the runtime's frontmatter reader agrees with YAML."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from mcp_codegen_runtime.wire.skills import FrontmatterError, parse_frontmatter, skill_body, stored_path

from codegen import generate
from codegen.diagnostics import Diagnostic

GOOD = "---\nname: {name}\ndescription: Does one thing well\n---\n\nBody.\n"


def _skill(root: Path, name: str, text: str | None = None, files: dict[str, str] | None = None) -> Path:
    folder = root / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(GOOD.format(name=name) if text is None else text, "utf-8")
    for rel, content in (files or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(content, "utf-8")
    return folder


def _errors(root: Path, *entries: str, extra: str = "") -> list[Diagnostic]:
    lines = "".join(f"  - {e}\n" for e in entries)
    (root / "spec.yaml").write_text("mcp-codegen: 1\nserver: {name: s, version: '1'}\ntools: []\n"
                                    f"skills:\n{lines}{extra}", "utf-8")
    result = generate([root / "spec.yaml"])
    assert not result.ok and not result.files
    return [d for d in result.diagnostics if d.is_error]


def _codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def test_a_skill_folder_outside_the_spec_folder_is_refused(tmp_path: Path) -> None:
    spec_dir = tmp_path / "spec"
    spec_dir.mkdir()
    _skill(tmp_path, "outside")  # tmp_path/skills/outside: beside the spec folder, not in it
    diags = _errors(spec_dir, "../skills/outside")
    assert _codes(diags) == ["E121"]
    assert diags[0].pointer == "/skills/0" and diags[0].line == 5 and diags[0].file.endswith("spec.yaml")
    assert _codes(_errors(spec_dir, str(tmp_path / "skills" / "outside"))) == ["E121"]  # absolute


def test_a_symlink_out_of_the_skill_folder_is_refused(tmp_path: Path) -> None:
    folder = _skill(tmp_path, "linky")
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the package", "utf-8")
    os.symlink(secret, folder / "notes.md")
    diags = _errors(tmp_path, "skills/linky")
    assert _codes(diags) == ["E121"]
    assert diags[0].file == str(folder / "notes.md") and "leads out of the skill folder" in diags[0].message


def test_a_symlinked_folder_is_refused_and_an_inner_file_link_is_served(tmp_path: Path) -> None:
    folder = _skill(tmp_path, "inner", files={"docs/a.md": "A\n"})
    os.symlink(folder / "docs" / "a.md", folder / "b.md")  # inside the folder: fine
    os.symlink(folder / "docs", folder / "more")  # a folder link: refused
    assert _codes(_errors(tmp_path, "skills/inner")) == ["E121"]
    (folder / "more").unlink()
    (tmp_path / "spec.yaml").write_text("mcp-codegen: 1\nserver: {name: s, version: '1'}\ntools: []\n"
                                        "skills: [skills/inner]\n", "utf-8")
    result = generate([tmp_path / "spec.yaml"])
    assert result.ok, [d.render() for d in result.diagnostics]
    served = {f.path: f.content for f in result.files if "/skill-files/" in f.path}
    assert served == {"s/skill-files/inner/SKILL.md": GOOD.format(name="inner"), "s/skill-files/inner/b.md": "A\n",
                      "s/skill-files/inner/docs/a.md": "A\n"}


def test_too_many_files_and_too_many_bytes_are_refused(tmp_path: Path) -> None:
    _skill(tmp_path, "many", files={f"f/{i:03}.txt": "x" for i in range(512)})  # 513 with SKILL.md
    diags = _errors(tmp_path, "skills/many")
    assert _codes(diags) == ["E122"] and "513 files" in diags[0].message
    big = _skill(tmp_path, "big")
    (big / "data.txt").write_bytes(b"y" * (16 * 1024 * 1024))  # plus SKILL.md: over 16 MiB
    diags = _errors(tmp_path, "skills/big")
    assert _codes(diags) == ["E122"] and "16 MiB" in diags[0].message


@pytest.mark.parametrize(("text", "line", "needle"), [
    ("# no frontmatter\n", 0, "does not begin with"),
    ("---\nname: bad\ndescripton: typo\n---\n", 3, "unknown key 'descripton'"),
    ("---\nname: bad\ndescription: [a, list]\n---\n", 3, "not a plain string"),
    ("---\nname: bad\ndescription: yes\n---\n", 3, "not read as a string"),
    ("---\nname: bad\n---\n", 1, "non-empty 'description'"),
    ("---\nname: bad\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: y\n---\n", 5, "reserved prefix"),
    ("---\nname: bad\ndescription: d\nlicense:\n  a: b\n---\n", 4, "'license' must be a string"),
    ("---\nname: bad\ndescription: " + "d" * 1025 + "\n---\n", 3, "longer than 1024"),
    ("---\nname: bad\ndescription: 2001-02-30\n---\n", 3, "not read as a string"),  # a date that does not exist
])
def test_bad_frontmatter_is_refused_at_its_line(tmp_path: Path, text: str, line: int, needle: str) -> None:
    folder = _skill(tmp_path, "bad", text)
    diags = _errors(tmp_path, "skills/bad")
    assert set(_codes(diags)) == {"E123"}, [d.render() for d in diags]
    assert all(d.file == str(folder / "SKILL.md") for d in diags)
    assert any(d.line == line and needle in d.message for d in diags), [d.render() for d in diags]


def test_an_unknown_frontmatter_key_gets_a_did_you_mean(tmp_path: Path) -> None:
    _skill(tmp_path, "bad", "---\nname: bad\ndescription: d\nalowed-tools: x\n---\n")
    (diag,) = _errors(tmp_path, "skills/bad")
    assert diag.hint == "did you mean 'allowed-tools'?"


def test_a_misspelt_skills_key_gets_a_did_you_mean(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text("mcp-codegen: 1\nserver: {name: s, version: '1'}\ntools: []\nskils: [a]\n", "utf-8")
    result = generate([tmp_path / "spec.yaml"])
    assert [(d.code, d.hint) for d in result.diagnostics if d.is_error] == [("E011", "did you mean 'skills'?")]


@pytest.mark.parametrize(("folder", "name", "needle"), [
    ("Upper", "Upper", "naming rules"),
    ("double--hyphen", "double--hyphen", "naming rules"),
    ("-lead", "-lead", "naming rules"),
    ("folder-a", "folder-b", "differs from its folder name"),
])
def test_skill_names_follow_the_naming_rules(tmp_path: Path, folder: str, name: str, needle: str) -> None:
    _skill(tmp_path, folder, GOOD.format(name=name))
    diags = _errors(tmp_path, f"skills/{folder}")
    assert _codes(diags) == ["E124"] and needle in diags[0].message and diags[0].line == 2


def test_a_skill_declared_twice_and_missing_pieces(tmp_path: Path) -> None:
    _skill(tmp_path, "twice")
    diags = _errors(tmp_path, "skills/twice", "skills/./twice", "skills/nowhere")
    assert sorted((d.code, d.pointer) for d in diags) == [("E120", "/skills/2"), ("E124", "/skills/1")]
    (tmp_path / "skills" / "empty").mkdir()
    assert _codes(_errors(tmp_path, "skills/empty")) == ["E120"]


def test_binary_files_and_unusable_names_are_refused(tmp_path: Path) -> None:
    folder = _skill(tmp_path, "files")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert _codes(_errors(tmp_path, "skills/files")) == ["E125"]
    (folder / "image.png").unlink()
    (folder / "my notes.md").write_text("x", "utf-8")
    assert _codes(_errors(tmp_path, "skills/files")) == ["E126"]
    (folder / "my notes.md").unlink()
    (folder / "run.py.skilldata").write_text("x", "utf-8")  # the stored name of run.py
    assert _codes(_errors(tmp_path, "skills/files")) == ["E126"]


def test_hidden_files_are_not_part_of_a_skill_and_python_sources_are_stored_aside(tmp_path: Path) -> None:
    _skill(tmp_path, "tidy", files={".hidden": "h", "__pycache__/x.txt": "c", "scripts/run.py": "x=1\n"})
    (tmp_path / "spec.yaml").write_text("mcp-codegen: 1\nserver: {name: s, version: '1'}\ntools: []\n"
                                        "skills: [skills/tidy]\n", "utf-8")
    result = generate([tmp_path / "spec.yaml"])
    assert result.ok
    assert sorted(f.path for f in result.files if "/skill-files/" in f.path) == [
        "s/skill-files/tidy/SKILL.md", "s/skill-files/tidy/scripts/run.py.skilldata"]
    assert next(f.content for f in result.files if f.path.endswith("run.py.skilldata")) == "x=1\n"  # not formatted
    assert stored_path("a/b.md") == "a/b.md" and stored_path("a/b.pyi") == "a/b.pyi.skilldata"


# -- the runtime's frontmatter reader ---------------------------------------------------------
@pytest.mark.parametrize("block", [
    "name: pdf-processing\ndescription: Extract, fill, and assemble PDF documents",
    "name: a\ndescription: 'it''s quoted: fine'\nlicense: \"MIT \\u00e9\"",
    "name: a\ndescription: text # a comment\n# a comment line\n\nmetadata:\n  author: me\n  version: \"1.0\"",
    "name: a\ndescription: -not a list\ncompatibility: Python 3.11+, Linux",
    "name: a\ndescription: d\nmetadata:",
])
def test_the_runtime_reader_agrees_with_yaml(block: str) -> None:
    text = f"---\n{block}\n---\nbody\n"
    assert parse_frontmatter(text) == yaml.safe_load(block)
    assert skill_body(text) == "body\n"


@pytest.mark.parametrize("block", ["name: 1.5", "name: null", "name: 2024-01-01", "name: [a]", "name: {a: b}",
                                   "name: a: b", "name: |", "  name: a", "name: a\nname: b", "- a", "name: 'open"])
def test_the_runtime_reader_refuses_what_it_cannot_read_as_strings(block: str) -> None:
    with pytest.raises(FrontmatterError):
        parse_frontmatter(f"---\n{block}\n---\n")
