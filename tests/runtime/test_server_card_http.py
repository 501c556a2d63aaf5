"""The server card over HTTP (issue 43, SEP-2127) and the host configuration from the same source.

A real ``python -m weather --http`` process on 127.0.0.1 (generated_examples, stopped by its PID)
serves ``/mcp/server-card``: the package's ``server-card.json`` byte for byte, with the media
type, CORS, caching headers and an ETag that ``If-None-Match`` turns into 304; the card agrees
with what the server answers once connected (``server/discover`` by raw POST, the official ``mcp``
SDK client in both eras).  ``--print-config`` lists the arguments and environment variables of
``server.json``'s package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from common_support import free_port
from common_support import run_async as _run
from ecosystem_schemas import card_validator, errors
from http_support import EXAMPLES, ROOT, ServerProcess, modern_headers, modern_request

from codegen import build

CARD_FILE = EXAMPLES / "weather" / "server-card.json"
MEDIA = "application/mcp-server-card+json"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    proc = ServerProcess.weather()
    yield proc
    proc.stop()


def _card_url(server: ServerProcess) -> str:
    return server.url + "/server-card"


def test_the_card_is_served_as_built(server: ServerProcess) -> None:
    res = httpx.get(_card_url(server), headers={"accept": MEDIA}, timeout=10)
    assert res.status_code == 200
    assert res.headers["content-type"] == MEDIA
    assert res.content == CARD_FILE.read_bytes()
    assert errors(card_validator(), res.json()) == []
    assert res.headers["access-control-allow-origin"] == "*"
    assert "etag" in res.headers["access-control-expose-headers"].lower()
    assert "max-age=" in res.headers["cache-control"]
    assert res.headers["etag"].startswith('"') and res.headers["etag"].endswith('"')


def test_if_none_match_answers_304_and_another_tag_the_card(server: ServerProcess) -> None:
    tag = httpx.get(_card_url(server), timeout=10).headers["etag"]
    for value in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        res = httpx.get(_card_url(server), headers={"if-none-match": value}, timeout=10)
        assert (res.status_code, res.content, res.headers["etag"]) == (304, b"", tag), value
    res = httpx.get(_card_url(server), headers={"if-none-match": '"stale"'}, timeout=10)
    assert res.status_code == 200 and res.content == CARD_FILE.read_bytes()


def test_head_options_and_other_methods(server: ServerProcess) -> None:
    head = httpx.head(_card_url(server), timeout=10)
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == len(CARD_FILE.read_bytes())
    pre = httpx.options(_card_url(server), headers={"origin": "https://app.example.com",
                                                    "access-control-request-method": "GET",
                                                    "access-control-request-headers": "if-none-match"}, timeout=10)
    assert pre.status_code == 204 and pre.headers["access-control-allow-origin"] == "*"
    assert "GET" in pre.headers["access-control-allow-methods"]
    assert "if-none-match" in pre.headers["access-control-allow-headers"].lower()
    post = httpx.post(_card_url(server), json={}, timeout=10)
    assert post.status_code == 405 and "GET" in post.headers["allow"]


def test_a_browser_on_another_origin_reads_it(server: ServerProcess) -> None:
    res = httpx.get(_card_url(server), headers={"origin": "https://app.example.com"}, timeout=10)
    assert res.status_code == 200 and res.headers["access-control-allow-origin"] == "*"


def test_the_card_agrees_with_server_discover(server: ServerProcess) -> None:
    card = json.loads(CARD_FILE.read_text("utf-8"))
    res = httpx.post(server.url, json=modern_request(1, "server/discover"), headers=modern_headers("server/discover"),
                     timeout=10)
    assert res.status_code == 200, res.text
    result = res.json()["result"]
    info = result["_meta"]["io.modelcontextprotocol/serverInfo"]
    assert info["version"] == card["version"]
    assert info["title"] == card["title"]
    assert card["name"].rpartition("/")[2] == info["name"]
    listed = card["remotes"][0]["supportedProtocolVersions"]
    assert set(result["supportedVersions"]) <= set(listed)
    assert [v for v in listed if v >= "2026"] == result["supportedVersions"]


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_the_official_sdk_client_connects_with_a_version_the_card_lists(server: ServerProcess, mode: str) -> None:
    """(The SDK's 2026 connection keeps no serverInfo stamp of this server; the raw discover above
    compares it.)"""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    card = json.loads(CARD_FILE.read_text("utf-8"))

    async def main() -> tuple[str, tuple[str, str] | None]:
        async with Client(streamable_http_client(server.url), mode=mode, read_timeout_seconds=15) as client:
            info = client.server_info
            return client.protocol_version, (info.name, info.version) if info is not None else None

    version, info = _run(main(), 60)
    assert version in card["remotes"][0]["supportedProtocolVersions"]
    if mode == "legacy":
        assert info is not None and info[1] == card["version"] and card["name"].endswith("/" + info[0])


def test_a_server_without_a_card_answers_404() -> None:
    port = free_port()
    proc = ServerProcess(["-m", "notes", "--http", "--port", str(port)], port=port)
    try:
        assert not (EXAMPLES / "notes" / "server-card.json").exists()
        assert httpx.get(proc.url + "/server-card", timeout=10).status_code == 404
    finally:
        proc.stop()


def _print_config(package: str, cwd: Path, path: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(ROOT)])}
    out = subprocess.run([sys.executable, "-m", package, "--print-config", "claude-desktop"], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["mcpServers"]


def _agree(entry: dict, package: str, doc: dict) -> None:
    (pkg,) = doc["packages"]
    arguments = [a["value"] for a in pkg["packageArguments"]]
    assert entry["args"][:2] == ["-m", package]
    assert entry["args"][2:2 + len(arguments)] == arguments  # then only --impl (python -m needs it) may follow
    assert entry["args"][2 + len(arguments):] in ([], ["--impl", f"{package}_impl:{package.title()}Service"])
    names = [v["name"] for v in pkg.get("environmentVariables", [])]
    assert [k for k in entry["env"] if k != "PYTHONPATH"] == names
    assert all(entry["env"][name] == "" for name in names)  # placeholders, never values


def test_print_config_agrees_with_server_json() -> None:
    servers = _print_config("weather", EXAMPLES, [str(EXAMPLES)])
    _agree(servers["weather"], "weather", json.loads((EXAMPLES / "weather" / "server.json").read_text("utf-8")))


def test_print_config_agrees_with_server_json_for_an_upstream(tmp_path: Path) -> None:
    spec = tmp_path / "shop.yaml"
    spec.write_text("""mcp-codegen: 1
server:
  name: shop
  version: 0.1.0
  description: Items of a shop.
  env:
    SHOP_REGION: {description: Region, default: eu}
  registry: {name: io.github.acme/shop}
upstream:
  baseUrl: https://api.example.com/v1
  security:
    tok: {type: bearer, env: SHOP_TOKEN}
  defaultSecurity: [[tok]]
tools:
  - name: list_items
    inputSchema: {type: object}
    http: {method: GET, path: /items}
""", "utf-8")
    result, _ = build([spec], tmp_path / "out")
    assert result.ok, [d.render() for d in result.diagnostics]
    doc = json.loads((tmp_path / "out" / "shop" / "server.json").read_text("utf-8"))
    names = [v["name"] for v in doc["packages"][0]["environmentVariables"]]
    assert names == ["SHOP_REGION", "SHOP_BASE_URL", "SHOP_TOKEN"]  # the spec's, then the upstream's
    servers = _print_config("shop", tmp_path, [str(tmp_path / "out")])
    _agree(servers["shop"], "shop", doc)
