"""The OAuth client's grants without a user and DPoP, end to end with real parts.

* the authorization server: ``oauth2-mock-server`` (npm) through ``tests/support/oauth_as.mjs``
  on 127.0.0.1 (client credentials and JWT bearer grants; a token request with a DPoP proof
  gets a token bound to its key, checked there: signature, ``htm``, ``htu``, ``iat``);
* the server: the ``vault`` test spec generated and run as ``python -m vault --http``
  (JWKS from the issuer, DPoP accepted: the default ``--auth-dpop allow``);
* the client: the generated ``VaultClient`` (its public constructor, ``auth=OAuthSettings``
  of the package's own runtime) in this process.

Client credentials with ``client_secret_basic`` and with ``private_key_jwt``; the JWT bearer
grant with an assertion read from a file (workload identity); DPoP detected from both servers'
metadata: the token request carries a proof, the token is bound (``cnf.jkt``), every MCP
request carries a fresh proof with ``ath``, and the server accepts it.  No token reaches the
server's log.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from common_support import free_port, run_async
from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey
from oauth_as_support import AuthServer, VaultProcess, auth_server, build_vault, claims_of

PACKAGE = "vault"
_HELD: set[str] = set()


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with auth_server() as server:
        yield server


@pytest.fixture(scope="module")
def vault(issuer: AuthServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    port = free_port()
    out = build_vault(tmp_path_factory.mktemp("vault"), issuer.issuer, f"http://127.0.0.1:{port}/mcp")
    sys.path.insert(0, str(out))
    try:
        yield out, port
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n.split(".")[0] in (PACKAGE, "vault_impl")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def server(vault: tuple[Path, int]) -> Iterator[VaultProcess]:
    folder, port = vault
    proc = VaultProcess(folder, port)
    yield proc
    log = proc.stop()
    assert _HELD, "no token was seen"
    for token in _HELD:
        assert token not in log and token.split(".")[-1] not in log, "a token reached the server log"


def _client() -> Any:
    return importlib.import_module(f"{PACKAGE}.client").VaultClient


def _runtime() -> Any:
    return importlib.import_module("mcp_codegen_runtime.client")


def _token(client: Any) -> dict[str, Any]:
    flow = client._session.transport.oauth
    token = dict(flow.entry["token"])
    _HELD.add(token["access_token"])
    return token


def _since(issuer: AuthServer, start: int) -> list[dict[str, Any]]:
    return [r for r in issuer.requests()[start:] if r["endpoint"] == "token"]


def test_client_credentials_with_client_secret_basic(server: VaultProcess, issuer: AuthServer) -> None:
    rt = _runtime()
    settings = rt.OAuthSettings(client_id="batch-job-42", client_secret="s3cret-basic", grant=rt.ClientCredentials())
    start = len(issuer.requests())

    async def main() -> None:
        async with _client().http(server.url, auth=settings, audit=None) as client:
            me = await client.whoami()
            assert (me.subject, me.client_id, me.scopes) == ("batch-job-42", "batch-job-42", ["vault:read"])
            token = _token(client)
            assert token["token_type"] == "Bearer"
            assert claims_of(token["access_token"])["aud"] == server.url

    run_async(main())
    requests = _since(issuer, start)
    assert [(r["grant_type"], r["client_id"], r["scope"], r["resource"], r["dpop"]) for r in requests] == [
        ("client_credentials", "batch-job-42", "vault:read", server.url, False)]


def test_client_credentials_with_private_key_jwt(server: VaultProcess, issuer: AuthServer) -> None:
    rt = _runtime()
    key = RSAKey.generate_key(2048)
    pem = key.as_pem(private=True).decode()
    settings = rt.OAuthSettings(client_id="signed-job-7", private_key=pem, private_key_id="k1",
                                grant=rt.ClientCredentials())
    start = len(issuer.requests())

    async def main() -> None:
        async with _client().http(server.url, auth=settings, audit=None) as client:
            assert (await client.whoami()).scopes == ["vault:read"]
            _token(client)

    run_async(main())
    requests = _since(issuer, start)
    assert [(r["grant_type"], r["client_assertion_type"]) for r in requests] == [
        ("client_credentials", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")]


def test_jwt_bearer_with_an_assertion_from_a_file(server: VaultProcess, issuer: AuthServer, tmp_path: Path) -> None:
    rt = _runtime()
    workload = ECKey.generate_key("P-256")
    now = int(time.time())
    assertion = jwt.encode({"alg": "ES256"}, {"iss": "https://idp.workloads.test", "sub": "ci-runner-3",
                                              "aud": issuer.issuer, "iat": now, "exp": now + 300}, workload)
    path = tmp_path / "token"
    path.write_text(assertion + "\n", "utf-8")
    settings = rt.OAuthSettings(client_id="ci-runner", grant=rt.JwtBearer(assertion=rt.assertion_from_file(path)))
    assert assertion not in repr(settings)
    start = len(issuer.requests())

    async def main() -> None:
        async with _client().http(server.url, auth=settings, audit=None) as client:
            assert (await client.whoami()).scopes == ["vault:read"]
            _token(client)

    run_async(main())
    requests = _since(issuer, start)
    assert [r["grant_type"] for r in requests] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]


def test_dpop_bound_tokens_end_to_end(server: VaultProcess, issuer: AuthServer) -> None:
    rt = _runtime()
    issuer.advertise_dpop(True)
    try:
        settings = rt.OAuthSettings(client_id="dpop-job-1", client_secret="s", grant=rt.ClientCredentials())
        start = len(issuer.requests())

        async def main() -> None:
            async with _client().http(server.url, auth=settings, audit=None) as client:
                me = await client.whoami()
                assert me.subject == "dpop-job-1"
                await client.whoami()  # a second request: a fresh proof (a replayed one would be refused)
                token = _token(client)
                assert token["token_type"] == "DPoP"
                flow = client._session.transport.oauth
                assert claims_of(token["access_token"])["cnf"] == {"jkt": flow.dpop_key.thumbprint}
                assert flow.authorization().startswith("DPoP ")

        run_async(main())
        requests = _since(issuer, start)
        assert [(r["grant_type"], r["dpop"]) for r in requests] == [("client_credentials", True)]
    finally:
        issuer.advertise_dpop(False)
    # DPoP off in the client: a Bearer token, accepted as well
    settings = rt.OAuthSettings(client_id="dpop-job-2", client_secret="s", grant=rt.ClientCredentials(), dpop=False)

    async def plain() -> None:
        async with _client().http(server.url, auth=settings, audit=None) as client:
            assert (await client.whoami()).subject == "dpop-job-2"
            assert _token(client)["token_type"] == "Bearer"

    run_async(plain())


def test_a_refused_grant_is_raised_not_retried(server: VaultProcess, issuer: AuthServer) -> None:
    rt = _runtime()

    def broken() -> str:
        raise OSError("no token mounted")

    settings = rt.OAuthSettings(client_id="ci-runner", grant=rt.JwtBearer(assertion=broken))
    start = len(issuer.requests())

    async def main() -> None:
        with pytest.raises(Exception) as info:  # the handshake's first request already needs a token
            async with _client().http(server.url, auth=settings, audit=None) as client:
                await client.whoami()
        assert "could not read the JWT bearer assertion: OSError: no token mounted" in str(info.value)
        assert info.value.data == {"httpStatus": 401, "oauth": True}

    run_async(main())
    assert issuer.requests()[start:] == []  # nothing sent to the authorization server, nothing retried


def test_a_pinned_issuer_keeps_credentials_away_from_other_servers(server: VaultProcess, issuer: AuthServer) -> None:
    rt = _runtime()
    start = len(issuer.requests())
    elsewhere = rt.OAuthSettings(client_id="batch-job-42", client_secret="s3cret-basic", grant=rt.ClientCredentials(),
                                 issuer="https://auth.example.com")

    async def refused() -> None:
        with pytest.raises(Exception) as info:
            async with _client().http(server.url, auth=elsewhere, audit=None) as client:
                await client.whoami()
        assert "not the configured issuer https://auth.example.com: refused" in str(info.value)

    run_async(refused())
    assert issuer.requests()[start:] == []  # the secret never went to the authorization server it named
    pinned = rt.OAuthSettings(client_id="batch-job-42", client_secret="s3cret-basic", grant=rt.ClientCredentials(),
                              issuer=issuer.issuer)

    async def accepted() -> None:
        async with _client().http(server.url, auth=pinned, audit=None) as client:
            assert (await client.whoami()).subject == "batch-job-42"
            _token(client)

    run_async(accepted())
