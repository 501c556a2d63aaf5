"""End to end with real parts: a generated typed client logs in to a generated server that a
real authorization server protects.

* the authorization server: ``oauth2-mock-server`` (npm) on 127.0.0.1 through
  ``tests/support/oauth_as.mjs``: OpenID discovery, ``/authorize`` approving at once with a
  code (PKCE checked by the library), ``/token`` with the ``authorization_code`` and
  ``refresh_token`` grants, JWTs signed with its published key; no dynamic registration, so
  the client is pre-registered (``client_id`` only, ``none`` authentication);
* the server: the ``jotter`` test spec (default scope ``notes:read``; ``write_note`` needs
  ``notes:write``) generated and run as ``python -m jotter --http`` (JWKS from the issuer's
  metadata, audience = its own URL, ``--auth-clock-skew 0`` so a token's expiry is exact);
* the client: the generated ``JotterClient`` in this process, with the package's own runtime
  (``OAuthSettings.headless`` follows the authorization redirects without a browser).

Per era (2026-07-28 and 2025-11-25): the first call logs in (authorization code + PKCE S256
with ``resource``) and the handler sees the principal; a call needing a scope the token lacks
gets 403 ``insufficient_scope``, the client steps up (a second authorization for both scopes)
and the call works; the stepped-up token expires (its ``expires_in`` not advertised, so the
server's 401 is what tells) and the client refreshes it with the refresh token; a token about
to expire (``expires_in`` under the client's 30 s leeway) is refreshed before the request.
The grants are counted at the authorization server.  At the end, no token the client held
shows in the server's log (run at DEBUG) nor in the client's ``mcp_codegen`` log records.
"""

from __future__ import annotations

import importlib
import json
import logging
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from common_support import free_port, run_async
from oauth_as_support import AuthServer, VaultProcess, auth_server, claims_of

from codegen import build

PACKAGE = "jotter"
CLIENT_ID = "jotter-cli"
REDIRECT_URI = "http://127.0.0.1:8765/callback"  # never listened on: the headless handler stops there

SPEC = """\
mcp-codegen: 1
server:
  name: jotter
  version: "1.0.0"
  implementation: jotter_impl:JotterService
  auth:
    authorizationServers: [{issuer}]
    resource: {resource}
    scopes: [notes:read]
    resourceName: Jotter
tools:
  - name: whoami
    description: The caller as the handler sees it.
    inputSchema: {{type: object}}
    outputSchema:
      type: object
      properties:
        subject: {{type: string}}
        client_id: {{type: [string, "null"]}}
        scopes: {{type: array, items: {{type: string}}}}
      required: [subject, scopes]
  - name: write_note
    description: Store a note.
    scopes: [notes:write]
    inputSchema:
      type: object
      properties:
        title: {{type: string}}
      required: [title]
    outputSchema:
      type: object
      properties:
        stored: {{type: string}}
        author: {{type: string}}
      required: [stored, author]
"""

IMPL = '''\
from jotter import Context, JotterServerBase, Principal
from jotter.models import WhoamiInput, WhoamiOutput, WriteNoteInput, WriteNoteOutput


class JotterService(JotterServerBase):
    async def whoami(self, args: WhoamiInput, ctx: Context) -> WhoamiOutput:
        p = ctx.principal
        assert isinstance(p, Principal)
        return WhoamiOutput(subject=p.subject, client_id=p.client_id, scopes=sorted(p.scopes))

    async def write_note(self, args: WriteNoteInput, ctx: Context) -> WriteNoteOutput:
        assert isinstance(ctx.principal, Principal)
        return WriteNoteOutput(stored=args.title, author=ctx.principal.subject)
'''


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with auth_server() as server:
        yield server


