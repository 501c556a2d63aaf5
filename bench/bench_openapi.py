"""OpenAPI in, measured side by side with ``FastMCP.from_openapi`` (issue 41, points 7 and 8).

``python bench/bench_openapi.py [--scale] [--correctness] [--rounds N] [--docs A,B]`` (both parts by
default; FastMCP runs in ``.venv-bench``: ``scripts/bench-env``):

* **scale** (GitHub's REST description, npm ``@octokit/openapi``, about 1,200 operations): wall and
  CPU seconds of ``mcp-codegen openapi`` + a cold ``build`` + ``mypy --strict`` of the package, and of
  ``build --layout agent``, against ``FastMCP.from_openapi``'s start-up on the same document (building
  the server object and listing its tools), in one run.
* **correctness** (the documents of :data:`DOCS`, served by Prism behind a recording front, the
  README's ``tests/support/prism_support.py``): each side lists its tools and calls every one once
  with valid arguments made from its own input schema; per side, tools, calls, tool errors, and the
  requests that break the document (Prism's violations, undeclared query parameters, ``readOnly``
  properties sent), then calls per second of repeated calls of one tool through each, against the
  same Prism.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "support"))
sys.path.insert(0, str(REPO))

from openapi_e2e import convert_and_build, credentials, load_document, our_side, summary  # noqa: E402
from prism_support import prism  # noqa: E402

EXAMPLES = "node_modules/@readme/oas-examples"
#: The documents of the side-by-side run (npm @readme/oas-examples): Swagger 2.0, OpenAPI 3.0 and 3.1.
DOCS = ["2.0/yaml/petstore-expanded.yaml", "3.0/yaml/petstore.yaml", "3.0/yaml/form-data.yaml",
        "3.0/yaml/file-uploads.yaml", "3.0/yaml/security.yaml", "3.0/yaml/response-multiple-mediatypes.yaml",
        "3.0/yaml/parameters-cookies.yaml", "3.0/yaml/discriminators.yaml", "3.1/yaml/train-travel.yaml"]


def _script(name: str) -> str:
    return subprocess.run([str(REPO / "scripts" / name)], capture_output=True, text=True, check=True).stdout.strip()


def _timed(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, output tail) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        errors = [line for line in (proc.stdout + proc.stderr).splitlines() if "error[" in line]
        raise SystemExit(f"{' '.join(args[:4])} failed:\n" + "\n".join(errors[:20]) + f"\n{proc.stderr[-1500:]}")
    return wall, cpu, (proc.stdout + proc.stderr).strip().splitlines()[-1] if (proc.stdout + proc.stderr).strip() else ""


def scale() -> None:
    document = Path(_script("npm-openapi")) / "node_modules/@octokit/openapi/generated/api.github.com.json"
    cli = [sys.executable, "-m", "codegen"]
    print("\nGitHub REST description, wall / CPU seconds (each row printed when measured):")
    print("| step | wall s | CPU s |\n|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = {**os.environ, "MCP_CODEGEN_CACHE_DIR": str(work / "cache")}  # a cold build
        steps = [("openapi (convert)", [*cli, "openapi", str(document), "-o", "specs/github.yaml", "--name", "github"], work),
                 ("build, cold", [*cli, "build", "specs", "-o", "out"], work),
                 ("mypy --strict of the package", [sys.executable, "-m", "mypy", "--strict", "github"], work / "out"),
                 ("build --layout agent, cold", [*cli, "build", "specs", "-o", "agent", "--layout", "agent"], work)]
        total = [0.0, 0.0]
        for i, (name, args, cwd) in enumerate(steps):
            wall, cpu, _ = _timed(args, cwd, env)
            print(f"| {name} | {wall:.1f} | {cpu:.1f} |", flush=True)
            if i < 3:
                total = [total[0] + wall, total[1] + cpu]
        tools = sum(1 for line in (work / "specs/github.yaml").read_text("utf-8").splitlines() if line.startswith("- name:"))
        print(f"| **mcp-codegen: convert + cold build + mypy --strict ({tools} tools)** | **{total[0]:.1f}** | "
              f"{total[1]:.1f} |", flush=True)
        fm = work / "fastmcp.json"
        wall, cpu, _ = _timed([str(REPO / ".venv-bench/bin/python"), str(REPO / "bench/openapi_fastmcp.py"),
                               str(document), "http://127.0.0.1:9", str(work / "none.log"), str(fm), "--list-only"], work)
        started = json.loads(fm.read_text("utf-8"))
    print(f"| FastMCP.from_openapi: start-up to tools/list ({started.get('tools')} tools) | "
          f"{started.get('startup_s', float('nan')):.1f} (process {wall:.1f}) | {cpu:.1f} |", flush=True)


def correctness(docs: list[str], rounds: int) -> None:
    examples = Path(_script("npm-oas-examples")) / EXAMPLES
    print("\nSide by side on Prism (each side: tools, calls, tool errors, requests that break the document):")
    print("| document | side | served | tools | calls | errors | breaking requests | calls/s |\n|---|---|---|---|---|---|---|---|")
    reasons: list[str] = []
    for doc in docs:
        path = examples / doc
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            name = "api_" + Path(doc).stem.replace("-", "_").replace(".", "_")
            out, package, _ = convert_and_build(path, work, name)
            spec = work / "specs" / f"{name}.yaml"
            with prism(path, work) as up:
                ours = our_side(out, package, up.url, up.log, rounds=rounds, env=credentials(spec))
                fm_out = work / "fastmcp.json"
                subprocess.run([str(REPO / ".venv-bench/bin/python"), str(REPO / "bench/openapi_fastmcp.py"), str(path),
                                up.url, str(up.log), str(fm_out), "--rounds", str(rounds)], check=True, timeout=900,
                               capture_output=True)
                theirs = json.loads(fm_out.read_text("utf-8"))
        document = load_document(path)
        for side, run in (("mcp-codegen", ours), ("FastMCP", theirs)):
            s = summary(document, run)
            rate = run.get("throughput", {}).get("per_s")
            print(f"| {doc} | {side} | {'yes' if s['served'] else 'no: ' + str(s['error'])[:60]} | {s['tools']} | "
                  f"{s['calls']} | {s['errors']} | {s['violations']} | {f'{rate:.0f}' if rate else '-'} |")
            reasons += [f"{doc} {side}: {r}" for r in s["reasons"]]
    if reasons:
        print("\nThe breaking requests:")
        for line in reasons:
            print(f"- {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", action="store_true")
    parser.add_argument("--correctness", action="store_true")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--docs", default=",".join(DOCS))
    args = parser.parse_args()
    both = not (args.scale or args.correctness)
    if args.correctness or both:
        correctness(args.docs.split(","), args.rounds)
    if args.scale or both:
        scale()


if __name__ == "__main__":
    main()
