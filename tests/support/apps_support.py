"""MCP Apps test helpers: the extension's published schema (``tests/schemas/ecosystem/ext-apps``), the
weather example's view (``specs/ui/forecast/``) and the ext-apps npm package as a host (``scripts/npm-ext-apps``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = Path(__file__).resolve().parents[2]
APPS_SCHEMA = json.loads((ROOT / "tests" / "schemas" / "ecosystem" / "ext-apps" / "schema.json").read_text("utf-8"))
VIEW = ROOT / "specs" / "ui" / "forecast"
URI = "ui://weather/forecast"
MIME = "text/html;profile=mcp-app"
EXTENSION = "io.modelcontextprotocol/ui"
HOST_SCRIPT = ROOT / "tests" / "support" / "ext_apps_host.mjs"


def apps_valid(definition: str, instance: Any) -> None:
    """``instance`` against ``#/$defs/<definition>`` of the extension's schema (errors listed)."""
    registry = Registry().with_resource(APPS_SCHEMA["$id"], Resource.from_contents(APPS_SCHEMA))
    validator = Draft202012Validator({"$ref": f"{APPS_SCHEMA['$id']}#/$defs/{definition}"}, registry=registry)
    errors = [e.message for e in validator.iter_errors(instance)]
    assert not errors, f"{definition}: {errors}"


def check_forecast_html(html: str) -> None:
    """The served document is specs/ui/forecast/index.html with forecast.css and forecast.js inlined in place."""
    css = (VIEW / "forecast.css").read_text("utf-8")
    js = (VIEW / "forecast.js").read_text("utf-8")
    assert f"<style>{css}</style>" in html and f"<script>{js}</script>" in html
    restored = html.replace(f"<style>{css}</style>", '<link rel="stylesheet" href="forecast.css">') \
                   .replace(f"<script>{js}</script>", '<script src="forecast.js"></script>')
    assert restored == (VIEW / "index.html").read_text("utf-8")


@cache
def ext_apps_dir() -> str:
    """The installed ``@modelcontextprotocol/ext-apps`` package (``scripts/npm-ext-apps``, cached)."""
    proc = subprocess.run([str(ROOT / "scripts" / "npm-ext-apps")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"scripts/npm-ext-apps failed:\n{proc.stderr}"
    return proc.stdout.strip()


def run_host(mode: str, *target: str, cwd: Path) -> dict[str, Any]:
    """``tests/support/ext_apps_host.mjs`` (the package as the host) against a server; its JSON report."""
    proc = subprocess.run(["node", str(HOST_SCRIPT), ext_apps_dir(), mode, *target], capture_output=True, text=True,
                          timeout=120, cwd=cwd)
    assert proc.returncode == 0, f"ext_apps_host.mjs failed:\n{proc.stderr[-3000:]}"
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


@contextmanager
def weather_over_http(tmp_path: Path) -> Iterator[str]:
    """The generated weather server (``generated_examples``) over Streamable HTTP on a free port; its URL."""
    from common_support import free_port, stop_pid, wait_port
    from support_server import EXAMPLES, server_env

    port = free_port()
    with (tmp_path / "server.log").open("w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "weather", "--http", "--port", str(port)], cwd=EXAMPLES,
                                env=server_env(), stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_port(port, 30, proc)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            stop_pid(proc)
