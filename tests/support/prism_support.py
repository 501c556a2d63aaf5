"""Prism (npm ``@stoplight/prism-cli``, a validating mock of an OpenAPI document) as the REST
upstream of the OpenAPI tests, behind a recording front (:mod:`recording_front`).

:func:`prism` starts Prism on Node 24 (``scripts/node24``, installed with ``scripts/npm-prism``)
for one document and the front before it, both on 127.0.0.1 and stopped by their PIDs.  Prism
serves the document's paths at its root, so the base URL a generated server gets
(``--upstream``) is the front's root URL.  :class:`PrismUpstream` reads what reached Prism:
every request with Prism's verdict (``sl-violations``; a request that breaks the document is
answered 400/422 or with the operation's documented error status).
"""

from __future__ import annotations

import base64
import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from common_support import free_port, stop_pid, wait_port

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str) -> str:
    proc = subprocess.run([str(ROOT / "scripts" / name)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"scripts/{name} failed:\n{proc.stderr}"
    return proc.stdout.strip()


@dataclass
class Exchange:
    """One request that reached Prism, and Prism's answer."""

    method: str
    path: str
    query: str
    headers: list[tuple[str, str]]
    body: bytes
    status: int
    violations: list[dict[str, Any]]

    def query_names(self) -> list[str]:
        return [name for name, _ in parse_qsl(self.query, keep_blank_values=True)]

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)


@dataclass
class PrismUpstream:
    """A running Prism behind its recording front; :attr:`url` is the base URL to call."""

    url: str
    log: Path
    prism_log: Path

    def exchanges(self) -> list[Exchange]:
        if not self.log.exists():
            return []
        out = []
        for line in self.log.read_text("utf-8").splitlines():
            r = json.loads(line)
            out.append(Exchange(r["method"], r["path"], r["query"], [tuple(h) for h in r["headers"]],
                                base64.b64decode(r["body"]), r["status"], json.loads(r["violations"] or "[]")))
        return out

    def clear(self) -> None:
        self.log.write_text("", "utf-8")


@contextlib.contextmanager
def prism(document: Path, work: Path, *, dynamic: bool = False) -> Iterator[PrismUpstream]:
    """Serve ``document`` with Prism behind a recording front; yield the upstream."""
    node = Path(_script("node24")) / "node"
    cli = _script("npm-prism")
    prism_port, front_port = free_port(), free_port()
    prism_log = work / f"prism-{prism_port}.log"
    args = [str(node), cli, "mock", "-h", "127.0.0.1", "-p", str(prism_port), str(document)]
    if dynamic:
        args.append("--dynamic")
    with prism_log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    front = None
    try:
        wait_port(prism_port, 60, proc=proc)
        log = work / f"front-{front_port}.jsonl"
        front = subprocess.Popen([sys.executable, str(Path(__file__).with_name("recording_front.py")),
                                  f"http://127.0.0.1:{prism_port}", str(front_port), str(log)])
        wait_port(front_port, 20, proc=front)
        yield PrismUpstream(f"http://127.0.0.1:{front_port}", log, prism_log)
    finally:
        if front is not None:
            stop_pid(front, 5)
        stop_pid(proc, 5)
