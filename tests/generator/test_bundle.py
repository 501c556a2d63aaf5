"""``mcp-codegen bundle``: the specs it refuses (E180-E184, located, nothing written) and the
archive's determinism and atomicity.  No pip here: every refusal comes before the dependencies
are installed.  The bundles themselves, checked by the official tools and run by the official
SDK client, are tests/interop/test_bundle_mcpb.py."""

from __future__ import annotations

import contextlib
import os
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codegen.commands.bundle.archive import write_archive
from codegen.commands.bundle.make import bundle_file_name
from codegen.commands.cli.main import app

SPEC = """\
mcp-codegen: 1
server:
  name: tiny
  version: 1.0.0
  description: A tiny server.
{extra}tools:
  - name: echo
    description: Echo the text.
    inputSchema: {{type: object, properties: {{text: {{type: string}}}}, required: [text]}}
"""


def run(*args: str, cwd: Path) -> tuple[int, str, str]:
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def write_spec(folder: Path, extra: str = "", impl: bool = True) -> Path:
    spec = folder / "tiny.yaml"
    spec.write_text(SPEC.format(extra=extra), "utf-8")
    if impl:
        (folder / "tiny_impl.py").write_text("from tiny import TinyServerBase\n\n\nclass TinyService(TinyServerBase):\n"
                                             "    pass\n", "utf-8")
    return spec


def test_client_only_spec_is_e180_at_its_target(tmp_path: Path) -> None:
    write_spec(tmp_path, "  target: client\n")
    code, _, err = run("bundle", "tiny.yaml", "-o", "dist", "--author", "A", cwd=tmp_path)
    assert code == 1
    assert "tiny.yaml:6:11: error[E180]" in err and "(at /server/target)" in err
    assert "bundle failed: nothing was written" in err
    assert not (tmp_path / "dist").exists()


def test_named_implementation_not_beside_the_spec_is_e181(tmp_path: Path) -> None:
    write_spec(tmp_path, "  implementation: elsewhere_impl:Service\n")
    code, _, err = run("bundle", "tiny.yaml", "-o", "dist", "--author", "A", cwd=tmp_path)
    assert code == 1
    assert "tiny.yaml:6:19: error[E181]" in err and "elsewhere_impl" in err and "(at /server/implementation)" in err
    assert not (tmp_path / "dist").exists()


def test_no_implementation_and_an_incomplete_base_is_e181(tmp_path: Path) -> None:
    write_spec(tmp_path, impl=False)
    code, _, err = run("bundle", "tiny.yaml", "-o", "dist", "--author", "A", cwd=tmp_path)
    assert code == 1
    assert "error[E181]: no implementation to bundle" in err and "tiny_impl.py" in err
    assert not (tmp_path / "dist").exists()


def test_impl_dir_is_where_the_module_is_looked_for(tmp_path: Path) -> None:
    (tmp_path / "impls").mkdir()
    write_spec(tmp_path, impl=False)
    (tmp_path / "impls" / "other.py").write_text("", "utf-8")
    code, _, err = run("bundle", "tiny.yaml", "-o", "dist", "--author", "A", "--impl-dir", "impls", cwd=tmp_path)
    assert code == 1 and "is not in impls" in err


def test_no_author_is_e183(tmp_path: Path) -> None:
    write_spec(tmp_path)
    code, _, err = run("bundle", "tiny.yaml", "-o", "dist", cwd=tmp_path)
    assert code == 1
    assert "error[E183]" in err and "--author" in err
    assert not (tmp_path / "dist").exists()


def test_output_that_is_a_file_is_e184(tmp_path: Path) -> None:
    write_spec(tmp_path)
    (tmp_path / "dist").write_text("not a folder", "utf-8")
    code, _, err = run("bundle", "tiny.yaml", "-o", "dist", "--author", "A", cwd=tmp_path)
    assert code == 1 and "error[E184]" in err
    assert (tmp_path / "dist").read_text("utf-8") == "not a folder"


def test_missing_spec_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run("bundle", "nope.yaml", "-o", "dist", cwd=tmp_path)
    assert code == 2 and "nope.yaml: no such spec file" in err


def _stage(root: Path, mtime: int) -> None:
    for name, data in (("server/lib/b.py", b"b = 1\n"), ("manifest.json", b"{}\n"), ("server/main.py", b"import b\n"),
                       ("icon.png", b"\x89PNG\r\n\x1a\n")):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (mtime, mtime))


