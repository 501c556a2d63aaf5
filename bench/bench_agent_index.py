"""Progressive disclosure: how much an agent reads up front with the agent layout, against the
full tools/list JSON a host would put into the model's context.

The index is what an agent reads before it picks a tool: ``servers/README.md`` plus the
docstrings of ``servers/__init__.py`` and of every ``servers/<server>/__init__.py`` (one line
per server, one line per tool).  The reference is the full ``tools/list`` result as JSON
(compact, as sent).  Also shown: one ``search_tools(..., detail="full")`` answer (what an agent
reads for the one tool it calls) and llms.txt.

Cases: 100 synthetic tools (``make_specs.py``: one spec of 100 tools, and 10 specs of 10), and
the biggest real server at hand: ``@playwright/mcp`` with every capability (72 tools), and
``chrome-devtools-mcp`` (32 tools), from the npm packages under ``.tools/npm-browsers``.

Usage::

    python bench/bench_agent_index.py [--no-real]
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_specs import write_spec_set

REPO = Path(__file__).resolve().parents[1]
BROWSERS = REPO / ".tools" / "npm-browsers" / "node_modules"
PLAYWRIGHT_CAPS = "vision,pdf,devtools,testing,tracing,network,storage,config"
REAL = {
    "playwright (all caps)": ["node", str(BROWSERS / "@playwright" / "mcp" / "cli.js"), f"--caps={PLAYWRIGHT_CAPS}"],
    "chrome-devtools-mcp": ["node", str(BROWSERS / "chrome-devtools-mcp" / "build" / "src" / "bin" / "chrome-devtools-mcp.js")],
}


def index_bytes(out: Path) -> tuple[int, int, int]:
    """(index bytes, llms.txt bytes, tools) of the tree in ``out``."""
    tree = out / "servers"
    size = len((tree / "README.md").read_bytes())
    inits = [tree / "__init__.py", *sorted(tree.glob("*/__init__.py"))]
    for init in inits:
        size += len((ast.get_docstring(ast.parse(init.read_text("utf-8"))) or "").encode("utf-8"))
    llms = sum(len(p.read_bytes()) for p in tree.glob("*/llms.txt"))
    tools = sum(len(json.loads(p.read_text("utf-8"))["tools"]) for p in tree.glob("*/_index.json"))
    return size, llms, tools


def tools_list_bytes(out: Path) -> int:
    """The full tools/list result of every server of the tree, as compact JSON."""
    total = 0
    for index in sorted((out / "servers").glob("*/_index.json")):
        wire = [t["wire"] for t in json.loads(index.read_text("utf-8"))["tools"]]
        total += len(json.dumps({"tools": wire}, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    return total


def one_full_answer(out: Path) -> int:
    code = "import servers; print(servers.search_tools('', detail='full')[0])"
    proc = subprocess.run([sys.executable, "-c", code], cwd=out, capture_output=True, text=True, timeout=120, check=True)
    return len(proc.stdout.encode("utf-8"))


def _row(name: str, out: Path) -> list[str]:
    size, llms, tools = index_bytes(out)
    full = tools_list_bytes(out)
    answer = one_full_answer(out)
    return [name, str(tools), f"{size:,}", f"{full:,}", f"{full / size:.1f}x", f"{size / tools:.0f}", f"{answer:,}",
            f"{llms:,}"]


def synthetic(tmp: Path, per_spec: int) -> Path:
    specs = write_spec_set(tmp / f"specs-{per_spec}", 100, per_spec)
    out = tmp / f"out-{per_spec}"
    proc = subprocess.run([sys.executable, "-m", "codegen", "build", *map(str, specs), "-o", str(out), "--layout",
                           "agent", "-q"], capture_output=True, text=True, timeout=1800)
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return out


def real(tmp: Path, name: str, command: list[str]) -> Path | None:
    if shutil.which("node") is None or not Path(command[1]).exists():
        print(f"({name}: not installed, skipped)")
        return None
    out = tmp / name.split()[0]
    proc = subprocess.run([sys.executable, "-m", "codegen", "pull", "--stdio", " ".join(command), "--layout", "agent",
                           "-o", str(out), "--timeout", "120"], capture_output=True, text=True, timeout=1800)
    if proc.returncode:
        print(f"({name}: pull failed: {proc.stderr.strip()[-500:]})")
        return None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-real", action="store_true", help="only the synthetic servers")
    args = parser.parse_args()
    head = ["case", "tools", "index bytes", "tools/list bytes", "ratio", "index bytes/tool", "one full answer",
            "llms.txt bytes"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-agent-") as tmp_name:
        tmp = Path(tmp_name)
        rows.append(_row("synthetic, 1 server x 100", synthetic(tmp, 100)))
        rows.append(_row("synthetic, 10 servers x 10", synthetic(tmp, 10)))
        if not args.no_real:
            for name, command in REAL.items():
                out = real(tmp, name, command)
                if out is not None:
                    rows.append(_row(name, out))
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |")


if __name__ == "__main__":
    main()
