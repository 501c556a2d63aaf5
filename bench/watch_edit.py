"""The ``--watch`` loop the user waits on: edit one tool, time the rebuild.

Runs the real :class:`codegen.commands.watch.Watcher` in this process (as ``mcp-codegen build
--watch`` does): one initial build, then for each round one tool of the middle spec file is
edited (JSON specs, else YAML ones; a new description and one more property, as in ``bench_generator.py``) and
``Watcher.poll()`` is timed (after ``Watcher.freeze_heap()``, as ``Watcher.run()`` does): it sees the change and rebuilds the affected spec, output
written.  Prints one JSON line: the initial build's and every edit's wall time, and every
edit's CPU time (this process; a one-spec rebuild runs in it), in seconds.

Usage::

    python bench/watch_edit.py SPEC_DIR OUT_DIR [--rounds 5]

Run with ``MCP_CODEGEN_CACHE_DIR`` pointing at a scratch folder (``bench_generator.py`` does).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import yaml


def edit_tool(specs: Path, k: int) -> None:
    """Change one tool of the middle spec file: a new description and one more property."""
    files = sorted(specs.glob("*.json")) or sorted(specs.glob("*.yaml"))  # JSON specs, else YAML ones
    path = files[len(files) // 2]
    yaml_spec = path.suffix == ".yaml"
    doc = yaml.safe_load(path.read_text("utf-8")) if yaml_spec else json.loads(path.read_text("utf-8"))
    tool = doc["tools"][k % len(doc["tools"])]
    tool["description"] += f" Edited {k}."
    tool["inputSchema"]["properties"][f"edited_{k}"] = {"type": "boolean", "description": "Added by the benchmark."}
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True) if yaml_spec else json.dumps(doc, indent=1) + "\n"
    path.write_text(text, encoding="utf-8")
    later = time.time_ns() + 10_000_000  # a distinct mtime even on coarse clocks
    os.utime(path, ns=(later, later))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from codegen.commands.watch import Watcher

    events: list[object] = []
    watcher = Watcher([args.specs], args.out, events.append)
    started = time.perf_counter()
    watcher.initial_build()
    initial = time.perf_counter() - started
    watcher.freeze_heap()  # what Watcher.run() does after the initial build
    edits, cpu = [], []
    for k in range(args.rounds):
        edit_tool(args.specs, 100 + k)
        started, started_cpu = time.perf_counter(), time.process_time()
        rebuilt = watcher.poll()
        edits.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        if len(rebuilt) != 1 or rebuilt[0].report is None:
            sys.exit(f"round {k}: expected one successful rebuild, got {rebuilt}")
    print(json.dumps({"initial": initial, "edits": edits, "cpu": cpu}))


if __name__ == "__main__":
    main()
