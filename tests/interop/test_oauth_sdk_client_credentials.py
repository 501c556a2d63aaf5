"""The official SDK's client credentials extension client against a generated resource server.

``mcp`` 2.3.0 ships the ``oauth-client-credentials`` extension on the client side
(``ClientCredentialsOAuthProvider``; it has no DPoP): it gets a token from the real loopback
authorization server (``tests/support/oauth_as.mjs``) and calls the generated ``vault``
server (``python -m vault --http``, DPoP allowed), which accepts it and shows the handler the
client as the principal.  Both SDK modes (legacy session and 2026-07-28).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from common_support import free_port, run_async
from oauth_as_support import AuthServer, VaultProcess, auth_server, build_vault


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with auth_server() as server:
        yield server


@pytest.fixture(scope="module")
def server(issuer: AuthServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VaultProcess]:
    port = free_port()
    folder: Path = build_vault(tmp_path_factory.mktemp("vault"), issuer.issuer, f"http://127.0.0.1:{port}/mcp")
    proc = VaultProcess(folder, port)
    yield proc
    proc.stop()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_sdk_client_credentials_provider(server: VaultProcess, issuer: AuthServer, mode: str) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    class Memory:
        def __init__(self) -> None:
            self.tokens: OAuthToken | None = None
            self.client: OAuthClientInformationFull | None = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> OAuthClientInformationFull | None:
            return self.client

        async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
            self.client = client_info

    storage = Memory()
    provider = ClientCredentialsOAuthProvider(server.url, storage, "sdk-batch-9", "sdk-secret", scope="vault:read",
                                              issuer=issuer.issuer)
    start = len(issuer.requests())

    async def main() -> None:
        async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
            async with Client(streamable_http_client(server.url, http_client=http), mode=mode,
                              read_timeout_seconds=15) as client:
                res = await client.call_tool("whoami", {})
                assert not res.is_error, res
                assert res.structured_content == {"subject": "sdk-batch-9", "client_id": "sdk-batch-9",
                                                  "scopes": ["vault:read"]}

    run_async(main(), 60)
    tokens = [r for r in issuer.requests()[start:] if r["endpoint"] == "token"]
    assert [(r["grant_type"], r["client_id"]) for r in tokens] == [("client_credentials", "sdk-batch-9")]
    assert storage.tokens is not None and storage.tokens.token_type.lower() == "bearer"
