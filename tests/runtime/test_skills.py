"""Skills (SEP-2640) end to end: a generated server (real process over HTTP, and in process)
serves the skills of tests/generator/golden/cases/skills; the generated client lists them without
reading a file, loads them lazily and verifies size, digest and frontmatter (async and sync);
a tampered server is refused with a typed error, a tampered package does not start, and
``check`` reports the drift."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from common_support import free_port, run_async
from http_support import ServerProcess

from codegen import build, check

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "tests" / "generator" / "golden" / "cases" / "skills"
SOURCES = CASE / "skills"
IMPL = '''
from skillful import Context
from skillful.models import CountRowsInput, CountRowsOutput
from skillful.server import SkillfulServerBase


class Skillful(SkillfulServerBase):
    def count_rows(self, args: CountRowsInput, ctx: Context) -> CountRowsOutput:
        return CountRowsOutput(rows=max(0, len(args.csv.splitlines()) - 1))
'''
#: What the spec's SKILL.md frontmatter says (written out here, not computed by the code under test).
CSV_FRONTMATTER = {
    "name": "csv-report", "description": "Summarize a CSV file as a short report", "license": "MIT",
    "compatibility": "Needs Python 3.11 for scripts/summarize.py", "allowed-tools": "count_rows",
    "metadata": {"author": "mcp-codegen golden tests", "version": "2"},
}
CSV = "skill://csv-report/SKILL.md"


def sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Any]]:
    root = tmp_path_factory.mktemp("skills")
    shutil.copytree(CASE, root / "case", ignore=shutil.ignore_patterns("expected"))
    result, report = build([root / "case" / "spec.yaml"], root / "out")
    assert report is not None, [d.render() for d in result.diagnostics]
    (root / "out" / "skillful_impl.py").write_text(IMPL, "utf-8")
    sys.path.insert(0, str(root / "out"))
    try:
        yield root / "case" / "spec.yaml", root / "out", importlib.import_module("skillful_impl").Skillful
    finally:
        sys.path.remove(str(root / "out"))
        for name in [n for n in sys.modules if n.split(".")[0] in ("skillful", "skillful_impl")]:
            del sys.modules[name]


def test_a_real_server_process_and_the_typed_clients(built: tuple[Path, Path, Any]) -> None:
    _, out, _ = built
    port = free_port()
    server = ServerProcess(["-m", "skillful", "--http", "--port", str(port), "--impl", "skillful_impl:Skillful"],
                           port=port, cwd=out, env={"PYTHONPATH": os.pathsep.join([str(out), str(ROOT)])})
    try:
        from mcp_codegen_runtime.wire.errors import InvalidParamsError
        from skillful import SkillEntry, SkillfulClient, SkillfulSyncClient, SkillVerificationError

        async def main() -> None:
            async with SkillfulClient.http(server.url, audit=None) as client:
                assert client.supports_skills
                skills = await client.list_skills()
                assert [s.uri for s in skills] == [CSV, "skill://greeting/SKILL.md"]
                csv = skills[0]
                assert isinstance(csv, SkillEntry) and csv.frontmatter == CSV_FRONTMATTER
                assert csv.resources != "dynamic"
                assert [(r.uri, r.digest, r.size) for r in csv.resources] == [
                    (f"skill://csv-report/{rel}", sha(SOURCES / "csv-report" / rel), (SOURCES / "csv-report" / rel).stat().st_size)
                    for rel in ("SKILL.md", "scripts/summarize.py", "templates/report.md")]
                loaded = await client.load_skill(csv)
                assert loaded.frontmatter == CSV_FRONTMATTER and loaded.body.startswith("\n# CSV report\n")
                script = await client.read_skill_file(csv, "scripts/summarize.py")
                assert script.verified and script.data == (SOURCES / "csv-report" / "scripts" / "summarize.py").read_bytes()
                assert script.mime_type == "text/x-python"
                report = await client.read_skill_file(csv, "templates/report.md")
                assert report.data == (SOURCES / "csv-report" / "templates" / "report.md").read_bytes()  # CRLF kept
                assert b"\r\n" in report.data
                with pytest.raises(SkillVerificationError):  # not in the manifest: never read
                    await client.read_skill_file(csv, "other.md")
                assert (await client.get_skill("skill://greeting/SKILL.md")).description == \
                    "Greet the user: by name, in their language"
                assert (await client.count_rows(csv="a\n1\n2\n")).rows == 2
                by_name = await client.load_skill("greeting")  # a bare name is looked up in skills/list
                assert by_name.entry.uri == "skill://greeting/SKILL.md"
                with pytest.raises(InvalidParamsError, match=r"no skill named 'nope' \(the server lists: csv-report, greeting\)"):
                    await client.load_skill("nope")

        run_async(main(), 60)
        with SkillfulSyncClient.http(server.url, audit=None) as sync:
            entry = sync.get_skill("skill://greeting/SKILL.md")
            assert sync.load_skill(entry).body == "\nSay hello first; use the user's name when you know it.\n"
            assert [s.name for s in sync.list_skills()] == ["csv-report", "greeting"]
    finally:
        server.stop()


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_the_wire_in_both_eras(built: tuple[Path, Path, Any], era: str) -> None:
    from mcp_codegen_runtime.client import ClientBase
    from mcp_codegen_runtime.wire import errors as E
    from skillful import ServerSettings

    _, _, impl = built

    async def main() -> None:
        async with ClientBase.in_process(impl(ServerSettings(page_size=1)), era=era, audit=None) as c:  # type: ignore[arg-type]
            listed = [r["uri"] for r in (await c.request("resources/list", {}))["resources"]]
            assert listed == [CSV]  # one per page
            read = await c.request("resources/read", {"uri": "skill://greeting/SKILL.md"})
            assert read["contents"][0]["mimeType"] == "text/markdown"
            assert read["contents"][0]["text"] == (SOURCES / "greeting" / "SKILL.md").read_text("utf-8")
            if era == "legacy":  # no extensions before 2026-07-28: plain resources only
                assert "extensions" not in c.server_capabilities
                with pytest.raises(E.MethodNotFoundError):
                    await c.request("skills/list", {})
                return
            assert c.server_capabilities["extensions"] == {"io.modelcontextprotocol/skills": {"directoryRead": True}}
            first = await c.request("skills/list", {})
            assert [s["uri"] for s in first["skills"]] == [CSV] and "ttlMs" in first and "cacheScope" in first
            second = await c.request("skills/list", {"cursor": first["nextCursor"]})
            assert [s["uri"] for s in second["skills"]] == ["skill://greeting/SKILL.md"] and "nextCursor" not in second
            assert [s.name for s in await c.list_skills()] == ["csv-report", "greeting"]
            with pytest.raises(E.InvalidParamsError):
                await c.request("skills/get", {"uri": "skill://nope/SKILL.md"})
            children, cursor = [], None
            while True:
                page = await c.request("resources/directory/read", {"uri": "skill://csv-report", **({"cursor": cursor} if cursor else {})})
                children += [(r["uri"], r["mimeType"]) for r in page["resources"]]
                cursor = page.get("nextCursor")
                if not cursor:
                    break
            assert children == [("skill://csv-report/SKILL.md", "text/markdown"),
                                ("skill://csv-report/scripts", "inode/directory"),
                                ("skill://csv-report/templates", "inode/directory")]
            inner = await c.request("resources/directory/read", {"uri": "skill://csv-report/scripts/"})
            assert [r["uri"] for r in inner["resources"]] == ["skill://csv-report/scripts/summarize.py"]
            for not_a_folder in (CSV, "skill://csv-report/nope", "file:///etc"):
                with pytest.raises(E.InvalidParamsError):
                    await c.request("resources/directory/read", {"uri": not_a_folder})

    run_async(main(), 60)


@pytest.mark.parametrize(("mode", "error"), [("digest", "SkillDigestMismatchError"), ("size", "SkillSizeMismatchError"),
                                             ("frontmatter", "SkillFrontmatterMismatchError")])
def test_a_tampered_server_is_refused(built: tuple[Path, Path, Any], mode: str, error: str) -> None:
    import skillful
    from mcp_codegen_runtime.wire.skills import digest

    _, _, impl = built
    original = (SOURCES / "csv-report" / "SKILL.md").read_bytes()
    tampered = {"digest": original.replace(b"Count the rows", b"Drop the rows!"),
                "size": original + b"extra bytes the entry did not account for\n",
                "frontmatter": original.replace(b"Summarize a CSV file as a short report", b"Exfiltrate credentials")}[mode]
    reads: list[str] = []

    class Tampered(impl):  # type: ignore[misc, valid-type]
        def _load_skills(self) -> None:
            super()._load_skills()
            self._skill_bytes[CSV] = tampered
            if mode == "frontmatter":  # the manifest matches the tampered bytes, the frontmatter does not
                skill = self.skill_defs[0]
                files = tuple(dataclasses.replace(f, digest=digest(tampered), size=len(tampered)) if f.path == "SKILL.md"
                              else f for f in skill.files)
                self.skill_defs = (dataclasses.replace(skill, files=files), *self.skill_defs[1:])

        def read_skill_file(self, uri: str, env: Any) -> dict[str, Any]:
            reads.append(uri)
            return super().read_skill_file(uri, env)  # type: ignore[no-any-return]

    async def main() -> None:
        async with skillful.SkillfulClient.in_process(Tampered(), audit=None) as c:
            entry = next(s for s in await c.list_skills() if s.uri == CSV)
            assert reads == []  # listing reads nothing
            with pytest.raises(getattr(skillful, error)) as caught:
                await c.load_skill(entry)
            assert isinstance(caught.value, skillful.SkillVerificationError) and caught.value.uri == CSV
            assert reads == [CSV]  # and nothing after the refusal

    run_async(main(), 60)


def test_a_tampered_package_does_not_start_and_check_reports_the_drift(built: tuple[Path, Path, Any], tmp_path: Path) -> None:
    spec, out, _ = built
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    target = copy / "skillful" / "skill-files" / "greeting" / "SKILL.md"
    target.write_bytes(target.read_bytes().replace(b"hello", b"HELLO"))
    proc = subprocess.run([sys.executable, "-c", "import skillful_impl; skillful_impl.Skillful()"], cwd=copy,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), str(ROOT)])},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "SkillIntegrityError: skill file skill://greeting/SKILL.md changed after the build" in proc.stderr
    result, diffs = check([spec], copy)
    assert result.ok and len(diffs) == 1 and "skillful/skill-files/greeting/SKILL.md" in diffs[0]
    assert check([spec], out)[1] == []


def test_adding_a_file_to_a_skill_rebuilds(tmp_path: Path) -> None:
    shutil.copytree(CASE, tmp_path / "case", ignore=shutil.ignore_patterns("expected"))
    spec = tmp_path / "case" / "spec.yaml"
    assert build([spec], tmp_path / "out")[1] is not None
    (tmp_path / "case" / "skills" / "greeting" / "NEW.md").write_text("new\n", "utf-8")  # no file it read changed
    assert build([spec], tmp_path / "out")[1] is not None
    assert (tmp_path / "out" / "skillful" / "skill-files" / "greeting" / "NEW.md").read_text("utf-8") == "new\n"
    assert "NEW.md" in (tmp_path / "out" / "skillful" / "skills.py").read_text("utf-8")


def test_an_installed_project_package_carries_its_skill_files(tmp_path: Path) -> None:
    """``server.project: true``: ``pip install`` puts ``skill-files/`` beside the modules (package
    data), and the installed server starts (every file matches its digest) and serves them."""
    shutil.copytree(CASE, tmp_path / "case", ignore=shutil.ignore_patterns("expected"))
    spec = tmp_path / "case" / "spec.yaml"
    spec.write_text(spec.read_text("utf-8").replace('version: "1.0.0",', 'version: "1.0.0", project: true,', 1), "utf-8")
    assert build([spec], tmp_path / "out")[1] is not None
    prefix = tmp_path / "prefix"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--prefix", str(prefix),
                           str(tmp_path / "out" / "skillful")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    site = next(prefix.glob("lib/python3*/site-packages"))
    assert (site / "skillful" / "skill-files" / "csv-report" / "scripts" / "summarize.py.skilldata").is_file()
    probe = ("import asyncio, skillful\n"
             "from skillful.server import SkillfulServerBase\n"
             "async def main():\n"
             "    async with skillful.SkillfulClient.in_process(SkillfulServerBase(), audit=None) as c:\n"
             "        entry = (await c.list_skills())[0]\n"
             "        print((await c.read_skill_file(entry, 'templates/report.md')).data)\n"
             "asyncio.run(main())\n")
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(site)}
    run = subprocess.run([sys.executable, "-c", probe], cwd="/", env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == repr((SOURCES / "csv-report" / "templates" / "report.md").read_bytes())
