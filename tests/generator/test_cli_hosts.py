"""``mcp-codegen validate --host``: the host-limits warnings (W111) per profile, ``--strict``,
an unknown profile; ``build`` does not print them."""

from __future__ import annotations

import contextlib
from pathlib import Path

from typer.testing import CliRunner

from codegen.commands.cli.main import app

SPEC = """\
mcp-codegen: 1
server: {name: hosts, version: "1"}
tools:
  - name: notes.create
    description: Creates a note.
    inputSchema:
      type: object
      properties:
        title: {type: string}
        due: {type: [string, "null"]}
      additionalProperties: false
"""


def _run(cwd: Path, *args: str) -> tuple[int, str]:
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stderr


def _w111(stderr: str) -> list[str]:
    return [line.split(": warning[W111]: ")[1] for line in stderr.splitlines() if "warning[W111]" in line]


def test_validate_host_profiles(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "hosts.yaml").write_text(SPEC, "utf-8")
    code, err = _run(tmp_path, "validate", "specs/hosts.yaml")  # the default: common
    assert code == 0
    assert "specs/hosts.yaml:4:11: warning[W111]: host may refuse tool 'notes.create': name has '.', outside " \
           "A-Z a-z 0-9 _ - (claude, openai: rule name-charset) (at /tools/0/name)" in err
    assert "    hint: use _ or - instead; source: https://docs.anthropic.com/" in err
    assert len(_w111(err)) == 1 and "0 error(s), 1 warning(s) in 1 spec(s)" in err

    code, err = _run(tmp_path, "validate", "specs/hosts.yaml", "--host", "gemini")
    assert code == 0
    assert _w111(err) == [
        "host may refuse tool 'notes.create': `type: ['string', 'null']` (a list of types) (gemini: rule type-list) "
        "(at /tools/0/inputSchema/properties/due/type)",
        "host may refuse tool 'notes.create': `additionalProperties`, a keyword Gemini's Schema does not have "
        "(gemini: rule gemini-keyword) (at /tools/0/inputSchema/additionalProperties)",
    ]

    code, err = _run(tmp_path, "validate", "specs/hosts.yaml", "--host", "openai,cursor")
    assert code == 0 and [w.rsplit("rule ", 1)[1] for w in _w111(err)] == ["name-charset) (at /tools/0/name)"]
    assert "(openai: rule name-charset)" in err

    code, err = _run(tmp_path, "validate", "specs/hosts.yaml", "--host", "none")
    assert code == 0 and _w111(err) == []

    code, err = _run(tmp_path, "validate", "specs/hosts.yaml", "--strict")
    assert code == 1 and len(_w111(err)) == 1
    code, err = _run(tmp_path, "validate", "specs/hosts.yaml", "--strict", "--host", "none")
    assert code == 0, err

    code, err = _run(tmp_path, "validate", "specs/hosts.yaml", "--host", "chatgpt")
    assert code == 2 and "error: --host: unknown host profile 'chatgpt'; choose common, all, none" in err and "Traceback" not in err


def test_build_does_not_print_host_warnings(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "hosts.yaml").write_text(SPEC, "utf-8")
    code, err = _run(tmp_path, "build", "specs/hosts.yaml", "-o", "out", "-q")
    assert code == 0 and "W111" not in err, err
    assert (tmp_path / "out" / "hosts" / "server.py").is_file()
