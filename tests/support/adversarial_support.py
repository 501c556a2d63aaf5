"""Helpers for the adversarial, fuzz and security suites (tests/test_adversarial_*.py,
tests/test_fuzz_*.py, tests/test_security_*.py).

* ``LONG``: True when ``MCP_CODEGEN_FUZZ=long`` asks for the long profile (more examples,
  more rounds, bigger inputs); the default fast profile keeps these suites well under 90 s.
* ``NASTY``: strings that break naive code generators (quotes, backslashes, template syntax,
  control and bidi characters, code fragments).
* :func:`build_spec`: write a spec (dict -> JSON or YAML) into a folder and build it there.
* :func:`run_python`: run a snippet in a fresh interpreter with a PYTHONPATH and cwd.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from codegen.api import Result, build
from codegen.output.emit import WriteReport

#: ``MCP_CODEGEN_FUZZ=long`` selects the long profile.
LONG = os.environ.get("MCP_CODEGEN_FUZZ", "").lower() == "long"


def examples(fast: int, long: int) -> int:
    """Hypothesis ``max_examples`` for the current profile."""
    return long if LONG else fast


NASTY: tuple[str, ...] = (
    '"""', "'''", "\\", "ends with backslash\\", "ends with quote\"", "'", '"',
    "line\nbreak", "cr\rreturn", "crlf\r\nend", "nul\x00byte", "esc\x1b[31mred", "del\x7f",
    "ls\u2028ps\u2029", "rtl\u202eevil", "bom\ufeff", "nel\x85", "ff\x0cvt\x0b", "\ttab", "  padded  ",
    "{{ 7*7 }}", "{% raw %}x{% endraw %}", "{# c #}", "</script><script>alert(1)</script>",
    '"); open("CANARY", "w"); ("', "'''); open('CANARY', 'w') #", '"""; open("CANARY", "w"); """',
    "\\N{BULLET}", "\\u0041\\x41\\0", "${HOME} %s %(x)s", "# comment", "emoji 😀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "lang tag \U000e0001 private \U000f0000", "__import__('os').system('touch CANARY')",
    "", " ",
)


def write_spec(folder: Path, spec: dict[str, Any], fmt: str = "json", name: str = "spec") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(spec), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(spec, allow_unicode=False, sort_keys=False), encoding="utf-8")
    return path


def build_spec(folder: Path, spec: dict[str, Any], fmt: str = "json") -> tuple[Result, WriteReport | None, Path]:
    """Write ``spec`` into ``folder`` and build it into ``folder/out``."""
    path = write_spec(folder, spec, fmt)
    out = folder / "out"
    result, report = build([path], out)
    return result, report, out


def run_python(code: str, pythonpath: Path, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(pythonpath)
    env.pop("MCP_CODEGEN_STATE_KEY", None)
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file under ``root`` (bytes) and symlink (target), keyed by relative path."""
    out: dict[str, bytes | str] = {}
    if not root.exists():
        return out
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            out[rel] = "-> " + os.readlink(p)
        elif p.is_file():
            out[rel] = p.read_bytes()
    return out
