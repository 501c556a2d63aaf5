"""``python -m <pkg>`` of a server whose tools call an upstream REST API (the spec's ``upstream``):
the complete base class served with no implementation, ``--upstream URL``, and ``--print-config``
listing the upstream's environment variables without ever replacing what the user set.

The committed example ``generated_examples/petstore`` (specs/petstore.yaml) binds every tool;
calls reaching the upstream are the runtime's tests (tests/runtime of the upstream feature)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from common_support import free_port, stop_pid, wait_port
from mcp_codegen_runtime.server import hostconfig
from mcp_codegen_runtime.server import main as server_main
from mcp_codegen_runtime.server.gencode import UpstreamDef
from support_server import EXAMPLES, server_env

PETSTORE_TOOLS = ["list_pets", "get_pet", "create_pet", "delete_pet"]


def _run(*args: str, package: str = "petstore", env: dict[str, str] | None = None,
         cwd: Path = EXAMPLES) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", package, *args], cwd=cwd, env=env or server_env(), input="",
                          capture_output=True, text=True, timeout=60)


# -- the complete base class ------------------------------------------------------------------
def test_the_complete_base_serves_over_stdio_with_no_implementation() -> None:
    from mcp_codegen_runtime.client import ClientBase

    async def main() -> list[str]:
        async with ClientBase.stdio(sys.executable, ["-m", "petstore", "--stdio"], env=server_env(), cwd="/",
                                    audit=None) as client:
            return [t.name for t in await client.list_tools()]

    assert asyncio.run(asyncio.wait_for(main(), 60)) == PETSTORE_TOOLS


def test_the_complete_base_serves_over_http_with_no_implementation() -> None:
    from mcp_codegen_runtime.client import ClientBase

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "petstore", "--http", "--port", str(port)], cwd=EXAMPLES,
                            env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_port(port, timeout=60, proc=proc)

        async def main() -> list[str]:
            async with ClientBase.http(f"http://127.0.0.1:{port}/mcp", audit=None) as client:
                return [t.name for t in await client.list_tools()]

        assert asyncio.run(asyncio.wait_for(main(), 60)) == PETSTORE_TOOLS
    finally:
        stop_pid(proc)


def test_check_reports_the_complete_base_complete() -> None:
    proc = _run("--check")
    assert proc.returncode == 0, proc.stderr
    assert "petstore.server:PetstoreServerBase: 4 of 4 tools implemented" in proc.stderr


def test_a_base_with_a_handler_left_to_write_still_needs_an_implementation(tmp_path: Path) -> None:
    """The golden case ``upstream`` binds two tools of three: no implementation, no serving;
    a subclass writing only the third is complete (the bound ones are the base's)."""
    from codegen import build

    result, report = build([Path(__file__).parents[1] / "generator" / "golden" / "cases" / "upstream" / "spec.yaml"],
                           tmp_path)
    assert report is not None, [d.render() for d in result.diagnostics]
    env = server_env(PYTHONPATH=str(tmp_path))
    proc = _run("--stdio", package="files_api", env=env, cwd=tmp_path)
    assert proc.returncode == 2 and "no implementation" in proc.stderr, proc.stderr
    (tmp_path / "mine.py").write_text(
        "from files_api import Context, FilesApiServerBase, ToolResult, TextContent\n"
        "from files_api.models import SummarizeInput\n\n\n"
        "class Mine(FilesApiServerBase):\n"
        "    async def summarize(self, args: SummarizeInput, ctx: Context) -> ToolResult:\n"
        "        return ToolResult(content=[TextContent(text='ok')])\n", "utf-8")
    proc = _run("--check", "--impl", "mine:Mine", package="files_api", env=env, cwd=tmp_path)
    assert proc.returncode == 0 and "3 of 3 tools implemented" in proc.stderr, proc.stderr


# -- --upstream ---------------------------------------------------------------------------------
def test_help_names_the_upstream_flag_and_its_variable() -> None:
    text = " ".join(_run("--help").stdout.split())
    assert "--upstream URL" in text and "$PETSTORE_BASE_URL" in text
    assert "https://petstore.example.com/api/v1" in text


@pytest.mark.parametrize("url", ["petstore.example.com/api", "/api/v1", "ftp://petstore.example.com", "https://"])
def test_a_url_that_is_not_absolute_http_is_a_usage_error(url: str) -> None:
    proc = _run("--stdio", "--upstream", url)
    assert proc.returncode == 2 and "--upstream" in proc.stderr and "absolute http(s) URL" in proc.stderr, proc.stderr
    assert proc.stdout == ""


def test_a_server_without_upstream_has_no_upstream_flag() -> None:
    proc = _run("--stdio", "--upstream", "https://api.example.com", package="weather")
    assert proc.returncode == 2 and "unrecognized arguments: --upstream" in proc.stderr


def test_upstream_configures_the_base_before_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    from petstore import PetstoreServerBase

    served: list[Any] = []
    configured: list[str | None] = []
    monkeypatch.setattr(server_main, "run_stdio", served.append)
    monkeypatch.setattr(PetstoreServerBase, "configure_upstream", classmethod(lambda cls, url: configured.append(url)))
    server_main.main(PetstoreServerBase, prog="petstore", argv=["--stdio", "--upstream", "http://127.0.0.1:9/v2"])
    assert configured == ["http://127.0.0.1:9/v2"]
    assert len(served) == 1 and type(served[0]) is PetstoreServerBase


# -- --print-config / --write-config ------------------------------------------------------------
def test_print_config_lists_the_variables_as_placeholders_and_never_their_values() -> None:
    proc = _run("--print-config", "claude-desktop", env=server_env(PETSTORE_API_KEY="s3cret-key-value"))
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(proc.stdout)["mcpServers"]["petstore"]
    assert entry["args"] == ["-m", "petstore", "--stdio"]  # the base itself: no --impl
    assert entry["env"]["PETSTORE_BASE_URL"] == "" and entry["env"]["PETSTORE_API_KEY"] == ""
    assert "s3cret-key-value" not in proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert any("PETSTORE_BASE_URL" in line and "base URL" in line for line in lines), proc.stderr
    assert any("PETSTORE_API_KEY" in line and "'api_key'" in line and "X-API-Key" in line for line in lines), proc.stderr


def test_print_config_passes_upstream_on() -> None:
    proc = _run("--print-config", "vscode", "--upstream", "http://127.0.0.1:8080/api")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["servers"]["petstore"]["args"][-2:] == ["--upstream", "http://127.0.0.1:8080/api"]


def test_write_config_keeps_the_values_the_user_set(tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"petstore": {
        "command": "stale", "args": ["old"],
        "env": {"PETSTORE_API_KEY": "the-users-key", "PYTHONPATH": "/stale", "EXTRA": "kept"}}}}), "utf-8")
    proc = _run("--print-config", "claude-desktop", "--write-config", str(config))
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(config.read_text("utf-8"))["mcpServers"]["petstore"]
    assert entry["env"] == {"PETSTORE_API_KEY": "the-users-key", "PYTHONPATH": str(EXAMPLES), "EXTRA": "kept",
                            "PETSTORE_BASE_URL": ""}
    assert entry["command"] == sys.executable and "the-users-key" not in proc.stderr


