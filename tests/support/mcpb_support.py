"""The official MCPB tools for the bundle tests: the ``mcpb`` CLI (npm ``@anthropic-ai/mcpb``,
installed by ``scripts/npm-mcpb``), the host-side configuration its library computes
(``mcpb_host.mjs``: what a desktop host substitutes into ``mcp_config``), a bare interpreter
(a fresh venv without packages) and a small PNG."""

from __future__ import annotations

import functools
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def mcpb_cli() -> str:
    """The ``mcpb`` command (installed and cached by scripts/npm-mcpb)."""
    proc = subprocess.run([str(ROOT / "scripts" / "npm-mcpb")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"scripts/npm-mcpb failed:\n{proc.stderr}"
    return proc.stdout.strip().splitlines()[-1]


def mcpb(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``mcpb ARGS`` (output captured)."""
    return subprocess.run([mcpb_cli(), *map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd)


def host_config(manifest: dict[str, Any], extension_path: Path, user_config: dict[str, Any]) -> dict[str, Any]:
    """``{config, missing}``: the official library's ``getMcpConfigForManifest`` (None when the host
    would not start the server) and ``hasRequiredConfigMissing``."""
    index = Path(mcpb_cli()).parents[1] / "@anthropic-ai" / "mcpb" / "dist" / "index.js"
    payload = json.dumps({"manifest": manifest, "extensionPath": str(extension_path), "userConfig": user_config})
    proc = subprocess.run(["node", str(Path(__file__).with_name("mcpb_host.mjs")), str(index)], input=payload,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def bare_python(folder: Path) -> Path:
    """A fresh venv in ``folder`` without any package (not even pip); its ``bin`` folder."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    return folder / "bin"


def png(width: int = 16, height: int = 16) -> bytes:
    """A valid opaque grey PNG (signature, IHDR, IDAT, IEND)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
