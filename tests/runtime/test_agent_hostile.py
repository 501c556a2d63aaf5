"""A hostile or careless agent configuration (issue 44, attacks 2 and 3): an ``envFile`` (or a
configuration file) that is a device or a FIFO is refused at once, without reading it, and a
secret expanded from ``${VAR}`` never reaches an error text or a log line."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

#: Each probe runs in a child with this much address space and this long: before the fix
#: ``/dev/zero`` grew until memory ran out and a FIFO with no writer blocked forever.
MEMORY = 1024 * 1024 * 1024
SECONDS = 30


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def probe(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a child Python under the memory limit; a hang fails the test."""
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                              timeout=SECONDS, preexec_fn=_limited)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still reading after {SECONDS} s")


ENV_FILE = """
    from pathlib import Path
    from mcp_codegen_runtime.client.agent.config import ServerConfigError, parse_entry
    try:
        parse_entry("s", {{"command": "c", "envFile": {target!r}}}, Path({source!r}), {{}})
    except ServerConfigError as exc:
        print(exc)
    else:
        print("READ")
"""


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dev-null-dir"])
def test_an_env_file_that_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":  # no writer: opening it for reading would block forever
        target = tmp_path / "env.fifo"
        os.mkfifo(target)
    elif kind == "dev-zero":  # endless zeros
        target = tmp_path / "zero.env"
        target.symlink_to("/dev/zero")
    else:
        target = tmp_path / "folder.env"
        target.mkdir()
    out = probe(ENV_FILE.format(target=str(target), source=str(tmp_path / "mcp.json")))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "cannot be read" in out.stdout and str(target) in out.stdout, out.stdout


def test_an_env_file_larger_than_the_bound_is_refused(tmp_path: Path) -> None:
    from mcp_codegen_runtime.client.agent.config import MAX_ENV_FILE_BYTES, ServerConfigError, parse_entry

    big = tmp_path / "big.env"
    big.write_text("A=" + "x" * MAX_ENV_FILE_BYTES + "\n", "utf-8")
    with pytest.raises(ServerConfigError, match=f"larger than {MAX_ENV_FILE_BYTES} bytes"):
        parse_entry("s", {"command": "c", "envFile": str(big)}, tmp_path / "mcp.json", {})


def test_a_configuration_file_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "mcp.json"
    os.mkfifo(fifo)
    out = probe(f"""
        from pathlib import Path
        from mcp_codegen_runtime.client.agent.config import ServerConfigError, read_servers
        try:
            read_servers(Path({str(fifo)!r}))
        except ServerConfigError as exc:
            print(exc)
    """)
    assert "not a regular file" in out.stdout, (out.stdout, out.stderr[-2000:])


def test_a_regular_env_file_is_still_read(tmp_path: Path) -> None:
    from mcp_codegen_runtime.client.agent.config import parse_entry

    (tmp_path / ".env").write_text("A=1\nexport B='two'\n", "utf-8")
    entry = parse_entry("s", {"command": "c", "envFile": ".env"}, tmp_path / "mcp.json", {})
    assert dict(entry.env) == {"A": "1", "B": "two"}
    assert json.dumps(dict(entry.env))  # plain strings