@pytest.fixture(scope="module")
def jotter(issuer: AuthServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The generated package (built with its implementation), importable from this process."""
    out = tmp_path_factory.mktemp("jotter")
    port = free_port()
    spec = out / "jotter.yaml"
    spec.write_text(SPEC.format(issuer=json.dumps(issuer.issuer), resource=json.dumps(f"http://127.0.0.1:{port}/mcp")),
                    "utf-8")
    result, report = build([spec], out)
    assert report is not None, [d.render() for d in result.diagnostics]
    (out / "jotter_impl.py").write_text(textwrap.dedent(IMPL), "utf-8")
    (out / "port").write_text(str(port), "utf-8")
    sys.path.insert(0, str(out))
    try:
        yield out
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n.split(".")[0] in (PACKAGE, "jotter_impl")]:
            del sys.modules[name]


#: Every access and refresh token the clients held (none may show in a log).
_HELD: set[str] = set()


@pytest.fixture(scope="module")
def server(jotter: Path) -> Iterator[VaultProcess]:
    proc = VaultProcess(jotter, int((jotter / "port").read_text()), "--auth-clock-skew", "0", package=PACKAGE)
    yield proc
    log = proc.stop()
    assert "bearer token refused: expired" in log  # the reason of the expiry refusal is logged ...
    assert _HELD, "no token was seen"
    for token in _HELD:  # ... and nothing of any token
        assert token not in log, "a token reached the server log"
        if token.count(".") == 2:  # a JWT access token (refresh tokens are opaque here)
            assert token.split(".")[2] not in log, "a token signature reached the server log"


def _recording_storage() -> Any:
    """The package's memory storage, remembering every token it was given."""
    tokens = importlib.import_module("mcp_codegen_runtime.client.oauth.tokens")

    class Recording(tokens.MemoryTokenStorage):  # type: ignore[misc, name-defined]
        def save(self, key: str, entry: dict[str, Any]) -> None:
            held = entry.get("token") or {}
            _HELD.update(v for k, v in held.items() if k in ("access_token", "refresh_token") and isinstance(v, str))
            super().save(key, entry)

    return Recording()


def _since(issuer: AuthServer, start: int) -> list[dict[str, Any]]:
    return issuer.requests()[start:]


def _grants(requests: list[dict[str, Any]]) -> list[str]:
    return [r["grant_type"] if r["endpoint"] == "token" else "authorize" for r in requests]


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_login_step_up_and_refresh(server: VaultProcess, issuer: AuthServer, era: str,
                                   caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp_codegen")
    client_mod = importlib.import_module(f"{PACKAGE}.client")
    oauth_mod = importlib.import_module("mcp_codegen_runtime.client.oauth.flow")
    storage = _recording_storage()
    settings = oauth_mod.OAuthSettings.headless(client_id=CLIENT_ID, redirect_uri=REDIRECT_URI, storage=storage)
    leeway = float(oauth_mod.REFRESH_LEEWAY)
    issuer.lifetime(None)
    start = len(issuer.requests())

    def token() -> dict[str, Any]:
        entry = storage.load(server.url)
        assert entry is not None
        return dict(entry["token"])

    async def main() -> None:
        async with client_mod.JotterClient.http(server.url, auth=settings, era=era, audit=None) as client:
            # (a) the first call logs in with the default scope; the handler sees the principal
            me = await client.whoami()
            assert (me.subject, me.client_id, me.scopes) == ("johndoe", CLIENT_ID, ["notes:read"])
            login = _since(issuer, start)
            assert _grants(login) == ["authorize", "authorization_code"]
            assert login[0] == {"endpoint": "authorize", "client_id": CLIENT_ID, "scope": "notes:read",
                                "resource": server.url, "code_challenge_method": "S256"}
            assert login[1]["resource"] == server.url and login[1]["client_id"] == CLIENT_ID
            assert claims_of(token()["access_token"])["aud"] == server.url

            # (b) write_note needs notes:write: 403 insufficient_scope, a second authorization, the call works.
            # Tokens issued from now on live 3 s and do not say so (no expires_in) ...
            issuer.lifetime(3, advertise=False)
            note = await client.write_note(title="groceries")
            assert (note.stored, note.author) == ("groceries", "johndoe")
            step_up = _since(issuer, start)[len(login):]
            assert _grants(step_up) == ["authorize", "authorization_code"]
            assert step_up[0]["scope"] == "notes:read notes:write"
            stepped = token()
            assert "expires_at" not in stepped and stepped["scope"] == "notes:read notes:write"

            # (c) ... so it expires while the client holds it: the server answers 401 invalid_token,
            # the client refreshes and the call works.  The new token says it lives LEEWAY + 3 s
            issuer.lifetime(int(leeway) + 3)
            deadline = claims_of(stepped["access_token"])["exp"]
            while time.time() < deadline + 0.2:  # the server's clock skew is 0
                time.sleep(0.2)
            again = await client.write_note(title="chores")
            assert (again.stored, again.author) == ("chores", "johndoe")
            expired = _since(issuer, start)[len(login) + len(step_up):]
            assert _grants(expired) == ["refresh_token"]
            assert expired[0]["resource"] == server.url and expired[0]["client_id"] == CLIENT_ID
            refreshed = token()
            assert refreshed["access_token"] != stepped["access_token"]
            assert refreshed["refresh_token"] != stepped["refresh_token"]  # rotated by the server

            # (d) 3 s later it is within the client's leeway of its expiry: refreshed before the
            # request (the server would still accept it for LEEWAY seconds, so no 401 is involved)
            issuer.lifetime(None)
            while time.time() < refreshed["expires_at"] - leeway + 0.2:
                time.sleep(0.2)
            me = await client.whoami()
            assert me.scopes == ["notes:read", "notes:write"]  # the refresh kept the stepped-up scope
            ahead = _since(issuer, start)[len(login) + len(step_up) + len(expired):]
            assert _grants(ahead) == ["refresh_token"]
            assert token()["expires_at"] - time.time() > 3000
            # and then nothing more: the token is good for an hour
            await client.whoami()
            assert len(_since(issuer, start)) == len(login) + len(step_up) + len(expired) + len(ahead)

    try:
        run_async(main())
    finally:
        issuer.lifetime(None)
    ours = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("mcp_codegen"))
    assert "refreshed the access token" in ours
    for held in _HELD:
        assert held not in ours