def test_archive_is_the_same_bytes_whatever_the_files_times(tmp_path: Path) -> None:
    _stage(tmp_path / "one", 1_000_000_000)
    _stage(tmp_path / "two", 1_700_000_000)
    write_archive(tmp_path / "one", tmp_path / "one.mcpb")
    write_archive(tmp_path / "two", tmp_path / "two.mcpb")
    assert (tmp_path / "one.mcpb").read_bytes() == (tmp_path / "two.mcpb").read_bytes()
    with zipfile.ZipFile(tmp_path / "one.mcpb") as archive:
        infos = archive.infolist()
        assert [i.filename for i in infos] == ["icon.png", "manifest.json", "server/lib/b.py", "server/main.py"]
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.external_attr >> 16 for i in infos} == {0o100644}
        assert archive.read("server/main.py") == b"import b\n"


def test_archive_failure_leaves_the_old_bundle_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _stage(tmp_path / "root", 1)
    dest = tmp_path / "out" / "x.mcpb"
    dest.parent.mkdir()
    dest.write_bytes(b"previous")

    def fail(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(zipfile.ZipFile, "writestr", fail)
    with pytest.raises(OSError, match="disk full"):
        write_archive(tmp_path / "root", dest)
    assert dest.read_bytes() == b"previous"
    assert [p.name for p in dest.parent.iterdir()] == ["x.mcpb"]


def test_icon_that_is_not_a_png_is_e183(tmp_path: Path) -> None:
    write_spec(tmp_path)
    (tmp_path / "logo.png").write_bytes(b"GIF89a not a png")
    code, _, err = run("bundle", "tiny.yaml", "-o", "dist", "--author", "A", "--icon", "logo.png", cwd=tmp_path)
    assert code == 1 and "logo.png: error[E183]: --icon is not a PNG file" in err
    assert not (tmp_path / "dist").exists()


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8


@pytest.mark.parametrize(("icons", "expected"), [
    ([{"src": "https://example.com/a.png"}, {"src": "a.png"}], PNG),  # the first local PNG, past a URL
    ([{"src": "data:image/png;base64,iVBORw0KGgoAAAAAAAAAAA=="}], PNG),
    ([{"src": "a.gif"}, {"src": "missing.png"}], None),  # not a PNG, not there
    ([{"src": "data:image/png;base64,not base64!"}], None),
    ([{"src": "../outside.png"}], None),  # a PNG, but outside the spec's folder: not read
])
def test_icon_from_the_spec(tmp_path: Path, icons: list[dict[str, str]], expected: bytes | None) -> None:
    from codegen.commands.bundle.make import _icon

    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "a.png").write_bytes(PNG)
    (tmp_path / "spec" / "a.gif").write_bytes(b"GIF89a")
    (tmp_path / "outside.png").write_bytes(PNG)
    (tmp_path / "root").mkdir()
    got = _icon(icons, tmp_path / "spec", tmp_path / "root")
    if expected is None:
        assert got is None and not list((tmp_path / "root").iterdir())
    else:
        assert got == "icon.png" and (tmp_path / "root" / "icon.png").read_bytes() == expected


def test_interpreter_that_cannot_install_is_e182(tmp_path: Path) -> None:
    write_spec(tmp_path)
    code, _, err = run("bundle", "tiny.yaml", "-o", "dist", "--author", "A", "--python", "false", cwd=tmp_path)
    assert code == 1 and "error[E182]: the bundle's dependencies cannot be vendored: the interpreter false failed" in err
    assert not (tmp_path / "dist").exists()


def test_the_bundle_file_name_is_safe_for_any_server_name_and_version() -> None:
    assert bundle_file_name("weather", "1.2.0") == "weather-1.2.0.mcpb"
    hostile = bundle_file_name("@acme/../mcp-server-git", "1.0/../../evil")
    assert "/" not in hostile and ".." not in hostile and not hostile.startswith(("-", "."))
    assert bundle_file_name("...", "-") == "server.mcpb"


def test_a_folder_of_specs_is_a_usage_error_naming_its_spec_files(tmp_path: Path) -> None:
    write_spec(tmp_path)
    code, _, err = run("bundle", ".", "-o", "dist", cwd=tmp_path)
    assert code == 2 and "a bundle holds one server: name its spec file (tiny.yaml)" in err
    assert not (tmp_path / "dist").exists()
