"""Markdown documents as scripts: the fenced blocks of a document, in order, turned into one
bash script that a test runs from an empty folder, the way a reader pastes them.

- a ```sh block is run as written;
- a block right after a ``<!-- file: PATH -->`` line is written to PATH, byte for byte (PATH is
  relative to the folder the document starts in, wherever a ``cd`` in it has gone since);
- a ```python block without such a line is run with ``python``;
- a block right after ``<!-- not run: REASON -->`` is left out, and the reason is kept so a
  test can check that only the blocks it knows of are left out.

Blocks of other languages without a marker (output samples, trees) are not code and are ignored.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```([\w+-]*)\n(.*?)^```[ \t]*$", flags=re.M | re.S)
MARKER = re.compile(r"<!--\s*(file|not run):\s*(.*?)\s*-->\s*\n$")


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, text, the line it starts on and its marker."""

    lang: str
    text: str
    line: int
    file: str | None = None
    not_run: str | None = None

    @property
    def runs(self) -> bool:
        return self.not_run is None and (self.file is not None or self.lang in ("sh", "bash", "python"))


def blocks(markdown: str) -> list[Block]:
    """The fenced blocks of ``markdown`` with the marker line (if any) just above each."""
    out = []
    for m in FENCE.finditer(markdown):
        before = markdown[: m.start()]
        marker = MARKER.search(before[-300:])
        kind, value = (marker.group(1), marker.group(2)) if marker else (None, None)
        out.append(Block(m.group(1), m.group(2), before.count("\n") + 1,
                         file=value if kind == "file" else None, not_run=value if kind == "not run" else None))
    return out


def script(doc_blocks: list[Block], prelude: str = "set -euo pipefail\n") -> str:
    """One bash script running every block that runs, in order, each announced on stdout."""
    parts = [prelude, 'MCP_DOC_ROOT="$PWD"']
    for i, b in enumerate(doc_blocks):
        if not b.runs:
            continue
        parts.append(f"echo '### block {i} (line {b.line})'")
        if b.file is not None:
            parent = str(Path(b.file).parent)
            parts.append(f"mkdir -p \"$MCP_DOC_ROOT/{parent}\"\n"
                         f"cat > \"$MCP_DOC_ROOT/{b.file}\" <<'MCP_DOC_BLOCK_EOF'\n{b.text}MCP_DOC_BLOCK_EOF")
        elif b.lang == "python":
            parts.append(f"python - <<'MCP_DOC_BLOCK_EOF'\n{b.text}MCP_DOC_BLOCK_EOF")
        else:
            parts.append(b.text)
    return "\n".join(parts) + "\n"


def run_document(doc: Path, cwd: Path, repo: Path, *, pid_file: str, extra_path: tuple[str, ...] = (),
                 timeout: float = 1500) -> subprocess.CompletedProcess[str]:
    """Run every block of ``doc`` in ``cwd`` as a new user would: this interpreter's folder (and
    ``extra_path``) first on ``PATH``, no ``PYTHONPATH``/``VIRTUAL_ENV`` of ours, ``MCP_CODEGEN_SRC``
    the checkout.  A server the document started and recorded in ``cwd/pid_file`` is killed by its
    PID afterwards, whether the document stopped it or failed before it could."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).resolve().parent), *extra_path, env.get("PATH", "")])
    env["MCP_CODEGEN_SRC"] = str(repo)
    try:
        return subprocess.run(["bash", "-c", script(blocks(doc.read_text("utf-8")))], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=timeout)
    finally:
        pid = cwd / pid_file
        if pid.exists() and pid.read_text().strip().isdigit():
            try:
                os.kill(int(pid.read_text().strip()), signal.SIGKILL)
            except ProcessLookupError:
                pass  # the document stopped it
