"""Real tool lists rich in map and pattern shapes (issue 28 point 6): two browser-automation
servers from npm, ``@playwright/mcp`` and ``chrome-devtools-mcp`` (installed, pinned, by
``scripts/npm-browsers``; only their tools/list is read, no browser starts), pulled with the
CLI, built, imported with warnings as errors, type-checked with ``mypy --strict``, and checked
against the live server with the generated client's ``check_compat``.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from common_support import run_async as run
from pull_support import REPO, cli, imported

from codegen import build

#: The servers' stdio command lines (telemetry off: no network beyond the registries).
NO_TELEMETRY = ["--env", "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1"]


@pytest.fixture(scope="module")
def browsers() -> dict[str, list[str]]:
    proc = subprocess.run([str(REPO / "scripts" / "npm-browsers")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"scripts/npm-browsers failed:\n{proc.stderr}"
    modules = Path(proc.stdout.strip().splitlines()[-1]) / "node_modules"
    node = shutil.which("node") or "node"
    return {
        "pw_browser": [node, str(modules / "@playwright" / "mcp" / "cli.js"), "--caps", "vision,pdf,devtools"],
        "devtools_browser": [node, str(modules / "chrome-devtools-mcp" / "build" / "src" / "bin" / "chrome-devtools-mcp.js"),
                             "--no-usage-statistics", "--no-performance-crux"],
    }


def _uses(schema: object, keyword: str) -> bool:
    if isinstance(schema, dict):
        return keyword in schema or any(_uses(v, keyword) for v in schema.values())
    return isinstance(schema, list) and any(_uses(v, keyword) for v in schema)


def test_browser_servers_build_import_and_pass_mypy_strict(tmp_path: Path, browsers: dict[str, list[str]]) -> None:
    specs = {}
    for name, argv in browsers.items():
        spec = tmp_path / "specs" / f"{name}.yaml"
        proc = cli("pull", "--stdio", shlex.join(argv), "-o", str(spec), "--name", name, *NO_TELEMETRY, timeout=240)
        assert proc.returncode == 0, proc.stderr
        specs[name] = yaml.safe_load(spec.read_text("utf-8"))
    playwright, devtools = specs["pw_browser"]["tools"], specs["devtools_browser"]["tools"]
    assert len(playwright) >= 40 and {"browser_navigate", "browser_drop", "browser_evaluate"} <= {t["name"] for t in playwright}
    assert len(devtools) >= 25 and {"navigate_page", "take_screenshot"} <= {t["name"] for t in devtools}
    # the shapes this test is about are really in what the servers send
    assert _uses(playwright, "propertyNames") and _uses(playwright, "additionalProperties")
    assert _uses(devtools, "enum") and _uses(devtools, "additionalProperties")

    out = tmp_path / "out"
    result, report = build(sorted((tmp_path / "specs").glob("*.yaml")), out)
    assert report is not None, "\n".join(d.render() for d in result.diagnostics)
    code = f"import importlib\nfor p in {sorted(browsers)!r}:\n    for m in ('models', 'client', 'tools'):\n        importlib.import_module(p + '.' + m)\n"
    proc = subprocess.run([sys.executable, "-W", "error", "-c", code], cwd=out,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", *sorted(browsers)], cwd=out,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    with imported(out, "pw_browser") as mods:

        async def main() -> None:
            argv = browsers["pw_browser"]
            async with mods["client"].PwBrowserClient.stdio(argv[0], argv[1:], stderr="capture") as c:
                report = await c.check_compat()  # the pulled spec is the live server's tools/list
                assert report.compatible and not report.changed and not report.added, report

        run(main())
