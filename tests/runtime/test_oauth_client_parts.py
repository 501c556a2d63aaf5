"""Pieces of the OAuth client flow: token storage, challenge parsing, resource and metadata URLs,
the loopback redirect handler (a real listener on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import httpx
import pytest
from common_support import run_async
from mcp_codegen_runtime.client import FileTokenStorage, LoopbackBrowserRedirect, MemoryTokenStorage, OAuthError, TokenStorage
from mcp_codegen_runtime.client.oauth.metadata import (
    canonical_resource,
    check_resource,
    issuer_metadata_urls,
    parse_challenge,
    resource_metadata_urls,
)

ENTRY = {"issuer": "https://as.example", "token": {"access_token": "a", "refresh_token": "r", "expires_at": 1.5}}


@pytest.mark.parametrize("make", [MemoryTokenStorage, lambda: None])
def test_storage_round_trip(make: object, tmp_path: Path) -> None:
    storage = make() or FileTokenStorage(tmp_path / "t.json")  # type: ignore[operator]
    assert isinstance(storage, TokenStorage)
    assert storage.load("https://a/mcp") is None
    storage.save("https://a/mcp", ENTRY)
    storage.save("https://b/mcp", {"issuer": "x"})
    assert storage.load("https://a/mcp") == ENTRY
    loaded = storage.load("https://a/mcp")
    assert loaded is not None
    loaded["issuer"] = "changed"  # a copy: the stored entry does not change
    assert storage.load("https://a/mcp") == ENTRY
    storage.delete("https://a/mcp")
    storage.delete("https://never/mcp")
    assert storage.load("https://a/mcp") is None and storage.load("https://b/mcp") == {"issuer": "x"}


def test_token_file_is_0600_and_replaced_atomically(tmp_path: Path) -> None:
    path = tmp_path / "new" / "tokens.json"
    os.umask(0o022)
    storage = FileTokenStorage(path)
    storage.save("k", ENTRY)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    inode = path.stat().st_ino
    storage.save("k2", ENTRY)
    assert path.stat().st_ino != inode  # a new file renamed over the old one, not rewritten in place
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["tokens.json"]
    assert set(json.loads(path.read_text())) == {"k", "k2"}
    assert FileTokenStorage(path).load("k") == ENTRY  # another instance (another process) reads it


def test_a_corrupt_token_file_reads_as_empty_and_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text("{not json")
    storage = FileTokenStorage(path)
    assert storage.load("k") is None
    storage.save("k", ENTRY)
    assert json.loads(path.read_text()) == {"k": ENTRY}


def test_storage_reprs_show_no_secret(tmp_path: Path) -> None:
    memory = MemoryTokenStorage()
    memory.save("k", ENTRY)
    assert "refresh" not in repr(memory) and '"r"' not in repr(memory)
    assert "tokens.json" in repr(FileTokenStorage(tmp_path / "tokens.json"))


def test_parse_challenge() -> None:
    header = ('Bearer error="insufficient_scope", scope="files:read files:write", '
              'resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"')
    assert parse_challenge(header) == {
        "error": "insufficient_scope",
        "scope": "files:read files:write",
        "resource_metadata": "https://mcp.example/.well-known/oauth-protected-resource/mcp",
    }
    assert parse_challenge('Basic realm="x", Bearer scope=read') == {"scope": "read"}
    assert parse_challenge('Bearer realm="a \\"quoted\\" b"') == {"realm": 'a "quoted" b'}
    assert parse_challenge(None) == {} and parse_challenge('Basic realm="x"') == {}


def test_resource_checks() -> None:
    assert canonical_resource("HTTPS://MCP.Example.com/mcp/#frag") == "https://mcp.example.com/mcp"
    check_resource("https://mcp.example.com/mcp", "https://mcp.example.com/mcp")
    check_resource("https://mcp.example.com", "https://mcp.example.com/mcp")  # a parent path
    check_resource("https://mcp.example.com/", "https://mcp.example.com/mcp")
    for bad in ("https://evil.example.com/mcp", "http://mcp.example.com/mcp", "https://mcp.example.com/mcp2",
                "https://mcp.example.com/other", "https://mcp.example.com:8443/mcp"):
        with pytest.raises(OAuthError):
            check_resource(bad, "https://mcp.example.com/mcp")


def test_metadata_urls_in_discovery_order() -> None:
    assert resource_metadata_urls("https://m.example/api/mcp", {"resource_metadata": "https://m.example/prm.json"}) == [
        "https://m.example/prm.json",
        "https://m.example/.well-known/oauth-protected-resource/api/mcp",
        "https://m.example/.well-known/oauth-protected-resource",
    ]
    assert resource_metadata_urls("https://m.example/", {}) == ["https://m.example/.well-known/oauth-protected-resource"]
    assert issuer_metadata_urls("https://as.example/tenant1") == [
        "https://as.example/.well-known/oauth-authorization-server/tenant1",
        "https://as.example/.well-known/openid-configuration/tenant1",
        "https://as.example/tenant1/.well-known/openid-configuration",
    ]
    assert issuer_metadata_urls("https://as.example") == [
        "https://as.example/.well-known/oauth-authorization-server",
        "https://as.example/.well-known/openid-configuration",
    ]


def test_loopback_redirect_returns_the_callback_the_browser_brings() -> None:
    handler = LoopbackBrowserRedirect(open_browser=False, timeout=30)
    assert handler.redirect_uri.startswith("http://127.0.0.1:") and handler.redirect_uri.endswith("/callback")

    async def browser() -> tuple[int, int]:
        async with httpx.AsyncClient() as http:
            await asyncio.sleep(0)  # let the handler start listening (the socket is bound already)
            stray = await http.get(handler.redirect_uri.replace("/callback", "/favicon.ico"))
            done = await http.get(handler.redirect_uri + "?code=c1&state=s1")
            return stray.status_code, done.status_code

    async def main() -> tuple[str, tuple[int, int]]:
        user = asyncio.create_task(browser())
        callback = await handler("https://as.example/authorize?x=1")
        return callback, await user

    callback, statuses = run_async(main())
    assert callback == handler.redirect_uri + "?code=c1&state=s1"
    assert statuses == (404, 200)


def test_loopback_redirect_gives_up_after_its_timeout() -> None:
    handler = LoopbackBrowserRedirect(open_browser=False, timeout=0.2)
    with pytest.raises(OAuthError, match="no authorization arrived"):
        run_async(handler("https://as.example/authorize"))
