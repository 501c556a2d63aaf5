"""``agent_client`` with OAuth (issue 29 point 3): an HTTP entry of ``mcp.json`` whose server a real
authorization server protects (``oauth2-mock-server`` through ``tests/support/oauth_as.mjs``).
The first process logs in through the client's own flow (authorization code + PKCE, headless
redirect) and keeps the tokens in the token file (mode 0600); a second process finds them there
and calls without asking the authorization server again."""

from __future__ import annotations

import importlib
import json
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from common_support import free_port
from oauth_as_support import AuthServer, VaultProcess, auth_server, build_vault

CLIENT_ID = "agent-cli"
REDIRECT_URI = "http://127.0.0.1:8765/callback"  # never listened on: the headless handler stops there

SECOND_PROCESS = """
import json, sys
from pathlib import Path
from mcp_codegen_runtime.client.gencode import agent_client
from vault.client import VaultSyncClient

me = agent_client("vault", VaultSyncClient, root=Path(sys.argv[1])).whoami()
print(json.dumps([me.subject, me.client_id]))
"""


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with auth_server() as server:
        yield server


@pytest.fixture(scope="module")
def vault(issuer: AuthServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, VaultProcess]]:
    port = free_port()
    folder = build_vault(tmp_path_factory.mktemp("agent-vault"), issuer.issuer, f"http://127.0.0.1:{port}/mcp")
    proc = VaultProcess(folder, port)
    sys.path.insert(0, str(folder))
    try:
        yield folder, proc
    finally:
        sys.path.remove(str(folder))
        agent = sys.modules.get("mcp_codegen_runtime.client.agent.connect")
        if agent is not None:
            agent.close_agent_clients()
        for name in [n for n in sys.modules if n.split(".")[0] in ("vault", "vault_impl")]:
            del sys.modules[name]
        proc.stop()


def test_login_once_and_reuse_the_token_file(vault: tuple[Path, VaultProcess], issuer: AuthServer, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    folder, server = vault
    root = tmp_path / "servers"
    root.mkdir()
    entry: dict[str, Any] = {"type": "http", "url": server.url,
                             "oauth": {"client_id": "${AGENT_TEST_CLIENT_ID}", "redirect_uri": REDIRECT_URI,
                                       "headless": True}}
    (root / "mcp.json").write_text(json.dumps({"mcpServers": {"vault": entry}}), "utf-8")
    tokens = tmp_path / "state" / "oauth-tokens.json"
    for name in ("MCP_CODEGEN_SERVERS", "MCP_CODEGEN_DRIFT", "MCP_CODEGEN_CONFIRM", "MCP_CODEGEN_AUDIT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MCP_CODEGEN_TOKEN_FILE", str(tokens))
    monkeypatch.setenv("AGENT_TEST_CLIENT_ID", CLIENT_ID)
    caplog.set_level(logging.DEBUG, logger="mcp_codegen")
    agent = importlib.import_module("mcp_codegen_runtime.client.gencode")
    client_cls = importlib.import_module("vault.client").VaultSyncClient
    start = len(issuer.requests())

    client = agent.agent_client("vault", client_cls, root=root)
    me = client.whoami()
    assert (me.subject, me.client_id) == ("johndoe", CLIENT_ID)
    assert [r["endpoint"] for r in issuer.requests()[start:]] == ["authorize", "token"]
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600 and stat.S_IMODE(tokens.parent.stat().st_mode) == 0o700
    stored = json.loads(tokens.read_text("utf-8"))
    access = stored[server.url]["token"]["access_token"]
    assert access and access not in "\n".join(r.getMessage() for r in caplog.records)

    script = tmp_path / "second.py"
    script.write_text(SECOND_PROCESS, "utf-8")
    seen = len(issuer.requests())
    done = subprocess.run([sys.executable, str(script), str(root)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(folder)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["johndoe", CLIENT_ID]
    assert issuer.requests()[seen:] == []  # the token file answered: no new login
    assert access not in done.stdout + done.stderr
