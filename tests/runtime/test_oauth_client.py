"""The OAuth client flow of the HTTP transport against a real loopback authorization server.

The peer (tests/support/oauth_support.py, uvicorn on 127.0.0.1) is a protected MCP server with
its own authorization server: dynamic registration, PKCE S256 checked, ``iss`` sent, refresh
tokens, step-up on 403 ``insufficient_scope``.  What the conformance suite does not cover:
tokens kept in a file (mode 0600) and reused by a second client, refresh before expiry and
after a 401, the step-up retry limit, and that no token, code or secret reaches the logs, the
exceptions or a repr.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest
from common_support import run_async
from http_support import serve_app
from mcp_codegen_runtime.client import ClientBase, FileTokenStorage, OAuthSettings
from mcp_codegen_runtime.client.http.transport import HttpTransport
from mcp_codegen_runtime.wire.errors import McpError
from oauth_support import ProtectedDemo

SLOW = {"seconds": 0}


def _flow(client: ClientBase):  # the transport's OAuthFlow
    transport = client._session.transport
    assert isinstance(transport, HttpTransport) and transport.oauth is not None
    return transport.oauth


def test_login_call_and_tokens_kept_in_a_0600_file(tmp_path: Path) -> None:
    peer = ProtectedDemo()
    path = tmp_path / "state" / "tokens.json"
    with serve_app(peer) as url:

        async def main() -> None:
            async with ClientBase.http(url, auth=OAuthSettings.headless(storage=FileTokenStorage(path)), audit=None) as client:
                assert (await client.call_tool("whoami", {})).text()
                assert _flow(client).authorizations == 1
            # a second client (say, the next run of a script) reuses the stored registration and token
            async with ClientBase.http(url, auth=OAuthSettings.headless(storage=FileTokenStorage(path)), audit=None) as again:
                assert (await again.call_tool("whoami", {})).text()
                assert _flow(again).authorizations == 0

        run_async(main())
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["tokens.json"]  # no temporary file left
    entry = json.loads(path.read_text())[url]
    assert entry["issuer"] == peer.base and entry["client"]["client_id"] in peer.clients
    assert entry["token"]["access_token"] in peer.access
    assert (peer.count("register"), peer.count("authorize")) == (1, 1)
    assert peer.count("authorize", resource=url) == 1  # RFC 8707: the resource of the metadata
    assert peer.count("token", grant_type="authorization_code", resource=url) == 1


def test_a_token_about_to_expire_is_refreshed_before_the_request() -> None:
    peer = ProtectedDemo(access_ttl=5)  # inside the client's 30 s refresh margin: refreshed before each request
    with serve_app(peer) as url:

        async def main() -> None:
            async with ClientBase.http(url, auth=OAuthSettings.headless(), audit=None) as client:
                await client.call_tool("whoami", {})
                refreshed = peer.count("token", grant_type="refresh_token")
                await client.call_tool("whoami", {})
                assert peer.count("token", grant_type="refresh_token") > refreshed
                assert _flow(client).authorizations == 1

        run_async(main())
    assert peer.count("token", grant_type="refresh_token", resource=url) == peer.count("token", grant_type="refresh_token")


def test_a_refused_token_is_refreshed_then_the_request_sent_again() -> None:
    peer = ProtectedDemo()
    with serve_app(peer) as url:

        async def main() -> None:
            async with ClientBase.http(url, auth=OAuthSettings.headless(), audit=None) as client:
                await client.call_tool("whoami", {})
                peer.revoke_access_tokens()  # the server now answers 401 to the token the client holds
                assert (await client.call_tool("whoami", {})).text()
                assert _flow(client).authorizations == 1  # no new authorization: the refresh token sufficed

        run_async(main())
    assert peer.count("token", grant_type="refresh_token") == 1


def test_step_up_asks_for_the_union_of_scopes() -> None:
    peer = ProtectedDemo(tool_scopes={"slow": "admin"})
    with serve_app(peer) as url:

        async def main() -> None:
            async with ClientBase.http(url, auth=OAuthSettings.headless(), audit=None) as client:
                await client.call_tool("whoami", {})
                assert (await client.call_tool("slow", SLOW)).text()

        run_async(main())
    scopes = [d["scope"] for k, d in peer.log if k == "authorize"]
    assert scopes == ["mcp offline_access", "mcp offline_access admin"]


def test_step_up_that_never_succeeds_stops_and_leaks_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    peer = ProtectedDemo(tool_scopes={"slow": "admin"}, never_grant={"admin"})
    settings = OAuthSettings.headless()
    with serve_app(peer) as url:

        async def main() -> tuple[str, str]:
            async with ClientBase.http(url, auth=settings, audit=None) as client:
                with pytest.raises(McpError) as info:
                    await client.call_tool("slow", SLOW)
                assert info.value.data["httpStatus"] == 403
                # the login, then three step-ups in a row (max_authorizations) that never got the scope
                assert _flow(client).authorizations == 1 + settings.max_authorizations
                assert (await client.call_tool("whoami", {})).text()  # the other tools still work
                return str(info.value) + repr(info.value.data), repr(_flow(client)) + repr(settings)

        error_text, reprs = run_async(main())
    assert peer.count("authorize") == 1 + settings.max_authorizations
    assert peer.secrets and peer.issued_codes  # codes, tokens, client secrets were issued ...
    # httpcore's own DEBUG trace prints response headers, so the Location of the headless
    # handler's redirect (with its one-time code, spent at once) shows there; nothing else does
    ours = "\n".join(r.getMessage() for r in caplog.records
                      if r.levelno >= logging.INFO or r.name.startswith("mcp_codegen"))
    for secret in peer.secrets:  # ... and none of them shows anywhere
        assert secret not in error_text and secret not in reprs and secret not in ours
        if secret not in peer.issued_codes:
            assert secret not in caplog.text


def test_resource_metadata_for_another_server_is_refused() -> None:
    peer = ProtectedDemo(prm_resource="https://elsewhere.example/mcp")
    with serve_app(peer) as url:

        async def main() -> None:
            client = ClientBase.http(url, auth=OAuthSettings.headless(), audit=None, era="modern")
            with pytest.raises(McpError, match="authorization failed: .*names resource"):
                await client.connect()
            await client.aclose()

        run_async(main())
    assert peer.count("authorize") == 0


def test_pull_logs_in_to_a_protected_server(tmp_path: Path) -> None:
    from codegen.commands.pull import flow as pull

    settings = pull.oauth_settings(token_file=tmp_path / "tokens.json", open_browser=False)
    assert isinstance(settings.storage, FileTokenStorage) and settings.redirect_uri is None
    peer = ProtectedDemo()
    with serve_app(peer) as url:
        headless = OAuthSettings.headless(storage=settings.storage)  # no browser here: the peer approves at once
        result, diags = pull.pull(pull.http_client(url, auth=headless), tmp_path / "demo.yaml", build=False)
    assert result is not None and not [d for d in diags if d.is_error], diags
    assert "whoami" in (tmp_path / "demo.yaml").read_text()
    assert peer.count("authorize") == 1 and url in json.loads((tmp_path / "tokens.json").read_text())