def test_merge_config_replaces_only_what_is_no_placeholder(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {"s": {"env": {"A": "user", "B": "", "C": "old"}}}}), "utf-8")
    assert hostconfig.merge_config(config, {"servers": {"s": {"env": {"A": "", "B": "", "C": "new", "D": ""}}}}) == "replaced"
    assert json.loads(config.read_text("utf-8"))["servers"]["s"]["env"] == {"A": "user", "B": "", "C": "new", "D": ""}


class _Info:
    name = "files-api"


def _base(upstream: dict[str, Any]) -> Any:
    return type("Base", (), {"server_info": _Info(), "upstream": UpstreamDef.from_spec(upstream)})


def test_every_kind_of_credential_is_listed_in_the_specs_order() -> None:
    base = _base({
        "baseUrl": "https://files.example.com/v2",
        "security": {
            "key": {"type": "apiKey", "in": "query", "name": "api_key", "env": "FILES_KEY"},
            "token": {"type": "bearer", "env": "FILES_TOKEN"},
            "basic": {"type": "basic", "env": {"username": "FILES_USERNAME", "password": "FILES_PASSWORD"}},
            "oauth": {"type": "oauth2", "tokenUrl": "https://auth.example.com/token",
                      "env": {"clientId": "FILES_CLIENT_ID", "clientSecret": "FILES_CLIENT_SECRET"}},
        }})
    variables = hostconfig.upstream_variables(base)
    assert [name for name, _ in variables] == ["FILES_API_BASE_URL", "FILES_KEY", "FILES_TOKEN", "FILES_USERNAME",
                                               "FILES_PASSWORD", "FILES_CLIENT_ID", "FILES_CLIENT_SECRET"]
    what = dict(variables)
    assert "query 'api_key'" in what["FILES_KEY"] and "Bearer" in what["FILES_TOKEN"]
    assert "user name" in what["FILES_USERNAME"] and "basic" in what["FILES_PASSWORD"]
    assert "client secret" in what["FILES_CLIENT_SECRET"] and "https://auth.example.com/token" in what["FILES_CLIENT_ID"]


def test_the_base_url_variable_is_the_specs_env_else_from_the_server_name() -> None:
    assert UpstreamDef.from_spec({"baseUrl": "https://x.example", "env": "MY_URL"}).env_name("files-api") == "MY_URL"
    assert UpstreamDef.from_spec({"baseUrl": "https://x.example"}).env_name("files-api") == "FILES_API_BASE_URL"
    assert hostconfig.upstream_variables(type("Plain", (), {"server_info": _Info()})) == []


def test_a_variable_two_schemes_share_is_listed_once() -> None:
    base = _base({"baseUrl": "https://x.example", "security": {
        "a": {"type": "bearer", "env": "TOKEN"}, "b": {"type": "apiKey", "in": "header", "name": "X-K", "env": "TOKEN"}}})
    variables = hostconfig.upstream_variables(base)
    assert [name for name, _ in variables] == ["FILES_API_BASE_URL", "TOKEN"] and "Bearer" in dict(variables)["TOKEN"]

